"""rosenblatt.data.io: reading CSV, svmlight and labelled text, with errors that name the line."""

import numpy as np
import pytest
import scipy.sparse as sp

from rosenblatt.data.io import data_format, read_csv, read_data, read_svmlight, read_text
from rosenblatt.exceptions import DataFileError


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------- CSV
def test_csv_header_is_detected_and_label_is_last(tmp_path):
    path = write(tmp_path, "d.csv", "x1,x2,label\n-1,-1,no\n1,-1,yes\n\n-1,1,yes\n")
    data = read_data(path)
    np.testing.assert_array_equal(data.X, [[-1, -1], [1, -1], [-1, 1]])
    assert data.X.dtype == np.float64 and data.format == "csv"
    assert data.y.tolist() == ["no", "yes", "yes"] and data.feature_names == ["x1", "x2"]


def test_csv_without_header_and_integer_labels(tmp_path):
    data = read_csv(write(tmp_path, "d.csv", "0.5,2,1\n1.5,-3e-1,0\n"))
    np.testing.assert_array_equal(data.X, [[0.5, 2.0], [1.5, -0.3]])
    assert data.y.dtype == np.int64 and data.y.tolist() == [1, 0] and data.feature_names is None


def test_csv_numeric_header_label_is_still_a_header(tmp_path):
    # the features look numeric, but the label field "class" is text over numeric labels
    data = read_csv(write(tmp_path, "d.csv", "1,2,class\n3,4,0\n5,6,1\n"))
    assert data.X.shape == (2, 2) and data.y.tolist() == [0, 1]


@pytest.mark.parametrize("label_column", ["target", 0, -3, "0"])
def test_csv_label_column_by_name_or_index(tmp_path, label_column):
    path = write(tmp_path, "d.csv", "target,a,b\n1,0.5,2\n-1,3,4\n")
    data = read_data(path, label_column=label_column)
    assert data.y.tolist() == [1, -1]
    np.testing.assert_array_equal(data.X, [[0.5, 2], [3, 4]])


def test_csv_unknown_label_column_name(tmp_path):
    with pytest.raises(DataFileError, match="line 1: no column named 'nope'"):
        read_data(write(tmp_path, "d.csv", "a,b,c\n1,2,3\n"), label_column="nope")


def test_csv_prediction_input_may_lack_the_label(tmp_path):
    unlabelled = read_data(write(tmp_path, "u.csv", "1,2\n3,4\n"), labelled=None, n_features=2)
    assert unlabelled.y is None and unlabelled.X.shape == (2, 2)
    labelled = read_data(write(tmp_path, "l.csv", "1,2,0\n3,4,1\n"), labelled=None, n_features=2)
    assert labelled.y.tolist() == [0, 1]
    with pytest.raises(DataFileError, match="line 1: 4 columns, but the model expects 2"):
        read_data(write(tmp_path, "w.csv", "1,2,3,4\n"), labelled=None, n_features=2)


@pytest.mark.parametrize(
    "text, match",
    [
        ("1,2,0\n3,4,1\n5,6\n", r"line 3: 2 fields, but line 1 has 3"),
        ("a,b,y\n1,2,0\n\n3,x,1\n", r"line 4, column 'b': 'x' is not a number"),
        ("1,2,0\n3,,1\n", r"line 2, column 2: an empty \(missing\) value; fill in or drop"),
        ("1,2,0\nnan,2,1\n", r"line 2, column 1: 'nan' is a missing or infinite value"),
        ("1,2,0\n3,4,\n", r"line 2: empty label"),
        ('1,"2\n2",0\n3,4,1\n5,6\n', r"line 4: 2 fields"),  # a quoted field spans two lines
    ],
)
def test_malformed_csv_names_the_line(tmp_path, text, match):
    with pytest.raises(DataFileError, match=match) as info:
        read_data(write(tmp_path, "bad.csv", text))
    assert "bad.csv" in str(info.value)


def test_invalid_utf8_names_the_line(tmp_path):
    path = write(tmp_path, "bad.csv", b"1,2,0\n3,4,1\n\xff\xfe,1,0\n", mode="wb")
    with pytest.raises(DataFileError, match="line 3: not valid UTF-8"):
        read_data(path)


# ---------------------------------------------------------------------- svmlight
def test_svmlight_one_based_is_detected(tmp_path):
    data = read_data(write(tmp_path, "d.svm", "# comment\n-1 1:-1 2:-1\n+1 2:0.5\n"))
    assert sp.issparse(data.X) and data.zero_based is False
    np.testing.assert_array_equal(data.X.toarray(), [[-1, -1], [0, 0.5]])
    assert data.y.tolist() == [-1, 1] and data.y.dtype == np.int64


def test_svmlight_zero_based_and_padding_to_the_model(tmp_path):
    data = read_svmlight(write(tmp_path, "d.libsvm", "1 0:1 2:3\n0 1:2\n"), n_features=5)
    assert data.zero_based is True and data.X.shape == (2, 5)
    np.testing.assert_array_equal(data.X.toarray()[0], [1, 0, 3, 0, 0])


def test_svmlight_without_labels(tmp_path):
    path = write(tmp_path, "d.svmlight", "1:2 3:4\n2:1\n")
    data = read_data(path, labelled=None, zero_based=False, n_features=3)
    assert data.y is None
    np.testing.assert_array_equal(data.X.toarray(), [[2, 0, 4], [0, 1, 0]])


@pytest.mark.parametrize(
    "text, match, kwargs",
    [
        ("1 1:2\n\n# note\n1 1:2 2:x\n", r"line 4: '2:x' is not index:value", {}),
        ("1 1:2\nspam 1:1\n", r"line 2: the label 'spam' is not a number", {}),
        ("1 1:2\n0 3:1 2:1\n", r"line 2: feature index 2 after 3", {}),
        ("1 1:2\n0 2:1 2:1\n", r"line 2: feature index 2 after 2", {}),
        (
            "1 1:2\n0 1:1 9:1\n",
            r"line 2: feature index 9 is beyond n_features=3",
            {"n_features": 3},
        ),
        ("1 1:2\n0 0:1\n", r"line 2: feature index 0 is below 1", {"zero_based": False}),
        ("1 1:2\n0 1:inf\n", r"line 2: '1:inf' holds a missing or infinite value", {}),
    ],
)
def test_malformed_svmlight_names_the_line(tmp_path, text, match, kwargs):
    with pytest.raises(DataFileError, match=match):
        read_data(write(tmp_path, "bad.svm", text), **kwargs)


# ---------------------------------------------------------------------- text
def test_text_keeps_later_tabs_and_skips_blank_lines(tmp_path):
    data = read_data(write(tmp_path, "d.tsv", "ham\tsee you\tat 5\r\n\nspam\tWIN now\n"))
    assert data.X == ["see you\tat 5", "WIN now"] and data.y.tolist() == ["ham", "spam"]
    assert data.is_text and data.n_features is None


def test_text_without_labels(tmp_path):
    data = read_text(write(tmp_path, "d.tsv", "see you at 5\nWIN now\n"), labelled=None)
    assert data.y is None and data.X == ["see you at 5", "WIN now"]


@pytest.mark.parametrize(
    "text, match",
    [
        ("ham\tok\nspam WIN\n", r"line 2: no tab between label and text: 'spam WIN'"),
        ("ham\tok\n\nspam\t  \n", r"line 3: empty text after label 'spam'"),
        ("ham\tok\n\tno label\n", r"line 2: empty label"),
    ],
)
def test_malformed_text_names_the_line(tmp_path, text, match):
    with pytest.raises(DataFileError, match=match):
        read_data(write(tmp_path, "bad.tsv", text))


def test_unknown_extension_and_missing_file(tmp_path):
    with pytest.raises(DataFileError, match="unknown data format '.xlsx'"):
        data_format("scores.xlsx")
    with pytest.raises(DataFileError, match="no such data file"):
        read_data(tmp_path / "missing.csv")
    with pytest.raises(DataFileError, match="no data rows"):
        read_data(write(tmp_path, "empty.csv", "\n\n"))
