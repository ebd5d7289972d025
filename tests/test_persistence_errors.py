"""What loading calls a damaged file, and what it lets through as a bug.

A model file that is damaged or crafted is refused with one ``ModelFileError`` line; a
bug in rosenblatt (a ``TypeError`` in a ``from_state``, an ``AttributeError`` in a check)
is not a damaged file, and surfaces as itself, traceback and all. So the list of
exceptions that mean "damaged" holds only the format's own (``ValueError`` from the
declared checks, JSON and ``.npy``; the zip reader's errors around the zip reader), and
every value is checked where it is decoded, so that no crafted file reaches code that
would raise anything else: the crafted files here each made loading raise a raw
``TypeError``, ``IndexError``, ``KeyError``, ``OverflowError``, ``EOFError``,
``RuntimeError`` or ``NotImplementedError`` before the decoder checked their values
(or, for a random state's position, would have let numpy read out of bounds).
"""

import hashlib
import io
import json
import struct
import zipfile

import numpy as np
import pytest
from forging import edit_tree, forge
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from rosenblatt import ModelFileError, Perceptron, VotedPerceptron
from rosenblatt.apps.cli import app
from rosenblatt.engine.primal import PrimalState
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.persistence import load, load_predictor, save
from rosenblatt.persistence.decode import Reader
from rosenblatt.persistence.errors import DAMAGE, ZIP_DAMAGE

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

X, Y = make_classification(n_samples=40, n_features=3, n_redundant=0, random_state=0)
BUGS = (TypeError, AttributeError, KeyError, IndexError, RuntimeError, NotImplementedError)


@pytest.fixture
def perceptron_file(tmp_path):
    path = tmp_path / "perceptron.rbm"
    save(Perceptron(max_iter=3, random_state=np.random.RandomState(0)).fit(X, Y), path)
    return path


def _loaders(path):
    return (lambda: load(path), lambda: load_predictor(path))


def _refused(path, match="damaged or crafted"):
    for loader in _loaders(path):
        with pytest.raises(ModelFileError, match=match):
            loader()


# ---------------------------------------------------------------------- bugs are bugs
def test_the_damage_lists_hold_no_exception_that_means_a_bug():
    for bug in BUGS:
        assert not issubclass(bug, DAMAGE), bug
    # around zipfile's calls alone: a zip feature zipfile lacks is not a file of rosenblatt's
    for bug in set(BUGS) - {NotImplementedError}:
        assert not issubclass(bug, ZIP_DAMAGE), bug
    assert issubclass(ModelFileError, DAMAGE) and issubclass(zipfile.BadZipFile, ZIP_DAMAGE)


@pytest.mark.parametrize("bug", BUGS)
def test_a_bug_in_from_state_is_raised_as_itself(perceptron_file, monkeypatch, bug):
    def from_state(cls, meta, arrays, **options):
        raise bug("a bug in from_state")

    monkeypatch.setattr(PrimalState, "from_state", classmethod(from_state))
    for loader in _loaders(perceptron_file):
        with pytest.raises(bug, match="a bug in from_state") as raised:
            loader()
        assert not isinstance(raised.value, ModelFileError)


def test_a_value_error_of_from_state_is_a_damaged_file(perceptron_file, monkeypatch):
    """from_state's own checks say ValueError: what does not fit is the file."""

    def from_state(cls, meta, arrays, **options):
        raise ValueError("W has shape (1, 2), expected (1, 3)")

    monkeypatch.setattr(PrimalState, "from_state", classmethod(from_state))
    _refused(perceptron_file, r"damaged or crafted \(ValueError: W has shape")


def test_a_bug_in_a_declared_check_or_the_predictor_is_raised_as_itself(
    perceptron_file, monkeypatch
):
    from rosenblatt.engine import numpy_decision as _decision
    from rosenblatt.persistence.invariants import estimators as _checks

    def check(checker, **kinds):
        raise AttributeError("a bug in a check")

    monkeypatch.setattr(_checks, "check_linear_perceptron", check)
    with pytest.raises(AttributeError, match="a bug in a check"):
        load(perceptron_file)
    monkeypatch.undo()

    def predictor(*args, **kwargs):
        raise TypeError("a bug in the predictor")

    monkeypatch.setattr(_decision.LinearPredictor, "__init__", predictor)
    with pytest.raises(TypeError, match="a bug in the predictor"):
        load_predictor(perceptron_file)
    assert load(perceptron_file).predict(X).shape == Y.shape  # load builds the estimator


def test_the_command_line_reports_a_bug_as_one_and_shows_its_traceback(tmp_path, monkeypatch):
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    model = tmp_path / "or.rbm"
    trained = CliRunner().invoke(app, ["train", str(data), "--model", str(model), "-q"])
    assert trained.exit_code == 0, trained.output

    def from_state(cls, meta, arrays, **options):
        raise AttributeError("a bug in from_state")

    monkeypatch.setattr(PrimalState, "from_state", classmethod(from_state))
    result = CliRunner().invoke(app, ["predict", "-m", str(model), str(data)])
    assert result.exit_code == 2
    assert "unexpected AttributeError: a bug in from_state" in result.stderr
    assert "damaged" not in result.stderr
    shown = CliRunner().invoke(
        app, ["predict", "-m", str(model), str(data)], env={"ROSENBLATT_TRACEBACK": "1"}
    )
    assert isinstance(shown.exception, AttributeError)


# ---------------------------------------------------------------------- values, where decoded
def _set_param(value):
    def change(tree):
        tree["params"]["random_state"] = value

    return change


@pytest.mark.parametrize(
    "node",
    [
        {"$": "tuple", "items": 7},  # TypeError: 'int' object is not iterable
        {"$": "tuple"},  # KeyError: 'items'
        {"$": "dict", "items": [[1, 2, 3]]},
        {"$": "dict", "items": [7]},  # TypeError: cannot unpack
        {"$": "dict", "items": [[[1], 2]]},  # TypeError: unhashable type: 'list'
        {"$": "dict", "items": [[{"$": "dict", "items": []}, 2]]},  # unhashable dict
        {"$": "dict", "items": [[{"$": "tuple", "items": [[1]]}, 2]]},  # a tuple of a list
        {"$": "scalar", "dtype": "|u1", "value": 300},  # OverflowError: out of bounds
        {"$": "scalar", "dtype": "<i8", "value": 2**70},  # OverflowError
        {"$": "scalar", "dtype": "<f4", "value": 1e300},  # rounded to infinity
        {"$": "scalar", "dtype": "<i3", "value": 1},  # TypeError: not understood
        {"$": "scalar", "dtype": ["<i8"], "value": 1},
        {"$": "scalar", "value": 1},  # KeyError: 'dtype'
        {"$": "dtype", "name": "<U999999999"},  # TypeError: not understood
        {"$": "dtype_type", "name": "|O"},
        {"$": "float", "value": ["nan"]},
        {"$": "float"},
        {"$": "slice", "items": 3},
        {"$": "ndarray"},  # KeyError: 'member'
        {"$": "ndarray", "member": ["arrays/0.npy"]},
        {"$": "sparse", "format": "csr"},  # KeyError: 'shape'
        {"$": "random_state", "state": 5},
        {"$": "random_state", "state": {"$": "tuple", "items": ["MT19937", 1, 2, 3, 4.0]}},
        {"$": "generator", "state": 5},  # TypeError: 'int' is not subscriptable
        {"$": "generator", "state": {"$": "dict", "items": [["bit_generator", "PCG64"]]}},
        {"$": "state"},  # KeyError: 'class'
        {"$": "state", "class": "rosenblatt.engine.primal.PrimalState", "meta": {}},
        {"$": "state", "class": "rosenblatt.engine.primal.PrimalState", "arrays": {}},
    ],
    ids=lambda node: json.dumps(node)[:60],
)
def test_a_crafted_value_is_refused_where_it_is_decoded(perceptron_file, node):
    forge(perceptron_file, edit_tree(_set_param(node)))
    _refused(perceptron_file)


@pytest.mark.parametrize("value", [10**400, -(10**400)])
def test_a_number_past_a_float_s_range_is_refused(perceptron_file, value):
    """An int no float holds made the checks' math.isfinite raise a raw OverflowError."""

    def change(tree):
        tree["fitted"]["intercept_scaling_"] = value

    forge(perceptron_file, edit_tree(change))
    _refused(perceptron_file, "intercept_scaling_ must be a finite non-zero number; it is ")


def test_a_vote_record_is_not_a_state_of_its_own(perceptron_file):
    """VoteRecord.from_state takes the sizes of its model: a file that names it as a
    state node made loading raise TypeError (missing n_voters)."""
    node = {"$": "state", "class": "rosenblatt.engine.votes.VoteRecord", "meta": {}}
    forge(perceptron_file, edit_tree(_set_param({**node, "arrays": {}})))
    _refused(perceptron_file, "asks for class 'rosenblatt.engine.votes.VoteRecord'")


@pytest.mark.parametrize("where", ["params/kernel", "fitted/mistakes_per_epoch_/0"])
def test_a_sparse_matrix_elsewhere_than_a_fitted_attribute_is_refused(tmp_path, where):
    """The checks compare parameters and the parts of fitted values with str and ints,
    which a scipy sparse matrix answers with a TypeError: a file only holds one as the
    value of a fitted attribute (a kernel perceptron's support vectors)."""
    import scipy.sparse as sp

    path = tmp_path / "kernel-csr.rbm"
    save(KernelPerceptron(max_iter=2, shuffle=False).fit(sp.csr_matrix(X), Y), path)
    assert isinstance(load(path).support_vectors_, sp.csr_matrix)

    def change(tree):
        sparse = tree["fitted"]["support_vectors_"]
        assert sparse["$"] == "sparse"
        part, name, *index = where.split("/")
        if index:
            tree[part][name][int(index[0])] = sparse
        else:
            tree[part][name] = sparse

    forge(path, edit_tree(change))
    _refused(path, "a sparse matrix elsewhere than as a fitted attribute")


def _random_state_node(tree):
    node = tree["params"]["random_state"]
    assert node["$"] == "random_state" and node["state"]["$"] == "tuple"
    return node["state"]["items"]  # MT19937, key, pos, has_gauss, gauss


@pytest.mark.parametrize(
    ("index", "value"),
    [(2, 10**6), (2, -1), (2, 2**80), (3, 5), (4, {"$": "float", "value": "nan"})],
    ids=["pos-past-the-key", "pos-negative", "pos-huge", "has_gauss-5", "gauss-nan"],
)
def test_a_random_state_outside_its_layout_is_refused(perceptron_file, index, value):
    """numpy's MT19937 reads key[pos] without checking pos: a crafted position would
    read memory past the key as soon as the model drew a number."""

    def change(tree):
        _random_state_node(tree)[index] = value

    forge(perceptron_file, edit_tree(change))
    _refused(perceptron_file, "a random_state")


def test_a_random_state_as_saved_loads(tmp_path):
    rng = np.random.RandomState(0)
    path = tmp_path / "seeded.rbm"
    save(Perceptron(max_iter=3, random_state=rng).fit(X, Y), path)
    loaded = load(path).random_state
    assert isinstance(loaded, np.random.RandomState)
    assert loaded.randint(1000, size=5).tolist() == rng.randint(1000, size=5).tolist()


def test_a_generator_outside_its_layout_is_refused():
    reader = Reader(read_array=None)
    state = np.random.PCG64(0).state
    node = {"$": "dict", "items": [[k, v] for k, v in state.items() if k != "state"]}
    inner = {"$": "dict", "items": [[k, v] for k, v in state["state"].items()]}
    node["items"].append(["state", inner])
    assert isinstance(reader.value({"$": "generator", "state": node}), np.random.Generator)
    for field, value in (("has_uint32", 2), ("uinteger", 2**40), ("uinteger", -1)):
        crafted = {
            "$": "dict",
            "items": [[k, value if k == field else v] for k, v in node["items"]],
        }
        with pytest.raises(ValueError, match=f"generator.{field} must be an int"):
            reader.value({"$": "generator", "state": crafted})


# ---------------------------------------------------------------------- training states
def _state_node(tree):
    return tree["fitted"]["training_state_"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("votes", 7),  # TypeError: 'int' object is not subscriptable
        ("votes", "arrays/0.npy"),  # TypeError: string indices must be integers
        ("votes", {"multinomial": False, "bias_input": 1.0}),
        ("votes", {"multinomial": "no", "bias_input": 1.0, "n_voters": 1}),
        ("multinomial", "yes"),
        ("rng", 7),
        ("rng", {"kind": "Generator", "state": {"$array": ["x"]}}),  # unhashable
        ("rng", {"kind": "RandomState", "state": {"bit_generator": "MT19937"}}),
        ("rng", {"kind": "Generator", "state": {"bit_generator": "PCG64", "state": 1}}),
    ],
)
def test_a_training_state_of_another_layout_is_refused(perceptron_file, field, value):
    def change(tree):
        _state_node(tree)["meta"][field] = value

    forge(perceptron_file, edit_tree(change))
    _refused(perceptron_file, "damaged or crafted: PrimalState")


def _replace_array(path, find_node, name, array):
    """Forge the file at ``path``: the array ``name`` of the state node ``find_node(tree)``
    holds ``array``."""

    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        member = find_node(tree)["arrays"][name]["member"]
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        members[member] = buffer.getvalue()

    forge(path, edit)


def test_a_vote_column_without_its_dimension_is_refused(tmp_path):
    """An update column of no dimension made the vote record raise IndexError."""
    path = tmp_path / "voted.rbm"
    save(VotedPerceptron(max_iter=2, shuffle=False).fit(X, Y), path)
    _replace_array(path, _state_node, "votes.0.coef", np.float64(1.0))
    _refused(path, r"votes.0.coef' must have 1 dimension")


def test_a_dual_update_record_without_its_dimension_is_refused(tmp_path):
    """An update record of no dimension made DualState.from_state raise IndexError."""
    path = tmp_path / "kernel.rbm"
    save(KernelPerceptron(max_iter=2, shuffle=False).fit(X, Y), path)
    _replace_array(path, _state_node, "update_sample", np.int64(0))
    _refused(path, r"update_sample' must have 1 dimension")


# ---------------------------------------------------------------------- .npy members
def _npy(header: str, body=b"") -> bytes:
    text = header.encode("latin1")
    text += b" " * (-(10 + len(text) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + body


@pytest.mark.parametrize(
    "data",
    [
        b"",  # EOFError: No data left in file
        _npy("{[1]: 2}"),  # TypeError: unhashable type: 'list' (in numpy's header parser)
        _npy("{'descr': ('<f8',), 'fortran_order': False, 'shape': (1,), }", bytes(8)),
        _npy("{'descr': '<i3', 'fortran_order': False, 'shape': (1,), }", bytes(3)),
        _npy("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,), }", bytes(8)),
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (True,), }", bytes(8)),
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': [1], }", bytes(8)),
        _npy("(" * 3000 + ")" * 3000),
        _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", bytes(8)),
        b"\x93NUMPY\x03\x00" + bytes(20),
        b"\x93NUMPY\x01\x00\xff",
        b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b"{",
    ],
    ids=lambda data: repr(data[:40]),
)
def test_a_crafted_npy_member_is_refused(perceptron_file, data):
    def edit(manifest, members):
        members["arrays/0.npy"] = data

    forge(perceptron_file, edit)
    _refused(perceptron_file)


def test_an_object_dtype_in_a_header_is_a_pickle(perceptron_file):
    def edit(manifest, members):
        members["arrays/0.npy"] = _npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }")

    forge(perceptron_file, edit)
    _refused(perceptron_file, "pickled object")


# ---------------------------------------------------------------------- the zip archive
def _signed(data: bytes) -> bytes:
    """``data`` with the archive comment's SHA-256 recomputed (past the whole-file check)."""
    return data[:-64] + hashlib.sha256(data[:-64]).hexdigest().encode()


def _patch_headers(data: bytes, field_offset: int, local_offset: int, value: int) -> bytes:
    """Write ``value`` (2 bytes) into every central directory entry at ``field_offset``
    and every local header at ``local_offset``."""
    data = bytearray(data)
    for signature, offset in ((b"PK\x01\x02", field_offset), (b"PK\x03\x04", local_offset)):
        at = data.find(signature)
        while at != -1:
            struct.pack_into("<H", data, at + offset, value)
            at = data.find(signature, at + 4)
    return bytes(data)


@pytest.mark.parametrize(
    ("field", "local", "value", "before"),
    [
        (10, 8, 99, "NotImplementedError: compression method"),
        (8, 6, 0x1, "RuntimeError: encrypted"),
        (8, 6, 0x20, "NotImplementedError: patched data"),
    ],
)
def test_a_member_zipfile_cannot_read_is_refused(perceptron_file, field, local, value, before):
    data = perceptron_file.read_bytes()
    perceptron_file.write_bytes(_signed(_patch_headers(data, field, local, value)))
    _refused(perceptron_file, "reads members stored or deflated, unencrypted")


def test_every_truncation_and_flipped_byte_is_refused_or_loads_the_same(perceptron_file):
    """Damage anywhere in the file, with and without the whole-file checksum recomputed:
    a ModelFileError, or (a byte that no reader uses) the same model; nothing else. (A
    zip entry's "version needed" past zipfile's made it raise NotImplementedError.)"""
    data = perceptron_file.read_bytes()
    expected = load(perceptron_file).predict(X)
    damaged = [data[:n] for n in range(0, len(data), 97)]
    for at in range(0, len(data), 29):  # every byte, three ways: 80 s (all were refused)
        for signed in (False, True):
            flipped = bytearray(data)
            flipped[at] ^= 0x5A
            damaged.append(_signed(bytes(flipped)) if signed else bytes(flipped))
    outcomes = set()
    for k, content in enumerate(damaged):
        perceptron_file.write_bytes(content)
        try:
            model = load(perceptron_file)
        except ModelFileError:
            outcomes.add("refused")
            continue
        assert np.array_equal(model.predict(X), expected), k
        outcomes.add("same")
    assert "refused" in outcomes
