"""The same data, the same answer, whatever the block size (issue 42).

A file read whole (``read``), in chunks of 1, 7 and 100 samples (a scan and
``iter_chunks``, chunks of 7 from the binary cache) and as a ``Stream`` of 1, 7 and 100
lines, from the file and from standard input, gives the same rows, or the same error naming
the same row and column: the first bad row in file order, whatever kind of badness. Each
test here is a case users met (found by mutating inputs and feeding the same data in
different ways); ``tests/test_input_fuzz.py`` runs random ones.
"""

import gzip
import sys

import input_mutations as im
import pytest

from rosenblatt._core.config import CSV_FIELD_LIMIT
from rosenblatt.data.readers import Stream, _stream, read, scan
from rosenblatt.exceptions import DataFileError

FORMATS = {"csv": "csv", "svm": "svm", "tsv": "tsv"}


def every_way(tmp_path, fmt, content, compiled=False, **options):
    """Each way's outcome of reading ``content`` (the file is named ``<input>``)."""
    options.setdefault("labelled", True)
    case = im.Case(seed=0, fmt=fmt, content=content, options=options, compiled=compiled)
    return im.outcomes(case, tmp_path)


def the_error(tmp_path, fmt, content, **options):
    """The one error every way of reading gives (with either parser), word for word."""
    said = set()
    for compiled in (False, True):
        results = every_way(tmp_path, fmt, content, compiled=compiled, **options)
        assert {r[0] for r in results.values()} == {"error"}, results
        said |= {r[1] for r in results.values()}
    assert len(said) == 1, said
    return said.pop()


def the_data(tmp_path, fmt, content, **options):
    """The ``(X, y)`` every way of reading gives (with either parser)."""
    reference = None
    for compiled in (False, True):
        results = every_way(tmp_path, fmt, content, compiled=compiled, **options)
        reference = reference or results["whole"]
        assert reference[0] == "data", reference
        assert all(im._same(reference, result) for result in results.values()), results
    return reference[1:]


# ---------------------------------------------------------------------- the first bad row
def test_a_bad_value_before_a_ragged_row_is_the_error(tmp_path):
    """The brief's file: line 4 (field count) by default, line 3 ('abc') in blocks of 1."""
    content = b"f0,f1,f2\n1,2,3\n1,abc,3\n1,2\n4,5,6\n"
    assert the_error(tmp_path, "csv", content) == (
        "<input>, line 3, column 'f1': 'abc' is not a number"
    )


def test_a_ragged_row_before_a_bad_value_is_the_error(tmp_path):
    content = b"f0,f1,f2\n1,2,3\n1,2\n1,abc,3\n4,5,6\n"
    assert the_error(tmp_path, "csv", content) == (
        "<input>, line 3: 2 fields, but line 1 has 3; every row needs the same columns"
    )


def test_a_bad_label_before_a_ragged_row_is_the_error(tmp_path):
    assert the_error(tmp_path, "csv", b"1,2,0\n3,4,0.5\n5,6\n").startswith(
        "<input>, line 2: the labels look continuous: '0.5' is not a whole number "
        "(labels: '0', '0.5'); a classifier needs class labels"
    )
    assert the_error(tmp_path, "csv", b"1,2,0\n3,4,spam\n5,6\n7,8,1\n") == (
        "<input>, line 2: the label 'spam' is text, but line 1 has the number '0'; labels "
        "must be all numbers or all text"
    )


def test_in_one_row_the_cells_come_before_the_label(tmp_path):
    assert the_error(tmp_path, "csv", b"1,2,0\n3,x,0.5\n") == (
        "<input>, line 2, column 2: 'x' is not a number"
    )


def test_a_control_byte_after_a_bad_value_is_said_after_it(tmp_path):
    content = b"1,2,0\n3,oops,1\n5,6,1\n7,\x0c8,0\n"
    assert the_error(tmp_path, "csv", content) == (
        "<input>, line 2, column 2: 'oops' is not a number"
    )
    assert the_error(tmp_path, "csv", b"1,2,0\n3,4,1\n5,6,0.5\n7,\x008,0\n").startswith(
        "<input>, line 3: the labels look continuous"
    )


def test_invalid_utf8_after_a_ragged_row_is_said_after_it(tmp_path):
    assert the_error(tmp_path, "csv", b"1,2,0\n3,4\n\xff,6,1\n") == (
        "<input>, line 2: 2 fields, but line 1 has 3; every row needs the same columns"
    )
    assert the_error(tmp_path, "tsv", b"ham\tok\nspam\t\xffwin\nham no tab\n") == (
        "<input>, line 2: not valid UTF-8 (invalid start byte); save the file as UTF-8"
    )


@pytest.mark.parametrize(
    "content, options, said",
    [
        (  # an index below the base before a line that cannot be read
            b"1 1:1\n0 0:1\n1 1:x\n",
            {"zero_based": False},
            "<input>, line 2: feature index 0 is below 1, the first index of a one-based "
            "file; pass zero_based=True if the indices start at 0",
        ),
        (  # a line that cannot be read before an index beyond n_features
            b"1 1:1\n0 1:x\n1 9:1\n",
            {"zero_based": False, "n_features": 3},
            "<input>, line 2: '1:x' is not index:value; write each feature as index:value, "
            "e.g. 3:0.5",
        ),
        (  # a text label before indices out of order
            b"1 1:1\nspam 2:1\n1 3:1 2:1\n",
            {"zero_based": False},
            "<input>, line 2: the label 'spam' is not a number; svmlight labels are numbers "
            "(use a .csv or .tsv file for text labels)",
        ),
        (  # indices out of order before a continuous label
            b"1 1:1\n1 3:1 2:1\n0.5 1:1\n",
            {"zero_based": False},
            "<input>, line 2: feature index 2 after 3; indices must increase along a line; "
            "sort the features of each line by index, each index once",
        ),
    ],
)
def test_svmlight_the_first_bad_line_whatever_its_problem(tmp_path, content, options, said):
    assert the_error(tmp_path, "svm", content, **options) == said


def test_the_feature_limit_names_the_first_line_beyond_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSENBLATT_MAX_FEATURES", "10")
    path = tmp_path / "data.svm"
    path.write_bytes(b"1 1:1\n0 12:1\n1 2:0.5\n-1 30:1\n")
    with pytest.raises(DataFileError) as caught:
        read(path)
    assert str(caught.value) == (
        f"{path}, line 2: feature index 12 makes 12 features, more than the 10 read without "
        "asking (the weights alone would take 0.0 GiB); number the features with smaller "
        "indices, or raise the limit: n_features=30"
    )


# ---------------------------------------------------------------------- labels, one pass
def test_a_number_among_text_labels_names_both_lines(tmp_path):
    assert the_error(tmp_path, "tsv", b"ham\tok\nspam\twin\n2\tnow\n") == (
        "<input>, line 3: the label '2' is a number, but line 1 has the text 'ham'; labels "
        "must be all numbers or all text"
    )


def test_a_csv_header_is_told_by_the_next_rows_label(tmp_path):
    """``1,2,label`` is a header when the next row's label is a number, data when it is text:
    one rule a stream can follow, line by line."""
    X, y = the_data(tmp_path, "csv", b"1,2,label\n3,4,0\n5,6,1\n")
    assert X.tolist() == [[3, 4], [5, 6]] and y.tolist() == [0, 1]
    X, y = the_data(tmp_path, "csv", b"1,2,label\n3,4,spam\n")
    assert X.tolist() == [[1, 2], [3, 4]] and y.tolist() == ["label", "spam"]
    assert the_error(tmp_path, "csv", b"1,2,label\n3,4,0\n5,6,spam\n") == (
        "<input>, line 3: the label 'spam' is text, but line 2 has the number '0'; labels "
        "must be all numbers or all text"
    )
    X, y = the_data(tmp_path, "csv", b"\n\n1,2,label\n")  # one record: data
    assert y.tolist() == ["label"]


def test_a_stream_waits_for_the_next_row_only_when_it_decides(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes(b"1,2,label\n3,4,0\n5,6,1\n")
    blocks = [(d.X.tolist(), d.y.tolist()) for d in Stream(path, 1, labelled=True)]
    assert blocks == [([[3.0, 4.0]], [0]), ([[5.0, 6.0]], [1])]
    path.write_bytes(b"1,2,0\n3,4,0\n")  # a first row of numbers: answered alone
    assert [d.n_samples for d in Stream(path, 1, labelled=True)] == [1, 1]


# ---------------------------------------------------------------------- quotes
def test_a_stray_quote_in_an_unquoted_cell_is_a_character_everywhere(tmp_path):
    """Blocks of one line once cut inside the quoted cell after it: the splitter counted
    quotes, the parser took the stray one as a character."""
    content = b'1.5,ab"c,2,3\n2.5,"x\ny",1,2\n3.5,z,4,5\n'
    X, y = the_data(tmp_path, "csv", content, label_column=1)
    assert X.tolist() == [[1.5, 2, 3], [2.5, 1, 2], [3.5, 4, 5]]
    assert y.tolist() == ['ab"c', "x\ny", "z"]


def test_a_quoted_cell_after_a_byte_order_mark_is_quoted(tmp_path):
    _, y = the_data(tmp_path, "csv", b'\xef\xbb\xbf"\n-7",1,ham\n2,3,spam\n', header=False)
    assert y.tolist() == ["ham", "spam"]


# ---------------------------------------------------------------------- the field size limit
@pytest.mark.parametrize(
    "field, line, column",
    [
        ("x" * (CSV_FIELD_LIMIT + 1), 3, "'b'"),
        ('"' + "x" * (CSV_FIELD_LIMIT + 1) + '"', 3, "'b'"),
        ('"a\n' + "é" * CSV_FIELD_LIMIT + '"', 3, "'b'"),
        ('"never closed\n' + "1,2,3\n" * (CSV_FIELD_LIMIT // 6 + 1), 3, "'b'"),
    ],
)
def test_a_field_too_long_is_named_alike_at_every_block_size(tmp_path, field, line, column):
    content = f"a,b,label\n1,2,0\n3,{field},1\n5,6,1\n".encode()
    assert the_error(tmp_path, "csv", content) == (
        f"<input>, line {line}, column {column}: a field of more than {CSV_FIELD_LIMIT:,} "
        "characters, the most a CSV field may hold; check the quotes (a quoted field whose "
        "closing quote is missing runs on to the next quote), or shorten the field"
    )


def test_a_field_of_the_limit_is_read(tmp_path):
    label = "y" * CSV_FIELD_LIMIT
    _, y = the_data(tmp_path, "csv", f"1,2,{label}\n3,4,{label}\n".encode())
    assert y.tolist() == [label, label]


def test_a_line_longer_than_the_limit_of_short_fields_is_read(tmp_path):
    width = CSV_FIELD_LIMIT // 2 + 3
    row = ",".join(["1"] * width)
    X, y = the_data(tmp_path, "csv", f"{row}\n{row.replace('1', '0', 1)}\n".encode())
    assert X.shape == (2, width - 1) and y.tolist() == [1, 1]


# ---------------------------------------------------------------------- text: labelled or not
def test_a_tsv_file_is_labelled_by_its_first_line_wherever_the_first_tab_is(tmp_path):
    assert the_error(tmp_path, "tsv", b"ham hello\nspam\twin\nham\tok\n", labelled=None) == (
        "<input>, line 2: a tab, but line 1 has none: the file is read as documents, one a "
        "line, as its first line has no tab; give every line a label and a tab "
        "(label<TAB>text), or no line a tab"
    )
    assert the_error(tmp_path, "tsv", b"ham\thello\nspam win\n", labelled=None) == (
        "<input>, line 2: no tab between label and text: 'spam win'; write each record as "
        "label<TAB>text"
    )
    X, y = the_data(tmp_path, "tsv", b"\n  \nhello\nwin now\n", labelled=None)
    assert X == ["hello", "win now"] and y is None
    X, _ = the_data(tmp_path, "tsv", b"hello\nwin\tnow\n", labelled=False)  # asked: documents
    assert X == ["hello", "win\tnow"]


# ---------------------------------------------------------------------- features beyond
def test_svmlight_features_beyond_the_model_are_dropped_when_asked(tmp_path):
    content = b"1 1:0.5 55:1\n-1 2:1\n1 3:2 4:1 9:7\n"
    X, y = the_data(tmp_path, "svm", content, zero_based=False, n_features=3,
                    extra_features="ignore")  # fmt: skip
    assert X.toarray().tolist() == [[0.5, 0, 0], [0, 1, 0], [0, 0, 2]] and y.tolist() == [1, -1, 1]
    path = tmp_path / "data.svm"
    assert (
        read(path, zero_based=False, n_features=3, extra_features="ignore").schema.extra_rows == 2
    )
    blocks = Stream(path, 1, zero_based=False, n_features=3, extra_features="ignore")
    assert [d.schema.extra_rows for d in blocks] == [1, 0, 1]
    assert the_error(tmp_path, "svm", content, zero_based=False, n_features=3).startswith(
        "<input>, line 1: feature index 55 is beyond n_features=3 (read one-based"
    )


def test_extra_features_is_for_svmlight_only(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,2,0\n")
    with pytest.raises(DataFileError, match="extra_features only applies to svmlight files"):
        read(path, extra_features="ignore")
    with pytest.raises(ValueError, match="'extra_features' argument of scan must be one of"):
        scan(tmp_path / "d.csv", extra_features="drop")


# ---------------------------------------------------------------------- standard input
def test_gzipped_standard_input_in_small_reads(tmp_path, monkeypatch):
    """A pipe may hand over a few bytes at a time: a gzip stream then gives no output for
    the first reads, which once ended the input."""
    raw = gzip.compress(b"1,2,0\n3,4,1\n" * 50)
    monkeypatch.setattr(_stream, "SCAN_BLOCK_BYTES", 3)
    monkeypatch.setattr(sys, "stdin", im._Stdin(raw))
    assert sum(d.n_samples for d in Stream("-", 7, format="csv", labelled=True)) == 100
    monkeypatch.setattr(sys, "stdin", im._Stdin(raw[:-20]))  # cut short: refused as read() does
    with pytest.raises(DataFileError, match="<stdin>: not a readable gzip file"):
        list(Stream("-", 7, format="csv", labelled=True))
    two = gzip.compress(b"1,2,0\n") + gzip.compress(b"3,4,1\n")  # two members, as gzip reads
    monkeypatch.setattr(sys, "stdin", im._Stdin(two))
    assert [d.y.tolist() for d in Stream("-", 7, format="csv", labelled=True)] == [[0, 1]]


# ---------------------------------------------------------------------- memory of a long line
def test_a_line_of_millions_of_fields_takes_memory_by_its_bytes(tmp_path):
    """A 50 MB line of 13 million fields once took 2.3 GB to read (a Python string per
    field, twice over); its row takes 8 bytes a field, and reading it a few times that
    (the rows as parsed and as joined, the text), measured in a process of its own."""
    import subprocess

    n = 2_000_000
    path = tmp_path / "long.csv"
    path.write_bytes(b"0.5," * n + b"1\n" + b"0.25," * n + b"0\n")
    code = f"""
import resource, sys
import numpy as np
from rosenblatt.data.readers import compile_parsers, read
compile_parsers()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = read({str(path)!r})
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
unit = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
assert data.X.shape == (2, {n}) and data.y.tolist() == [1, 0], data.X.shape
assert np.all(data.X[0] == 0.5) and np.all(data.X[1] == 0.25)
print(grown * unit, data.X.nbytes)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    grown, rows = map(int, done.stdout.split())
    assert grown < 5 * rows, f"reading took {grown / 2**20:.0f} MiB for {rows / 2**20:.0f} MiB"


# ---------------------------------------------------------------------- columns set aside
def test_columns_set_aside_are_found_as_the_whole_file_finds_them(tmp_path):
    """Found by the fuzzer: a stream looked for ``id_columns`` in a header read with its byte
    order mark, at a line 1 the blank lines before it had moved, and not at all in a block
    whose later bytes were not UTF-8."""
    X, _ = the_data(tmp_path, "csv", b"\xef\xbb\xbfid,a,label\nk1,1,0\nk2,2,1\n", id_columns=["id"])
    assert X.tolist() == [[1], [2]]
    assert the_error(tmp_path, "csv", b"\n\nx,a,label\nk1,1,0\n", id_columns=["id"]) == (
        "<input>, line 3: id_columns='id' names no column (none of the header's 3 names is "
        "near it); give a header name or a 0-based index"
    )
    content = b"id,a,label\nk1,x,0\nk2,2,1\nk3,3,\xff1\n"
    said = the_error(tmp_path, "csv", content, id_columns=["id"])
    assert said == "<input>, line 2, column 'a': 'x' is not a number"
