"""Model files of real pipelines: the scikit-learn preprocessing a user puts before a
classifier of rosenblatt (polynomial features, PCA, truncated SVD, one-hot encoding,
imputation, robust scaling, and the ColumnTransformer and FeatureUnion that combine
them) saves, loads and predicts exactly as fitted; crafted files of such pipelines are
refused by the checks of rosenblatt.persistence.invariants before any estimator is built.

Crafted files are re-signed (tests/forging.py), so only the checks of the content stand
between them and the reader.
"""

import io
import json

import numpy as np
import pandas as pd
import pytest
from forging import forge
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.feature_extraction.text import HashingVectorizer, TfidfVectorizer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    PolynomialFeatures,
    RobustScaler,
    StandardScaler,
)

from rosenblatt import AveragedPerceptron, ModelFileError, Perceptron
from rosenblatt.persistence import _Reader, load, load_predictor, save

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore:Skipping features without any observed values"),
]

X, Y = make_classification(
    n_samples=80, n_features=4, n_informative=3, n_redundant=0, random_state=0
)
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
XOR_Y = np.array([0, 1, 1, 0])
FRAME = pd.DataFrame(
    {
        "colour": np.array(["red", "green", "blue", "green"])[np.arange(80) % 4],
        "size": X[:, 0],
        "weight": X[:, 1],
        "age": X[:, 2],
        "note": ["free prize", "see you", "lunch now", "win cash"] * 20,
    }
)
WITH_NANS = X.copy()
WITH_NANS[::7, 1] = np.nan
WITH_NANS[:, 3] = np.nan  # never observed: the imputer drops it
DOCS = ["free prize now", "see you at lunch", "free cash now", "lunch at noon"] * 6
DOC_Y = np.array([1, 0, 1, 0] * 6)


def _columns(*extra, remainder="passthrough"):
    return ColumnTransformer(
        [
            ("colour", OneHotEncoder(handle_unknown="ignore"), ["colour"]),
            ("numbers", StandardScaler(), ["size", "weight"]),
            *extra,
        ],
        remainder=remainder,
    )


# name: (unfitted model, X, y)
PIPELINES = {
    "polynomial-xor": (
        make_pipeline(PolynomialFeatures(2), Perceptron(random_state=0)),
        XOR_X,
        XOR_Y,
    ),
    "polynomial-interactions": (
        make_pipeline(
            PolynomialFeatures((2, 3), interaction_only=True, include_bias=False),
            Perceptron(random_state=0),
        ),
        X,
        Y,
    ),
    "column-transformer-frame": (
        make_pipeline(_columns(remainder="drop"), Perceptron(random_state=0)),
        FRAME.drop(columns="note"),
        Y,
    ),
    "column-transformer-nested": (
        make_pipeline(
            _columns(
                ("age", make_pipeline(SimpleImputer(), RobustScaler()), ["age"]),
                ("note", HashingVectorizer(n_features=16), "note"),
                ("nothing", MinMaxScaler(), []),
            ),
            AveragedPerceptron(random_state=0),
        ),
        FRAME,
        Y,
    ),
    "column-transformer-indices": (
        make_pipeline(
            ColumnTransformer(
                [("first", MaxAbsScaler(), [0, -1]), ("dropped", "drop", 1)],
                remainder=Normalizer(),
            ),
            Perceptron(random_state=0),
        ),
        X,
        Y,
    ),
    "imputer-mean": (make_pipeline(SimpleImputer(), Perceptron(random_state=0)), WITH_NANS, Y),
    "imputer-keep-empty": (
        make_pipeline(
            SimpleImputer(strategy="median", keep_empty_features=True), Perceptron(random_state=0)
        ),
        WITH_NANS,
        Y,
    ),
    "pca": (make_pipeline(StandardScaler(), PCA(2), Perceptron(random_state=0)), X, Y),
    "pca-whiten": (make_pipeline(PCA(3, whiten=True), Perceptron(random_state=0)), X, Y),
    "truncated-svd-tfidf": (
        make_pipeline(
            TfidfVectorizer(), TruncatedSVD(3, random_state=0), Perceptron(random_state=0)
        ),
        DOCS,
        DOC_Y,
    ),
    "feature-union": (
        make_pipeline(
            FeatureUnion(
                [
                    ("pca", PCA(2)),
                    ("robust", RobustScaler(with_centering=False)),
                    ("same", "passthrough"),
                    ("none", "drop"),
                    ("scaled", make_pipeline(MinMaxScaler(), Normalizer())),
                ],
                transformer_weights={"pca": 2.0},
            ),
            Perceptron(random_state=0),
        ),
        X,
        Y,
    ),
}


def _fitted(name):
    model, data, labels = PIPELINES[name]
    return clone(model).fit(data, labels), data


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipelines_round_trip_with_identical_answers(name, tmp_path):
    model, data = _fitted(name)
    path = tmp_path / "m.rbm"
    save(model, path)
    for loaded in (load(path), load_predictor(path)):  # the predictor falls back to load
        assert isinstance(loaded, Pipeline)
        assert np.array_equal(loaded.predict(data), model.predict(data))
        assert np.array_equal(loaded.decision_function(data), model.decision_function(data))


@pytest.mark.parametrize("name", ["column-transformer-nested", "feature-union"])
def test_unfitted_containers_come_back_unfitted_and_fit_as_fresh_ones(name, tmp_path):
    model, data, labels = PIPELINES[name]
    save(clone(model), tmp_path / "m.rbm")
    loaded = load(tmp_path / "m.rbm").fit(data, labels)
    assert np.array_equal(loaded.predict(data), clone(model).fit(data, labels).predict(data))


def test_a_loaded_column_transformer_selects_columns_by_name(tmp_path):
    model, data = _fitted("column-transformer-nested")
    path = tmp_path / "m.rbm"
    save(model, path)
    shuffled = data[list(reversed(data.columns))]  # by name, whatever the order
    assert np.array_equal(load(path).predict(shuffled), model.predict(data))
    with pytest.raises(ValueError, match="columns are missing"):
        load(path).predict(data.drop(columns="size"))


def test_unknown_categories_are_handled_as_fitted(tmp_path):
    model, data = _fitted("column-transformer-frame")
    path = tmp_path / "m.rbm"
    save(model, path)
    unseen = data.assign(colour="purple")
    assert np.array_equal(load(path).predict(unseen), model.predict(unseen))


def test_a_scaled_linear_model_still_gets_the_numpy_predictor(tmp_path):
    model = make_pipeline(StandardScaler(), Perceptron(random_state=0)).fit(X, Y)
    save(model, tmp_path / "m.rbm")
    assert type(load_predictor(tmp_path / "m.rbm")).__name__ == "LinearPredictor"


# ---------------------------------------------------------------------- crafted files
def _find(tree, name):
    """The first fitted estimator node of class ``...name`` in the state tree (a
    container's parameters hold unfitted copies of its transformers)."""
    if isinstance(tree, dict):
        if (
            tree.get("$") == "estimator"
            and tree["class"].endswith("." + name)
            and (tree["fitted"] or name in ("FeatureUnion", "Pipeline"))
        ):
            return tree
        children = tree.values()
    elif isinstance(tree, list):
        children = tree
    else:
        return None
    for child in children:
        found = _find(child, name)
        if found is not None:
            return found
    return None


class _Members:
    """The arrays of a model file being crafted."""

    def __init__(self, members):
        self.members = members

    def get(self, node):
        return np.load(io.BytesIO(self.members[node["member"]]), allow_pickle=False)

    def put(self, node, array):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(array), allow_pickle=False)
        self.members[node["member"]] = buffer.getvalue()


def _crafted(name, tmp_path, change):
    """The saved pipeline ``name`` after ``change(tree, members)``, re-signed."""
    model, _ = _fitted(name)
    path = tmp_path / "crafted.rbm"
    save(model, path)

    def edit(manifest, members):
        tree = json.loads(members["state.json"])
        change(tree, _Members(members))
        members["state.json"] = json.dumps(tree).encode()

    forge(path, edit)
    return path


@pytest.fixture
def nothing_built(monkeypatch):
    """Fail the test if the loader builds any estimator (calls a constructor or setattr)."""

    def build(self, model):
        raise AssertionError(f"a {model.key} was built from a file that should be refused")

    monkeypatch.setattr(_Reader, "build", build)


def _refused(path, match):
    for loader in (load, load_predictor):
        with pytest.raises(ModelFileError, match=match) as refused:
            loader(path)
        assert "\n" not in str(refused.value)


def _array(cls, name, edit):
    def change(tree, members):
        node = _find(tree, cls)["fitted"][name]
        members.put(node, edit(members.get(node)))

    return change


def _fitted_value(cls, name, value):
    def change(tree, members):
        _find(tree, cls)["fitted"][name] = value

    return change


def _param(cls, name, value):
    def change(tree, members):
        _find(tree, cls)["params"][name] = value

    return change


def _entry(index, edit):
    """Edit the ColumnTransformer's ``transformers_[index]`` and ``transformers[index]``
    alike (``edit(items)``: the tuple's items as a JSON list)."""

    def change(tree, members):
        node = _find(tree, "ColumnTransformer")
        for held in (node["fitted"]["transformers_"], node["params"]["transformers"]):
            if index < len(held):
                edit(held[index]["items"])

    return change


def _reversed_categories(tree, members):
    node = _find(tree, "OneHotEncoder")["fitted"]["categories_"][0]
    members.put(node, members.get(node)[::-1])


def _drop_union_part(tree, members):
    del _find(tree, "FeatureUnion")["params"]["transformer_list"][1]


def _remainder_columns(tree, members):
    _find(tree, "ColumnTransformer")["fitted"]["transformers_"][-1]["items"][2] = [1]


def _swap_output_slices(tree, members):
    items = _find(tree, "ColumnTransformer")["fitted"]["output_indices_"]["items"]
    items[0][1], items[1][1] = items[1][1], items[0][1]


def _foreign_part(tree, members):
    _find(tree, "ColumnTransformer")["fitted"]["transformers_"][1]["items"][1]["class"] = (
        "sklearn.preprocessing.Binarizer"
    )


def _foreign_union_part(tree, members):
    _find(tree, "FeatureUnion")["params"]["transformer_list"][0]["items"][1]["class"] = "os.system"


def _code_as_func(tree, members):
    node = _find(tree, "FunctionTransformer")
    node["params"]["func"] = "os.system"


def _bad_slice(tree, members):
    items = _find(tree, "ColumnTransformer")["fitted"]["output_indices_"]["items"]
    items[0][1] = {"$": "slice", "items": [0, "os", None]}


CRAFTED = {
    "PCA components of another width": (
        "pca",
        _array("PCA", "components_", lambda a: a[:, :-1]),
        r"PCA.components_ must have shape",
    ),
    "PCA mean not finite": (
        "pca",
        _array("PCA", "mean_", lambda a: a * np.inf),
        r"PCA.mean_ holds values that are not finite",
    ),
    "PCA rows and n_components_ disagree": (
        "pca",
        _array("PCA", "components_", lambda a: a[:1]),
        r"PCA.explained_variance_ must have shape",
    ),
    "SVD of more rows than n_components": (
        "truncated-svd-tfidf",
        _param("TruncatedSVD", "n_components", 2),
        r"TruncatedSVD.components_ must have n_components=2 rows",
    ),
    "robust scale of zero": (
        "feature-union",
        _array("RobustScaler", "scale_", lambda a: a * 0),
        r"RobustScaler.scale_ holds values that are not positive",
    ),
    "robust centre infinite": (
        "column-transformer-nested",
        _array("RobustScaler", "center_", lambda a: a + np.inf),
        r"RobustScaler.center_ holds values that are not finite",
    ),
    "imputer statistics infinite": (
        "imputer-mean",
        _array("SimpleImputer", "statistics_", lambda a: np.where(np.isnan(a), a, np.inf)),
        r"SimpleImputer.statistics_ holds infinite values",
    ),
    "polynomial output count": (
        "polynomial-xor",
        _fitted_value("PolynomialFeatures", "n_output_features_", 7),
        r"PolynomialFeatures.n_output_features_ differs",
    ),
    "polynomial of a huge degree": (
        "polynomial-xor",
        _param("PolynomialFeatures", "degree", 10**6),
        r"PolynomialFeatures parameter degree=1000000.*does not load",
    ),
    "categories unsorted": (
        "column-transformer-frame",
        _reversed_categories,
        r"OneHotEncoder.categories_\[0\] must hold distinct labels in sorted order",
    ),
    "categories of another feature count": (
        "column-transformer-frame",
        lambda tree, members: _find(tree, "OneHotEncoder")["fitted"]["categories_"].append(
            _find(tree, "OneHotEncoder")["fitted"]["categories_"][0]
        ),
        r"OneHotEncoder.categories_ must be a list of one array per feature \(1\)",
    ),
    "column index beyond the input": (
        "column-transformer-indices",
        _entry(0, lambda items: items.__setitem__(2, [0, 9])),
        r"ColumnTransformer.transformers_\[0\] selects columns \[9\] beyond the 4 of the input",
    ),
    "column name the input lacks": (
        "column-transformer-frame",
        _entry(1, lambda items: items.__setitem__(2, ["size", "height"])),
        r"transformers_\[1\] selects columns the input does not have: \['height'\]",
    ),
    "columns of another count than the transformer takes": (
        "column-transformer-frame",
        _entry(1, lambda items: items.__setitem__(2, ["size"])),
        r"transformers_\[1\] takes 2 features but its columns select 1",
    ),
    "fitted columns other than the given ones": (
        "column-transformer-frame",
        lambda tree, members: _find(tree, "ColumnTransformer")["fitted"]["transformers_"][1][
            "items"
        ].__setitem__(2, ["weight", "size"]),
        r"transformers_\[1\] is not the transformer 'numbers' on the columns it was given",
    ),
    "remainder on taken columns": (
        "column-transformer-indices",
        _remainder_columns,
        r"transformers_\[2\] must select exactly the columns no transformer selects",
    ),
    "output slices swapped": (
        "column-transformer-frame",
        _swap_output_slices,
        r"ColumnTransformer.output_indices_ differs",
    ),
    "a slice of strings": ("column-transformer-frame", _bad_slice, r"a slice of"),
    "a class outside the registry in a ColumnTransformer": (
        "column-transformer-frame",
        _foreign_part,
        r"asks for class 'sklearn.preprocessing.Binarizer'",
    ),
    "a class outside the registry in a FeatureUnion": (
        "feature-union",
        _foreign_union_part,
        r"asks for class 'os.system'",
    ),
    "a function named as the passthrough's func": (
        "feature-union",
        _code_as_func,
        r"FunctionTransformer parameter func='os.system'.*does not load",
    ),
    "a union narrower than the classifier": (
        "feature-union",
        _drop_union_part,
        r"Pipeline.steps\[1\] takes 14 features but the step before gives 10",
    ),
    "a polynomial wider than the classifier": (
        "polynomial-xor",
        lambda tree, members: (
            _param("PolynomialFeatures", "degree", 3)(tree, members),
            _fitted_value("PolynomialFeatures", "n_output_features_", 10)(tree, members),
        ),
        r"Pipeline.steps\[1\] takes 6 features but the step before gives 10",
    ),
    "a drop_idx_ the format never writes": (
        "column-transformer-frame",
        _fitted_value("OneHotEncoder", "drop_idx_", [0]),
        r"OneHotEncoder.drop_idx_ must be None",
    ),
    "handle_unknown of another value": (
        "column-transformer-frame",
        _param("OneHotEncoder", "handle_unknown", "explode"),
        r"handle_unknown='explode'.*allowed: 'error' or 'ignore'",
    ),
    "categories given as lists": (
        "column-transformer-frame",
        _param("OneHotEncoder", "categories", [["red"]]),
        r"parameter categories=\[\['red'\]\].*allowed: 'auto'",
    ),
    "svd_solver of another value": (
        "pca",
        _param("PCA", "svd_solver", "os.system"),
        r"PCA parameter svd_solver='os.system'",
    ),
    "an unfitted step in a fitted pipeline": (
        "pca",
        lambda tree, members: _find(tree, "StandardScaler").__setitem__("fitted", {}),
        r"Pipeline.steps must all be fitted",
    ),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_pipelines_are_refused_before_anything_is_built(case, tmp_path, nothing_built):
    name, change, match = CRAFTED[case]
    _refused(_crafted(name, tmp_path, change), match)


def test_the_crafting_itself_leaves_a_loadable_file(tmp_path):
    path = _crafted("column-transformer-nested", tmp_path, lambda tree, members: None)
    model, data = _fitted("column-transformer-nested")
    assert np.array_equal(load(path).predict(data), model.predict(data))


# ---------------------------------------------------------------------- refused at save
LETTERS = np.array(["a", "b"])[(X[:, :1] > 0).astype(int)]
UNSTORABLE = {
    "function": (
        FunctionTransformer(np.tanh),
        TypeError,
        r"parameter 'func' is a callable \(tanh\).*stores no code",
    ),
    "callable-columns": (
        ColumnTransformer([("n", StandardScaler(), make_column_selector(dtype_include=float))]),
        ValueError,
        r"parameter transformers=.*not a callable, a slice or a mask",
    ),
    "drop": (OneHotEncoder(drop="first"), ValueError, r"parameter drop='first'.*allowed: None"),
    "categories": (
        OneHotEncoder(categories=[["a", "b"]]),
        ValueError,
        r"parameter categories=\[\['a', 'b'\]\].*allowed: 'auto'",
    ),
    "infrequent": (
        OneHotEncoder(min_frequency=2),
        ValueError,
        r"parameter min_frequency=2.*allowed: None",
    ),
    "indicator": (
        SimpleImputer(add_indicator=True),
        ValueError,
        r"parameter add_indicator=True.*allowed: False",
    ),
    "random-state": (
        PCA(2, random_state=np.random.RandomState(0)),
        ValueError,
        r"parameter random_state=RandomState.*allowed: None or an int",
    ),
    "degree": (PolynomialFeatures(11), ValueError, r"parameter degree=11.*from 0 to 10"),
}


@pytest.mark.parametrize("case", sorted(UNSTORABLE))
def test_preprocessing_a_file_cannot_keep_is_refused_at_save(case, tmp_path):
    step, error, match = UNSTORABLE[case]
    data = LETTERS if isinstance(step, OneHotEncoder) else pd.DataFrame(X, columns=list("abcd"))
    model = make_pipeline(step, Perceptron()).fit(data, Y)
    path = tmp_path / "m.rbm"
    with pytest.raises(error, match=match):
        save(model, path)
    assert not path.exists()


def test_an_unstorable_class_is_refused_with_what_can_be_stored(tmp_path):
    model = make_pipeline(Binarizer(), Perceptron()).fit(X, Y)
    with pytest.raises(TypeError) as refused:
        save(model, tmp_path / "m.rbm")
    message = str(refused.value)
    assert "Binarizer" in message.partition("REGISTRY")[0]
    listed = message.partition("REGISTRY: ")[2].partition(". Convert")[0]
    for name in ("ColumnTransformer", "OneHotEncoder", "PCA", "Perceptron", "Pipeline"):
        assert name in listed.replace(";", ",").split(", ") or f", {name}" in listed
    assert "sklearn.compose.ColumnTransformer" not in message  # class names, not keys
    assert "pickle" in message and "joblib" in message and "skops" in message
    assert "never load" in message
