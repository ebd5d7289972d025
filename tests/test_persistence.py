"""rosenblatt.persistence: pickle-free save/load, integrity checks and atomic writes."""

import hashlib
import io
import json
import os
import pickle
import sys
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from rosenblatt import AveragedPerceptron, ModelFileError, Perceptron, VotedPerceptron
from rosenblatt.baselines import CentroidClassifier, LinearProgramClassifier
from rosenblatt.kernel import KernelPerceptron
from rosenblatt.persistence import FORMAT_NAME, FORMAT_VERSION, load, read_manifest, save
from rosenblatt.text import TfDfTransformer

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
X_BIN, Y_BIN = make_classification(n_samples=120, n_features=6, random_state=0)
DOCS = ["win a free prize now", "see you at lunch", "free entry win cash", "lecture notes attached",
        "claim your free prize", "meeting moved to noon", "cash prize waiting", "notes for monday"]
DOC_Y = np.array(["spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham"])


MODELS = {
    "perceptron-online": lambda: (Perceptron(random_state=0, max_iter=20), X_IRIS, Y_IRIS),
    "perceptron-batch": lambda: (Perceptron(mode="batch", max_iter=20), X_BIN, Y_BIN),
    "perceptron-multinomial": lambda: (
        Perceptron(multi_class="multinomial", random_state=np.random.RandomState(3), max_iter=20),
        X_IRIS, Y_IRIS),
    "averaged": lambda: (AveragedPerceptron(random_state=0, max_iter=20), X_IRIS, Y_IRIS),
    "averaged-float32": lambda: (AveragedPerceptron(random_state=0, max_iter=20),
                                 X_BIN.astype(np.float32), Y_BIN),
    "voted": lambda: (VotedPerceptron(random_state=0, max_iter=10), X_IRIS, Y_IRIS),
    "voted-sparse": lambda: (VotedPerceptron(random_state=0, max_iter=10), sp.csr_matrix(X_BIN),
                             Y_BIN),
    "voted-multinomial": lambda: (VotedPerceptron(multi_class="multinomial", random_state=0,
                                                  max_iter=10), X_IRIS, Y_IRIS),
    "string-labels": lambda: (Perceptron(random_state=0, max_iter=20), X_IRIS,
                              np.array(["setosa", "versicolor", "virginica"])[Y_IRIS]),
    "kernel-averaged": lambda: (KernelPerceptron(random_state=0, max_iter=10), X_IRIS, Y_IRIS),
    "kernel-voted": lambda: (KernelPerceptron(prediction="voted", kernel="poly", random_state=0,
                                              max_iter=10), X_BIN, Y_BIN),
    "kernel-sparse": lambda: (KernelPerceptron(random_state=0, max_iter=10), sp.csr_matrix(X_BIN),
                              Y_BIN),
    "centroid": lambda: (CentroidClassifier(), X_IRIS, Y_IRIS),
    "lp": lambda: (LinearProgramClassifier(), X_BIN, Y_BIN),
    "scaled-pipeline": lambda: (make_pipeline(StandardScaler(), Perceptron(random_state=0)),
                                X_BIN, Y_BIN),
    "text-tfdf": lambda: (make_pipeline(CountVectorizer(), TfDfTransformer(),
                                        Perceptron(random_state=0)), DOCS, DOC_Y),
    "text-tfidf-voted": lambda: (make_pipeline(TfidfVectorizer(ngram_range=(1, 2)),
                                               VotedPerceptron(random_state=0)), DOCS, DOC_Y),
    "text-hashing": lambda: (make_pipeline(HashingVectorizer(n_features=256),
                                           AveragedPerceptron(random_state=0)), DOCS, DOC_Y),
}


def _same_attributes(a, b):
    """Every public fitted attribute of ``a`` equals ``b``'s, with the same type."""
    for name, value in vars(a).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        other = getattr(b, name)
        assert type(other) is type(value), name
        if sp.issparse(value):
            assert (value != other).nnz == 0, name
        elif isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and np.array_equal(value, other), name
        else:
            assert value == other, name


@pytest.mark.parametrize("name", list(MODELS))
def test_round_trip_predicts_identically(name, tmp_path):
    estimator, X, y = MODELS[name]()
    model = estimator.fit(X, y)
    model.predict(X)  # caches (e.g. the voted record's stacked rows) must survive too
    path = tmp_path / "model.rbm"
    save(model, path)
    loaded = load(path)
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    final, final_loaded = (model[-1], loaded[-1]) if hasattr(model, "steps") else (model, loaded)
    _same_attributes(final, final_loaded)
    assert loaded.get_params(deep=False).keys() == model.get_params(deep=False).keys()


def test_training_continues_identically_after_loading(tmp_path):
    # the shuffling RandomState and the averaged/voted accumulators are part of the state
    model = VotedPerceptron(random_state=0)
    model.partial_fit(X_IRIS, Y_IRIS, classes=[0, 1, 2])
    save(model, tmp_path / "m.rbm")
    loaded = load(tmp_path / "m.rbm")
    for _ in range(3):
        model.partial_fit(X_IRIS, Y_IRIS)
        loaded.partial_fit(X_IRIS, Y_IRIS)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.decision_function(X_IRIS), model.decision_function(X_IRIS))


def test_same_model_gives_the_same_bytes_and_a_readable_manifest(tmp_path):
    model = Perceptron(eta=0.5, random_state=0).fit(X_BIN, Y_BIN)
    save(model, tmp_path / "a.rbm", metadata={"data_format": "csv"})
    save(model, tmp_path / "b.rbm", metadata={"data_format": "csv"})
    assert (tmp_path / "a.rbm").read_bytes() == (tmp_path / "b.rbm").read_bytes()
    manifest = read_manifest(tmp_path / "a.rbm")
    assert manifest["format"] == FORMAT_NAME and manifest["format_version"] == FORMAT_VERSION
    assert manifest["class"] == "rosenblatt.linear.Perceptron"
    assert manifest["params"]["eta"] == 0.5 and manifest["metadata"] == {"data_format": "csv"}
    with zipfile.ZipFile(tmp_path / "a.rbm") as archive:
        names = archive.namelist()
    assert names[0] == "manifest.json" and "state.json" in names
    assert all(n.endswith(".npy") for n in names if n.startswith("arrays/"))
    assert not any(n.endswith((".pkl", ".pickle")) for n in names)


# ---------------------------------------------------------------------- damaged files
@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.rbm"
    save(Perceptron(random_state=0).fit(X_BIN, Y_BIN), path)
    return path


@pytest.mark.parametrize("keep", [0.5, 0.9, -1, -64, 30])
def test_truncated_file_is_refused(model_file, keep):
    data = model_file.read_bytes()
    model_file.write_bytes(data[: int(len(data) * keep) if isinstance(keep, float) else keep])
    with pytest.raises(ModelFileError, match="truncated|damaged|altered"):
        load(model_file)


def test_any_flipped_byte_is_detected(model_file):
    data = model_file.read_bytes()
    for position in range(0, len(data), 7):
        flipped = bytearray(data)
        flipped[position] ^= 0x20
        model_file.write_bytes(bytes(flipped))
        with pytest.raises(ModelFileError):
            load(model_file)


def test_foreign_files_are_refused(tmp_path):
    text = tmp_path / "notes.rbm"
    text.write_text("w = (1, 1, -1)\n")
    with pytest.raises(ModelFileError, match="not a rosenblatt model file"):
        load(text)
    npy = tmp_path / "weights.rbm"
    np.save(npy.open("wb"), np.ones(3))
    with pytest.raises(ModelFileError, match="not a zip archive"):
        load(npy)
    other_zip = tmp_path / "other.rbm"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("data.csv", "1,2,3\n")
    with pytest.raises(ModelFileError, match="no manifest.json"):
        load(other_zip)
    wrong_format = tmp_path / "wrong.rbm"
    with zipfile.ZipFile(wrong_format, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": "something-else"}))
    with pytest.raises(ModelFileError, match="does not name the format"):
        load(wrong_format)


def _forge(path, edit, rehash=True):
    """Rewrite a model file the way a forger who knows the format would: edit the manifest
    and members, then recompute the checksums (the members' too unless ``rehash=False``),
    so that only the checks of the content remain."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    manifest = json.loads(members.pop("manifest.json"))
    edit(manifest, members)
    if rehash:
        manifest["sha256"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            archive.writestr(name, data)
        archive.comment = b"0" * 64
    data = buffer.getvalue()[:-64]
    path.write_bytes(data + hashlib.sha256(data).hexdigest().encode())


def test_forging_helper_makes_loadable_files(model_file):
    _forge(model_file, lambda manifest, members: None)
    assert isinstance(load(model_file), Perceptron)


def test_newer_format_version_asks_for_an_upgrade(model_file):
    _forge(model_file, lambda manifest, members: manifest.update(format_version=FORMAT_VERSION + 1,
                                                                 library_version="9.0"))
    with pytest.raises(ModelFileError, match=r"newer.*rosenblatt 9\.0.*upgrade rosenblatt"):
        load(model_file)


def test_member_changed_without_its_hash_is_refused(model_file):
    def edit(manifest, members):
        name = next(n for n in members if n.startswith("arrays/"))
        members[name] = members[name][:-8] + np.float64(7.0).tobytes()

    _forge(model_file, edit, rehash=False)
    with pytest.raises(ModelFileError, match="does not match its SHA-256"):
        load(model_file)


EXECUTED = []


def _mark_executed():
    EXECUTED.append("code from the model file ran")


class _Payload:
    def __reduce__(self):
        return (_mark_executed, ())


def test_object_array_with_a_pickle_is_refused_without_running_it(model_file):
    buffer = io.BytesIO()
    np.save(buffer, np.array([_Payload()], dtype=object), allow_pickle=True)

    def edit(manifest, members):
        members["arrays/0.npy"] = buffer.getvalue()

    _forge(model_file, edit)
    with pytest.raises(ModelFileError, match="pickled object"):
        load(model_file)
    assert EXECUTED == []


def test_raw_pickle_member_is_refused_without_running_it(model_file):
    def edit(manifest, members):
        members["arrays/0.npy"] = pickle.dumps(_Payload())

    _forge(model_file, edit)
    with pytest.raises(ModelFileError, match="pickled object"):
        load(model_file)
    assert EXECUTED == []


def test_class_outside_the_registry_is_never_imported(model_file):
    def edit(manifest, members):
        state = json.loads(members["state.json"])
        state["class"] = "evil_module_for_rosenblatt_tests.Thing"
        members["state.json"] = json.dumps(state).encode()
        manifest["class"] = state["class"]

    _forge(model_file, edit)
    with pytest.raises(ModelFileError, match="evil_module_for_rosenblatt_tests.Thing"):
        load(model_file)
    assert "evil_module_for_rosenblatt_tests" not in sys.modules


def test_object_dtype_smuggled_through_a_dtype_name_is_refused(model_file):
    def edit(manifest, members):
        state = json.loads(members["state.json"])
        items = dict((k, v) for k, v in state["state"]["items"])
        items["mode"] = {"$": "scalar", "dtype": "|O", "value": 1}
        state["state"]["items"] = [[k, v] for k, v in items.items()]
        members["state.json"] = json.dumps(state).encode()

    _forge(model_file, edit)
    with pytest.raises(ModelFileError, match="damaged"):
        load(model_file)


# ---------------------------------------------------------------------- saving
def test_unsaveable_content_fails_before_any_file_is_written(tmp_path):
    model = Perceptron().fit(X_BIN, Y_BIN)
    model.callback_ = lambda x: x
    path = tmp_path / "model.rbm"
    with pytest.raises(TypeError, match=r"callback_.*function"):
        save(model, path)
    assert list(tmp_path.iterdir()) == []


def test_object_arrays_and_callable_kernels_are_refused(tmp_path):
    model = CentroidClassifier().fit(X_BIN, np.array(["a", "b"], dtype=object)[Y_BIN])
    with pytest.raises(TypeError, match="classes_.*dtype object"):
        save(model, tmp_path / "m.rbm")
    kernel = KernelPerceptron(kernel=lambda a, b: a @ b.T, max_iter=2).fit(X_BIN[:20], Y_BIN[:20])
    with pytest.raises(TypeError, match="kernel"):
        save(kernel, tmp_path / "k.rbm")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file_and_leaves_nothing_behind(model_file, monkeypatch):
    before = model_file.read_bytes()

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="No space left"):
        save(AveragedPerceptron().fit(X_IRIS, Y_IRIS), model_file)
    assert model_file.read_bytes() == before
    assert sorted(p.name for p in model_file.parent.iterdir()) == [model_file.name]
