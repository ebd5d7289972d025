"""rosenblatt.persistence against crafted model files: parameter values that would make
predict read files or hang, zip bombs, absurd array shapes, nodes of the wrong kind.

Every file here is re-signed after it is crafted (each member's SHA-256 in the manifest,
the whole file's in the zip comment), so the hostile content gets past the checksums and
reaches the checks of the content."""

import contextlib
import hashlib
import io
import os
import struct
import threading
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from forging import MiB, Zeros, edit_tree, forge
from sklearn.datasets import make_classification
from sklearn.feature_extraction.text import (
    CountVectorizer,
    HashingVectorizer,
    TfidfTransformer,
    TfidfVectorizer,
)
from sklearn.pipeline import Pipeline, make_pipeline

from rosenblatt import ModelFileError, Perceptron, persistence
from rosenblatt._core import config as _config
from rosenblatt.apps.cli.train import text_features
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.estimators.text import TfDfTransformer
from rosenblatt.persistence import load, load_predictor, read_manifest, save
from rosenblatt.streaming import hashing_vectorizer

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

X_BIN, Y_BIN = make_classification(n_samples=60, n_features=5, random_state=0)
DOCS = [
    "win a free prize now",
    "see you at lunch",
    "free entry win cash",
    "lecture notes attached",
    "claim your free prize",
    "meeting moved to noon",
]
DOC_Y = np.array([1, 0, 1, 0, 1, 0])


# ---------------------------------------------------------------------- crafting
def _estimator_node(tree, cls_name):
    """The first estimator node of class ``...cls_name`` in the tree."""
    if isinstance(tree, dict):
        if tree.get("$") == "estimator" and tree["class"].endswith("." + cls_name):
            return tree
        children = tree.values()
    elif isinstance(tree, list):
        children = tree
    else:
        return None
    for child in children:
        found = _estimator_node(child, cls_name)
        if found is not None:
            return found
    return None


def _npy(header_shape, data, descr="<f8"):
    """An .npy member whose header declares ``header_shape`` over the bytes ``data``."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": descr, "fortran_order": False, "shape": header_shape}
    )
    return buffer.getvalue() + data


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "text.rbm"
    save(make_pipeline(CountVectorizer(), Perceptron(random_state=0)).fit(DOCS, DOC_Y), path)
    return path


@pytest.fixture
def linear_file(tmp_path):
    path = tmp_path / "linear.rbm"
    save(Perceptron(random_state=0).fit(X_BIN, Y_BIN), path)
    return path


def test_resigning_helper_makes_loadable_files(text_file, linear_file):
    forge(text_file, lambda manifest, members: None)
    assert load(text_file).predict(DOCS).tolist() == DOC_Y.tolist()
    forge(linear_file, edit_tree(lambda tree: None))
    assert isinstance(load(linear_file), Perceptron)


# ---------------------------------------------------------------------- parameter values
def test_input_filename_is_refused_before_predict_can_read_files(text_file, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("free prize")

    def change(tree):
        _estimator_node(tree, "CountVectorizer")["params"]["input"] = "filename"

    forge(text_file, edit_tree(change))
    with pytest.raises(
        ModelFileError,
        match=r"CountVectorizer parameter input='filename', which rosenblatt does not "
        r"load \(allowed: 'content'.*only load model files written by rosenblatt.save",
    ):
        load(text_file)


def _tuple(*items):
    return {"$": "tuple", "items": list(items)}


CRAFTED = {
    "token_pattern": "(a+)+$",  # catastrophic backtracking: predict would hang
    "analyzer": "words",
    "decode_error": "surrogateescape",
    "strip_accents": "all",
    "encoding": "zlib_codec",  # a bytes-to-bytes codec, not a text encoding
    "lowercase": "yes",
    "preprocessor": "str.upper",
    "tokenizer": "str.split",
    "ngram_range": _tuple(1, 1000),
    "stop_words": ["x" * 10_000],
    "dtype": {"$": "dtype_type", "name": "<U8"},
    "max_features": -1,
    "min_df": 1.5,
    "vocabulary": {"$": "dict", "items": [["free", -3]]},
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_vectorizer_parameters_are_refused(text_file, name):
    def change(tree):
        _estimator_node(tree, "CountVectorizer")["params"][name] = CRAFTED[name]

    forge(text_file, edit_tree(change))
    with pytest.raises(ModelFileError, match=rf"parameter {name}=.*does not load \(allowed:"):
        load(text_file)


@pytest.mark.parametrize("encoding", ["x" * 41, "no-such-codec", 8])
def test_encoding_must_be_a_short_known_text_codec(text_file, encoding):
    def change(tree):
        _estimator_node(tree, "CountVectorizer")["params"]["encoding"] = encoding

    forge(text_file, edit_tree(change))
    with pytest.raises(ModelFileError, match="parameter encoding="):
        load(text_file)


def test_hashing_features_are_bounded(tmp_path):
    path = tmp_path / "hashed.rbm"
    save(
        make_pipeline(hashing_vectorizer(2**10), Perceptron(random_state=0)).fit(DOCS, DOC_Y), path
    )

    def change(tree):
        _estimator_node(tree, "HashingVectorizer")["params"]["n_features"] = 2**40

    forge(path, edit_tree(change))
    with pytest.raises(ModelFileError, match=r"n_features=1099511627776.*MODEL_MAX_HASH"):
        load(path)


def test_unlisted_parameters_load_only_at_their_default(text_file, monkeypatch):
    key = "sklearn.feature_extraction.text.CountVectorizer"
    monkeypatch.delitem(persistence.PARAMETER_RULES[key], "lowercase")
    assert isinstance(load(text_file), Pipeline)  # lowercase=True, the default

    def change(tree):
        _estimator_node(tree, "CountVectorizer")["params"]["lowercase"] = False

    forge(text_file, edit_tree(change))
    with pytest.raises(ModelFileError, match="lowercase=False.*does not know this parameter"):
        load(text_file)


def test_save_refuses_a_custom_token_pattern(tmp_path):
    model = make_pipeline(CountVectorizer(token_pattern=r"\w+"), Perceptron()).fit(DOCS, DOC_Y)
    path = tmp_path / "custom.rbm"
    with pytest.raises(ValueError, match=r"parameter token_pattern='\\\\w\+'.*set_params"):
        save(model, path)
    assert not path.exists()
    with pytest.raises(ValueError, match="parameter input='filename'"):
        save(CountVectorizer(input="filename"), path)
    assert not path.exists()


@pytest.mark.parametrize(
    "build",
    [
        lambda: Pipeline(text_features() + [("classifier", Perceptron(random_state=0))]),
        lambda: make_pipeline(hashing_vectorizer(), Perceptron(random_state=0)),
        lambda: make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron(random_state=0)),
        lambda: make_pipeline(
            CountVectorizer(ngram_range=(1, 2), stop_words="english", binary=True),
            TfidfTransformer(sublinear_tf=True),
            Perceptron(random_state=0),
        ),
        lambda: make_pipeline(
            TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), dtype=np.float32),
            Perceptron(random_state=0),
        ),
        lambda: make_pipeline(
            HashingVectorizer(n_features=2**12, strip_accents="unicode", encoding="latin-1"),
            Perceptron(random_state=0),
        ),
    ],
    ids=["cli-train", "streaming", "tfdf", "count-options", "char", "hashing-options"],
)
def test_text_pipelines_of_the_package_still_save_and_load(build, tmp_path):
    model = build().fit(DOCS, DOC_Y)
    path = tmp_path / "m.rbm"
    save(model, path)
    assert load(path).predict(DOCS).tolist() == model.predict(DOCS).tolist()
    assert load_predictor(path).predict(DOCS).tolist() == model.predict(DOCS).tolist()


# ---------------------------------------------------------------------- zip bombs
def test_zip_bomb_member_is_refused_before_inflating(linear_file, monkeypatch):
    monkeypatch.setattr(_config, "MODEL_MAX_MEMBER_BYTES", 10 * MiB)

    def edit(manifest, members):
        members["arrays/0.npy"] = Zeros(200 * MiB)

    forge(linear_file, edit)
    assert os.path.getsize(linear_file) < 2 * MiB  # 200 MB of zeros deflate to ~200 KB
    for reader in (load, load_predictor, read_manifest):
        tracemalloc.start()
        with pytest.raises(
            ModelFileError,
            match=r"'arrays/0.npy' inflates to 209715200 bytes, more than the 10485760 .*"
            r"raise that limit \(rosenblatt._core.config.MODEL_MAX_MEMBER_BYTES = ...\)",
        ):
            reader(linear_file)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 20 * MiB, peak  # the time it takes: benchmarks/timings.py


def test_members_together_are_bounded(linear_file, monkeypatch):
    def edit(manifest, members):
        members["arrays/0.npy"] = Zeros(8 * MiB)

    forge(linear_file, edit)
    monkeypatch.setattr(_config, "MODEL_MAX_TOTAL_BYTES", 6 * MiB)
    with pytest.raises(ModelFileError, match=r"inflate to \d+ bytes in all.*MODEL_MAX_TOTAL"):
        load(linear_file)


def test_file_larger_than_the_limit_is_not_read(linear_file, monkeypatch):
    monkeypatch.setattr(_config, "MODEL_MAX_TOTAL_BYTES", 1000)
    with pytest.raises(ModelFileError, match=r"larger than 1000 bytes.*MODEL_MAX_TOTAL_BYTES"):
        load(linear_file)


def test_endless_stream_is_not_read_to_the_end(monkeypatch):
    """A pipe or a device (``/dev/zero``) tells no size: it is read in pieces up to the limit,
    never to its end. A pipe fed zeros without end stands for both on any machine."""
    read_end, write_end = os.pipe()

    def feed():
        with contextlib.suppress(OSError):  # the reader closed its end: BrokenPipeError
            while True:
                os.write(write_end, bytes(1 << 16))
        os.close(write_end)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    monkeypatch.setattr(_config, "MODEL_MAX_TOTAL_BYTES", MiB)
    monkeypatch.setattr(
        persistence.container, "open", lambda path, mode: os.fdopen(read_end, mode), raising=False
    )
    with pytest.raises(ModelFileError, match="larger than"):
        load("endless.rbl")
    writer.join(timeout=10)
    assert not writer.is_alive()


def test_member_larger_than_its_declared_size_is_refused(linear_file):
    def edit(manifest, members):
        members["arrays/0.npy"] = Zeros(64 * 1024)

    forge(linear_file, edit)
    data = bytearray(linear_file.read_bytes())
    # shrink the declared size in the central directory entry of arrays/0.npy
    entry = data.rindex(b"PK\x01\x02", 0, data.rindex(b"arrays/0.npy"))
    assert data[entry + 46 : entry + 46 + 12] == b"arrays/0.npy"
    size_at = entry + 24
    if struct.unpack_from("<I", data, size_at)[0] == 0xFFFFFFFF:  # zip64: the extra field
        name_len, extra_len = struct.unpack_from("<HH", data, entry + 28)
        size_at = entry + 46 + name_len + 4
        struct.pack_into("<Q", data, size_at, 1000)
    else:
        struct.pack_into("<I", data, size_at, 1000)
    body = bytes(data[:-64])
    linear_file.write_bytes(body + hashlib.sha256(body).hexdigest().encode())
    with pytest.raises(ModelFileError, match="damaged|altered"):
        load(linear_file)


# ---------------------------------------------------------------------- absurd shapes
@pytest.mark.parametrize(
    "shape, match",
    [
        ((10**12,), r"shape \(1000000000000,\): each dimension must be an int from 0"),
        ((10**9,), r"shape \(1000000000,\) and dtype float64 \(8000000000 bytes\) but holds 8"),
        ((3, 0, 2**31), r"each dimension"),
    ],
)
def test_npy_header_with_an_absurd_shape_is_refused(linear_file, shape, match):
    def edit(manifest, members):
        members["arrays/0.npy"] = _npy(shape, bytes(8))

    forge(linear_file, edit)
    for reader in (load, load_predictor):
        with pytest.raises(ModelFileError, match=f"damaged or crafted.*{match}"):
            reader(linear_file)


@pytest.fixture
def sparse_file(tmp_path):
    path = tmp_path / "sparse.rbm"
    save(KernelPerceptron(random_state=0, max_iter=3).fit(sp.csr_matrix(X_BIN), Y_BIN), path)
    return path


@pytest.mark.parametrize(
    "shape, match",
    [
        ([10**12, 10**12], r"shape \[1000000000000, 1000000000000\]: a shape must be two ints"),
        ("12", r"shape '12'"),
        ([5, 5, 5], r"a shape must be two ints"),
        ([True, 5], r"a shape must be two ints"),
        ([10**6, 5], r"with \d+ row pointers \(not 1000001\)"),
    ],
)
def test_sparse_node_with_an_absurd_shape_is_refused(sparse_file, shape, match):
    def change(tree):
        tree["fitted"]["support_vectors_"]["shape"] = shape

    forge(sparse_file, edit_tree(change))
    with pytest.raises(ModelFileError, match=f"damaged or crafted.*{match}"):
        load(sparse_file)


@pytest.mark.parametrize("value", ["arrays/0.npy", 7, [1.0, 2.0], {"$": "float", "value": "nan"}])
def test_a_value_where_an_array_node_belongs_is_refused(linear_file, value):
    def change(tree):
        tree["fitted"]["training_state_"]["arrays"]["W"] = value

    forge(linear_file, edit_tree(change))
    with pytest.raises(ModelFileError, match="damaged or crafted.*an array node was expected"):
        load(linear_file)


@pytest.mark.parametrize("part", ["data", "indices", "indptr"])
def test_a_value_where_a_sparse_part_belongs_is_refused(sparse_file, part):
    def change(tree):
        tree["fitted"]["support_vectors_"][part] = "abc"

    forge(sparse_file, edit_tree(change))
    with pytest.raises(ModelFileError, match="damaged or crafted.*an array node was expected"):
        load(sparse_file)


@pytest.mark.parametrize("value", ["abc", 3, [1, 2]])
def test_load_predictor_refuses_coefficients_that_are_not_arrays(linear_file, value):
    def change(tree):
        tree["fitted"]["coef_"] = value

    forge(linear_file, edit_tree(change))
    with pytest.raises(ModelFileError, match="damaged or crafted"):
        load_predictor(linear_file)


def test_memory_error_while_decoding_is_a_model_file_error(linear_file, monkeypatch):
    def exhausted(*args):
        raise MemoryError("Unable to allocate 7.28 TiB")

    monkeypatch.setattr(persistence, "_npy_array", exhausted)
    with pytest.raises(ModelFileError, match=r"damaged or crafted \(MemoryError: Unable"):
        load(linear_file)
