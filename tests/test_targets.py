"""The target coding: labels to what the neurons train on, and scores back to labels."""

import ast
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from rosenblatt import CentroidClassifier, KernelPerceptron, Perceptron
from rosenblatt.engine.primal import PrimalState
from rosenblatt.engine.targets import TargetCoding

ROOT = pathlib.Path(__file__).parents[1] / "src" / "rosenblatt"


# ---------------------------------------------------------------------- binary
@pytest.mark.parametrize("classes", [np.array([-1, 1]), np.array([0, 7]), np.array(["a", "b"])])
def test_binary_codes_the_second_class_plus_one(classes):
    coding = TargetCoding.binary(classes)
    y = classes[[1, 0, 0, 1]]
    assert coding.n_outputs == 1
    assert coding.positive() == classes[1]
    np.testing.assert_array_equal(coding.encode(y), [1, 0, 0, 1])
    np.testing.assert_array_equal(coding.signed(y), [[1.0, -1.0, -1.0, 1.0]])
    np.testing.assert_array_equal(coding.signs(coding.encode(y)), coding.signed(y))
    np.testing.assert_array_equal(coding.decode(np.array([2.0, -0.5, -3.0, 0.1])), y)


def test_a_zero_score_goes_to_the_first_class_as_training_counts_it():
    coding = TargetCoding.binary(np.array(["ham", "spam"]))
    # training: y * f(x) <= 0 is a mistake, so f = 0 is right for neither class;
    # prediction gives it to classes[0], the -1 side
    assert coding.decode(np.array([0.0, -0.0])).tolist() == ["ham", "ham"]
    assert coding.decode(np.array([np.nextafter(0.0, 1.0)])).tolist() == ["spam"]
    # several outputs: a tie goes to the lowest class index
    ovr = TargetCoding.one_vs_rest(np.array([3, 5, 9]))
    assert ovr.decode(np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])).tolist() == [3, 5]


def test_binary_needs_two_classes():
    with pytest.raises(ValueError, match="binary coding has two classes"):
        TargetCoding.binary(np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="at least two classes"):
        TargetCoding.one_vs_rest(np.array([4]))


# ---------------------------------------------------------------------- several classes
def test_one_vs_rest_has_one_neuron_per_class():
    classes = np.array(["cat", "dog", "emu"])
    coding = TargetCoding.one_vs_rest(classes)
    y = np.array(["emu", "cat", "emu", "dog"])
    assert coding.n_outputs == 3
    assert [coding.positive(k) for k in range(3)] == ["cat", "dog", "emu"]
    expected = [[-1, 1, -1, -1], [-1, -1, -1, 1], [1, -1, 1, -1]]
    np.testing.assert_array_equal(coding.signed(y), expected)
    np.testing.assert_array_equal(coding.signs(coding.encode(y)), expected)
    # each sample is +1 for exactly one neuron
    np.testing.assert_array_equal((coding.signed(y) > 0).sum(axis=0), [1, 1, 1, 1])


def test_multinomial_trains_on_class_indices_not_signs():
    classes = np.array([10, 20, 30])
    coding = TargetCoding.multinomial(classes)
    np.testing.assert_array_equal(coding.encode([30, 10, 20]), [2, 0, 1])
    np.testing.assert_array_equal(coding.positives, [0, 1, 2])
    with pytest.raises(ValueError, match="class indices"):
        coding.signed(np.array([10]))
    scores = np.array([[0.0, 1.0, -1.0], [5.0, 5.0, 0.0]])
    assert coding.decode(scores).tolist() == [20, 10]
    # two classes score with one column (class 1 minus class 0), decoded as binary
    two = TargetCoding.multinomial(np.array([0, 1]))
    assert two.decode(np.array([0.0, 1.0])).tolist() == [0, 1]


def test_for_classes_is_what_the_estimators_train():
    assert TargetCoding.for_classes(np.array([0, 1])).kind == "binary"
    assert TargetCoding.for_classes(np.array([0, 1, 2])).kind == "one-vs-rest"
    assert TargetCoding.for_classes(np.array([0, 1]), multinomial=True).kind == "multinomial"
    for n_classes, multinomial in [(2, False), (3, False), (2, True), (4, True)]:
        state = PrimalState.allocate(n_classes, 2, np.float64, multinomial=multinomial)
        coding = TargetCoding.for_classes(np.arange(n_classes), multinomial=multinomial)
        assert state.n_rows == coding.n_outputs
        np.testing.assert_array_equal(state.positive(), coding.positives)
        assert state.positive().dtype == np.int64  # the compiled loop's one signature


# ---------------------------------------------------------------------- a layer of labels
def test_multilabel_reads_each_neurons_column():
    coding = TargetCoding.multilabel(3)
    Y = np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]])
    assert coding.kind == "multilabel" and coding.is_multilabel
    assert coding.n_outputs == 3 and coding.positives.tolist() == [0, 1, 2]
    target = coding.encode(Y)
    assert target.dtype == np.int8 and target.flags.c_contiguous
    np.testing.assert_array_equal(target, Y)
    np.testing.assert_array_equal(coding.signs(target), np.where(Y.T == 1, 1.0, -1.0))
    np.testing.assert_array_equal(coding.signed(Y), coding.signs(target))
    # a sample may be +1 for several neurons, or for none
    assert (coding.signed(Y) > 0).sum(axis=0).tolist() == [2, 0, 3, 1]
    # booleans, floats and sparse matrices are label matrices too
    np.testing.assert_array_equal(coding.encode(Y.astype(bool)), Y)
    np.testing.assert_array_equal(coding.encode(sp.csr_matrix(Y.astype(float))), Y)


def test_a_zero_score_is_a_zero_in_the_neurons_column():
    coding = TargetCoding.multilabel(2)
    scores = np.array([[0.0, -0.0], [np.nextafter(0.0, 1.0), -1.0], [3.0, 2.0]])
    decoded = coding.decode(scores)
    assert decoded.dtype == np.int64
    assert decoded.tolist() == [[0, 0], [1, 0], [1, 1]]
    # the binary rule, column by column
    binary = TargetCoding.binary(np.array([0, 1]))
    for m in range(2):
        np.testing.assert_array_equal(decoded[:, m], binary.decode(scores[:, m]))
    with pytest.raises(ValueError, match="do not score the 2 labels"):
        coding.decode(np.zeros((3, 3)))


def test_multilabel_refuses_what_is_no_label_matrix():
    coding = TargetCoding.multilabel(2)
    with pytest.raises(ValueError, match="3 label columns; the model was fitted on .* of 2"):
        coding.encode(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="not all 0 or 1"):
        coding.encode(np.array([[0, 2], [1, 0]]))
    with pytest.raises(ValueError, match=r"shape \(n_samples, n_labels\)"):
        coding.encode(np.array([0, 1]))
    with pytest.raises(ValueError, match="label columns 0 .. M-1"):
        TargetCoding(np.array([1, 2]), "multilabel")
    with pytest.raises(ValueError, match="multinomial model picks one class per sample"):
        TargetCoding.for_classes(np.arange(3), multinomial=True, multilabel=True)


def test_a_layer_has_one_state_row_per_label_even_for_two():
    for n_labels in (2, 3, 5):
        state = PrimalState.allocate(n_labels, 2, np.float64, multilabel=True)
        coding = TargetCoding.for_classes(np.arange(n_labels), multilabel=True)
        assert state.n_rows == coding.n_outputs == n_labels
        np.testing.assert_array_equal(state.positive(), coding.positives)


@given(st.integers(1, 12), st.integers(2, 5), st.integers(0, 2**16))
def test_decode_inverts_the_signs_of_a_label_matrix(n, n_labels, seed):
    Y = (np.random.RandomState(seed).rand(n, n_labels) < 0.5).astype(int)
    coding = TargetCoding.multilabel(n_labels)
    signs = coding.signed(Y)
    assert signs.shape == (n_labels, n)
    np.testing.assert_array_equal(coding.decode(signs.T), Y)


def test_encode_refuses_unknown_labels():
    with pytest.raises(ValueError, match=r"\['c'\] that are not among the classes"):
        TargetCoding.binary(np.array(["a", "b"])).encode(np.array(["a", "c"]))


@pytest.mark.parametrize("y", [np.array(["no", "yes", "yes", "no"]), np.array([2, 5, 5, 9, 2])])
def test_estimators_predict_what_the_coding_decodes(y):
    X = np.column_stack([np.arange(y.shape[0]), np.arange(y.shape[0]) % 2]).astype(float)
    for clf in (Perceptron(), KernelPerceptron(), CentroidClassifier()):
        clf.fit(X, y)
        coding = TargetCoding.for_classes(clf.classes_)
        np.testing.assert_array_equal(clf.predict(X), coding.decode(clf.decision_function(X)))


# ---------------------------------------------------------------------- round trips
_labels = st.one_of(
    st.lists(st.integers(-(2**40), 2**40), min_size=2, max_size=8, unique=True),
    st.lists(st.text(max_size=4), min_size=2, max_size=8, unique=True),
)


@given(_labels, st.sampled_from(["binary", "one-vs-rest", "multinomial"]), st.data())
def test_decode_inverts_encode_on_the_classes(labels, kind, data):
    classes = np.unique(np.array(labels))
    if kind == "binary":
        classes = classes[:2]
    coding = TargetCoding(classes, kind)
    picks = data.draw(st.lists(st.integers(0, classes.shape[0] - 1), min_size=1, max_size=20))
    y = classes[picks]
    target = coding.encode(y)
    np.testing.assert_array_equal(classes[target], y)
    # the scores that favour each sample's own class decode to its label
    if coding.n_outputs == 1:
        scores = coding.signs(target)[0]
    else:
        scores = np.eye(classes.shape[0])[target]
    np.testing.assert_array_equal(coding.decode(scores), y)
    if kind != "multinomial":
        np.testing.assert_array_equal(coding.signed(y), coding.signs(target))
        assert set(np.unique(coding.signed(y))) <= {-1.0, 1.0}


# ---------------------------------------------------------------------- one rule, one place
# Where ±1 may still be derived from an equality: the compiled loop, which reads the
# coding's `positives` array (it cannot take Python objects), and the playground's
# presets, which turn the points of a data set into the page's ±1 labels (data, not the
# targets of a neuron).
ALLOWED_SIGN_RULES = {
    "engine/targets.py",
    "engine/kernels/primal.py",
    "apps/playground/presets.py",
}


def _is_unit(node, sign):
    """Whether ``node`` is the literal +1 / -1 (int or float)."""
    if sign < 0:
        return (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and _is_unit(node.operand, 1)
        )
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 1


def _is_plus_minus(a, b):
    return (_is_unit(a, 1) and _is_unit(b, -1)) or (_is_unit(a, -1) and _is_unit(b, 1))


def _is_equality(node):
    return isinstance(node, ast.Compare) and any(
        isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops
    )


def _fixed_class(node):
    """Whether ``node`` picks classes by a fixed position: ``classes[1]``,
    ``x.classes_[-1]``, ``classes_[1:]`` (which class is +1, written out)."""
    if not isinstance(node, ast.Subscript):
        return False
    value = node.value
    name = value.id if isinstance(value, ast.Name) else getattr(value, "attr", "")
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    bounds = [
        bound
        for part in parts
        for bound in ([part.lower, part.upper] if isinstance(part, ast.Slice) else [part])
    ]
    fixed = all(
        bound is None
        or isinstance(bound, ast.Constant)
        or (isinstance(bound, ast.UnaryOp) and isinstance(bound.operand, ast.Constant))
        for bound in bounds
    )
    return name.rstrip("_") == "classes" and fixed


def _sign_rules(path):
    """The places in ``path`` that derive the ±1 target coding themselves:
    ``np.where(<equality>, 1, -1)``, ``1 if <equality> else -1``, and equality tests
    against the classes at a fixed position (``y == classes_[1]``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "where"
            and len(node.args) == 3
            and _is_equality(node.args[0])
            and _is_plus_minus(node.args[1], node.args[2])
        ):
            found.append(f"{path.name}:{node.lineno} where")
        elif (
            isinstance(node, ast.IfExp)
            and _is_equality(node.test)
            and _is_plus_minus(node.body, node.orelse)
        ):
            found.append(f"{path.name}:{node.lineno} if-else")
        elif _is_equality(node) and any(
            _fixed_class(side) for side in [node.left, *node.comparators]
        ):
            found.append(f"{path.name}:{node.lineno} classes")
    return found


def test_no_module_but_the_coding_derives_the_plus_one_class():
    paths = [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).as_posix() not in ALLOWED_SIGN_RULES
    ]
    assert len(paths) > 30
    found = [hit for path in paths for hit in _sign_rules(path)]
    assert found == []
    # the allowed places are where the rule lives (else the allowance is stale)
    assert _sign_rules(ROOT / "engine" / "targets.py")
    assert _sign_rules(ROOT / "engine" / "kernels" / "primal.py")


def test_the_sign_rule_check_sees_what_it_looks_for(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text(
        "import numpy as np\n"
        "def f(y, clf, classes, target, positive, s):\n"
        "    a = np.where(y == clf.classes_[1], 1.0, -1.0)\n"
        "    b = np.where(target[None, :] != positive[:, None], -1, 1)\n"
        "    c = 1.0 if target[s] == positive[s] else -1.0\n"
        "    d = y == classes[-1]\n"
        "    e = np.where(y > 0, 1.0, -1.0)\n"  # a sign, not a class test: fine
        "    g = np.where(y == 2, 1.0, 0.0)\n"  # not ±1: fine
        "    h = classes[np.argmax(y)]\n"  # a label read off, not compared: fine
        "    k = classes[np.minimum(y, 1)] == y\n"  # a membership test: fine
        "    m = y[None, :] == clf.classes_[1:, None]\n"
        "    return a, b, c, d, e, g, h, k, m\n"
    )
    assert sorted(_sign_rules(module)) == [
        "bad.py:11 classes",
        "bad.py:3 classes",
        "bad.py:3 where",
        "bad.py:4 where",
        "bad.py:5 if-else",
        "bad.py:6 classes",
    ]
