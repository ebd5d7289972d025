"""rosenblatt.data.readers: one reader per format, the same in memory and streamed.

Each test names a behaviour users saw go wrong before the readers were merged
(streamed files read differently from in-memory ones, or crashed).
"""

import gzip
import io
import os
import re

import numpy as np
import pytest
import scipy.sparse as sp

from rosenblatt.data.io import read_data
from rosenblatt.data.readers import parse, read, scan
from rosenblatt.exceptions import DataFileError
from rosenblatt.streaming import index_file, iter_chunks


def write(tmp_path, name, content):
    path = tmp_path / name
    data = content.encode() if isinstance(content, str) else content
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def streamed(path, chunk_size=2, **options):
    """X and y of every chunk, stacked."""
    chunks = list(iter_chunks(path, chunk_size, **options))
    Xs, ys = [X for X, _ in chunks], [y for _, y in chunks]
    if isinstance(Xs[0], list):
        X = [doc for block in Xs for doc in block]
    else:
        X = sp.vstack(Xs, format="csr") if sp.issparse(Xs[0]) else np.vstack(Xs)
    return X, np.concatenate(ys)


def both_raise(path, fragment, **options):
    """In memory and streamed, the same error, which says ``fragment``."""
    with pytest.raises(DataFileError) as memory:
        read_data(path, **options)
    with pytest.raises(DataFileError) as stream:
        streamed(path, 1, **options)
    assert str(memory.value) == str(stream.value)
    assert fragment in str(memory.value), str(memory.value)
    return str(memory.value)


# ---------------------------------------------------------------------- svmlight index base
def _digits(tmp_path, zero_based=True):
    from sklearn.datasets import dump_svmlight_file, load_digits

    X, y = load_digits(return_X_y=True)
    assert not X[:, 0].any()  # pixel 0 is always 0: a zero-based file never has index 0
    path = tmp_path / "digits.svm"
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path, X, y


def test_digits_dumped_zero_based_reads_one_based_by_default_with_a_note(tmp_path):
    path, X, y = _digits(tmp_path)
    data = read_data(path)
    assert data.zero_based is False and data.X.shape == (1797, 63)  # shifted by one
    np.testing.assert_array_equal(data.X.toarray(), X[:, 1:])
    (note,) = data.notes
    assert "one-based" in note and "no index 0" in note
    assert "pass zero_based=True" in note and "dump_svmlight_file" in note
    assert "--zero-based" not in note  # Python's words in Python
    assert index_file(path, 100).notes == data.notes


def test_digits_with_zero_based_true_is_the_original_data(tmp_path):
    path, X, y = _digits(tmp_path)
    data = read_data(path, zero_based=True)
    assert data.zero_based is True and data.notes == []
    np.testing.assert_array_equal(data.X.toarray(), X)
    np.testing.assert_array_equal(data.y, y)
    Xs, ys = streamed(path, 500, zero_based=True)
    np.testing.assert_array_equal(Xs.toarray(), X)


def test_auto_base_looks_at_the_whole_file(tmp_path):
    # index 0 only on the last line: every chunk, even the first, is read zero-based
    lines = [f"{k % 2} {k % 5 + 1}:1 7:2" for k in range(20)] + ["1 0:3 2:1"]
    path = write(tmp_path, "late.svm", "\n".join(lines) + "\n")
    index = index_file(path, 3)
    assert index.zero_based is True and index.n_features == 8
    assert "zero-based: line 21 has index 0" in index.notes[0]
    X, _ = streamed(path, 3)
    assert X.shape == (21, 8) and X[0, 1] == 1 and X[20, 0] == 3


def test_one_based_given_with_index_zero_names_line_and_option(tmp_path):
    path = write(tmp_path, "d.svm", "1 1:1\n\n-1 0:2 3:1\n")
    message = both_raise(path, "line 3: feature index 0 is below 1", zero_based=False)
    assert "pass zero_based=True if" in message and "--" not in message  # Python's words


def test_an_index_beyond_n_features_names_the_line(tmp_path):
    path = write(tmp_path, "d.svm", "1 1:1\n-1 2:1 5:1\n1 9:1\n")
    both_raise(path, "line 2: feature index 5 is beyond n_features=4", n_features=4)
    assert read_data(path, n_features=9).X.shape == (3, 9)
    both_raise(
        path,
        "line 3: feature index 9 is beyond n_features=9 (read zero-based",
        n_features=9,
        zero_based=True,
    )


def test_qid_comments_and_blank_lines(tmp_path):
    text = "# written by hand\n\n1 qid:3 1:0.5 4:1 # first\n   \n-1 qid:3 2:2\n# end\n"
    data = read_data(write(tmp_path, "q.svm", text))
    np.testing.assert_array_equal(data.X.toarray(), [[0.5, 0, 0, 1], [0, 2, 0, 0]])
    assert data.y.tolist() == [1, -1]


# ---------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    "name, text",
    [
        ("d.svm", "0.5 1:1\n1.5 2:1\n"),
        ("d.csv", "1,2,0.5\n3,4,1.5\n"),
        ("d.tsv", "0.5\tok\n1.5\twin\n"),
    ],
)
def test_labels_that_are_not_whole_numbers_are_refused(tmp_path, name, text):
    message = both_raise(write(tmp_path, name, text), "line 1: the labels look continuous")
    assert "a classifier needs class labels" in message


@pytest.mark.parametrize(
    "name, text",
    [
        ("d.svm", "1 1:1\n1.0 2:1\n+1 1:2\n0 2:2\n"),
        ("d.csv", "1,2,1\n3,4,1.0\n5,6,+1\n7,8,0\n"),
        ("d.tsv", "1\tok\n1.0\twin\n+1\tnow\n0\tno\n"),
    ],
)
def test_equal_numbers_are_one_class_of_int64(tmp_path, name, text):
    path = write(tmp_path, name, text)
    data = read_data(path)
    assert data.y.dtype == np.int64 and data.y.tolist() == [1, 1, 1, 0]
    assert data.classes.tolist() == [0, 1]
    assert streamed(path, 3)[1].tolist() == [1, 1, 1, 0]


@pytest.mark.parametrize("label", ["nan", "inf", "-inf", "NaN"])
@pytest.mark.parametrize("fmt", ["svm", "csv", "tsv"])
def test_labels_that_are_not_finite_are_refused(tmp_path, fmt, label):
    text = {
        "svm": f"1 1:1\n{label} 2:1\n",
        "csv": f"1,2,1\n3,4,{label}\n",
        "tsv": f"1\tok\n{label}\twin\n",
    }[fmt]
    both_raise(
        write(tmp_path, f"d.{fmt}", text), f"line 2: the label '{label}' is not a finite number"
    )


@pytest.mark.parametrize("label", ["1e30", "99999999999999999999", "-9007199254740993"])
def test_labels_too_large_for_a_class_are_refused(tmp_path, label):
    for fmt, text in (("svm", f"1 1:1\n{label} 2:1\n"), ("csv", f"1,2,1\n3,4,{label}\n")):
        both_raise(
            write(tmp_path, f"d.{fmt}", text),
            f"line 2: the label '{label}' is too large for a class label",
        )


@pytest.mark.parametrize("magnitude, refused", [(2.0**53 - 1, False), (2.0**53, True)])
def test_files_and_arrays_share_one_rule_for_a_labels_magnitude(tmp_path, magnitude, refused):
    """A whole-number label is refused at 2**53 in magnitude whether it comes from a file
    or from an array given to an estimator, with the same words."""
    from rosenblatt import Perceptron

    X = np.array([[0.0, 1.0], [1.0, 0.0]])
    y = np.array([1.0, -magnitude])
    path = write(tmp_path, "d.csv", f"0,1,1\n1,0,{-magnitude:.0f}\n")
    if refused:
        says = "is too large for a class label (below 2**53 in magnitude"
        both_raise(path, says)
        with pytest.raises(ValueError, match=re.escape(says)):
            Perceptron().fit(X, y)
    else:
        assert read_data(path).classes.tolist() == [-magnitude, 1]
        assert Perceptron().fit(X, y).classes_.tolist() == [-magnitude, 1]


def test_mixed_labels_name_a_line_of_each_kind(tmp_path):
    path = write(tmp_path, "d.csv", "1,2,0\n3,4,1\n5,6,spam\n7,8,ham\n")
    both_raise(path, "line 3: the label 'spam' is text, but line 1 has the number '0'")


def test_svmlight_labels_must_be_numbers(tmp_path):
    both_raise(
        write(tmp_path, "d.svm", "1 1:2\nspam 1:1\n"), "line 2: the label 'spam' is not a number"
    )


def test_text_labels_stay_strings(tmp_path):
    data = read_data(write(tmp_path, "d.csv", "1,2,x7\n3,4,b\n"))
    assert data.y.tolist() == ["x7", "b"] and data.y.dtype.kind == "U"


# ---------------------------------------------------------------------- CSV
def test_the_header_note_of_a_wide_file_names_a_few_columns(tmp_path):
    names = [f"{j}" for j in range(58)] + ["class"]  # names like numbers: a note
    path = write(tmp_path, "d.csv", ",".join(names) + "\n" + ",".join(["1"] * 59) + "\n")
    note = read_data(path).notes[0]
    assert "(0, 1, 2, 3, 4, 5, ..." in note
    assert "59 names in all)" in note and "57" not in note


def test_a_numeric_looking_header_over_numeric_labels_is_a_header(tmp_path):
    path = write(tmp_path, "d.csv", "1,2,label\n3,4,0\n5,6,1\n7,8,1\n")
    data = read_data(path)
    assert data.feature_names == ["1", "2"] and data.X.shape == (3, 2)
    assert "line 1 read as a header (1, 2, label)" in data.notes[0]
    assert "pass header=False to read it as data" in data.notes[0]
    X, y = streamed(path, 1)
    np.testing.assert_array_equal(X, data.X)
    assert y.tolist() == [0, 1, 1] and index_file(path, 2).n_rows.tolist() == [2, 1]


def test_header_options(tmp_path):
    path = write(tmp_path, "d.csv", "1,2,0\n3,4,1\n5,6,1\n")
    assert read_data(path).X.shape == (3, 2)
    assert read_data(path, header=True).feature_names == ["1", "2"]
    assert read_data(path, header=True).X.shape == (2, 2)
    named = write(tmp_path, "n.csv", "x,y,label\n1,2,a\n")
    both_raise(named, "line 1, column 1: 'x' is not a number", header=False)
    assert read_data(named, label_column="label").y.tolist() == ["a"]
    with pytest.raises(DataFileError, match="names a column, but header=False"):
        read_data(named, label_column="label", header=False)


@pytest.mark.parametrize(
    "first, column, what",
    [
        ("1.5,,0", 2, "an empty (missing) value"),
        ("1.5,1.x,0", 2, "'1.x' is not a number"),
        (",2,label", 1, "an empty (missing) value"),
    ],
)
def test_a_first_row_that_is_neither_data_nor_a_header_is_an_error(tmp_path, first, column, what):
    path = write(tmp_path, "d.csv", f"{first}\n3,4,1\n5,6,0\n")
    message = both_raise(path, f"line 1, column {column}: {what}")
    assert "if line 1 is a header, pass header=True" in message and "--header" not in message
    assert read_data(path, header=True).X.tolist() == [[3, 4], [5, 6]]


def test_rfc4180_quoting(tmp_path):
    text = 'a,b,label\n1,"2",spam\n3,4,"eggs, ham"\n5,6,"say ""hi"""\n7,8,"two\nlines"\n9,10,spam\n'
    path = write(tmp_path, "q.csv", text)
    data = read_data(path)
    assert data.y.tolist() == ["spam", "eggs, ham", 'say "hi"', "two\nlines", "spam"]
    for chunk_size in (1, 2, 3):
        index = index_file(path, chunk_size)
        # chunks start at records: line 6 holds the end of the quoted label, not a record
        assert 6 not in index.first_lines.tolist()
        X, y = streamed(path, chunk_size)
        np.testing.assert_array_equal(X, data.X)
        assert y.tolist() == data.y.tolist()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings_bom_blank_lines_and_spaces(tmp_path, newline):
    rows = ["\ufeffx1, x2 ,label", "", " 1 , 2 , 0 ", "   ", "3,4,1"]
    path = write(tmp_path, "d.csv", newline.join(rows))  # no final newline either
    data = read_data(path)
    assert data.feature_names == ["x1", "x2"] and data.y.tolist() == [0, 1]
    np.testing.assert_array_equal(data.X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(streamed(path, 1)[0], data.X)


@pytest.mark.parametrize(
    "text, where",
    [
        ("1,2,0\n3,4,1\n5,6\n", "line 3: 2 fields, but line 1 has 3"),
        ("1,2,0\n3,4,1\n5,inf,0\n", "line 3, column 2: 'inf' is a missing or infinite value"),
        ('1,2,0\n3,"4,1\n', "line 2: a quoted field starts on this line and is not closed"),
    ],
)
def test_malformed_csv(tmp_path, text, where):
    both_raise(write(tmp_path, "d.csv", text), where)


# ------------------------------------------------------------------ columns set aside (issue 42)
ASIDE = 'id,x1,y,x2,note\nm1,1,0,2,"a, b"\nm2,3,1,4,c\nm3,5,0,6,d\n'


@pytest.mark.parametrize("compiled", [False, True])
def test_identifier_and_ignored_columns_are_no_features_every_way(tmp_path, compiled):
    """In memory, from the text chunk by chunk and from a cache, with the Python or the
    compiled parser: the same features, names and labels; the identifiers' cells kept."""
    from contextlib import nullcontext

    from rosenblatt.data.readers import _common, read_chunk

    path = write(tmp_path, "d.csv", ASIDE)
    given = {"id_columns": ["id"], "ignore": ["note"], "label_column": "y"}
    with _common.forcing_compiled() if compiled else nullcontext():
        data = read_data(path, **given)
        assert data.X.tolist() == [[1, 2], [3, 4], [5, 6]] and data.y.tolist() == [0, 1, 0]
        assert data.feature_names == ["x1", "x2"] and data.schema.aside == [0, 4]
        assert data.aside == [["m1", "a, b"], ["m2", "c"], ["m3", "d"]]
        for cache in (False, True, tmp_path / "kept"):
            index = index_file(path, 2, cache=cache, **given)
            assert index.feature_names == ["x1", "x2"] and index.aside == [0, 4]
            chunks = [read_chunk(index, c) for c in range(index.n_chunks)]
            assert np.vstack([X for X, _ in chunks]).tolist() == data.X.tolist()
            assert np.concatenate([y for _, y in chunks]).tolist() == [0, 1, 0]
        # identifiers that are numbers, no quotes: what the compiled parser would take
        numbers = write(tmp_path, "n.csv", "id,x1,y,x2\n101,1,0,2\n102,3,1,4\n103,5,0,6\n")
        index = index_file(numbers, 2, id_columns=["id"], label_column="y", cache=False)
        chunks = [read_chunk(index, c) for c in range(index.n_chunks)]
        assert np.vstack([X for X, _ in chunks]).tolist() == data.X.tolist()
    by_index = read(path, id_columns=[0, -1], label_column=2)
    assert by_index.X.tolist() == data.X.tolist() and by_index.feature_names == ["x1", "x2"]


def test_a_kept_cache_remembers_the_columns_set_aside(tmp_path):
    path = write(tmp_path, "d.csv", ASIDE)
    given = {"id_columns": ["id"], "ignore": ["note"], "label_column": "y"}
    index_file(path, 2, cache=tmp_path / "kept", **given)
    again = index_file(path, 2, cache=tmp_path / "kept", **given)  # read back from the cache
    assert again.cache is not None and again.aside == [0, 4]
    assert again.feature_names == ["x1", "x2"]
    with pytest.raises(DataFileError, match="'m1' is not a number"):  # other options: a scan
        index_file(path, 2, cache=tmp_path / "kept", label_column="y", ignore=["note"])


@pytest.mark.parametrize(
    "given, message",
    [
        ({"id_columns": ["id", 0]}, "column 'id' is set aside twice (id_columns='id' and "
         "id_columns=0); give each column once"),
        ({"id_columns": ["note"], "ignore": ["note"]}, "column 'note' is set aside twice "
         "(id_columns='note' and ignore='note')"),
        ({"id_columns": ["ID"]}, "line 1: id_columns='ID' names no column (the header's "
         "nearest name: 'id'); give a header name or a 0-based index"),
        ({"ignore": ["0"]}, "ignore='0' names no column"),  # ignore takes names only
        ({"id_columns": [5]}, "id_columns=5 is out of range for 5 columns"),
        ({"id_columns": ["id"], "header": False}, "id_columns='id' names a column, but "
         "header=False"),
    ],
)  # fmt: skip
def test_columns_set_aside_wrongly_are_refused_every_way(tmp_path, given, message):
    path = write(tmp_path, "d.csv", ASIDE)
    said = both_raise(path, message, label_column=2, **given)
    assert said.startswith(f"{path}")


def test_columns_set_aside_only_apply_to_csv(tmp_path):
    path = write(tmp_path, "d.svm", "1 1:1\n")
    for reader in (read, scan):
        with pytest.raises(DataFileError, match="only apply to CSV files"):
            reader(path, id_columns=[0])


# ---------------------------------------------------------------------- TSV
def test_tsv_rules(tmp_path):
    path = write(tmp_path, "d.tsv", "ham\tsee\tyou\r\n\n spam \tWIN\rham\tok")
    data = read_data(path)
    assert data.X == ["see\tyou", "WIN", "ok"] and data.y.tolist() == ["ham", "spam", "ham"]
    assert streamed(path, 2)[0] == data.X
    both_raise(write(tmp_path, "e.tsv", "ham\tok\n\nspam\t \n"), "line 3: empty text")


# ---------------------------------------------------------------------- gzip
@pytest.mark.parametrize(
    "name, text",
    [
        ("d.csv.gz", "x,y,label\r\n1,2,a\r\n3,4,b\r\n5,6,a\r\n"),
        ("d.svm.gz", "1 1:1\n-1 2:1\n1 1:2 2:2\n"),
        ("d.tsv.gz", "ham\tok\nspam\twin\nham\tsee you\n"),
    ],
)
def test_gzipped_files_read_like_the_plain_ones(tmp_path, name, text):
    path, plain = write(tmp_path, name, text), write(tmp_path, name[:-3], text)
    memory, expected = read_data(path), read_data(plain)
    assert memory.format == expected.format and memory.path == str(path)
    assert memory.y.tolist() == expected.y.tolist()
    index = index_file(path, 2, cache=False)  # chunks from a decompressed copy
    assert index.source != str(path) and os.path.isfile(index.source)
    cached = index_file(path, 2)  # chunks from the cache: no copy
    assert cached.source == str(path) and cached.cache is not None
    assert [y.tolist() for _, y in iter_chunks(path, index=cached)] == [
        y.tolist() for _, y in iter_chunks(path, index=index)
    ]
    X, y = streamed(path, 2)
    assert y.tolist() == expected.y.tolist()
    if isinstance(X, list):
        assert X == expected.X
    else:
        assert (sp.csr_matrix(X) != sp.csr_matrix(expected.X)).nnz == 0


def test_a_broken_gzip_file(tmp_path):
    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(b"1,2,0\n3,4,1\n")[:-6])
    with pytest.raises(DataFileError, match="not a readable gzip file"):
        read_data(path)
    with pytest.raises(DataFileError, match="not a readable gzip file"):
        index_file(path, 1)


# ---------------------------------------------------------------------- the two halves
def test_scan_then_parse_any_chunk(tmp_path):
    path = write(tmp_path, "d.csv", "a,b,y\n1,2,0\n3,4,1\n\n5,6,0\n")
    schema = scan(path, chunk_size=2)
    assert schema.header == ["a", "b", "y"] and schema.n_samples == 3
    assert schema.first_lines.tolist() == [2, 5] and schema.n_rows.tolist() == [2, 1]
    raw = path.read_bytes()
    X, y = parse(schema, raw[schema.offsets[1] : schema.offsets[2]], schema.first_lines[1])
    assert X.tolist() == [[5, 6]] and y.tolist() == [0]
    whole = read(path)
    assert whole.schema.n_rows.tolist() == [3] and whole.classes.tolist() == [0, 1]


def test_a_file_changed_after_the_scan_is_noticed(tmp_path):
    path = write(tmp_path, "d.svm", "1 1:1\n-1 2:1\n")
    index = index_file(path, 1, cache=False)
    cached = index_file(path, 1)
    path.write_text("1 1:1\n-1 2:1\n1 1:1\n")
    with pytest.raises(DataFileError, match="changed since it was scanned"):
        list(iter_chunks(path, index=index))
    # the cache holds the file as it was scanned
    assert [y.tolist() for _, y in iter_chunks(path, index=cached)] == [[1], [-1]]


def test_float32_chunks(tmp_path):
    path = write(tmp_path, "d.csv", "0.1,2,0\n3,4,1\n")
    ((X, _),) = iter_chunks(path, 5, dtype=np.float32)
    assert X.dtype == np.float32 and X[0, 0] == np.float32(0.1)


def test_other_encodings_and_invalid_bytes(tmp_path):
    path = write(tmp_path, "d.tsv", "häm\tok\nspam\twin\n".encode("latin-1"))
    with pytest.raises(DataFileError, match="line 1: not valid UTF-8"):
        read_data(path)
    assert read(path, encoding="latin-1").y.tolist() == ["häm", "spam"]


def test_options_for_another_format_are_refused(tmp_path):
    svm = write(tmp_path, "d.svm", "1 1:1\n")
    with pytest.raises(DataFileError, match="header only applies to .csv files"):
        read_data(svm, header=True)
    with pytest.raises(DataFileError, match="zero_based only applies to svmlight files"):
        read_data(write(tmp_path, "d.csv", "1,0\n"), zero_based=True)
    with pytest.raises(ValueError, match="'zero_based' argument of read must be one of True, "):
        read_data(svm, zero_based="yes")


@pytest.mark.parametrize(
    "options, message",
    [
        ({"chunk_size": 0}, "'chunk_size' argument of scan must be an int in the range [1, inf)"),
        ({"chunk_size": True}, "'chunk_size' argument of scan must be an int"),
        ({"chunk_size": 2.0}, "'chunk_size' argument of scan must be an int"),
        ({"header": 1}, "'header' argument of scan must be one of True, False, 'auto'; got 1."),
        ({"zero_based": "no"}, "'zero_based' argument of scan must be one of True, False, 'auto'"),
    ],
)
def test_reader_options_are_checked_in_the_estimators_words(tmp_path, options, message):
    """The readers' options go through the constraint check the estimators' parameters do
    (``check_args``): the same sentence, naming the function, the value and what is allowed."""
    csv = write(tmp_path, "d.csv", "1,0\n2,1\n")
    with pytest.raises(ValueError) as caught:
        scan(csv, **options)
    assert message in str(caught.value) and str(caught.value).startswith("The ")
    assert scan(csv, chunk_size=np.int64(1)).n_chunks == 2  # a numpy int is an int


def test_reading_many_lines_across_scan_blocks(tmp_path, monkeypatch):
    from rosenblatt.data.readers import _common

    rng = np.random.RandomState(0)
    X = np.round(rng.randn(500, 3), 4)
    y = rng.randint(0, 3, 500)
    out = io.StringIO()
    for row, label in zip(X, y):
        out.write(",".join(f'"{v}"' if k == 1 else str(v) for k, v in enumerate(row)))
        out.write(f",{label}\r\n")
    path = write(tmp_path, "d.csv", out.getvalue())
    monkeypatch.setattr(_common, "SCAN_BLOCK_BYTES", 97)
    data = read_data(path)
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    np.testing.assert_array_equal(streamed(path, 64)[0], X)


@pytest.mark.parametrize("n_features", [150_000, 60_000])
def test_a_few_very_wide_rows_take_memory_by_their_bytes(tmp_path, n_features):
    """4 rows of 150,000 columns (1.2 MB) once made the block reader allocate its buffer
    for ~28,000 rows (a row estimate times the columns: 31 GiB) and fail with a
    MemoryError. Lines of 60,000 columns are short enough for the compiled parser to
    keep what it read; the 150,000-column ones go to Python after it."""
    import tracemalloc

    X = (np.arange(4)[:, None] * 7 + np.arange(n_features)) % 10
    y = np.array([0, 1, 1, 0])
    text = "".join(",".join(map(str, row)) + f",{label}\n" for row, label in zip(X, y))
    path = write(tmp_path, "wide.csv", text)
    tracemalloc.start()
    try:
        data = read_data(path)
        streamed_X, streamed_y = streamed(path, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)
    np.testing.assert_array_equal(streamed_X, X)
    np.testing.assert_array_equal(streamed_y, y)


# ---------------------------------------------------------------------- hostile bytes
@pytest.mark.parametrize(
    "name, text, line, what",
    [
        ("nul.svm", b"1 1:1\n1 1:1\x00 2:3\n0 3:1\n", 2, "a NUL byte"),
        ("ff.svm", b"1 1:1\x0c2:3\n0 3:1\n", 1, "a form feed"),
        ("vt.svm", b"1 1:1\n0 3:1\x0b\n", 2, "a vertical tab"),
        ("nul.csv", b"a,b,y\n1,2\x00,1\n3,4,0\n", 2, "a NUL byte"),
        ("ff.csv", b"a,b,y\n1,2,1\n3,4\x0c,0\n", 3, "a form feed"),
        ("nul.tsv", b"ham\thello\nspam\thello\x00 world\n", 2, "a NUL byte"),
    ],
)
def test_control_bytes_inside_lines_are_refused_with_their_line(tmp_path, name, text, line, what):
    path = tmp_path / name
    path.write_bytes(text)
    with pytest.raises(DataFileError, match=f"line {line}: {what} inside a line"):
        read_data(path)
    with pytest.raises(DataFileError, match=f"line {line}: {what}"):  # the streaming scan too
        list(iter_chunks(path, chunk_size=1))


def test_text_keeps_form_feeds():
    """A form feed is whitespace in a message's text, not damage."""
    data = read_data(_write_tmp(b"ham\thello\x0cworld\nspam\tbuy now\n", ".tsv"))
    assert data.X[0] == "hello\x0cworld"


def _write_tmp(content, suffix):
    import tempfile

    handle = tempfile.NamedTemporaryFile(suffix=suffix, delete=False)
    handle.write(content)
    handle.close()
    return handle.name


@pytest.mark.parametrize("index", [2_000_000_000, 70_000_000])
def test_huge_svmlight_index_is_refused_unless_asked_for(tmp_path, monkeypatch, index):
    """Issue 15: an index of 2*10**9 made a 15 GB weight vector; now a clear error naming the
    line, and a limit that n_features= or ROSENBLATT_MAX_FEATURES raises."""
    path = tmp_path / "big.svm"
    path.write_bytes(f"1 1:1\n0 3:1 {index}:2\n".encode())
    # one-based (no index 0): the index is the feature count
    with pytest.raises(DataFileError, match=f"line 2: feature index {index} makes {index:,}"):
        read_data(path)
    assert read_data(path, n_features=index).X.shape == (2, index)
    monkeypatch.setenv("ROSENBLATT_MAX_FEATURES", str(index))
    assert read_data(path).X.shape == (2, index)
    monkeypatch.setenv("ROSENBLATT_MAX_FEATURES", "many")
    with pytest.raises(ValueError, match="ROSENBLATT_MAX_FEATURES must be a whole number"):
        read_data(path)
