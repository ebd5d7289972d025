"""Save and load fitted models without pickle: loading a file never runs code from it.

A model file is a zip archive:

- ``manifest.json``: the format name ``"rosenblatt-model"``, the format version,
  the library version, the versions of rosenblatt, numpy, scipy and
  scikit-learn that wrote the file, the model's class and parameters, optional
  metadata and the SHA-256 of every other member;
- ``state.json``: the model as a tree of nodes (below);
- ``arrays/<n>.npy``: numpy arrays, written and read with ``allow_pickle=False``.

The archive comment holds the SHA-256 of every byte before it, so a flipped or
missing byte anywhere in the file is caught before anything is decoded.

The model is stored from its parameters and its fitted state, never from its
``__dict__`` (format version 4; files of earlier versions are refused with what to do):

- an **estimator** node ``{"$": "estimator", "class", "params", "fitted",
  "properties"}`` names a class of :data:`REGISTRY` and holds its constructor
  parameters (``get_params(deep=False)``; the steps of a Pipeline are estimator
  nodes in turn) and its fitted state: the public fitted attributes its record
  (:mod:`rosenblatt.persistence.records`) says a file holds (names that end in ``_``
  and do not start with ``_``, as scikit-learn defines them) and, for the few classes
  that keep one behind a private attribute, the fitted properties of
  :data:`FITTED_PROPERTIES`. For the
  engine's learners that is their training state and the facts no state holds (the
  classes, the input, the epochs run): their public weights (``coef_``, ``intercept_``,
  ``dual_coef_``, ...) are rebuilt from the checked state on load, as ``fit`` reads them
  off it, so nothing is stored twice. Loading calls ``cls(**params)`` and sets the
  attributes, the rebuilt ones, then the properties (through their setters);
- a **state** node ``{"$": "state", "class", "meta", "arrays"}`` holds a training
  state of the engine (a class of :data:`STATE_REGISTRY`) as its ``to_state()``
  gives it: JSON facts and named arrays, rebuilt with ``from_state()``;
- values: JSON numbers, strings, booleans, null and lists; ``float`` (nan and
  infinities), ``tuple``, ``slice`` (of ints), ``dict`` (keys of any of these kinds),
  ``scalar`` (a numpy scalar), ``dtype`` and ``dtype_type``, ``ndarray`` (an archive member; an
  object array of ``str``, such as the ``feature_names_in_`` of a DataFrame or
  string labels from pandas, is stored as a unicode array with ``"strings":
  "object"`` and comes back as an object array of ``str``), ``sparse`` (the CSR
  parts of a scipy sparse matrix, only as the value of a fitted attribute),
  ``random_state`` and ``generator`` (numpy random sources given as
  ``random_state``).

Only classes on these lists are ever built, and a class is only looked up in
them, never imported because a file names it. Anything else (a function, an
object array that holds more than strings, an unregistered class) is refused
when saving, with the attribute named. Training callbacks (the ``on_epoch``
parameter) are not part of a model: they are saved as None.

The package does one job per module: ``policy`` (what a file may hold: the
registries, the parameter rules, their limits), ``encode`` (a model to a tree of
nodes), ``decode`` (a tree to a checked plain tree, then to a model), ``container``
(the zip archive, its checksums and limits, the atomic write), ``errors`` (what
loading says about a file it refuses) and ``predictor`` (the numpy-only predictor of
a linear model); this module holds the functions that join them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from .container import (
    FORMAT_NAME,
    FORMAT_VERSION,
    STATE_MEMBER,
    members,
    model_file_bytes,
    open_model,
    write_atomically,
)

# _read reads arrays through the package's name _npy_array (a test stands in for it)
from .container import npy_array as _npy_array
from .decode import Reader as _Reader
from .encode import encode
from .errors import RESAVE, fail, translated
from .policy import (
    CALLBACK_PARAMETERS,
    FITTED_PROPERTIES,
    PARAMETER_RULES,
    REGISTRY,
    SAFE_TOKEN_PATTERNS,
    STATE_REGISTRY,
)
from .policy import is_fitted_name as _is_fitted_name  # noqa: F401  (tests import it)
from .policy import resolve as _resolve  # noqa: F401  (tests import it)
from .predictor import LINEAR_CLASSES, build_predictor

__all__ = [
    "CALLBACK_PARAMETERS",
    "FITTED_PROPERTIES",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "LINEAR_CLASSES",
    "PARAMETER_RULES",
    "REGISTRY",
    "SAFE_TOKEN_PATTERNS",
    "STATE_REGISTRY",
    "load",
    "load_predictor",
    "load_with_manifest",
    "model_bytes",
    "read_manifest",
    "save",
]


def model_bytes(model: object, *, metadata: Mapping[str, Any] | None = None) -> bytes:
    """The bytes :func:`save` writes for ``model``: encoded, checked, archived.

    For a writer that must know them before the file changes (the service records
    their SHA-256 in its log first); the same model gives the same bytes.

    Examples
    --------
    >>> import hashlib
    >>> from rosenblatt import Perceptron
    >>> clf = Perceptron(shuffle=False).fit([[-1, -1], [1, 1]], [0, 1])
    >>> model_bytes(clf) == model_bytes(clf), model_bytes(clf)[:4]
    (True, b'PK\\x03\\x04')
    """
    key, tree, arrays = encode(model)
    return model_file_bytes(model, key, tree, arrays, metadata)


def save(
    model: object, path: str | os.PathLike[str], *, metadata: Mapping[str, Any] | None = None
) -> None:
    """Save a fitted model to ``path`` in rosenblatt's pickle-free format.

    The model is stored from its constructor parameters and its fitted state
    (public fitted attributes, and the engine's training state through its
    ``to_state``), so ``predict``, ``decision_function``, ``partial_fit`` and
    ``warm_start`` carry on after :func:`load`. The ``on_epoch`` training
    callback is not part of the model and is saved as None.

    The file is written to a temporary file in the same directory, flushed to
    disk and renamed over ``path`` in one step, so ``path`` either keeps its old
    content or gets the complete new file; nothing is left behind on failure.

    Parameters
    ----------
    model : estimator
        A rosenblatt estimator, or a scikit-learn :class:`~sklearn.pipeline.Pipeline`
        of registered steps (for example a text vectorizer and a perceptron).
    path : str or path-like
        Where to write the model.
    metadata : dict, default=None
        JSON-serialisable notes stored in the manifest (the command line keeps
        the training data's format there); read them back with :func:`read_manifest`.

    Raises
    ------
    TypeError
        If the model holds something the format does not allow: a callable
        parameter (say a callable ``kernel``; the message says what to use
        instead), a function, an object array that holds more than strings, an
        unregistered class. The message names the attribute; no file is written.
    ValueError
        If a text step has a parameter value that :func:`load` refuses (see
        :data:`PARAMETER_RULES`: say a custom ``token_pattern`` or
        ``input="filename"``). The message names the parameter; no file is written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> from rosenblatt.persistence import load, save
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> clf = Perceptron(shuffle=False).fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbm"
    >>> save(clf, path)
    >>> load(path).predict(X)
    array([-1,  1,  1,  1])
    """
    data = model_bytes(model, metadata=metadata)  # fails before any file is touched
    write_atomically(path, data)


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Check a model file and return its manifest (format, versions, class, params, metadata).

    Nothing but the manifest is decoded, so this is a cheap way to look at a
    model; it also reads the manifest of a file :func:`load` no longer loads
    (format version 1).

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is not a model file, is damaged, or has a newer format version.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.estimators.baselines import CentroidClassifier
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.rbm"
    >>> save(CentroidClassifier().fit([[0], [1]], [0, 1]), path, metadata={"note": "tiny"})
    >>> manifest = read_manifest(path)
    >>> manifest["class"], manifest["format_version"], manifest["metadata"]
    ('rosenblatt.CentroidClassifier', 4, {'note': 'tiny'})
    >>> sorted(manifest["versions"])
    ['numpy', 'python', 'rosenblatt', 'scikit-learn', 'scipy']
    """
    manifest, archive = open_model(path)
    archive.close()
    return manifest


def _read(path, build):
    """Open and check a model file, decode its tree and check every estimator in it
    against its class's invariants; return the manifest and ``build(plain, reader)``,
    what a builder makes of the checked tree (:class:`~rosenblatt.persistence.invariants.Plain`).

    What a damaged, crafted or foreign file makes this raise is a ModelFileError
    (:func:`~rosenblatt.persistence.errors.translated`); anything else is a bug."""
    manifest, archive = open_model(path)
    with archive:
        read = members(path, manifest, archive)
        with translated(path, manifest):
            tree = json.loads(read(STATE_MEMBER))
            reader = _Reader(lambda name: _npy_array(path, name, read(name)))
            plain = reader.plain(tree)
            if plain.key != manifest.get("class"):
                raise fail(
                    path,
                    f"the manifest names class {manifest.get('class')!r:.120} but the state "
                    f"holds a {plain.key}",
                    RESAVE,
                )
            built = build(plain, reader)
    return manifest, built


def load(path: str | os.PathLike[str]) -> Any:
    """Load a model saved by :func:`rosenblatt.save`.

    Only the classes in :data:`REGISTRY` and :data:`STATE_REGISTRY` are ever
    instantiated (``cls(**params)``, then the fitted attributes are set, and
    training states are rebuilt with ``from_state``), arrays are read with
    ``allow_pickle=False``, and every member is checked against its SHA-256
    before it is decoded: loading a file cannot run code.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        The model, predicting exactly as it did when it was saved. A saved
        ``on_epoch`` callback comes back as None.

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is truncated, altered (checksum mismatch), foreign (not a
        model file, or naming a class outside the registry), written in a
        newer format version, or in format version 1 (before the training
        engine: re-train and save again); the message says what to do. Any
        other exception is a bug in rosenblatt, not a damaged file: please
        report it.
    FileNotFoundError
        If there is no file at ``path``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.persistence import load
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "not-a-model.rbm"
    >>> _ = path.write_text("hello")
    >>> load(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rosenblatt.exceptions.ModelFileError: ...not a rosenblatt model file (it is not a zip...
    """
    return load_with_manifest(path)[1]


def load_with_manifest(path: str | os.PathLike[str]) -> tuple[dict[str, Any], Any]:
    """``(manifest, model)``: :func:`read_manifest` and :func:`load` of one reading of the
    file, so that both come from the same bytes (a checkpoint's record and its model).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt.estimators.baselines import CentroidClassifier
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.rbm"
    >>> save(CentroidClassifier().fit([[0], [1]], [0, 1]), path, metadata={"note": "tiny"})
    >>> manifest, model = load_with_manifest(path)
    >>> manifest["metadata"], model.predict([[0.9]])
    ({'note': 'tiny'}, array([1]))
    """
    return _read(path, lambda plain, reader: reader.build(plain))


def load_predictor(path: str | os.PathLike[str]) -> Any:
    """Load a model as cheaply as it can predict.

    A linear model (``Perceptron``, ``AveragedPerceptron``, ``CentroidClassifier``,
    ``LinearProgramClassifier``), alone or in a Pipeline after a ``StandardScaler``,
    comes back as a :class:`~rosenblatt.engine.numpy_decision.LinearPredictor`: its coefficients
    and the standardisation, applied with numpy alone, so that predicting imports
    neither scikit-learn nor scipy nor numba and gives exactly the estimator's
    predictions. Any other model is :func:`load`-ed.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    LinearPredictor or estimator

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> X, y = [[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1]
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.rbm"
    >>> save(Perceptron(shuffle=False).fit(X, y), path)
    >>> predictor = load_predictor(path)
    >>> type(predictor).__name__, predictor.predict(X)
    ('LinearPredictor', array([-1,  1,  1,  1]))
    """
    _, predictor = _read(path, build_predictor)
    return predictor
