"""The compiled parsers (rosenblatt.engine.kernels.textparse) against Python and scikit-learn.

- every number they convert is the double ``float()`` gives, bit for bit;
- svmlight files read as scikit-learn's ``load_svmlight_file`` reads them;
- the compiled and the Python readers give the same data, or the same error at
  the same line, also for lines the compiled parser leaves to Python and for
  blocks whose arrays it fills up.
"""

import io
import struct

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

from rosenblatt.data.io import read_data
from rosenblatt.data.readers import _common, _csv_cells, _svmlight, scan
from rosenblatt.engine.kernels import textparse
from rosenblatt.exceptions import DataFileError
from rosenblatt.streaming import iter_chunks


@pytest.fixture
def compiled(monkeypatch):
    """Files of any size go to the compiled parsers."""
    monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)


def _python(monkeypatch):
    monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 1 << 40)


def _bits(value):
    return struct.pack("<d", value)


def _convert(text):
    buf = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return textparse.number(buf, 0, buf.shape[0])


# ---------------------------------------------------------------------- numbers
def _decimal_strings():
    digits = st.text("0123456789", min_size=0, max_size=24)
    sign = st.sampled_from(["", "-", "+"])
    exponent = st.one_of(
        st.just(""),
        st.builds(
            lambda e, s, n: f"{e}{s}{n}",
            st.sampled_from(["e", "E"]),
            sign,
            st.integers(0, 400),
        ),
    )
    point = st.builds(lambda a, b: f"{a}.{b}", digits, digits)
    mantissa = st.one_of(digits, point)
    return st.builds(lambda s, m, e: f"{s}{m}{e}", sign, mantissa, exponent)


def _check_against_float(text):
    status, value = _convert(text)
    try:
        expected = float(text)
    except ValueError:
        assert status == textparse.DEFER, text  # not a number: float() must say so
        return
    if status == textparse.OK:
        assert _bits(value) == _bits(expected), (text, value, expected)
    else:  # left to float(): more than 19 digits, or beyond the largest double
        significant = text.lstrip("+-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
        assert len(significant) > 19 or not np.isfinite(expected), text


@settings(max_examples=3000, deadline=None)
@given(_decimal_strings())
@example("0.1")
@example("-0.0")
@example("9007199254740993")  # 2**53 + 1: rounds to even
@example("2.2250738585072011e-308")  # the largest subnormal, nearly
@example("4.9406564584124654e-324")  # the smallest subnormal
@example("2.4703282292062327e-324")  # just below half of it: 0
@example("1.7976931348623157e308")
@example("1.7976931348623159e308")  # inf
@example("1e23")
@example("8.98846567431158e307")
@example(".")
@example("1e")
@example("+.e5")
def test_decimal_strings_convert_as_float_does(text):
    _check_against_float(text)


@settings(max_examples=3000, deadline=None)
@given(
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["r", ".16g", ".17g", "e"])
)
def test_printed_doubles_read_back_as_float_does(x, style):
    _check_against_float(repr(x) if style == "r" else format(x, style))


def test_numbers_that_float_reads_differently_are_deferred():
    for text in ("1_000", "inf", "-Infinity", "nan", " 1", "1 ", "0x10", "1e5.5", "--1", ""):
        assert _convert(text)[0] == textparse.DEFER, text


# ---------------------------------------------------------------------- svmlight
SVMLIGHT_CORPUS = [
    b"-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n",
    b"1 0:1 2:3\n0 1:2\n1 3:1\n",
    b"# header\n1 1:1 # trailing\n-1 2:2#tight\n",
    b"1 qid:1 3:1 7:2\n-1 qid:2 2:1\n1 qid:2\n",
    b"\n1 1:1\n\n \t\n-1 2:1\n\n",
    b"1 1:1 2:2\r\n-1 2:1\r\n",
    b"1 1:1\n-1 2:1",
    b"1 1:1   \n-1\t2:1\t\n",
    b"1 1:1\n1.0 2:1\n+1 1:2\n0 2:2\n",
    b"1\n-1 2:1\n1\n",
    b"1 1:1e-5 2:-3.25E+2 3:.5 4:7. 5:+0.0 6:-0\n0 1:1234567890123456789 2:0.30000000000000004\n",
    b"1 1:12345678901234567890123 2:1_0 3:1e-320\n0 1:1.7976931348623157e308\n",
    b"1 +3:1 007:2\n",
]


def _sklearn(content, zero_based, n_features):
    X, y = load_svmlight_file(io.BytesIO(content), zero_based=zero_based, n_features=n_features)
    return X.tocsr(), y


@pytest.mark.parametrize("content", SVMLIGHT_CORPUS)
def test_svmlight_reads_as_scikit_learn_reads(tmp_path, compiled, content):
    path = tmp_path / "d.svm"
    path.write_bytes(content.replace(b"\r\n", b"\n"))
    data = read_data(path)
    X, y = _sklearn(path.read_bytes(), data.zero_based, data.X.shape[1])
    assert data.X.shape == X.shape and data.X.dtype == X.dtype
    np.testing.assert_array_equal(data.X.indptr, X.indptr)
    np.testing.assert_array_equal(data.X.indices, X.indices)
    assert [_bits(v) for v in data.X.data] == [_bits(v) for v in X.data]
    np.testing.assert_array_equal(data.y, y.astype(np.int64))


@pytest.mark.parametrize("seed", range(3))
def test_files_scikit_learn_wrote_read_back_bit_for_bit(tmp_path, compiled, seed):
    rng = np.random.RandomState(seed)
    X = sp.random(300, 50, density=0.2, random_state=rng, format="csr")
    X.data = rng.standard_normal(X.nnz) * 10.0 ** rng.randint(-30, 30, X.nnz)
    y = rng.randint(0, 3, 300)
    path = tmp_path / "dumped.svm"
    dump_svmlight_file(X, y, str(path), zero_based=True)
    data = read_data(path, zero_based=True, n_features=50)
    expected, labels = _sklearn(path.read_bytes(), True, 50)
    assert (data.X != expected).nnz == 0
    assert data.X.data.tobytes() == expected.data.tobytes()
    np.testing.assert_array_equal(data.y, labels)


@pytest.mark.parametrize(
    "bad, line, fragment",
    [
        (b"1 1:x", 0, "'1:x' is not index:value"),
        (b"1 1:1 3", 0, "'3' is not index:value"),
        (b"1 a:1", 0, "'a:1' is not index:value"),
        (b"1 1:1 1:2", 0, "indices must increase"),
        (b"1 1:nan", 0, "missing or infinite"),
        (b"1 1:1e400", 0, "missing or infinite"),
        (b"1 2:1 99999999999:1", 0, "too large"),
        (b"1 1: 2: 3: 4: 5: 6: 7: 8:", 0, "'1:' is not index:value"),  # three bytes a feature
    ],
)
def test_errors_name_the_line_in_any_block(tmp_path, monkeypatch, bad, line, fragment):
    good = [f"{k % 2} {k % 7 + 1}:{k}.5 9:1".encode() for k in range(400)]
    for at in (0, 137, 399):
        lines = list(good)
        lines[at] = bad
        path = tmp_path / "bad.svm"
        path.write_bytes(b"\n".join(lines) + b"\n")
        messages = set()
        for parser in ("python", "compiled"):
            if parser == "compiled":
                monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)
            else:
                _python(monkeypatch)
            for block in (None, 50, 1000):
                monkeypatch.setattr(_common, "SCAN_BLOCK_BYTES", block or (1 << 20))
                with pytest.raises(DataFileError) as caught:
                    read_data(path)
                messages.add(str(caught.value))
        (message,) = messages  # one message, whatever reads it
        assert f"line {at + 1}: " in message and fragment in message, message


def test_lines_only_python_reads_and_full_arrays(tmp_path, monkeypatch):
    """An index written 1_0 goes to Python; tiny first guesses make the parser start over."""
    rng = np.random.RandomState(0)
    lines = [
        f"{rng.randint(2)} "
        + " ".join(f"{j}:{rng.randn():.3f}" for j in range(1, rng.randint(2, 30)))
        for _ in range(500)
    ]
    lines[250] = "1 1_0:2.5 20:1"
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    _python(monkeypatch)
    expected = read_data(path)
    monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)
    monkeypatch.setattr(_common.Sizes, "__init__", _tiny_sizes)
    for block in (64, 1000, 1 << 20):
        monkeypatch.setattr(_common, "SCAN_BLOCK_BYTES", block)
        got = read_data(path)
        assert (got.X != expected.X).nnz == 0 and got.X.shape == expected.X.shape
        np.testing.assert_array_equal(got.y, expected.y)
    assert expected.X[250, 9] == 2.5  # index 1_0 is 10, as int() reads it


def _tiny_sizes(self, per_record=64.0, per_token=8.0):
    self.per_record, self.per_token = 1e9, 1e9  # guesses of 64 rows: most blocks overflow


def test_unlabelled_svmlight(tmp_path, compiled):
    path = tmp_path / "u.svm"
    path.write_text("1:1 2:2\nqid:3 3:1\n\n2:5\n")
    data = read_data(path, labelled=None, zero_based=False, n_features=3)
    assert data.y is None
    np.testing.assert_array_equal(data.X.toarray(), [[1, 2, 0], [0, 0, 1], [0, 5, 0]])


# ---------------------------------------------------------------------- CSV
def _random_csv(rng, n=400, d=5, header=True):
    rows = ["a,b,c,d,e,label"] if header else []
    for i in range(n):
        cells = [repr(float(v)) for v in rng.standard_normal(d) * 10.0 ** rng.randint(-5, 5, d)]
        if i % 17 == 0:
            cells[1] = f" {cells[1]} "  # spaces around a number
        if i % 23 == 0:
            cells[2] = "1_5"  # float() reads it: 15
        if i % 29 == 0:
            cells[3] = "0.12345678901234567890123"  # more than 19 digits: float()
        if i % 31 == 0:
            cells[0] = "١٢"  # Arabic-Indic digits: float() reads them as 12
        rows.append(",".join(cells) + f",{['spam', 'ham', ' eggs '][i % 3]}")
        if i % 41 == 0:
            rows.append("   ")
    return ("\r\n".join(rows) + "\r\n").encode()


@pytest.mark.parametrize("header", [True, False])
def test_csv_compiled_reads_as_python_reads(tmp_path, monkeypatch, header):
    path = tmp_path / "d.csv"
    path.write_bytes(_random_csv(np.random.RandomState(1), header=header))
    _python(monkeypatch)
    expected = read_data(path)
    assert expected.X[0, 0] == 12.0 and expected.X[0, 2] == 15.0  # what float() reads
    monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)
    for block in (100, 4096, 1 << 20):
        monkeypatch.setattr(_common, "SCAN_BLOCK_BYTES", block)
        got = read_data(path)
        assert got.X.tobytes() == expected.X.tobytes()
        np.testing.assert_array_equal(got.y, expected.y)
        assert got.feature_names == expected.feature_names
        for chunk_size in (7, 1000):
            index = scan(path, chunk_size, cache=True)
            X = np.vstack([X for X, _ in iter_chunks(path, index=index)])
            index.close()
            assert X.tobytes() == expected.X.tobytes()


def test_csv_bad_cell_names_line_and_column_after_the_scan(tmp_path, compiled):
    rows = ["x,y,label"] + [f"{k},{k / 3},{k % 2}" for k in range(300)]
    rows[200] = "1,oops,0"
    path = tmp_path / "d.csv"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(DataFileError, match=r"line 201, column 'y': 'oops' is not a number"):
        read_data(path)


def test_svmlight_parse_of_a_chunk_checks_against_the_schema(tmp_path, compiled):
    path = tmp_path / "d.svm"
    path.write_text("1 1:1\n-1 2:1e39\n")
    schema = scan(path, 1)
    raw = path.read_bytes()
    with pytest.raises(DataFileError, match="line 2: '2:1e39' holds a missing or infinite value"):
        _svmlight.parse(schema, raw[schema.offsets[1] :], 2, np.float32)


# ---------------------------------------------------------------------- fuzzing both readers
def _both(tmp_path, monkeypatch, name, content, **options):
    """What the Python and the compiled readers make of ``content``: data or the error."""
    path = tmp_path / name
    path.write_bytes(content)
    results = []
    for threshold in (1 << 40, 0):
        monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", threshold)
        try:
            data = read_data(path, **options)
        except DataFileError as error:
            results.append(("error", str(error)))
            continue
        X = data.X.toarray() if sp.issparse(data.X) else data.X
        results.append(("data", X.tobytes(), X.shape, data.y.tolist(), data.feature_names))
    return results


_SVM_ALPHABET = "0123456789::::    \t\n\n\n\r#.e-+xq"


@settings(max_examples=400, deadline=None)
@given(st.text(_SVM_ALPHABET, max_size=80))
def test_fuzzed_svmlight_reads_the_same_either_way(tmp_path_factory, text):
    with pytest.MonkeyPatch.context() as monkeypatch:
        python, fast = _both(tmp_path_factory.mktemp("f"), monkeypatch, "f.svm", text.encode())
    assert python == fast


_CSV_ALPHABET = '0123456789,,,,..  \t\n\n\r-e+"aé\x0c\x1c_'


@settings(max_examples=400, deadline=None)
@given(st.text(_CSV_ALPHABET, max_size=80))
def test_fuzzed_csv_reads_the_same_either_way(tmp_path_factory, text):
    with pytest.MonkeyPatch.context() as monkeypatch:
        python, fast = _both(tmp_path_factory.mktemp("f"), monkeypatch, "f.csv", text.encode())
    assert python == fast


# ---------------------------------------------------------------------- the worst case fits
_DENSE_SVM = st.text("0123456789:: \t\n\r#qid", max_size=120)


@settings(max_examples=600, deadline=None)
@given(_DENSE_SVM | st.text(_SVM_ALPHABET, max_size=120), st.booleans())
@example("1:1:1:1\r\r\r\n1:", True)
@example("1:\n" * 10, False)
@example("", True)
def test_arrays_of_block_bounds_always_hold_the_block(text, labelled):
    """What the compiled parser stores never outgrows :func:`_svmlight.block_bounds` (a
    record per line, a nonzero per colon), so its second try never comes back full; and
    exactly that room holds the block as it is parsed with room to spare."""
    raw = text.encode()
    buf = np.frombuffer(raw, dtype=np.uint8)
    records, nonzeros = _svmlight.block_bounds(raw)
    n, nnz, flagged, n_deferred, *_ = _svmlight._parse_block(buf, labelled, records, nonzeros)
    assert flagged != textparse.FULL and n <= records and n_deferred <= nnz <= nonzeros
    roomy = _svmlight._parse_block(buf, labelled, len(raw) + 1, len(raw) + 1)
    assert (n, nnz, flagged, n_deferred) == roomy[:4]


_DENSE_CSV = st.text("0,,,,\n\n\r \tx\x0c", max_size=120)


@settings(max_examples=600, deadline=None)
@given(_DENSE_CSV | st.text(_CSV_ALPHABET, max_size=120), st.integers(1, 6), st.data())
@example("1\n1\n1\n1\n1", 1, -1)  # one-byte records: the most rows per byte
@example(",\n,\n,\n,", 2, -1)  # the fewest bytes a record of two fields takes
@example(",,,,\r,,,,\r,,,,", 5, 4)
@example("x\n" * 10, 1, 0)  # labels alone: no feature columns
@example("", 3, -1)
def test_arrays_of_csv_block_bounds_always_hold_the_block(text, width, label):
    """What the compiled parser stores never outgrows :func:`_csv_cells.block_bounds` (a record
    per ``width - 1`` commas and a line break, every feature cell deferred), so its second
    try never comes back full; and exactly that room holds the block as it is parsed with
    room to spare."""
    if not isinstance(label, int):  # drawn: no label, or one of the columns
        label = label.draw(st.integers(-1, width - 1))
    n_features = width - (label >= 0)
    raw = text.encode()
    buf = np.frombuffer(raw, dtype=np.uint8)
    records, cells = _csv_cells.block_bounds(len(raw), width, n_features)
    n, flagged, n_deferred, longest, X, spans, deferred = _csv_cells.parse_block(
        buf, width, label, n_features, records, cells
    )
    assert flagged != textparse.FULL and n < records and n_deferred + width <= cells
    room = (len(raw) + 1, (len(raw) + 2) * width)
    roomy = _csv_cells.parse_block(buf, width, label, n_features, *room)
    assert (n, flagged, n_deferred, longest) == roomy[:4]
    assert X[:n].tobytes() == roomy[4][:n].tobytes()
    filled = slice(0 if label >= 0 else 2, 4)  # the label's spans only where there is one
    assert np.array_equal(spans[filled, :n], roomy[5][filled, :n])
    assert np.array_equal(deferred[:n_deferred], roomy[6][:n_deferred])
