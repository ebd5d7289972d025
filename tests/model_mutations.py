"""Mutated model files, and a worker that feeds them to the loaders: the engine of the fuzz
test (``tests/test_model_fuzz.py``) and of the long run (``benchmarks/fuzz_model_files.py``).

What is checked, and why
------------------------
A model file is data from anywhere: ``rosenblatt.load`` must either refuse it with a
:class:`rosenblatt.ModelFileError` (one clean line) or give a model that predicts exactly
what the saved model predicted. Between the two lies every state a crafted or damaged file
can describe: arrays whose shapes disagree (which the compiled numba loops would read or
write out of bounds), indices out of range, nan weights, nodes of the wrong kind, classes
swapped. Each such state must be caught when the file is loaded, before any code uses it.

This module

- builds one small fitted model of each kind the format holds (:func:`reference_models`,
  and :func:`cli_references`, trained the way ``rosenblatt train`` trains) and saves
  each with the data it predicts on and its predictions (:func:`write_references`);
- mutates a saved file at one *site* (a node of ``state.json``, an ``.npy`` member, the
  manifest's class) with one *operator* (:data:`OPERATORS`), seeded, and re-signs it
  with ``forging.forge`` so that the content reaches the loader's checks
  (:func:`mutate`);
- runs the files through a worker process (``python tests/model_mutations.py worker
  RESULTS [LIST]``) that loads each with ``rosenblatt.load`` and with
  ``persistence.load_predictor`` (what ``rosenblatt predict`` uses), predicts the
  reference data with both, and writes one JSON line before each file and one after,
  so that when a file kills the worker with a signal the parent knows which, records
  it and starts a new worker on the rest (:func:`run_files`);
- runs ``rosenblatt predict -m FILE DATA`` on a file (:func:`run_cli`);
- judges every outcome (:func:`failures_of`, :func:`cli_failure`).

Operators come in two categories. **strict**: the mutated file breaks an invariant a
reader can check (a shape, a dtype, a range, a node kind, a class, a missing part): it
must be refused, or predict exactly as before (a mutation of a part that predict never
reads). **value**: a finite number replaced by another of the same type, a parameter set
to another valid value, a float array reordered, class labels that stay sorted and
unique: the file may be a different valid model that no reader can tell from the saved
one (a LinearProgramClassifier's ``coef_`` is stored once and can be anything), so it
only has to be refused cleanly or load into a model that predicts.

Outcomes, per loader: ``refused: MESSAGE``, ``same``, ``different``, ``raw: TYPE:
MESSAGE`` (loading raised something else), ``raw in predict: TYPE: MESSAGE`` (the
model loaded, its predict raised), and from the parent ``signal N``, ``timeout``. The
two loaders must agree: both refuse, or both predict the same labels.

Reproduce one mutated file: ``python tests/model_mutations.py reproduce KIND OPERATOR
SEED [OUT]`` builds it again and loads it in this process, traceback and all.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # run as a script (the worker): forging sits beside it
    sys.path.insert(0, str(TESTS))

from forging import forge  # noqa: E402

STRICT, VALUE = "strict", "value"


# ---------------------------------------------------------------------- reference models
def _datasets():
    from sklearn.datasets import make_classification

    X2, y2 = make_classification(
        n_samples=40, n_features=4, n_informative=3, n_redundant=0, random_state=0
    )
    X3, y3 = make_classification(
        n_samples=45,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=3,
        n_clusters_per_class=1,
        random_state=1,
    )
    return X2, y2, X3, y3


def _texts(n=80):
    from rosenblatt.data.datasets import load_sms_spam

    sms = load_sms_spam()
    return list(sms.data[:n]), sms.target[:n], sms.target_names[sms.target[:n]]


def _builders():
    """``{kind: build() -> (unfitted model, X, y)}``: small data, fixed seeds."""
    import pandas as pd
    import scipy.sparse as sp
    from sklearn.compose import ColumnTransformer
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.feature_extraction.text import (
        CountVectorizer,
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
    )
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import FeatureUnion, make_pipeline
    from sklearn.preprocessing import (
        MaxAbsScaler,
        MinMaxScaler,
        Normalizer,
        OneHotEncoder,
        PolynomialFeatures,
        RobustScaler,
        StandardScaler,
    )

    from rosenblatt import (
        AveragedPerceptron,
        CentroidClassifier,
        KernelPerceptron,
        LinearProgramClassifier,
        PassiveAggressive,
        Perceptron,
        TfDfTransformer,
        VotedPerceptron,
        calibrated,
    )

    X2, y2, X3, y3 = _datasets()
    docs, target, names = _texts()
    fast = {"max_iter": 10, "random_state": 0}
    frame = pd.DataFrame(X2, columns=["alpha", "beta", "gamma", "delta"])
    frame["colour"] = np.array(["red", "green", "blue"])[np.arange(len(frame)) % 3]
    gaps = X2.copy()
    gaps[::6, 1] = np.nan
    columns = ColumnTransformer(
        [
            ("colour", OneHotEncoder(handle_unknown="ignore"), ["colour"]),
            ("scaled", make_pipeline(SimpleImputer(), StandardScaler()), ["alpha", "beta"]),
            ("robust", RobustScaler(), [2]),
        ],
        remainder="passthrough",
    )
    union = FeatureUnion([("pca", PCA(2)), ("robust", RobustScaler()), ("same", "passthrough")])

    def kernel(prediction, X, y):
        return lambda: (KernelPerceptron(prediction=prediction, max_iter=3, random_state=0), X, y)

    return {
        "perceptron": lambda: (Perceptron(**fast), X2, y2),
        "averaged-ovr3": lambda: (AveragedPerceptron(**fast), X3, y3),
        "multinomial3": lambda: (Perceptron(multi_class="multinomial", **fast), X3, y3),
        "multinomial2": lambda: (Perceptron(multi_class="multinomial", **fast), X2, y2),
        "voted": lambda: (VotedPerceptron(max_iter=5, random_state=0), X2, y2),
        "voted-csr": lambda: (VotedPerceptron(max_iter=5, random_state=0), sp.csr_matrix(X2), y2),
        "voted-csr3": lambda: (VotedPerceptron(max_iter=5, random_state=0), sp.csr_matrix(X3), y3),
        "voted-multinomial": lambda: (
            VotedPerceptron(multi_class="multinomial", max_iter=5, random_state=0),
            X3,
            y3,
        ),
        "pa2": lambda: (PassiveAggressive(variant="pa2", **fast), X2, y2),
        "pa-averaged-multinomial3": lambda: (
            PassiveAggressive(average=True, multi_class="multinomial", **fast),
            X3,
            y3,
        ),
        "kernel-averaged": kernel("averaged", X2, y2),
        "kernel-averaged3": kernel("averaged", X3, y3),
        "kernel-last": kernel("last", X2, y2),
        "kernel-last3": kernel("last", X3, y3),
        "kernel-voted": kernel("voted", X2, y2),
        "kernel-voted3": kernel("voted", X3, y3),
        "kernel-csr": kernel("averaged", sp.csr_matrix(X2), y2),
        "centroid2": lambda: (CentroidClassifier(), X2, y2),
        "centroid3": lambda: (CentroidClassifier(), X3, y3),
        "lp": lambda: (LinearProgramClassifier(), X2, y2),
        "calibrated-sigmoid": lambda: (
            calibrated(AveragedPerceptron(max_iter=5, random_state=0), cv=3),
            X2,
            y2,
        ),
        "calibrated-isotonic": lambda: (
            calibrated(AveragedPerceptron(max_iter=5, random_state=0), "isotonic", cv=3),
            X2,
            y2,
        ),
        "scaled": lambda: (make_pipeline(StandardScaler(), Perceptron(**fast)), X2, y2),
        "minmax3": lambda: (make_pipeline(MinMaxScaler(), Perceptron(**fast)), X3, y3),
        "maxabs-normalizer": lambda: (
            make_pipeline(MaxAbsScaler(), Normalizer(), AveragedPerceptron(**fast)),
            X2,
            y2,
        ),
        "text-tfidf": lambda: (
            make_pipeline(TfidfVectorizer(), AveragedPerceptron(**fast)),
            docs,
            names,
        ),
        "text-count-tfidf": lambda: (
            make_pipeline(CountVectorizer(), TfidfTransformer(), Perceptron(**fast)),
            docs,
            target,
        ),
        "text-hashing": lambda: (
            make_pipeline(HashingVectorizer(n_features=2**10), Perceptron(**fast)),
            docs,
            target,
        ),
        "text-tfdf": lambda: (
            make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron(**fast)),
            docs,
            target,
        ),
        "dataframe": lambda: (
            Perceptron(**fast),
            pd.DataFrame(X2, columns=["alpha", "beta", "gamma", "delta"]),
            y2,
        ),
        "string-labels": lambda: (Perceptron(**fast), X2, np.array(["ham", "spam"])[y2]),
        # the scikit-learn preprocessing before a classifier (persistence.policy)
        "polynomial": lambda: (make_pipeline(PolynomialFeatures(2), Perceptron(**fast)), X2, y2),
        "columns-frame": lambda: (make_pipeline(columns, Perceptron(**fast)), frame, y2),
        "imputer-pca": lambda: (
            make_pipeline(SimpleImputer(strategy="median"), PCA(3), Perceptron(**fast)),
            gaps,
            y2,
        ),
        "text-svd": lambda: (
            make_pipeline(TfidfVectorizer(), TruncatedSVD(5, random_state=0), Perceptron(**fast)),
            docs,
            target,
        ),
        "union": lambda: (make_pipeline(union, AveragedPerceptron(**fast)), X2, y2),
    }


def reference_models(kinds=None):
    """One fitted model of each kind: ``{kind: (model, X)}``, X the data to predict on.

    ``kinds``: only these (default: all). A few seconds for all of them.
    """
    from sklearn.exceptions import ConvergenceWarning

    built = {}
    for kind, build in _builders().items():
        if kinds is None or kind in kinds:
            model, X, y = build()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                built[kind] = model.fit(X, y), X
    return built


# `rosenblatt train` options of the command-line references (a CSV, or a TSV for text)
CLI_TRAINING = {
    "cli-perceptron": {"algorithm": "perceptron"},
    "cli-averaged-noscale": {"algorithm": "averaged", "scale": False},
    "cli-voted": {"algorithm": "voted"},
    "cli-kernel": {"algorithm": "kernel"},
    "cli-lp": {"algorithm": "lp"},
    "cli-text": {"algorithm": "averaged"},
}


def _write_cli_data(folder):
    """The training files of the command-line references: ``(csv, tsv)`` paths."""
    X2, y2, X3, y3 = _datasets()
    csv = folder / "numbers.csv"
    rows = ["f0,f1,f2,f3,label"] + [
        ",".join([*(repr(float(v)) for v in row), str(label)]) for row, label in zip(X3, y3)
    ]
    csv.write_text("\n".join(rows) + "\n")
    docs, _, names = _texts()
    tsv = folder / "texts.tsv"
    tsv.write_text("".join(f"{n}\t{' '.join(d.split())}\n" for d, n in zip(docs, names)))
    return csv, tsv


def cli_references(folder, kinds=None):
    """Models trained by ``rosenblatt train`` (its ``train`` function, which writes the
    command line's metadata) into ``folder``: ``{kind: (model path, data path)}``."""
    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.apps.cli.train import train

    folder = Path(folder)
    csv, tsv = _write_cli_data(folder)
    made = {}
    for kind, options in CLI_TRAINING.items():
        if kinds is not None and kind not in kinds:
            continue
        data = tsv if kind == "cli-text" else csv
        path = folder / f"{kind}.rbl"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            train(str(data), str(path), epochs=5, **options)
        made[kind] = path, data
    return made


@dataclass
class Reference:
    """A saved reference model: its file, the ``.npz`` of its data and predictions, and
    for command-line models the data file ``rosenblatt predict`` reads."""

    kind: str
    path: str
    data: str
    cli_data: str | None = None


def _encode_data(X, expected):
    """The arrays of an ``.npz`` (no pickle) that hold ``X`` and the predictions."""
    import scipy.sparse as sp

    arrays = {}
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        arrays.update(csr_data=X.data, csr_indices=X.indices, csr_indptr=X.indptr)
        arrays["csr_shape"] = np.array(X.shape)
    elif isinstance(X, list):
        arrays["texts"] = np.array(X, dtype=str)
    elif hasattr(X, "columns"):  # column by column: a column of str is no object array
        arrays["columns"] = np.array(X.columns, dtype=str)
        for k, name in enumerate(X.columns):
            column = X[name].to_numpy()
            arrays[f"column{k}"] = column.astype(str) if column.dtype == object else column
    else:
        arrays["X"] = np.asarray(X)
    expected = np.asarray(expected)
    arrays["expected"] = expected.astype(str) if expected.dtype == object else expected
    return arrays


def _decode_data(npz):
    """``(X, expected)`` back from :func:`_encode_data`'s arrays."""
    if "csr_data" in npz:
        import scipy.sparse as sp

        parts = (npz["csr_data"], npz["csr_indices"], npz["csr_indptr"])
        return sp.csr_matrix(parts, shape=tuple(npz["csr_shape"])), npz["expected"]
    if "texts" in npz:
        return npz["texts"].tolist(), npz["expected"]
    if "columns" in npz:
        import pandas as pd

        names = npz["columns"].tolist()
        columns = [npz[f"column{k}"] for k in range(len(names))]
        columns = [c.astype(object) if c.dtype.kind == "U" else c for c in columns]
        return pd.DataFrame(dict(zip(names, columns))), npz["expected"]
    return npz["X"], npz["expected"]


def write_references(folder, kinds=None, cli=True):
    """Save every reference model into ``folder`` with an ``.npz`` of its data and
    predictions (checked against both loaders); return ``{kind: Reference}``.

    ``cli``: also train the command-line references (:func:`cli_references`)."""
    from rosenblatt import load, save
    from rosenblatt.data.io import read_data
    from rosenblatt.persistence import load_predictor

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    models = {}
    for kind, (model, X) in reference_models(kinds).items():
        save(model, folder / f"{kind}.rbl")
        models[kind] = folder / f"{kind}.rbl", model.predict(X), X, None
    for kind, (path, data) in (cli_references(folder, kinds) if cli else {}).items():
        models[kind] = path, None, read_data(str(data), labelled=None).X, str(data)
    references = {}
    for kind, (path, fitted, X, cli_data) in models.items():
        expected = load(path).predict(X)
        for labels in (fitted, load_predictor(path).predict(X)):
            if labels is not None and _verdict(labels, expected) != "same":
                raise AssertionError(f"{kind}: the saved model does not predict as the fitted one")
        npz = folder / f"{kind}.npz"
        np.savez(npz, **_encode_data(X, expected))
        references[kind] = Reference(kind, str(path), str(npz), cli_data)
    return references


def _canonical(labels):
    labels = np.asarray(labels)
    kind = labels.dtype.kind
    if kind == "O" and all(isinstance(v, str) for v in labels.ravel()):
        kind = "U"
    return {"i": "int", "u": "int"}.get(kind, kind), labels.shape, labels.tolist()


def _verdict(labels, expected):
    """``"same"`` when the labels equal the expected ones (values, shape and kind of
    dtype: 0 and 0.0 print differently), else ``"different"``."""
    return "same" if _canonical(labels) == _canonical(expected) else "different"


# ---------------------------------------------------------------------- sites
@dataclass
class Site:
    """A place in a model file: a node of ``state.json`` (``path`` from the root), or the
    manifest's ``class`` (``path`` ``("manifest", "class")``).

    ``kind``: ``ndarray``, ``sparse``, ``state``, ``estimator``, ``scalar``, ``tuple``,
    ``dict`` (nodes), ``list``, ``number``, ``bool``, ``string``, ``null`` (JSON values),
    ``object`` (the params, fitted, meta or arrays object of a node), ``manifest``.
    ``role``: ``param`` (a parameter value), ``meta`` (inside a training state's meta),
    ``shape`` (a sparse matrix's shape or format), else ``fitted``. ``name``: the
    parameter, attribute or state array it belongs to.
    """

    path: tuple
    node: object
    kind: str
    role: str
    name: str | None

    def __str__(self):
        return "manifest:class" if self.kind == "manifest" else "/".join(map(str, self.path))


def _kind_of(node):
    if isinstance(node, dict):
        return node.get("$") or "object"
    if isinstance(node, bool):
        return "bool"
    if isinstance(node, (int, float)):
        return "number"
    if isinstance(node, str):
        return "string"
    if node is None:
        return "null"
    return "list"


def sites(tree):
    """Every site of a state tree, depth first, plus the manifest's class."""
    yield Site(("manifest", "class"), None, "manifest", "fitted", None)
    yield from _walk(tree, (), None, "fitted")


def _walk(node, path, name, role):
    kind = _kind_of(node)
    yield Site(path, node, kind, role, name)
    if kind == "list":
        for i, item in enumerate(node):
            yield from _walk(item, (*path, i), name, role)
    elif kind == "estimator":
        for part in ("params", "fitted", "properties"):
            values = node.get(part)
            if isinstance(values, dict):
                yield Site((*path, part), values, "object", part, name)
                for key, value in values.items():
                    yield from _walk(value, (*path, part, key), key, _ROLES.get(part, "fitted"))
    elif kind == "state":
        for part in ("meta", "arrays"):
            values = node[part]
            yield Site((*path, part), values, "object", part, name)
            for key, value in values.items():
                yield from _walk(value, (*path, part, key), key, _ROLES.get(part, "fitted"))
    elif kind == "sparse":
        yield Site((*path, "format"), node["format"], "string", "shape", name)
        for i, n in enumerate(node["shape"]):
            yield Site((*path, "shape", i), n, _kind_of(n), "shape", name)
        for part in ("data", "indices", "indptr"):
            yield from _walk(node[part], (*path, part), f"{name}.{part}", role)
    elif kind == "tuple":
        yield from _walk(node["items"], (*path, "items"), name, role)
    elif kind == "dict":
        for i, item in enumerate(node["items"]):
            yield from _walk(item[1], (*path, "items", i, 1), name, role)
    elif kind == "scalar":
        yield from _walk(node["value"], (*path, "value"), name, role)
    elif kind == "object":  # nested plain objects: the votes or rng facts of a state's meta
        for key, value in node.items():
            yield from _walk(value, (*path, key), key, role)


_ROLES = {"params": "param", "meta": "meta"}


# ---------------------------------------------------------------------- operators
class Edit:
    """A model file being mutated: its manifest, members and decoded state tree."""

    def __init__(self, manifest, members):
        self.manifest, self.members = manifest, members
        self.tree = json.loads(members["state.json"])

    def array(self, node):
        """The array of an ndarray node."""
        return np.load(io.BytesIO(self.members[node["member"]]), allow_pickle=False)

    def set_array(self, site, array):
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        self.members[site.node["member"]] = buffer.getvalue()

    def new_array(self, array):
        """A new member holding ``array``; its ndarray node."""
        name = f"arrays/{sum(m.startswith('arrays/') for m in self.members)}.npy"
        while name in self.members:
            name = name.replace(".npy", "x.npy")
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        self.members[name] = buffer.getvalue()
        return {"$": "ndarray", "member": name}

    def replace(self, site, value):
        """Put ``value`` at ``site``'s path (the whole tree for the root)."""
        if not site.path:
            self.tree = value
            return
        parent = self.tree
        for key in site.path[:-1]:
            parent = parent[key]
        parent[site.path[-1]] = value

    def finish(self):
        self.members["state.json"] = json.dumps(self.tree).encode()


@dataclass
class Operator:
    name: str
    category: str
    applies: object  # (site) -> bool
    apply: object  # (edit, site, rng) -> note, or (note, category), or None: no change


OPERATORS: dict[str, Operator] = {}


def operator(name, category, applies):
    def register(function):
        OPERATORS[name] = Operator(name, category, applies, function)
        return function

    return register


def _is(*kinds):
    return lambda site: site.kind in kinds


def _sorted_unique(a):
    return a.ndim == 1 and a.dtype.kind in "biufU" and np.array_equal(np.unique(a), a)


# integer arrays that count presentations: any count a long training reaches is valid
_COUNTS = ("counts", "n_seen", "n_presented_")


def _array_category(edit, site, before, after, default):
    """Arrays that stay valid are a different model, not a damaged one: class labels still
    sorted and unique, feature names still unique, counts still non-negative, the column
    indices of a CSR matrix still increasing in every row. Such mutations are ``value``;
    others keep ``default``."""
    same_form = after.shape == before.shape and after.dtype.kind == before.dtype.kind
    name = str(site.name)
    if name == "classes_":
        valid = after.ndim == 1 and len(after) == len(before) and _sorted_unique(after)
    elif name == "feature_names_in_":
        valid = same_form and len(set(after.tolist())) == len(after)
    elif name in _COUNTS:
        valid = same_form and not np.any(after < 0)
    elif name.endswith("indices") and isinstance(site.path[-1], str):
        valid = same_form and _increasing_rows(edit, site, before, after)
    else:
        return default
    return VALUE if valid else STRICT


def _increasing_rows(edit, site, before, after):
    """Whether CSR column indices ``after`` (at ``site``) stay inside the columns ``before``
    used and increase along every row of the matrix's row pointers."""
    parent = _node_at(edit.tree, site.path[:-1])
    pointers = parent.get(site.path[-1].replace("indices", "indptr"))
    if not isinstance(pointers, dict) or pointers.get("$") != "ndarray":
        return False
    indptr = edit.array(pointers)
    if after.size and (after.min() < 0 or after.max() > before.max()):
        return False
    return all(np.all(np.diff(after[a:b]) > 0) for a, b in zip(indptr[:-1], indptr[1:]))


def _order_category(site, array):
    """Reordering or repeating entries: a value change for float arrays and for class
    indices in any order (a vote record's ``true`` and ``pred``, and its ``pattern``:
    which of the kept patterns each update added); strict for other integer arrays,
    which are indices, counts or times that other parts must match."""
    if array.dtype.kind == "f" or str(site.name).endswith((".true", ".pred", ".pattern")):
        return VALUE
    return STRICT


def array_operator(name, category, applies=lambda a: True):
    """An operator on an ndarray member: ``function(array, rng)`` gives the new array (or
    None when it does not apply); ``category`` None: value for float arrays, else strict."""

    def register(function):
        def apply(edit, site, rng):
            before = edit.array(site.node)
            if not applies(before):
                return None
            after = function(before, rng)
            if after is None or (
                after.shape == before.shape
                and after.dtype == before.dtype
                and np.array_equal(after, before, equal_nan=after.dtype.kind in "fc")
            ):
                return None
            edit.set_array(site, after)
            default = category or _order_category(site, before)
            note = f"{before.dtype}{list(before.shape)} -> {after.dtype}{list(after.shape)}"
            return note, _array_category(edit, site, before, after, default)

        OPERATORS[name] = Operator(name, category or "strict/value", _is("ndarray"), apply)
        return function

    return register


@array_operator("array-drop-row", STRICT, lambda a: a.ndim >= 1 and a.shape[0] >= 1)
def _drop_row(a, rng):
    return np.delete(a, rng.randrange(a.shape[0]), axis=0)


@array_operator("array-add-row", STRICT, lambda a: a.ndim >= 1)
def _add_row(a, rng):
    row = a[-1:] if a.shape[0] else np.zeros((1, *a.shape[1:]), a.dtype)
    return np.concatenate([a, row])


@array_operator("array-drop-column", STRICT, lambda a: a.ndim >= 2 and a.shape[1] >= 1)
def _drop_column(a, rng):
    return np.delete(a, rng.randrange(a.shape[1]), axis=1)


@array_operator("array-add-column", STRICT, lambda a: a.ndim >= 2)
def _add_column(a, rng):
    column = a[:, -1:] if a.shape[1] else np.zeros((a.shape[0], 1, *a.shape[2:]), a.dtype)
    return np.concatenate([a, column], axis=1)


@array_operator("array-add-dimension", STRICT)
def _add_dimension(a, rng):
    return a[np.newaxis] if rng.random() < 0.5 else a[..., np.newaxis]


@array_operator("array-remove-dimension", STRICT, lambda a: a.ndim >= 2 or a.size >= 1)
def _remove_dimension(a, rng):
    return a.reshape(-1) if a.ndim >= 2 else np.asarray(a.reshape(-1)[0])


@array_operator("array-empty", STRICT, lambda a: a.size > 0)
def _empty(a, rng):
    return a[:0] if a.ndim else np.zeros(0, a.dtype)


@array_operator("array-transpose", STRICT, lambda a: a.ndim == 2 and a.shape[0] != a.shape[1])
def _transpose(a, rng):
    return np.ascontiguousarray(a.T)


@array_operator("dtype-float-to-int", STRICT, lambda a: a.dtype.kind == "f")
def _float_to_int(a, rng):
    return np.nan_to_num(a).astype(np.int64)


@array_operator("dtype-int-to-float", STRICT, lambda a: a.dtype.kind in "iub")
def _int_to_float(a, rng):
    return a.astype(np.float64)


@array_operator("dtype-float32", STRICT, lambda a: a.dtype == np.float64)
def _to_float32(a, rng):
    return a.astype(np.float32)


@array_operator("dtype-int-width", STRICT, lambda a: a.dtype.kind in "iu")
def _int_width(a, rng):
    if a.dtype == np.int32:
        return a.astype(np.int64)
    return a.astype(rng.choice([np.int32, np.uint64, np.int16]))


@array_operator("dtype-bool", STRICT, lambda a: a.dtype.kind in "iuf")
def _to_bool(a, rng):
    return a.astype(bool)


@array_operator("dtype-unicode", STRICT, lambda a: a.dtype.kind in "biuf")
def _to_unicode(a, rng):
    return a.astype(str)


def _flat_index(a, rng):
    return np.unravel_index(rng.randrange(a.size), a.shape)


@array_operator("array-nonfinite", STRICT, lambda a: a.dtype.kind == "f" and a.size > 0)
def _nonfinite(a, rng):
    a = a.copy()
    a[_flat_index(a, rng)] = rng.choice([np.nan, np.inf, -np.inf])
    return a


@array_operator("int-out-of-range", STRICT, lambda a: a.dtype.kind in "iu" and a.size > 0)
def _out_of_range(a, rng):
    value = rng.choice([-1, -(10**6), 2**31, 10**6])
    a = a.astype(np.int64)
    a[_flat_index(a, rng)] = value
    return a


@array_operator("array-duplicate-entry", None, lambda a: a.ndim >= 1 and a.shape[0] >= 2)
def _duplicate_entry(a, rng):
    i, j = rng.sample(range(a.shape[0]), 2)
    a = a.copy()
    a[i] = a[j]
    return a


@array_operator("array-reverse", None, lambda a: a.ndim >= 1 and a.shape[0] >= 2)
def _reverse(a, rng):
    return np.ascontiguousarray(a[::-1])


@array_operator("array-shuffle", None, lambda a: a.ndim >= 1 and a.shape[0] >= 2)
def _shuffle(a, rng):
    order = list(range(a.shape[0]))
    rng.shuffle(order)
    return a[order]


@array_operator("array-perturb", VALUE, lambda a: a.dtype.kind == "f" and a.size > 0)
def _perturb(a, rng):
    a = a.copy()
    where = _flat_index(a, rng)
    a[where] = a[where] * rng.uniform(0.5, 2.0) if a[where] else rng.uniform(-1.0, 1.0)
    return a


@operator("member-swap", STRICT, _is("ndarray"))
def _member_swap(edit, site, rng):
    others = sorted(m for m in edit.members if m.startswith("arrays/") and m != site.node["member"])
    if not others:
        return None
    member = rng.choice(others)
    before = edit.array(site.node)
    after = np.load(io.BytesIO(edit.members[member]), allow_pickle=False)
    edit.replace(site, {**site.node, "member": member})
    # floats of the same shape in place of floats: values, which a float array stored once
    # (a scaler's mean) may hold; anything else must be refused or change nothing
    same_form = after.shape == before.shape and after.dtype == before.dtype
    return f"-> {member}", VALUE if same_form and before.dtype.kind == "f" else STRICT


def _outside(*roles):
    return lambda site: site.kind == "number" and site.role not in roles


def _other_number(value, rng, wild=False):
    if isinstance(value, int):
        choices = {value + 1, value - 1, 2 * value, 0, 1}
        choices = (choices | {-1, 10**6, 2**31}) if wild else {c for c in choices if c >= 0}
    else:
        choices = {value * 2, -value, 0.0} if wild else {value * rng.uniform(0.5, 2.0)}
    choices.discard(value)
    return rng.choice(sorted(choices)) if choices else None


@operator("number-change", VALUE, _outside("meta", "shape"))
def _number_change(edit, site, rng):
    value = _other_number(site.node, rng)
    if value is None:
        return None
    edit.replace(site, value)
    return f"{site.node!r} -> {value!r}"


@operator("meta-number", STRICT, lambda s: s.kind == "number" and s.role in ("meta", "shape"))
def _meta_number(edit, site, rng):
    value = _other_number(site.node, rng, wild=True)
    edit.replace(site, value)
    return f"{site.node!r} -> {value!r}"


@operator("json-nonfinite", STRICT, _is("number"))
def _json_nonfinite(edit, site, rng):
    value = rng.choice(["nan", "inf", "-inf"])
    edit.replace(site, {"$": "float", "value": value})
    return f"{site.node!r} -> float {value}"


@operator("json-nan-literal", STRICT, _is("number"))
def _json_nan_literal(edit, site, rng):
    value = rng.choice([float("nan"), float("inf")])
    edit.replace(site, value)  # json.dumps writes NaN / Infinity, which json.loads reads
    return f"{site.node!r} -> {value!r} (a bare JSON literal)"


@operator("bool-flip-meta", STRICT, lambda s: s.kind == "bool" and s.role == "meta")
def _bool_flip_meta(edit, site, rng):
    edit.replace(site, not site.node)
    return f"{site.node} -> {not site.node}"


@operator("bool-flip", VALUE, lambda s: s.kind == "bool" and s.role != "meta")
def _bool_flip(edit, site, rng):
    edit.replace(site, not site.node)
    return f"{site.node} -> {not site.node}"


_STRINGS = ["primal", "dual", "csc", "coo", "dok", "bsr", "", "x"]


@operator("string-change", STRICT, lambda s: s.kind == "string" and s.role in ("meta", "shape"))
def _string_change(edit, site, rng):
    value = rng.choice([s for s in _STRINGS if s != site.node])
    edit.replace(site, value)
    return f"{site.node!r} -> {value!r}"


def _options(owner, name):
    """The string values the parameter ``name`` of the class ``owner`` accepts."""
    from sklearn.utils._param_validation import Options, StrOptions

    from rosenblatt.persistence import _resolve

    cls = _resolve(owner)
    values = set()
    for rule in getattr(cls, "_parameter_constraints", {}).get(name, []):
        if isinstance(rule, (Options, StrOptions)):
            values |= {v for v in rule.options if isinstance(v, str)}
    return sorted(values - {"precomputed"})  # a Gram matrix model predicts no features


@operator("param-choice", VALUE, lambda s: s.kind == "string" and s.role == "param")
def _param_choice(edit, site, rng):
    owner = _node_at(edit.tree, site.path[:-2])
    if not isinstance(owner, dict) or owner.get("$") != "estimator":
        return None  # a str inside a parameter's value (a column name), not the value
    choices = [v for v in _options(owner["class"], site.name) if v != site.node]
    if not choices:
        return None
    value = rng.choice(choices)
    edit.replace(site, value)
    return f"{site.node!r} -> {value!r}"


def _node_at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _registry():
    from rosenblatt.persistence import REGISTRY, STATE_REGISTRY

    return REGISTRY, STATE_REGISTRY


@operator("class-swap", STRICT, _is("estimator"))
def _class_swap(edit, site, rng):
    key = rng.choice([k for k in _registry()[0] if k != site.node["class"]])
    edit.replace(site, {**site.node, "class": key})
    if not site.path:
        edit.manifest["class"] = key
    return f"{site.node['class']} -> {key}"


@operator("state-class-swap", STRICT, _is("state"))
def _state_class_swap(edit, site, rng):
    key = rng.choice([k for k in _registry()[1] if k != site.node["class"]])
    edit.replace(site, {**site.node, "class": key})
    return f"{site.node['class']} -> {key}"


@operator("manifest-class", STRICT, _is("manifest"))
def _manifest_class(edit, site, rng):
    key = rng.choice([k for k in _registry()[0] if k != edit.manifest["class"]])
    before, edit.manifest["class"] = edit.manifest["class"], key
    return f"{before} -> {key}"


_NODES = ("ndarray", "sparse", "state", "estimator", "scalar", "tuple", "dict", "list")
_REPLACEABLE = (*_NODES, "number", "string", "bool", "null")


def _replacement(name, value, exclude=(), category=lambda site: STRICT):
    def applies(site):
        return site.kind in _REPLACEABLE and site.kind not in exclude and bool(site.path)

    @operator(name, STRICT, applies)
    def apply(edit, site, rng):
        new = value(edit, site, rng) if callable(value) else copy.deepcopy(value)
        edit.replace(site, new)
        return f"{site.kind} -> {json.dumps(new)[:60]}", category(site)

    return apply


# a number for a numpy scalar (gamma_) is a number change, a value
_replacement("kind-number", 7, ("number",), lambda site: VALUE if site.kind == "scalar" else STRICT)
_replacement("kind-string", "arrays/0.npy", ("string",))
_replacement("kind-list", [1.0, 2.0], ("list",))
_replacement("kind-dict", {"$": "dict", "items": []}, ("dict",))
_replacement("kind-null", None, ("null",))


def _sparse_node(edit, site, rng):
    import scipy.sparse as sp

    source = edit.array(site.node) if site.kind == "ndarray" else None
    if source is None or source.ndim != 2 or source.dtype.kind not in "biuf":
        source = np.ones((1, 1))
    csr = sp.csr_matrix(source)
    return {
        "$": "sparse",
        "format": "csr",
        "array": False,
        "shape": list(csr.shape),
        **{part: edit.new_array(getattr(csr, part)) for part in ("data", "indices", "indptr")},
    }


_replacement("kind-sparse", _sparse_node, ("sparse",))
_replacement(
    "kind-estimator",
    {
        "$": "estimator",
        "class": "sklearn.preprocessing.Normalizer",
        "params": {},
        "fitted": {},
        "properties": {},
    },
    ("estimator",),
)


def _array_node(edit, site, rng):
    members = sorted(m for m in edit.members if m.startswith("arrays/"))
    return {"$": "ndarray", "member": rng.choice(members)} if members else [0]


_replacement("kind-array", _array_node, ("ndarray",))

# names of fitted attributes, for one that a model lacks
_FITTED_NAMES = (
    "coef_",
    "intercept_",
    "classes_",
    "n_features_in_",
    "feature_names_in_",
    "training_state_",
    "support_vectors_",
    "dual_coef_",
    "gamma_",
    "centroids_",
    "estimators_",
    "calibrators_",
    "vocabulary_",
    "idf_",
    "scale_",
    "mean_",
)


def _keys(site):
    return site.kind == "object" and bool(site.node)


@operator("key-remove", STRICT, _keys)
def _key_remove(edit, site, rng):
    key = rng.choice(sorted(site.node))
    edit.replace(site, {k: v for k, v in site.node.items() if k != key})
    return f"removed {key!r}"


@operator("key-rename", STRICT, _keys)
def _key_rename(edit, site, rng):
    key = rng.choice(sorted(site.node))
    new = f"{key[:-1]}s_" if site.role == "fitted" and key.endswith("_") else f"{key}x"
    edit.replace(site, {(new if k == key else k): v for k, v in site.node.items()})
    return f"renamed {key!r} -> {new!r}"


@operator("key-add", STRICT, lambda site: site.kind == "object")
def _key_add(edit, site, rng):
    if site.role == "fitted" and site.path[-1] == "fitted":
        name = rng.choice([n for n in _FITTED_NAMES if n not in site.node])
    else:
        name = "extra_" if site.path[-1] == "properties" else "extra"
    value = copy.deepcopy(rng.choice(list(site.node.values()))) if site.node else 1
    edit.replace(site, {**site.node, name: value})
    return f"added {name!r}: {json.dumps(value)[:60]}"


def _items(site):
    """The JSON list a list or tuple site holds."""
    return site.node["items"] if site.kind == "tuple" else site.node


def _listing(least):
    """Lists and tuples of at least ``least`` items, but a Pipeline's steps (below)."""
    return lambda site: (
        site.kind in ("list", "tuple")
        and len(_items(site)) >= least
        and site.path[-1:] != ("steps",)
    )


@operator("list-drop-item", STRICT, _listing(1))
def _list_drop(edit, site, rng):
    items = _items(site)
    i = rng.randrange(len(items))
    del items[i]
    return f"dropped item {i} of {len(items) + 1}"


@operator("list-duplicate-item", STRICT, _listing(1))
def _list_duplicate(edit, site, rng):
    items = _items(site)
    i = rng.randrange(len(items))
    items.insert(i, copy.deepcopy(items[i]))
    return f"duplicated item {i} of {len(items) - 1}"


# lists whose items may come in any order as long as they stay paired: a calibrated
# classifier's folds (each fold's classifier with its calibrator)
_FOLDS = ("estimators_", "calibrators_")
# and a FeatureUnion's transformers: in another order, another valid union of the same data
_UNION_PARTS = ("transformer_list",)


@operator("list-swap-items", STRICT, _listing(2))
def _list_swap(edit, site, rng):
    items = _items(site)
    i, j = rng.sample(range(len(items)), 2)
    if items[i] == items[j]:
        return None
    items[i], items[j] = items[j], items[i]
    valid = site.path[-1] in (*_FOLDS, *_UNION_PARTS)
    return f"swapped items {i} and {j}", VALUE if valid else STRICT


# the steps that take numbers and give as many (any number of them, in any order, is a
# valid pipeline for the same data); text vectorizers come first, the classifier last
_PREPROCESSING = (
    "StandardScaler",
    "MinMaxScaler",
    "MaxAbsScaler",
    "RobustScaler",
    "Normalizer",
    "TfidfTransformer",
    "TfDfTransformer",
)


def _is_preprocessing(step):
    try:
        return step["items"][1]["class"].rpartition(".")[2] in _PREPROCESSING
    except (KeyError, IndexError, TypeError, AttributeError):
        return False


def _steps(site):
    return site.kind == "list" and site.path[-1:] == ("steps",) and len(site.node) >= 2


@operator("pipeline-step", STRICT, _steps)
def _pipeline_step(edit, site, rng):
    """Drop, repeat or swap steps. Another arrangement of preprocessing steps is another
    valid pipeline (value); a text vectorizer not first or a classifier not last is
    strict; without its vectorizer or classifier a pipeline is a valid model of other
    data, or a transformer, which no reader can refuse: not made."""
    steps = site.node
    action, i = rng.choice(["drop", "repeat", "swap"]), rng.randrange(len(steps))
    if action == "drop":
        if not _is_preprocessing(steps[i]):
            return None
        del steps[i]
        return f"dropped step {i}", VALUE
    if action == "repeat":
        steps.insert(i, copy.deepcopy(steps[i]))
        return f"repeated step {i}", VALUE if _is_preprocessing(steps[i]) else STRICT
    j = rng.randrange(len(steps))
    if i == j:
        return None
    steps[i], steps[j] = steps[j], steps[i]
    valid = _is_preprocessing(steps[i]) and _is_preprocessing(steps[j])
    return f"swapped steps {i} and {j}", VALUE if valid else STRICT


@operator("scalar-dtype", STRICT, _is("scalar"))
def _scalar_dtype(edit, site, rng):
    """Another numpy type for a scalar: a value change when the number stays the same (40.0
    as an int64), strict when it becomes a bool or another number (0.16 as an int: 0)."""
    dtype = rng.choice([d for d in ("<i8", "<f4", "|b1", "|u1", "<f8") if d != site.node["dtype"]])
    edit.replace(site, {**site.node, "dtype": dtype})
    value = site.node["value"]
    if dtype == "|b1" or not isinstance(value, (int, float)) or isinstance(value, bool):
        return f"{site.node['dtype']} -> {dtype}", STRICT
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = float(np.dtype(dtype).type(value)) == value
    return f"{site.node['dtype']} -> {dtype}", VALUE if kept else STRICT


# ---------------------------------------------------------------------- mutating
@dataclass
class Mutation:
    """One mutated file: which reference, operator and seed made it, where it changed."""

    kind: str
    operator: str
    seed: int
    category: str = ""
    site: str = ""
    note: str = ""
    file: str = ""

    @property
    def ident(self):
        return f"{self.kind} {self.operator} {self.seed}"


def _weight(site):
    """Parameter values, and lists of plain numbers (``mistakes_per_epoch_``), matter less
    than the fitted state: they are sampled a fifth as often."""
    if site.role == "param" and site.kind not in _NODES:
        return 0.2
    if site.kind == "list" and not any(isinstance(item, (dict, list)) for item in site.node):
        return 0.2
    return 1.0


def applicable(tree, name):
    """The sites of ``tree`` that operator ``name`` may apply to."""
    return [site for site in sites(tree) if OPERATORS[name].applies(site)]


def mutate(source, target, kind, name, seed, attempts=20):
    """Write ``target``: the model file ``source`` with operator ``name`` applied at a site
    chosen by ``seed``, re-signed. Returns the :class:`Mutation`, or None when the
    operator changes nothing in this file."""
    rng = random.Random(f"{kind}/{name}/{seed}")
    mutation = Mutation(kind, name, seed, file=str(target))
    op = OPERATORS[name]

    def edit(manifest, members):
        state = Edit(manifest, members)
        candidates = applicable(state.tree, name)
        for _ in range(attempts if candidates else 0):
            site = rng.choices(candidates, weights=[_weight(s) for s in candidates])[0]
            done = op.apply(state, site, rng)
            if done is not None:
                note, category = done if isinstance(done, tuple) else (done, op.category)
                mutation.site, mutation.note, mutation.category = str(site), note, category
                state.finish()
                return
        raise LookupError

    target = Path(target)
    target.write_bytes(Path(source).read_bytes())
    try:
        forge(target, edit)
    except LookupError:
        target.unlink()
        return None
    return mutation


def usable_operators(path):
    """The operators with at least one site in the model file at ``path``."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        tree = json.loads(archive.read("state.json"))
    return [name for name in OPERATORS if applicable(tree, name)]


# ---------------------------------------------------------------------- the worker
def _attempt(loader, path, X, expected):
    """``(outcome, labels)`` of loading ``path`` with ``loader`` and predicting ``X``."""
    from rosenblatt import ModelFileError

    try:
        model = loader(path)
    except ModelFileError as exc:
        return f"refused: {exc}", None
    except Exception as exc:
        return f"raw: {type(exc).__name__}: {str(exc)[:300]}", None
    try:
        labels = model.predict(copy.deepcopy(X))  # a scaler with copy=False scales in place
    except Exception as exc:
        return f"raw in predict: {type(exc).__name__}: {str(exc)[:300]}", None
    return _verdict(labels, expected), labels


# The harness's own test: a worker crashes (SIGSEGV) on a file whose name holds this value.
CRASH_ON = "ROSENBLATT_FUZZ_CRASH_ON"


def worker(results, listing=None):
    """Load and predict every file listed (JSON lines ``{"file", "data"}``, from
    ``listing`` or standard input); write ``start`` then ``done`` lines to ``results``."""
    import faulthandler

    from rosenblatt.persistence import load, load_predictor

    faulthandler.enable()  # a crash prints the stack it happened in (to our stderr)
    crash_on = os.environ.get(CRASH_ON)
    warnings.simplefilter("ignore")
    data = {}
    lines = Path(listing).read_text().splitlines() if listing else sys.stdin
    with open(results, "a") as out:

        def emit(record):
            out.write(json.dumps(record) + "\n")
            out.flush()

        for line in lines:
            job = json.loads(line)
            emit({"file": job["file"], "event": "start"})
            if crash_on and crash_on in Path(job["file"]).name:
                os.kill(os.getpid(), signal.SIGSEGV)
            if job["data"] not in data:
                with np.load(job["data"], allow_pickle=False) as npz:
                    data[job["data"]] = _decode_data(npz)
            X, expected = data[job["data"]]
            started = time.perf_counter()
            loaded, by_load = _attempt(load, job["file"], X, expected)
            predicted, by_predictor = _attempt(load_predictor, job["file"], X, expected)
            if by_load is None or by_predictor is None:
                agree = by_load is None and by_predictor is None
            else:
                agree = _verdict(by_predictor, by_load) == "same"
            emit(
                {
                    "file": job["file"],
                    "event": "done",
                    "load": loaded,
                    "predictor": predicted,
                    "agree": agree,
                    "seconds": round(time.perf_counter() - started, 4),
                }
            )


def _crash_place(stderr_path):
    """The innermost frame faulthandler printed when a worker crashed, if any."""
    try:
        lines = Path(stderr_path).read_text(errors="replace").splitlines()
    except OSError:
        return ""
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    return frames[0] if frames else ""


def _drive(jobs, folder, tag, timeout, progress, script):
    """Run ``jobs`` through workers (``python SCRIPT worker RESULTS LIST``), one after
    another, a new one after each crash."""
    results, pending, restarts = {}, list(jobs), 0
    while pending:
        listing = folder / f"{tag}.{restarts}.list"
        listing.write_text("".join(json.dumps(job) + "\n" for job in pending))
        out, err = folder / f"{tag}.{restarts}.jsonl", folder / f"{tag}.{restarts}.stderr"
        out.write_text("")
        with open(err, "w") as stderr:
            proc = subprocess.Popen(
                [sys.executable, str(script), "worker", str(out), str(listing)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        current, since, offset, buffer = None, time.monotonic(), 0, ""
        while True:
            finished = proc.poll() is not None
            with open(out) as handle:
                handle.seek(offset)
                buffer += handle.read()
                offset = handle.tell()
            *complete, buffer = buffer.split("\n")
            for line in complete:
                record = json.loads(line)
                if record["event"] == "start":
                    current, since = record["file"], time.monotonic()
                else:
                    results[record["file"]] = record
                    current = None
                    progress(1)
            if finished:
                break
            if current is not None and time.monotonic() - since > timeout:
                proc.kill()
                proc.wait()
                results[current] = {"file": current, "crash": f"timeout after {timeout} s"}
                current = None
                progress(1)
                break
            time.sleep(0.02)
        if current is not None:
            code = proc.returncode
            what = f"signal {-code}" if code < 0 else f"worker exited with status {code}"
            results[current] = {"file": current, "crash": what, "where": _crash_place(err)}
            progress(1)
        elif proc.returncode and not results:
            raise RuntimeError(f"the worker failed to start: {err.read_text()[-2000:]}")
        pending = [job for job in pending if job["file"] not in results]
        restarts += 1
    return results


def run_files(mutations, references, folder, workers=2, timeout=30, progress=None):
    """Load and predict every mutated file in worker processes; ``{file: result}``.

    A result has ``load``, ``predictor`` (outcomes) and ``agree``, or ``crash`` (``signal
    N``, ``timeout ...``) and ``where`` (the innermost frame of the crash).
    """
    jobs = [{"file": m.file, "data": references[m.kind].data} for m in mutations]
    return run_jobs(jobs, folder, workers, timeout, progress)


def run_jobs(jobs, folder, workers=2, timeout=30, progress=None, script=__file__):
    """Run ``jobs`` (dicts, each with its own ``file``) through ``workers`` worker processes
    of ``script`` (``python SCRIPT worker RESULTS LIST`` writes a ``start`` line, then a
    ``done`` line, for each job in turn); ``{file: the done line}``, or for a job that
    crashed its worker ``{"crash": "signal N" or "timeout ...", "where": frame}``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock, results = threading.Lock(), {}
    progress = progress or (lambda n: None)

    def step(n):
        with lock:
            progress(n)

    def run(k):
        found = _drive(jobs[k::workers], folder, f"worker{k}", timeout, step, script)
        with lock:
            results.update(found)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(max(1, workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


# ---------------------------------------------------------------------- judging
def _allowed(outcome, category):
    """Whether one loader's outcome is allowed for a mutation of ``category``."""
    if outcome.startswith("refused: "):
        return "\n" not in outcome.strip()
    if outcome == "same":
        return True
    if category == VALUE:
        # a valid different model; feature names that stay valid may not match the data's
        return outcome == "different" or (
            outcome.startswith("raw in predict: ValueError: The feature names should match")
        )
    return False


def failures_of(mutation, result):
    """Why ``result`` fails ``mutation``'s oracle: a list of short reasons (empty: pass)."""
    if "crash" in result:
        where = f" at {result['where']}" if result.get("where") else ""
        return [f"{result['crash']}{where}"]
    reasons = []
    for loader in ("load", "predictor"):
        outcome = result[loader]
        if not _allowed(outcome, mutation.category):
            if outcome.startswith("refused: "):
                outcome = "refused with a message of several lines"
            reasons.append(f"{loader}: {outcome}")
    if not reasons and not result["agree"]:
        both = f"{result['load']} / {result['predictor']}"
        reasons.append(f"load and load_predictor disagree: {both}")
    return reasons


def outcome_class(result):
    """``refused``, ``same`` or ``lenient-accepted`` (loaded, predicts other labels) for a
    passing result, by what ``load`` did."""
    outcome = result.get("load", "")
    if outcome.startswith("refused"):
        return "refused"
    return "same" if outcome == "same" else "lenient-accepted"


# ---------------------------------------------------------------------- the command line
def rosenblatt_command():
    """The ``rosenblatt`` executable beside this Python (the virtualenv's)."""
    path = Path(sys.executable).with_name("rosenblatt")
    return [str(path)] if path.exists() else [sys.executable, "-m", "rosenblatt"]


def cli_run(args, timeout=60):
    """``(returncode, stdout, stderr)`` of ``rosenblatt ARGS`` (None, "", why: a timeout),
    its one-line errors as a user gets them (no traceback asked for)."""
    env = {k: v for k, v in os.environ.items() if k != "ROSENBLATT_TRACEBACK"}
    try:
        done = subprocess.run(
            [*rosenblatt_command(), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return None, "", f"timeout after {timeout} s"
    return done.returncode, done.stdout, done.stderr


def cli_predict(model, data, timeout=60):
    """``(returncode, stdout, stderr)`` of ``rosenblatt predict -m MODEL DATA``."""
    return cli_run(["predict", "-m", model, data], timeout)


def cli_failure(run, expected_stdout, category):
    """Why a ``rosenblatt predict`` run fails the oracle (None: it passes): exit 0 with
    the unmutated model's output (any output for a value mutation), or exit 2 with one
    line on standard error that is neither a traceback nor an ``unexpected`` error."""
    code, stdout, stderr = run
    lines = stderr.strip().splitlines()
    if code == 0:
        if stdout == expected_stdout or category == VALUE:
            return None
        return "exit 0 with other predictions"
    if code == 2 and len(lines) == 1:
        if "Traceback" in stderr or "unexpected" in stderr:
            return f"exit 2 with a bug's message: {lines[0][:300]}"
        return None
    if code is None:
        return stderr
    what = f"signal {-code}" if code < 0 else f"exit {code}"
    tail = lines[-1][:300] if lines else ""
    return f"{what} ({len(lines)} lines on stderr): {tail}"


def run_cli(mutation, references, expected):
    """Run the command line on a mutated file of a command-line reference; a failure
    reason or None. ``expected``: ``{kind: stdout of the unmutated model}``."""
    reference = references[mutation.kind]
    run = cli_predict(mutation.file, reference.cli_data)
    return cli_failure(run, expected[mutation.kind], mutation.category)


# ---------------------------------------------------------------------- plans
def plan(references, folder, per_operator=8, seed=0):
    """The per-commit set: each operator on ``per_operator`` reference kinds (the kinds in
    turn, so that each kind meets many operators), mutated files written to ``folder``.
    Deterministic for a seed. Returns the list of :class:`Mutation`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    kinds = sorted(references)
    usable = {kind: set(usable_operators(references[kind].path)) for kind in kinds}
    mutations, turn = [], seed
    for name in OPERATORS:
        chosen = 0
        for step in range(len(kinds)):
            kind = kinds[(turn + step) % len(kinds)]
            if chosen == per_operator:
                break
            if name not in usable[kind]:
                continue
            made = mutate(
                references[kind].path,
                folder / f"{len(mutations):05d}-{kind}-{name}.rbl",
                kind,
                name,
                seed,
            )
            if made is not None:
                mutations.append(made)
                chosen += 1
        turn += per_operator
    return mutations


def random_plan(references, folder, count, seed, progress=None):
    """``count`` mutated files, each a random reference, operator and site (by ``seed``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    kinds = sorted(references)
    usable = {kind: usable_operators(references[kind].path) for kind in kinds}
    mutations = []
    while len(mutations) < count:
        kind = rng.choice(kinds)
        name = rng.choice(usable[kind])
        made = mutate(
            references[kind].path,
            folder / f"{len(mutations):06d}-{kind}-{name}.rbl",
            kind,
            name,
            rng.randrange(2**31),
        )
        if made is not None:
            mutations.append(made)
            if progress:
                progress(1)
    return mutations


FAILURE_TYPES = ("signal", "timeout", "raw", "different", "disagree", "multi-line", "cli")


def failure_type(reasons):
    """The worst kind of failure among ``reasons`` (one of :data:`FAILURE_TYPES`)."""
    text = " ".join(reasons)
    for kind, marks in (
        ("signal", ("signal ", "worker exited")),
        ("timeout", ("timeout",)),
        ("raw", ("load: raw", "predictor: raw")),
        ("different", ("load: different", "predictor: different")),
        ("disagree", ("disagree",)),
        ("multi-line", ("several lines",)),
    ):
        if any(mark in text for mark in marks):
            return kind
    return "cli"


def summary(failed, limit=60):
    """Failures as readable lines, worst first: [type] kind | operator (category) | site |
    what the mutation did | what happened."""
    failed = sorted(failed, key=lambda f: FAILURE_TYPES.index(failure_type(f[1])))
    counts = {t: sum(failure_type(r) == t for _, r in failed) for t in FAILURE_TYPES}
    lines = [", ".join(f"{n} {t}" for t, n in counts.items() if n)]
    for mutation, reasons in failed[:limit]:
        lines.append(
            f"[{failure_type(reasons)}] {mutation.kind} | {mutation.operator} "
            f"({mutation.category}) | {mutation.site} | {mutation.note} | "
            f"{' '.join('; '.join(reasons).split())[:400]}"
        )
    if len(failed) > limit:
        lines.append(f"... and {len(failed) - limit} more")
    return "\n".join(lines)


# ---------------------------------------------------------------------- reproducing
def reproduce(kind, name, seed, out=None):
    """Build the mutated file ``kind name seed`` again and load it here, tracebacks shown."""
    import tempfile
    import traceback

    from rosenblatt.persistence import load, load_predictor

    folder = Path(tempfile.mkdtemp(prefix="rosenblatt-fuzz-"))
    references = write_references(folder, kinds={kind}, cli=kind.startswith("cli-"))
    out = Path(out) if out else folder / f"{kind}-{name}-{seed}.rbl"
    mutation = mutate(references[kind].path, out, kind, name, int(seed))
    if mutation is None:
        sys.exit(f"{name} changes nothing in a {kind} model")
    print(json.dumps(asdict(mutation), indent=1))
    with np.load(references[kind].data, allow_pickle=False) as npz:
        X, expected = _decode_data(npz)
    for loader in (load, load_predictor):
        print(f"--- {loader.__name__}({out})", flush=True)
        try:
            labels = loader(out).predict(X)
        except Exception:
            traceback.print_exc()
        else:
            print(_verdict(labels, expected), labels[:10])
    if references[kind].cli_data:
        print(f"--- rosenblatt predict -m {out} {references[kind].cli_data}")
        code, stdout, stderr = cli_predict(out, references[kind].cli_data)
        print(f"exit {code}\n{stdout[:300]}{stderr}")


if __name__ == "__main__":
    command, *args = sys.argv[1:] or [""]
    if command == "worker":
        worker(*args)
    elif command == "reproduce":
        reproduce(*args)
    else:
        sys.exit(
            "usage: model_mutations.py worker RESULTS [LIST] | reproduce KIND OPERATOR SEED [OUT]"
        )
