"""Every tricky file reads the same in memory and streamed, or fails the same way.

For each file of a corpus (a table of cases per format) and several chunk sizes,
``read_data`` and the concatenation of ``iter_chunks`` must give the same ``X``
(shape, values; dense for CSV, CSR for svmlight, the documents for text), the
same ``y`` (values and dtype kind) and the same classes -- or the same error
message (same line). The file is read in memory with the default scan block, and
streamed both with it and with tiny blocks, so that lines, CRLF pairs and quoted
records also fall across blocks; streamed from the text and from the binary
cache. Every case runs with the Python parsers (what small files get) and with
the compiled ones (what large files get): both must give the same everywhere.
"""

import gzip
import io

import numpy as np
import pytest
import scipy.sparse as sp
from input_mutations import stack

from rosenblatt.data.io import read_data
from rosenblatt.data.readers import _common, scan
from rosenblatt.exceptions import DataFileError
from rosenblatt.streaming import iter_chunks

CHUNK_SIZES = (1, 2, 3, 7, 1000)
BLOCK_BYTES = (None, 5)  # the default, and a few bytes (lines split across blocks)


def _digits_zero_based():
    """scikit-learn's digits, dumped zero-based: pixel 0 is never set, so no index 0."""
    from sklearn.datasets import dump_svmlight_file, load_digits

    X, y = load_digits(return_X_y=True)
    out = io.BytesIO()
    dump_svmlight_file(X[:40], y[:40], out, zero_based=True)
    return out.getvalue()


def _dumped_with_comment():
    from sklearn.datasets import dump_svmlight_file

    rng = np.random.RandomState(0)
    X = np.where(rng.rand(12, 5) < 0.5, 0, np.round(rng.randn(12, 5), 3))
    X[:, 0] = 0  # feature 0 never set
    out = io.BytesIO()
    dump_svmlight_file(X, rng.randint(0, 3, 12), out, comment="made in a test")
    return out.getvalue()


def _many_csv():
    rng = np.random.RandomState(1)
    rows = []
    for i in range(60):
        a, b = np.round(rng.randn(2), 4)
        label = ["yes", '"no, thanks"', '"multi\nline"'][i % 3]
        rows.append(f'{a},"{b}",{label}')
    return ("x1,x2,answer\r\n" + "\r\n".join(rows) + "\r\n").encode()


def _many_svm():
    rng = np.random.RandomState(2)
    lines = []
    for i in range(50):
        cols = np.sort(rng.choice(30, size=rng.randint(0, 6), replace=False)) + 1
        tokens = " ".join(f"{c}:{rng.randn():.5f}" for c in cols)
        lines.append(f"{rng.choice([-1, 1])} {tokens}" + ("  # note" if i % 7 == 0 else ""))
        if i % 11 == 0:
            lines.append("")
    return ("\n".join(lines) + "\n").encode()


def _many_tsv():
    rng = np.random.RandomState(3)
    words = "free win prize cash lecture notes lunch home".split()
    lines = [f"{['ham', 'spam'][i % 2]}\t{' '.join(rng.choice(words, 4))}" for i in range(45)]
    return ("\r\n".join(lines)).encode()


CSV = [
    ("plain", b"1,2,0\n3,4,1\n5,6,0\n", {}),
    ("header-text-labels", b"x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n", {}),
    ("numeric-named-header", b"1,2,label\n3,4,0\n5,6,1\n7,8,1\n", {}),
    ("numeric-header-integers", b"0,1,2,y\n0.5,1,2,1\n3,4,5,0\n", {}),
    ("label-by-name", b"a,target,b\n1,0,2\n3,1,4\n5,1,6\n", {"label_column": "target"}),
    ("label-index-0", b"1,0.5,2\n-1,3,4\n1,5,6\n", {"label_column": 0}),
    ("label-negative", b"0.5,1,2\n3,-1,4\n", {"label_column": -2}),
    ("quoted-comma-label", b'1,2,"a,b"\n3,4,c\n5,6,"a,b"\n', {}),
    ("quoted-numbers", b'"1","2",0\n"3", "4",1\n', {}),
    ("doubled-quotes", b'1,2,"say ""hi"""\n3,4,plain\n', {}),
    ("quoted-newline-label", b'1,2,"two\nlines"\n3,4,one\n5,6,"two\nlines"\n7,8,one\n', {}),
    ("crlf", b"x,y,label\r\n1,2,0\r\n3,4,1\r\n", {}),
    ("cr-only", b"x,y,label\r1,2,0\r3,4,1\r5,6,1\r", {}),
    ("bom-header", b"\xef\xbb\xbfx,y,label\n1,2,0\n3,4,1\n", {}),
    ("bom-no-header", b"\xef\xbb\xbf1,2,0\n3,4,1\n", {}),
    ("gzip", b"1,2,0\n3,4,1\n5,6,0\n", {"gz": True}),
    ("gzip-crlf-header", b"a,b,c\r\n1,2,x\r\n3,4,y\r\n", {"gz": True}),
    ("blank-lines", b"\n1,2,0\n\n   \n3,4,1\n\t\n5,6,0\n\n", {}),
    ("surrounding-spaces", b" 1 , 2 , 0 \n3,4 ,1  \n", {}),
    ("no-final-newline", b"1,2,0\n3,4,1", {}),
    ("one-class-numbers", b"1,2,1\n3,4,1.0\n5,6,+1\n7,8,0\n", {}),
    ("minus-plus-one", b"1,2,-1\n3,4,+1\n", {}),
    ("unlabelled", b"1,2\n3,4\n", {"labelled": None, "n_features": 2}),
    ("labelled-detected", b"1,2,0\n3,4,1\n", {"labelled": None, "n_features": 2}),
    ("header-true", b"1,2,0\n3,4,1\n5,6,1\n", {"header": True}),
    ("many-quoted-crlf", _many_csv(), {}),
    ("ragged", b"1,2,0\n3,4,1\n5,6\n", {}),
    ("not-a-number", b"a,b,y\n1,2,0\n\n3,x,1\n", {}),
    ("empty-cell", b"1,2,0\n3,,1\n", {}),
    ("nan-feature", b"1,2,0\nnan,2,1\n", {}),
    ("inf-feature", b"1,2,0\n3,4,1\n5,-inf,0\n", {}),
    ("continuous-labels", b"1,2,0.5\n3,4,1.5\n", {}),
    ("nan-label", b"1,2,0\n3,4,nan\n", {}),
    ("huge-label", b"1,2,0\n3,4,1e30\n", {}),
    ("huge-integer-label", b"1,2,0\n3,4,99999999999999999999\n", {}),
    ("mixed-labels", b"1,2,0\n3,4,1\n5,6,spam\n", {}),
    ("empty-label", b"1,2,0\n3,4,\n", {}),
    ("first-row-missing", b"1.5,,0\n3,4,1\n", {}),
    ("first-row-typo", b"1.5,1.x,0\n3,4,1\n", {}),
    ("unterminated-quote", b'1,2,0\n3,4,"open\n5,6,1\n', {}),
    ("strict-quote-in-field", b'1,2,0\n3,4"x",1\n', {}),
    ("bad-utf8", b"1,2,0\n3,4,1\n\xff\xfe,1,0\n", {}),
    ("nul-byte", b"1,2,0\n3,\x004,1\n", {}),
    ("header-only", b"a,b,label\n", {}),
    ("empty", b"\n\n", {}),
    ("no-header-forced", b"x,y,label\n1,2,0\n", {"header": False}),
    ("unknown-label-column", b"a,b,c\n1,2,3\n", {"label_column": "nope"}),
    ("wrong-width-for-model", b"1,2,3,4\n", {"labelled": None, "n_features": 2}),
]

SVM = [
    ("one-based", b"-1 1:-1 2:-1\n1 1:1 2:-1\n1 1:-1 2:1\n1 1:1 2:1\n", {}),
    ("zero-based", b"1 0:1 2:3\n0 1:2\n1 3:1\n", {}),
    ("digits-zero-based-auto", _digits_zero_based(), {}),
    ("digits-zero-based-given", _digits_zero_based(), {"zero_based": True}),
    ("one-based-given", b"1 1:1\n-1 3:2\n", {"zero_based": False}),
    ("zero-given-one-based", b"1 1:1\n-1 0:2\n", {"zero_based": False}),
    ("comments", b"# header\n# more\n1 1:1 # trailing\n-1 2:2#tight\n# end\n", {}),
    ("qid", b"1 qid:1 3:1 7:2\n-1 qid:2 2:1\n1 qid:2\n", {}),
    ("blank-lines", b"\n1 1:1\n\n \t\n-1 2:1\n\n", {}),
    ("crlf", b"1 1:1 2:2\r\n-1 2:1\r\n", {}),
    ("cr-only", b"1 1:1 2:2\r-1 2:1\r1 3:1\r", {}),
    ("bom", b"\xef\xbb\xbf1 1:1\n-1 2:1\n", {}),
    ("gzip", b"1 1:1\n-1 2:1\n1 1:0.5 2:0.5\n", {"gz": True}),
    ("gzip-zero-based", b"1 0:1\n-1 2:1\n", {"gz": True}),
    ("no-final-newline", b"1 1:1\n-1 2:1", {}),
    ("trailing-spaces", b"1 1:1   \n-1\t2:1\t\n", {}),
    ("one-class-numbers", b"1 1:1\n1.0 2:1\n+1 1:2\n0 2:2\n", {}),
    ("label-only-lines", b"1\n-1 2:1\n1\n", {}),
    ("padded-n-features", b"1 1:1\n-1 2:1\n", {"n_features": 5}),
    ("unlabelled", b"1:1 2:2\n3:1\n", {"labelled": None, "zero_based": False, "n_features": 3}),
    ("labelled-detected", b"1 1:1\n0 3:1\n", {"labelled": None}),
    ("sklearn-comment", _dumped_with_comment(), {}),
    ("many", _many_svm(), {}),
    ("continuous-labels", b"0.5 1:1\n1.5 2:1\n", {}),
    ("nan-label", b"1 1:1\nnan 2:1\n", {}),
    ("inf-label", b"1 1:1\n-inf 2:1\n", {}),
    ("huge-label", b"1 1:1\n1e30 2:1\n", {}),
    ("huge-integer-label", b"1 1:1\n99999999999999999999 2:1\n", {}),
    ("text-label", b"1 1:2\nspam 1:1\n", {}),
    ("bad-value", b"1 1:2\n\n# note\n1 1:2 2:x\n", {}),
    ("no-colon", b"1 1:2\n-1 1:1 2\n", {}),
    ("bad-first-token", b"1 1:2\n-1 a:1\n", {}),
    ("not-increasing", b"1 1:2\n0 3:1 2:1\n", {}),
    ("duplicate-index", b"1 1:2\n0 2:1 2:1\n", {}),
    ("nan-value", b"1 1:1\n-1 2:1\n1 3:nan\n", {}),
    ("inf-value", b"1 1:2\n0 1:inf\n", {}),
    ("beyond-n-features", b"1 1:2\n0 1:1 9:1\n", {"n_features": 3}),
    ("negative-index", b"1 1:2\n0 -1:1\n", {}),
    ("qid-misplaced", b"1 1:1 qid:2\n", {}),
    ("empty", b"", {}),
    ("only-comments", b"# nothing\n\n# here\n", {}),
]

TSV = [
    ("basic", b"ham\tsee you at 5\nspam\tWIN a prize now\n", {}),
    ("more-tabs", b"ham\tsee you\tat 5\nspam\tWIN\t\tnow\n", {}),
    ("crlf", b"ham\tsee you\r\nspam\twin\r\n", {}),
    ("cr-only", b"ham\tsee you\rspam\twin\rham\tok\r", {}),
    ("bom", b"\xef\xbb\xbfham\tok\nspam\twin\n", {}),
    ("gzip", b"ham\tok\nspam\twin\n", {"gz": True}),
    ("gzip-crlf", b"ham\tok\r\nspam\twin\r\n", {"gz": True}),
    ("blank-lines", b"\nham\tok\n\n   \n\t\nspam\twin\n\n", {}),
    ("no-final-newline", b"ham\tok\nspam\twin", {}),
    ("label-spaces", b" ham \tok\nspam  \twin\n", {}),
    ("numeric-labels", b"0\tok\n1\twin\n", {}),
    ("one-class-numbers", b"1\tok\n1.0\twin\n+1\tnow\n0\tno\n", {}),
    ("minus-plus-one", b"-1\tok\n+1\twin\n", {}),
    ("unicode", "ham\tsee you 😊\nspäm\tgewinn €\n".encode(), {}),
    ("not-line-breaks", "ham\tform\x0cfeed\nspam\tline\u2028sep\n".encode(), {}),
    ("quotes", b'ham\t"quoted" text\nspam\tit\'s\n', {}),
    ("unlabelled-detected", b"see you at 5\nWIN now\n", {"labelled": None}),
    ("labelled-detected", b"ham\tok\nspam\twin\n", {"labelled": None}),
    ("unlabelled", b"see\tyou\nwin\n", {"labelled": False}),
    ("many", _many_tsv(), {}),
    ("continuous-labels", b"0.5\tok\n1.5\twin\n", {}),
    ("nan-label", b"1\tok\nnan\twin\n", {}),
    ("huge-label", b"1\tok\n1e30\twin\n", {}),
    ("mixed-labels", b"1\tok\nspam\twin\n0\tno\n", {}),
    ("no-tab", b"ham\tok\nspam WIN\n", {}),
    ("empty-label", b"ham\tok\n\tno label\n", {}),
    ("space-label", b"ham\tok\n  \tno label\n", {}),
    ("empty-text", b"ham\tok\n\nspam\t  \n", {}),
    ("empty-text-at-end", b"ham\tok\nspam\t", {}),
    ("bad-utf8", b"ham\tfine\nspam\t\xff\xfe\n", {}),
    ("empty", b"", {}),
    ("only-blank", b"\n \n\t\n", {}),
]

CORPUS = (
    [("csv", *case) for case in CSV]
    + [("svm", *case) for case in SVM]
    + [("tsv", *case) for case in TSV]
)


def test_the_corpus_has_thirty_files_per_format():
    for fmt in ("csv", "svm", "tsv"):
        assert sum(case[0] == fmt for case in CORPUS) >= 30


def _write(tmp_path, ext, content, gz):
    path = tmp_path / f"data.{ext}{'.gz' if gz else ''}"
    path.write_bytes(gzip.compress(content) if gz else content)
    return path


def _memory(path, options):
    try:
        data = read_data(path, **options)
    except DataFileError as error:
        return "error", str(error)
    return "data", (data.X, data.y, data.classes)


def _streamed(path, options, chunk_size, cache=None):
    try:
        index = scan(path, chunk_size, cache=cache, **options)
        chunks = list(iter_chunks(path, index=index))
        index.close()
    except DataFileError as error:
        return "error", str(error)
    assert all((len(X) if isinstance(X, list) else X.shape[0]) <= chunk_size for X, _ in chunks)
    X, y = stack(chunks)
    return "data", (X, y, index.classes if index.labelled else None)


def _assert_same_data(memory, streamed):
    (X1, y1, c1), (X2, y2, c2) = memory, streamed
    if isinstance(X1, list):
        assert X1 == X2
    elif sp.issparse(X1):
        assert sp.issparse(X2) and X1.format == X2.format == "csr"
        assert X1.shape == X2.shape and X1.dtype == X2.dtype
        assert (X1 != X2).nnz == 0
    else:
        assert isinstance(X1, np.ndarray) and isinstance(X2, np.ndarray)
        assert X1.shape == X2.shape and X1.dtype == X2.dtype
        np.testing.assert_array_equal(X1, X2)
    if y1 is None:
        assert y2 is None and c1 is None and c2 is None
    else:
        assert y1.dtype.kind == y2.dtype.kind and y1.dtype.kind in "iU"
        np.testing.assert_array_equal(y1, y2)
        assert c1.dtype.kind == c2.dtype.kind
        np.testing.assert_array_equal(c1, c2)


@pytest.fixture(params=["python", "compiled"])
def parser(request, monkeypatch):
    """Which parsers read the corpus: files of any size go to the compiled ones."""
    if request.param == "compiled":
        monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)
    return request.param


@pytest.mark.parametrize(
    "fmt, name, content, options", CORPUS, ids=[f"{case[0]}-{case[1]}" for case in CORPUS]
)
def test_memory_and_streamed_reading_agree(
    tmp_path, monkeypatch, parser, fmt, name, content, options
):
    options = dict(options)
    path = _write(tmp_path, fmt, content, options.pop("gz", False))
    memory = _memory(path, options)
    for block_bytes in BLOCK_BYTES:
        if block_bytes:
            monkeypatch.setattr(_common, "SCAN_BLOCK_BYTES", block_bytes)
        for chunk_size in CHUNK_SIZES:
            for cache in (None, True):
                streamed = _streamed(path, options, chunk_size, cache)
                where = (block_bytes, chunk_size, cache)
                assert memory[0] == streamed[0], (where, memory, streamed)
                if memory[0] == "error":
                    assert memory[1] == streamed[1], where
                    assert memory[1].startswith(f"{path}"), memory[1]
                else:
                    _assert_same_data(memory[1], streamed[1])
    assert _memory(path, options)[0] == memory[0]  # in memory with tiny blocks, too


def test_python_and_compiled_parsers_agree(tmp_path, monkeypatch):
    """Every case of the corpus: the same data, or the same error, from both parsers."""
    for fmt, _, content, options in CORPUS:
        options = dict(options)
        path = _write(tmp_path, fmt, content, options.pop("gz", False))
        monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 1 << 40)
        python = _memory(path, options)
        monkeypatch.setattr(_common, "COMPILED_PARSE_MIN_BYTES", 0)
        fast = _memory(path, options)
        assert python[0] == fast[0], (fmt, content, python, fast)
        if python[0] == "error":
            assert python[1] == fast[1]
        else:
            _assert_same_data(python[1], fast[1])


EXPECTED_ERRORS = {  # some cases and what their error says (the rest: see test_readers.py)
    ("csv", "ragged"): "line 3: 2 fields, but line 1 has 3",
    ("csv", "first-row-missing"): "line 1, column 2: an empty (missing) value; if line 1 is "
    "a header, pass header=True;",
    ("csv", "unterminated-quote"): "line 2: a quoted field starts on this line and is not closed",
    ("svm", "zero-given-one-based"): "line 2: feature index 0 is below 1",
    ("svm", "continuous-labels"): "line 1: the labels look continuous",
    ("tsv", "mixed-labels"): "line 2: the label 'spam' is text, but line 1 has the number '1'",
}


@pytest.mark.parametrize(
    "key, fragment", EXPECTED_ERRORS.items(), ids=["-".join(key) for key in EXPECTED_ERRORS]
)
def test_corpus_errors_say_what_is_wrong(tmp_path, key, fragment):
    _, _, content, options = next(case for case in CORPUS if case[:2] == key)
    path = _write(tmp_path, key[0], content, False)
    with pytest.raises(DataFileError) as caught:
        read_data(path, **options)
    assert fragment in str(caught.value)


def test_gzip_copies_are_removed_with_the_index(tmp_path):
    import gc
    import os

    path = _write(tmp_path, "csv", b"1,2,0\n3,4,1\n", True)
    index = scan(path, 1)
    copy = index.source
    assert copy != str(path) and os.path.exists(copy)
    assert [y.tolist() for _, y in iter_chunks(path, index=index)] == [[0], [1]]
    del index
    gc.collect()
    assert not os.path.exists(copy)
