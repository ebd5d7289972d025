"""Write the model files that every later rosenblatt must still load.

Run from the repository root::

    .venv/bin/python tests/data/write_model_files.py

It writes ``tests/data/format<N>/`` for the current model format version ``N``:
one ``<name>.rbm`` per model and a ``<name>.json`` beside it with the inputs the
model is asked about and what it answered (``predict`` and
``decision_function``; JSON numbers keep every float64 bit). The test
``test_recorded_model_files_load_and_predict_as_recorded`` in
``tests/test_persistence.py`` loads each file and compares exactly. Files of
older formats stay as they are: run this again only to add the files of a new
format version (it refuses to overwrite a folder that exists; pass
``--overwrite`` to regenerate the current one on purpose).

``earlier/`` holds one file of each earlier layout (format 1, the ``__dict__`` format from
before the training engine; format 2; format 3, which held the engine's learners' public
weights beside their state), which ``load`` refuses with a message that says to re-train;
they are not regenerated here.
"""

from __future__ import annotations

import json
import pathlib
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

NAMES = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]
SPECIES = np.array(["setosa", "versicolor", "virginica"])
DOCS = [
    "win a free prize now",
    "see you at lunch",
    "free entry win cash",
    "lecture notes attached",
    "claim your free prize",
    "meeting moved to noon",
    "cash prize waiting",
    "notes for monday",
    "free lunch on monday",
    "prize notes",
]
DOC_Y = np.array(["spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham", "ham", "spam"])


def _models():
    """``name -> (model, X_train, y_train, X_query, input spec)``, built when called."""
    import pandas as pd
    import scipy.sparse as sp
    from sklearn.datasets import load_iris, make_classification
    from sklearn.feature_extraction.text import (
        CountVectorizer,
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
    )
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, Normalizer, StandardScaler

    from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron
    from rosenblatt.estimators.baselines import CentroidClassifier, LinearProgramClassifier
    from rosenblatt.estimators.kernel import KernelPerceptron
    from rosenblatt.estimators.text import TfDfTransformer

    X_iris, y_iris = load_iris(return_X_y=True)
    X_bin, y_bin = make_classification(n_samples=80, n_features=5, random_state=0)
    frame = pd.DataFrame(X_iris, columns=NAMES)
    object_labels = pd.Series(SPECIES.astype(object)[y_iris])
    q_iris, q_bin = X_iris[::5], X_bin[::3]
    gram = X_bin[:40] @ X_bin[:40].T
    queries = list(DOCS) + ["free cash for lunch", "unseen words only"]

    def dense(X):
        return {"kind": "dense", "dtype": X.dtype.str, "values": X.tolist()}

    def csr(X):
        return {"kind": "csr", "dtype": X.dtype.str, "values": X.toarray().tolist()}

    def dataframe(X):
        return {"kind": "dataframe", "columns": list(X.columns), "values": X.to_numpy().tolist()}

    def text(docs):
        return {"kind": "text", "values": list(docs)}

    return {
        "perceptron-online": (
            Perceptron(random_state=0, max_iter=20),
            X_iris,
            y_iris,
            q_iris,
            dense,
        ),
        "perceptron-batch-float-labels": (
            Perceptron(mode="batch", random_state=0, max_iter=20),
            X_bin,
            np.array([-1.0, 2.0])[y_bin],
            q_bin,
            dense,
        ),
        "perceptron-multinomial-dataframe": (
            Perceptron(
                multi_class="multinomial", random_state=np.random.RandomState(3), max_iter=20
            ),
            frame,
            object_labels,
            frame.iloc[::5],
            dataframe,
        ),
        "averaged-float32-str-labels": (
            AveragedPerceptron(random_state=0, max_iter=20),
            X_bin.astype(np.float32),
            np.array(["no", "yes"])[y_bin],
            q_bin.astype(np.float32),
            dense,
        ),
        "voted-csr": (
            VotedPerceptron(random_state=0, max_iter=10),
            sp.csr_matrix(X_iris),
            y_iris,
            sp.csr_matrix(q_iris),
            csr,
        ),
        "voted-multinomial": (
            VotedPerceptron(
                multi_class="multinomial", max_iter=10, random_state=np.random.default_rng(1)
            ),
            X_iris,
            y_iris,
            q_iris,
            dense,
        ),
        "kernel-last": (
            KernelPerceptron(prediction="last", random_state=0, max_iter=10),
            X_iris,
            y_iris,
            q_iris,
            dense,
        ),
        "kernel-averaged-csr": (
            KernelPerceptron(random_state=0, max_iter=10),
            sp.csr_matrix(X_bin),
            y_bin,
            sp.csr_matrix(q_bin),
            csr,
        ),
        "kernel-voted-poly": (
            KernelPerceptron(
                kernel="poly", degree=2, prediction="voted", random_state=0, max_iter=10
            ),
            X_iris,
            SPECIES[y_iris],
            q_iris,
            dense,
        ),
        "kernel-precomputed": (
            KernelPerceptron(kernel="precomputed", random_state=0, max_iter=10),
            gram,
            y_bin[:40],
            X_bin[::3] @ X_bin[:40].T,
            dense,
        ),
        "centroid-str-labels": (CentroidClassifier(), X_iris, SPECIES[y_iris], q_iris, dense),
        "lp": (LinearProgramClassifier(), X_bin, y_bin, q_bin, dense),
        "pipeline-scalers-dataframe": (
            make_pipeline(
                StandardScaler(),
                MinMaxScaler(),
                MaxAbsScaler(),
                Normalizer(),
                AveragedPerceptron(random_state=0, max_iter=20),
            ),
            frame,
            y_iris,
            frame.iloc[::5],
            dataframe,
        ),
        "text-count-tfdf-perceptron": (
            make_pipeline(CountVectorizer(), TfDfTransformer(), Perceptron(random_state=0)),
            DOCS,
            DOC_Y,
            queries,
            text,
        ),
        "text-tfidf-voted": (
            make_pipeline(TfidfVectorizer(ngram_range=(1, 2)), VotedPerceptron(random_state=0)),
            DOCS,
            DOC_Y,
            queries,
            text,
        ),
        "text-hashing-tfidf-averaged": (
            make_pipeline(
                HashingVectorizer(n_features=64, alternate_sign=False),
                TfidfTransformer(),
                AveragedPerceptron(random_state=0),
            ),
            DOCS,
            DOC_Y,
            queries,
            text,
        ),
        "text-count-kernel": (
            make_pipeline(
                CountVectorizer(binary=True), KernelPerceptron(kernel="linear", random_state=0)
            ),
            DOCS,
            DOC_Y,
            queries,
            text,
        ),
    }


def _values(array):
    array = np.asarray(array)
    if array.dtype == object:
        return {"dtype": "object", "shape": list(array.shape), "values": array.tolist()}
    return {"dtype": array.dtype.str, "shape": list(array.shape), "values": array.tolist()}


def write(folder: pathlib.Path) -> list[str]:
    """Fit every model, save it in ``folder`` and record its answers; return the names."""
    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.persistence import load, save

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (model, X, y, query, spec) in _models().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        path = folder / f"{name}.rbm"
        save(model, path, metadata={"written_by": "tests/data/write_model_files.py"})
        record = {
            "model": path.name,
            "input": spec(query),
            "predict": _values(model.predict(query)),
            "decision_function": _values(model.decision_function(query)),
        }
        again = load(path)  # what is recorded is what a loaded model answers
        assert np.array_equal(again.decision_function(query), model.decision_function(query))
        (folder / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        written.append(name)
    return written


def main(argv=None) -> int:
    from rosenblatt.persistence import FORMAT_VERSION

    argv = sys.argv[1:] if argv is None else argv
    folder = HERE / f"format{FORMAT_VERSION}"
    if any(folder.glob("*.rbm")) and "--overwrite" not in argv:
        print(
            f"{folder} exists: the files of format {FORMAT_VERSION} are already recorded "
            "(pass --overwrite to write them again)",
            file=sys.stderr,
        )
        return 1
    for name in write(folder):
        print(folder / f"{name}.rbm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
