"""Mutated data files read every way a file is read: the engine of the streaming-input fuzz
test (``tests/test_input_fuzz.py``) and of its long run (``benchmarks/fuzz_streaming_input.py``).

A case is a small random CSV, svmlight or label<TAB>text file (:func:`make_case`, from a
seed) with a few mutations (:data:`MUTATIONS`: bad values, ragged rows, stray quotes, line
breaks in quoted cells, fields beyond the field size limit, blank lines, control bytes,
invalid UTF-8, odd labels and indices, line endings, a byte order mark, gzip). It is read

- whole, as :func:`rosenblatt.data.readers.read` reads it (the in-memory path);
- in chunks of 1, 7 and 100 samples, as streamed training does (a scan, then
  :func:`~rosenblatt.data.readers.iter_chunks`; chunks of 7 from the binary cache);
- as :class:`~rosenblatt.data.readers.Stream` reads it for prediction, in blocks of 1, 7
  and 100 lines, from the file and from standard input;

with the compiled parsers or the Python ones, and sometimes with scan blocks of a few
bytes (lines, quoted records and ``\\r\\n`` pairs then fall across them). Every way must
give the same samples and labels, or the same error message (the same line, column and
words). :func:`check` says how the ways differ, or returns None.

Run one case: ``python tests/input_mutations.py SEED`` (prints the file and each way's
outcome).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rosenblatt._core.config import CSV_FIELD_LIMIT
from rosenblatt.data.readers import Stream, _common, _stream, iter_chunks, read, scan
from rosenblatt.exceptions import DataFileError

FORMATS = ("csv", "svm", "tsv")
CHUNK_SIZES = (1, 7, 100)
EXTENSIONS = {"csv": "csv", "svm": "svm", "tsv": "tsv"}
FORMAT_NAMES = {"csv": "csv", "svm": "svmlight", "tsv": "tsv"}
BAD_VALUES = ["abc", "", " ", "nan", "inf", "-inf", "1.x", "1e400", "0x10", "1_0", "\u0661"]
ODD_LABELS = ["0.5", "spam", "nan", "", "1e30", "+1", "1.0", " 2 ", "-0"]


@dataclass
class Case:
    """A mutated data file and the options it is read with."""

    seed: int
    fmt: str
    content: bytes
    options: dict[str, Any]
    mutations: list[str] = field(default_factory=list)
    gz: bool = False
    compiled: bool = False
    block_bytes: int | None = None

    @property
    def name(self) -> str:
        return f"data.{EXTENSIONS[self.fmt]}" + (".gz" if self.gz else "")

    def describe(self) -> str:
        shown = self.content if len(self.content) < 400 else self.content[:400] + b"..."
        return (
            f"seed {self.seed}: {self.fmt} {', '.join(self.mutations) or 'unmutated'}"
            f"{' (gzip)' if self.gz else ''}, {'compiled' if self.compiled else 'Python'} "
            f"parsers, scan blocks of {self.block_bytes or 'default'} bytes, options "
            f"{self.options}\n{shown!r}"
        )


# ---------------------------------------------------------------------- base files
def _number(rng: random.Random) -> str:
    value = rng.choice([rng.randint(-9, 9), round(rng.uniform(-5, 5), rng.randint(0, 4))])
    text = repr(value)
    return rng.choice([text, text, f" {text} ", f"{value:e}"]) if rng.random() < 0.2 else text


def _csv_file(rng: random.Random) -> tuple[list[str], dict[str, Any]]:
    n, width = rng.randint(1, 25), rng.randint(1, 4)
    if rng.random() < 0.02:  # a few lines longer than a field may be, of short fields
        n, width = rng.randint(1, 3), CSV_FIELD_LIMIT // 2 + rng.randint(-2, 2)
    texts = rng.random() < 0.4
    labels = ["ham", "spam", "eggs, ham"] if texts else ["-1", "1", "0", "2"]
    header = rng.random() < 0.5
    names = [rng.choice(["x", "f", ""]) + str(j) for j in range(width)] + ["label"]
    position = rng.choice([width, width, 0])  # the label's column
    rows = []
    for _ in range(n):
        cells = [_number(rng) for _ in range(width)]
        label = rng.choice(labels[: rng.randint(1, len(labels))] if n > 2 else labels)
        cells.insert(position, f'"{label}"' if "," in label or rng.random() < 0.1 else label)
        if rng.random() < 0.1:
            j = rng.randrange(len(cells))
            cells[j] = f'"{cells[j].strip()}"'
        rows.append(",".join(cells))
    lines = [",".join(names[:position] + [names[-1]] + names[position:-1])] if header else []
    options: dict[str, Any] = {"header": rng.choice(["auto", "auto", header])}
    if position != width:
        options["label_column"] = "label" if header and rng.random() < 0.5 else position
    if header and width > 1 and rng.random() < 0.15:  # a column set aside (an identifier)
        options["id_columns"] = [rng.choice([names[0], 0, -2])]
    if rng.random() < 0.2 and position == width:  # prediction: labelled or not by width
        options.update(labelled=None, n_features=width)
        if rng.random() < 0.5:
            rows = [row.rsplit(",", 1)[0] if '"' not in row else row for row in rows]
    return lines + rows, options


def _svm_file(rng: random.Random) -> tuple[list[str], dict[str, Any]]:
    n, width = rng.randint(1, 25), rng.randint(1, 12)
    zero = rng.random() < 0.3
    lines = ["# written by a test"] if rng.random() < 0.2 else []
    for _ in range(n):
        k = rng.randint(0, min(width, 5))
        indices = sorted(rng.sample(range(width), k))
        tokens = [f"{j + (0 if zero else 1)}:{_number(rng).strip()}" for j in indices]
        if rng.random() < 0.1:
            tokens.insert(0, f"qid:{rng.randint(1, 3)}")
        label = rng.choice(["-1", "1", "+1", "0", "2"])
        tail = "  # note" if rng.random() < 0.1 else ""
        lines.append(" ".join([label, *tokens]) + tail)
    options = {
        "zero_based": zero,
        "n_features": width + rng.choice([0, 0, 0, 1, -1]),
        "extra_features": rng.choice(["error", "ignore"]),
    }
    if options["n_features"] < 1:
        options["n_features"] = 1
    return lines, options


def _tsv_file(rng: random.Random) -> tuple[list[str], dict[str, Any]]:
    n = rng.randint(1, 25)
    words = "free win prize cash lecture notes lunch home".split()
    labelled = rng.random() < 0.8
    labels = ["ham", "spam"] if rng.random() < 0.7 else ["0", "1", "+1"]
    lines = []
    for _ in range(n):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.1:
            text += "\tmore"
        lines.append(f"{rng.choice(labels)}\t{text}" if labelled else text.replace("\t", " "))
    options = {"labelled": rng.choice([True, None]) if labelled else rng.choice([None, False])}
    return lines, options


# ---------------------------------------------------------------------- mutations
def _any_line(rng, lines):
    return rng.randrange(len(lines)) if lines else None


def _cells(line: str, fmt: str) -> list[str]:
    return line.split("," if fmt == "csv" else ("\t" if fmt == "tsv" else " "))


def _join(cells: list[str], fmt: str) -> str:
    return ("," if fmt == "csv" else ("\t" if fmt == "tsv" else " ")).join(cells)


def _set_cell(rng, lines, fmt, make):
    k = _any_line(rng, lines)
    if k is None:
        return
    cells = _cells(lines[k], fmt)
    j = rng.randrange(len(cells))
    cells[j] = make(cells[j])
    lines[k] = _join(cells, fmt)


def bad_value(rng, lines, fmt):
    value = rng.choice(BAD_VALUES)
    if fmt == "svm":
        _set_cell(rng, lines, fmt, lambda c: c.split(":")[0] + ":" + value if ":" in c else value)
    else:
        _set_cell(rng, lines, fmt, lambda c: value)


def ragged(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is None:
        return
    cells = _cells(lines[k], fmt)
    if len(cells) > 1 and rng.random() < 0.5:
        del cells[rng.randrange(len(cells))]
    else:
        cells.insert(rng.randrange(len(cells) + 1), _number(rng))
    lines[k] = _join(cells, fmt)


def stray_quote(rng, lines, fmt):
    def insert(cell):
        at = rng.randint(1, max(len(cell), 1))
        return cell[:at] + '"' + cell[at:]

    _set_cell(rng, lines, fmt, insert)


def quoted_break(rng, lines, fmt):
    def wrap(cell):
        inner = cell.strip().strip('"') or "x"
        at = rng.randint(0, len(inner))
        return '"' + inner[:at] + rng.choice(["\n", "\r\n", "\n\n"]) + inner[at:] + '"'

    _set_cell(rng, lines, fmt, wrap)


def unclosed_quote(rng, lines, fmt):
    _set_cell(rng, lines, fmt, lambda c: '"' + c)


def huge_field(rng, lines, fmt):
    size = CSV_FIELD_LIMIT + rng.choice([-1, 0, 1, 2, 1000])
    body = rng.choice(["7", "x", "é"]) * size
    _set_cell(rng, lines, fmt, lambda c: rng.choice([body, f'"{body}"', f'"a\n{body}"']))


def blank_lines(rng, lines, fmt):
    for _ in range(rng.randint(1, 3)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(["", "  ", "\t", " \t "]))


def control_byte(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is not None:
        at = rng.randint(0, len(lines[k]))
        lines[k] = lines[k][:at] + rng.choice(["\x00", "\x0c", "\x0b"]) + lines[k][at:]


def odd_label(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is None:
        return
    label = rng.choice(ODD_LABELS)
    if fmt == "csv":
        cells = lines[k].split(",")
        cells[-1] = label
        lines[k] = ",".join(cells)
    elif fmt == "svm":
        head, _, rest = lines[k].partition(" ")
        lines[k] = f"{label or 'x'} {rest}"
    else:
        lines[k] = label + "\t" + lines[k].partition("\t")[2]


def header_like(rng, lines, fmt):
    """A first record that may be a header: names like numbers, a text label."""
    if fmt == "csv" and lines:
        width = len(lines[-1].split(","))
        lines.insert(0, ",".join([str(j) for j in range(width - 1)] + ["label"]))


def svm_index(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is None or fmt != "svm":
        return
    token = rng.choice(["0:1", "-1:2", "a:1", "3", "99:1", "2000000000:1", "1:1 1:2", "5:1 2:1"])
    lines[k] += " " + token


def tab_change(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is None or fmt != "tsv":
        return
    if "\t" in lines[k] and rng.random() < 0.6:
        lines[k] = lines[k].replace("\t", " ", 1)
    else:
        lines[k] = rng.choice(["", "ham", " "]) + "\t" + rng.choice(["", "text", " "])


def duplicate_line(rng, lines, fmt):
    k = _any_line(rng, lines)
    if k is not None:
        lines.insert(rng.randint(0, len(lines)), lines[k])


MUTATIONS = {
    "bad-value": bad_value,
    "ragged": ragged,
    "stray-quote": stray_quote,
    "quoted-break": quoted_break,
    "unclosed-quote": unclosed_quote,
    "huge-field": huge_field,
    "blank-lines": blank_lines,
    "control-byte": control_byte,
    "odd-label": odd_label,
    "header-like": header_like,
    "svm-index": svm_index,
    "tab-change": tab_change,
    "duplicate-line": duplicate_line,
}
# how likely each is, by format (a huge field makes a slow case)
WEIGHTS = {
    "csv": {
        "bad-value": 1,
        "ragged": 1,
        "stray-quote": 2,
        "quoted-break": 2,
        "unclosed-quote": 0.5,
        "huge-field": 0.15,
        "blank-lines": 1,
        "control-byte": 0.5,
        "odd-label": 1,
        "header-like": 1,
        "duplicate-line": 0.5,
    },
    "svm": {
        "bad-value": 1,
        "ragged": 0.5,
        "blank-lines": 1,
        "control-byte": 0.5,
        "odd-label": 1,
        "svm-index": 2,
        "duplicate-line": 0.5,
        "huge-field": 0.05,
    },
    "tsv": {
        "bad-value": 0.5,
        "stray-quote": 0.5,
        "quoted-break": 0.5,
        "blank-lines": 1,
        "control-byte": 0.5,
        "odd-label": 1,
        "tab-change": 2,
        "duplicate-line": 0.5,
    },
}


def make_case(seed: int) -> Case:
    """The case of ``seed``: a base file of a random format and 0 to 3 mutations."""
    rng = random.Random(seed)
    fmt = FORMATS[seed % len(FORMATS)]
    lines, options = {"csv": _csv_file, "svm": _svm_file, "tsv": _tsv_file}[fmt](rng)
    options.setdefault("labelled", True)  # (the readers' default, where Stream's is None)
    weights = WEIGHTS[fmt]
    chosen = rng.choices(list(weights), list(weights.values()), k=rng.choice([0, 1, 2, 2, 3, 4]))
    for name in chosen:
        MUTATIONS[name](rng, lines, fmt)
    newline = rng.choice(["\n", "\n", "\n", "\r\n", "\r"])
    text = newline.join(lines) + (newline if rng.random() < 0.8 else "")
    content = text.encode("utf-8")
    if rng.random() < 0.05:
        content = b"\xef\xbb\xbf" + content
        chosen.append("bom")
    if rng.random() < 0.05 and content:
        at = rng.randrange(len(content))
        content = content[:at] + b"\xff" + content[at:]
        chosen.append("bad-utf8")
    return Case(
        seed=seed,
        fmt=fmt,
        content=content,
        options=options,
        mutations=chosen,
        gz=rng.random() < 0.1,
        compiled=rng.random() < 0.5,
        block_bytes=rng.choice([None, None, None, 5, 17, 64]),
    )


# ---------------------------------------------------------------------- reading
def _outcome(read_it, path):
    """``("data", X, y)`` of a way of reading, or ``("error", message)`` (the file named
    ``<input>`` whatever way named it)."""
    try:
        X, y = read_it()
    except DataFileError as error:
        return "error", str(error).replace(str(path), "<input>").replace("<stdin>", "<input>")
    return "data", X, y


def stack(blocks):
    """``(X, y)`` of ``(X, y)`` blocks put together (documents, CSR or dense rows)."""
    import scipy.sparse as sp

    if not blocks:
        return None, None
    Xs, ys = [X for X, _ in blocks], [y for _, y in blocks]
    if isinstance(Xs[0], list):
        X = [doc for block in Xs for doc in block]
    elif sp.issparse(Xs[0]):
        X = sp.vstack(Xs, format="csr")
    else:
        X = np.vstack(Xs)
    return X, None if ys[0] is None else np.concatenate(ys)


def _whole(path, options):
    data = read(path, **options)
    return data.X, data.y


def _chunks(path, options, chunk_size, cache):
    schema = scan(path, chunk_size, cache=cache, **options)
    try:
        return stack(list(iter_chunks(path, index=schema)))
    finally:
        schema.close()


def _stream_options(fmt, options):
    stream = dict(options)
    stream.pop("names", None)
    return stream


def _streamed(path, options, chunk_size, fmt):
    blocks = [(d.X, d.y) for d in Stream(path, chunk_size, **_stream_options(fmt, options))]
    return stack(blocks)


class _Stdin:
    """Standard input for one read: its bytes, with no file descriptor."""

    def __init__(self, raw):
        self.buffer = io.BytesIO(raw)


def _from_stdin(raw, options, chunk_size, fmt):
    before = sys.stdin
    sys.stdin = _Stdin(raw)  # type: ignore[assignment]
    try:
        options = dict(_stream_options(fmt, options), format=FORMAT_NAMES[fmt])
        return stack([(d.X, d.y) for d in Stream("-", chunk_size, **options)])
    finally:
        sys.stdin = before


@contextlib.contextmanager
def _reading_as(case):
    """The parsers and the scan block size of ``case``, in this thread."""
    before = (_common.SCAN_BLOCK_BYTES, _stream.SCAN_BLOCK_BYTES)
    if case.block_bytes:
        _common.SCAN_BLOCK_BYTES = _stream.SCAN_BLOCK_BYTES = case.block_bytes
    try:
        with _common.forcing_compiled() if case.compiled else contextlib.nullcontext():
            yield
    finally:
        _common.SCAN_BLOCK_BYTES, _stream.SCAN_BLOCK_BYTES = before


def write(case: Case, folder: Path) -> tuple[Path, bytes]:
    """The case's file in ``folder``, and the bytes of it (gzipped or not)."""
    raw = gzip.compress(case.content, mtime=0) if case.gz else case.content
    path = folder / case.name
    path.write_bytes(raw)
    return path, raw


def outcomes(case: Case, folder: Path) -> dict[str, tuple]:
    """Every way's outcome of reading ``case`` (written in ``folder``)."""
    path, raw = write(case, folder)
    options, fmt = case.options, case.fmt
    ways = {"whole": lambda: _whole(path, options)}
    for size in CHUNK_SIZES:
        ways[f"chunks of {size}"] = lambda s=size: _chunks(path, options, s, s == 7 or None)
        ways[f"stream of {size}"] = lambda s=size: _streamed(path, options, s, fmt)
        ways[f"stdin of {size}"] = lambda s=size: _from_stdin(raw, options, s, fmt)
    with _reading_as(case):
        return {name: _outcome(way, path) for name, way in ways.items()}


def _same(a, b) -> bool:
    import scipy.sparse as sp

    if a[0] != b[0]:
        return False
    if a[0] == "error":
        return a[1] == b[1]
    (X1, y1), (X2, y2) = a[1:], b[1:]
    if isinstance(X1, list) or isinstance(X2, list):
        same_X = X1 == X2
    elif sp.issparse(X1) or sp.issparse(X2):
        same_X = (
            sp.issparse(X1) and sp.issparse(X2) and X1.shape == X2.shape and (X1 != X2).nnz == 0
        )
    else:
        same_X = X1.shape == X2.shape and X1.dtype == X2.dtype and np.array_equal(X1, X2)
    if y1 is None or y2 is None:
        return same_X and y1 is None and y2 is None
    return same_X and y1.dtype.kind == y2.dtype.kind and np.array_equal(y1, y2)


def check(case: Case, folder: Path) -> tuple[str, str | None]:
    """``(verdict, why)``: ``"data"`` or ``"error"`` when every way of reading ``case``
    (written in ``folder``) gave the same samples or the same error, else ``"failed"`` and
    how the ways differ, or the exception that is no
    :class:`~rosenblatt.exceptions.DataFileError` (a crash)."""
    try:
        results = outcomes(case, folder)
    except Exception as exc:  # noqa: BLE001 (a crash is what the fuzzer looks for)
        return "failed", f"crash: {type(exc).__name__}: {exc}"
    reference = results["whole"]
    differ = [name for name, result in results.items() if not _same(reference, result)]
    if not differ:
        return reference[0], None
    said = [f"whole: {_shown(reference)}"]
    said += [f"{name}: {_shown(results[name])}" for name in differ]
    return "failed", "; ".join(said)


def _shown(result) -> str:
    if result[0] == "error":
        return result[1][:300]
    X, y = result[1:]
    n = len(X) if isinstance(X, list) else X.shape[0]
    return f"{n} rows, y={None if y is None else y.tolist()[:8]}"


if __name__ == "__main__":  # reproduce one case
    import tempfile

    case = make_case(int(sys.argv[1]))
    print(case.describe())
    with tempfile.TemporaryDirectory() as scratch:
        for name, result in outcomes(case, Path(scratch)).items():
            print(f"{name:>16}: {_shown(result)}")
