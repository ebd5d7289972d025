"""Training an online estimator on a file chunk by chunk, with checkpoints: :func:`fit_stream`.

The stream itself (the scan, the binary cache, each epoch's chunks in its order) is
:mod:`rosenblatt.data.streaming`'s; the training is the estimator's ``fit_batches``,
the engine's epoch driver; the checkpoints are :mod:`~rosenblatt.training.checkpoint`'s
(model files with the run's record). This module joins them: a training workflow, above
the model files it writes. It trains a copy of the estimator it is given, never the
caller's object, so that fits over one estimator (in threads too) never meet.
"""

from __future__ import annotations

import contextlib
import copy
import os
import shutil
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import (
    CACHE_TEMP_PREFIX,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_HASH_FEATURES,
    DEFAULT_STDIN_EPOCHS,
    DEFAULT_STREAM_EPOCHS,
)
from .._core.validation import BrokenInvariant, check_args
from ..data._stream_index import is_text, parse_progress
from ..data.streaming import InputChunks, InputEpochs, StreamEpochs, hashing_vectorizer, index_file
from ..engine.driver import RunState
from .checkpoint import POSITIVE, Checkpoint, CheckpointPlan, is_display_parameter

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from .._core.typing import ArrayLike, RandomStateLike
    from ..data.streaming import ChunkIndex, StreamProgress
    from ..engine.driver import EpochReport

__all__ = ["fit_stream"]


def fit_stream(
    estimator: Any,
    path: str | os.PathLike[str],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    epochs: int | None = None,
    random_state: RandomStateLike = None,
    classes: ArrayLike | None = None,
    n_features: int | None = None,
    zero_based: bool | str = "auto",
    label_column: str | int | None = None,
    dtype: DTypeLike = np.float64,
    vectorizer: Any = None,
    index: ChunkIndex | None = None,
    on_epoch: Callable[[EpochReport], Any] | None = None,
    header: bool | str = "auto",
    cache: bool | str | os.PathLike[str] | None = None,
    format: str | None = None,
    on_progress: Callable[[StreamProgress], Any] | None = None,
    checkpoint: str | os.PathLike[str] | CheckpointPlan | None = None,
    checkpoint_every: int | None = None,
    resume: str | os.PathLike[str] | None = None,
) -> Any:
    """Train an online estimator on a data file (or standard input) chunk by chunk, in
    bounded memory.

    The file is parsed once, by the scan, into a binary cache (a temporary
    folder unless ``cache`` names one to keep); every epoch then reads the cache,
    never the text. Every epoch visits the chunks in a fresh random order (drawn
    by :func:`~rosenblatt.data.streaming.chunk_orders` from ``random_state``) and
    presents each chunk's rows once, in the estimator's own order (shuffled when
    ``estimator.shuffle`` is true, from ``estimator.random_state``), through the estimator's
    ``fit_batches``: the engine's epoch driver, so training stops after the
    first epoch without a mistake (each one-vs-rest neuron after its own), or
    after ``epochs`` epochs with a ``ConvergenceWarning``, exactly as
    its ``fit`` does. The classes come from the scan unless given.

    Standard input (``path="-"``, with ``format``) is read once, as it comes
    (:class:`~rosenblatt.data.streaming.InputChunks`): the first epoch trains each chunk
    as soon as it is read, in arrival order (its rows in the estimator's own order, as a
    file's); the classes are those met so far, a chunk holding a label never seen adding a
    class (as ``partial_fit`` without ``classes``; unless ``classes`` are given). One epoch
    by default; more write the rows to a binary cache as they come, and the epochs after
    the first read it, in the chunk orders a file's run draws. So the same data trained
    from a file gives the same model, byte for byte, wherever the file's first epoch reads
    its chunks in file order (one chunk, or ``shuffle=False``) and its first chunk holds
    every class. svmlight input needs ``zero_based`` (True or False) and ``n_features``.
    Standard input cannot be resumed (no ``checkpoint``, ``resume``).

    Parameters
    ----------
    estimator : Perceptron, AveragedPerceptron, VotedPerceptron, or one calibrated online
        Left as it is: a copy of it is trained (from scratch unless ``warm_start=True``
        and already fitted) and returned, so that fits over one estimator, in threads
        too, never meet.
        ``calibrated(estimator, method="online")`` learns its probabilities on the
        same pass (the options that order the chunks are its estimator's).
    path : str or path-like
        ``.svm``/``.svmlight``/``.libsvm``, ``.csv`` or ``.tsv`` (label<TAB>text); ``"-"``:
        standard input (give ``format``).
    chunk_size : int, default=10000
        Samples per chunk: memory holds about three parsed chunks.
    epochs : int, default=None
        Most passes over the file. Default: ``DEFAULT_STREAM_EPOCHS`` (5), not the
        estimator's ``max_iter``: a pass over a large file is expensive, and
        training stops earlier anyway after an epoch without a mistake. Standard
        input: ``DEFAULT_STDIN_EPOCHS`` (1), read once; more go through its cache.
    random_state : int, RandomState, Generator or None, default=None
        Seed of the chunk order (default: ``estimator.random_state``). With
        ``estimator.shuffle=False`` the chunks are read in file order.
    classes : array-like, default=None
        Every label (default: the labels found by the index pass).
    n_features : int, default=None
        svmlight: number of columns (default: the largest index in the file; standard
        input needs it). text: number of hashed features (default 2**20).
    zero_based : bool or "auto", default="auto"
        svmlight: whether indices start at 0.
    label_column : str or int, default=None
        CSV: the label column (default: the last).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    vectorizer : transformer, default=None
        text: a stateless vectorizer to use instead of the hashing one.
    index : ChunkIndex or InputChunks, default=None
        A previous :func:`~rosenblatt.data.streaming.index_file` result for this file
        and chunk size (its cache, if it has one, is used and left alone; without one every epoch
        parses the text). Standard input: the
        :class:`~rosenblatt.data.streaming.InputChunks` to read (not read yet; its schema
        then tells what was read), instead of one made from the options.
    on_epoch : callable(EpochReport), default=None
        Called after every epoch over the file, for this fit only (default: the
        estimator's own ``on_epoch``).
    header : bool or "auto", default="auto"
        CSV: whether the first record is a header.
    cache : None, False or path-like, default=None
        None: the binary cache goes to a temporary folder, deleted when the fit
        ends. A folder: the cache is kept there, and a later fit on the unchanged
        file (same size and modification time) with the same reading options
        reuses it without parsing the text. False: no cache; every epoch parses
        the text again. Standard input: a cache only for more than one epoch (None:
        in a temporary folder), or where a folder is given (kept there, never
        reused: standard input has no file to check it against).
    on_progress : callable(StreamProgress), default=None
        Called after every parsed block of the file and every trained chunk.
    format : {"csv", "svmlight", "tsv"}, default=None
        The file's format (default: from its extension).
    checkpoint : path-like or CheckpointPlan, default=None
        Write a checkpoint here (atomically) after the chunk that completes every
        ``checkpoint_every`` rows, and once more when training ends: the model so
        far (it loads as a model), where the run stands in the file and in its
        epochs, and the random states (:mod:`rosenblatt.training.checkpoint`).
        A file only: standard input cannot be resumed. A
        :class:`~rosenblatt.training.checkpoint.CheckpointPlan` made before
        the scan also gives ``checkpoint_every`` and ``resume``.
    checkpoint_every : int, default=None
        Rows between checkpoints (default ``DEFAULT_CHECKPOINT_ROWS``, 1,000,000).
    resume : path-like, default=None
        Go on from this checkpoint (and keep checkpointing to it unless ``checkpoint``
        names another file): the result is the model an uninterrupted run gives, to
        the byte. The file, the options and the estimator's parameters must be those
        the checkpoint was written with (else a ``ValueError`` names what differs),
        except those that only change what the run shows (``on_epoch``, ``verbose``:
        :data:`rosenblatt._core.config.DISPLAY_PARAMETERS`), which the estimator
        given sets; the one returned is the checkpoint's, trained on. A finished run's
        checkpoint gives its model back untrained. A checkpoint that does not hold
        together is refused with a ``ModelFileError`` naming what does not.

    Returns
    -------
    estimator or sklearn.pipeline.Pipeline
        The fitted copy of the estimator (with ``resume``, the checkpoint's model), with
        ``n_iter_`` and ``mistakes_per_epoch_`` counting epochs over the whole file; for
        text, a pipeline of the vectorizer and the estimator.

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        With ``resume``: the file is no checkpoint, or one that is damaged (a field of
        its record, or its model, that does not fit the rest or the input).
    ValueError
        With ``resume``: a checkpoint of another input or other options, naming what
        differs.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rosenblatt import Perceptron
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "or.svm"
    >>> _ = path.write_text("-1 1:-1 2:-1\\n1 1:1 2:-1\\n1 1:-1 2:1\\n1 1:1 2:1\\n")
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2)
    >>> clf.converged_, clf.predict([[1, 1], [-1, -1]]).tolist()
    (True, [1, -1])

    With checkpoints, a run killed half way goes on where the last one left it:

    >>> saved = path.parent / "run.ckpt"
    >>> clf = fit_stream(Perceptron(random_state=0), path, chunk_size=2,
    ...                  checkpoint=saved, checkpoint_every=2)
    >>> again = fit_stream(Perceptron(random_state=0), path, chunk_size=2, resume=saved)
    >>> bool((again.coef_ == clf.coef_).all()), again.n_iter_ == clf.n_iter_
    (True, True)
    """
    if not hasattr(estimator, "fit_batches"):
        raise TypeError(
            f"fit_stream trains with fit_batches, which {type(estimator).__name__} "
            "does not have; use Perceptron, AveragedPerceptron or VotedPerceptron"
        )
    stdin = os.fspath(path) == "-"
    if epochs is None:
        epochs = DEFAULT_STDIN_EPOCHS if stdin else DEFAULT_STREAM_EPOCHS
    check_args("fit_stream", {"epochs": [POSITIVE]}, {"epochs": epochs})
    if isinstance(checkpoint, CheckpointPlan) and not stdin:
        plan = checkpoint
    else:  # refuses checkpoints of standard input, as of any pipe
        plan = CheckpointPlan.prepare(
            estimator,
            path,
            # a plan made for standard input holds no checkpoint file (prepare refuses one)
            checkpoint=checkpoint.path if isinstance(checkpoint, CheckpointPlan) else checkpoint,
            checkpoint_every=checkpoint_every,
            resume=resume,
            epochs=epochs,
            random_state=random_state,
            classes=classes,
            n_features=n_features,
            dtype=dtype,
            vectorizer=vectorizer,
        )
    if stdin:
        if not isinstance(index, (InputChunks, type(None))):
            raise TypeError("standard input's chunks are an InputChunks, not a file's index")
        reading = dict(
            n_features=None if format in ("tsv", "text") else n_features,
            zero_based=zero_based,
            label_column=label_column,
            header=header,
            dtype=dtype,
        )
        return _fit_input(
            estimator,
            index,
            epochs=epochs,
            chunk_size=chunk_size,
            random_state=random_state,
            classes=classes,
            text_features=n_features,
            vectorizer=vectorizer,
            on_epoch=on_epoch,
            cache=cache,
            format=format,
            on_progress=on_progress,
            reading=reading,
        )
    if cache is True:
        cache = None
    own_index = index is None
    if own_index:
        index = index_file(
            path,
            chunk_size,
            n_features=None if is_text(path, format) else n_features,
            zero_based=zero_based,
            label_column=label_column,
            header=header,
            cache=True if cache is None else cache,
            format=format,
            progress=parse_progress(path, epochs, on_progress),
        )
    assert index is not None  # made above when not given
    if index.format == "text" and vectorizer is None:
        vectorizer = hashing_vectorizer(n_features or DEFAULT_HASH_FEATURES, dtype)
    try:
        plan.read_with(index)
        model = _model_to_train(estimator, plan.resumed)
        if plan.resumed is not None:
            known = index.classes if classes is None else np.asarray(classes)
            plan.check_model(model, known, None if vectorizer else index.n_features)
        if plan.resumed is None or not plan.resumed.finished:
            model = _fit_index(
                model,
                path,
                index,
                epochs,
                random_state,
                classes,
                dtype,
                vectorizer,
                on_epoch or _callback(estimator),
                on_progress,
                plan,
            )
    finally:
        if own_index:
            index.close()
    if vectorizer is not None:
        from sklearn.pipeline import Pipeline

        return Pipeline([("vectorizer", vectorizer), ("classifier", model)])
    return model


def _fit_index(
    model,
    path,
    index,
    epochs,
    random_state,
    classes,
    dtype,
    vectorizer,
    on_epoch,
    on_progress,
    plan,
):
    classes = index.classes if classes is None else np.asarray(classes)
    # what learns: the estimator, or the one an online calibration wraps (its options)
    learner = getattr(model, "estimator", model)
    if random_state is None:
        random_state = getattr(learner, "random_state", None)
    try:
        stream = StreamEpochs(
            path,
            index,
            epochs,
            random_state,
            getattr(learner, "shuffle", True),
            dtype,
            vectorizer,
            on_progress,
            position=None if plan.resumed is None else plan.resumed.position,
        )
    except BrokenInvariant as exc:
        raise plan.damaged(exc) from None
    run = plan.run
    if run is not None and not (stream.epoch == run.epochs + 1 == model.n_iter_ + 1):
        raise plan.damaged(
            f"its stream is in epoch {stream.epoch}, its run and model have done "
            f"{run.epochs} and {model.n_iter_}"
        )
    if plan.path is not None and run is None:
        run = RunState()
    with stream, _callback_set(learner, on_epoch):
        # only a learner that resumes gets the run (KernelPerceptron streams, unresumed)
        resumable = {} if run is None else {"run": run}
        if run is not None:
            resumable["after_batch"] = plan.after_batch(model, stream, run)
        model.fit_batches(stream, classes, max_iter=epochs, limit="epochs", **resumable)
    if run is not None:
        plan.write(model)  # finished: resuming it gives this model back
    return model


@contextlib.contextmanager
def _callback_set(learner: Any, on_epoch: Any) -> Any:
    """The fit's ``on_epoch`` on what learns (the model is fit_stream's own,
    :func:`_model_to_train`: the callback is set on it alone), for the fit only."""
    own_callback = learner.get_params().get("on_epoch")
    learner.set_params(on_epoch=on_epoch)
    try:
        yield
    finally:
        learner.set_params(on_epoch=own_callback)


def _fit_input(
    estimator,
    chunks,
    *,
    epochs,
    chunk_size,
    random_state,
    classes,
    text_features,
    vectorizer,
    on_epoch,
    cache,
    format,
    on_progress,
    reading,
):
    """:func:`fit_stream` of standard input: the first epoch as it is read, the others
    from its cache (:class:`~rosenblatt.data.streaming.InputEpochs`)."""
    if epochs > 1 and cache is False:
        raise ValueError(
            "standard input is read once: more than one epoch reads its rows again from "
            "a cache; leave cache=None (a temporary one), or give a folder"
        )
    own_chunks = chunks is None
    temporary = None
    if own_chunks:
        folder = cache if cache not in (None, True, False) else None
        if folder is None and epochs > 1:
            temporary = folder = tempfile.mkdtemp(prefix=CACHE_TEMP_PREFIX)
        chunks = InputChunks(format, chunk_size, cache=folder, keep=temporary is None, **reading)
    if chunks.kind == "text" and vectorizer is None:
        vectorizer = hashing_vectorizer(text_features or DEFAULT_HASH_FEATURES, reading["dtype"])
    model = _model_to_train(estimator, None)
    learner = getattr(model, "estimator", model)
    if random_state is None:
        random_state = getattr(learner, "random_state", None)
    source = InputEpochs(
        chunks,
        epochs,
        random_state,
        getattr(learner, "shuffle", True),
        reading["dtype"],
        vectorizer,
        on_progress,
        two_classes=classes is None,
    )
    try:
        with source, _callback_set(learner, on_epoch or _callback(estimator)):
            model.fit_batches(source, classes, max_iter=epochs, limit="epochs")
    finally:
        if own_chunks:
            chunks.close()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    if vectorizer is not None:
        from sklearn.pipeline import Pipeline

        return Pipeline([("vectorizer", vectorizer), ("classifier", model)])
    return model


def _model_to_train(estimator: Any, resumed: Checkpoint | None) -> Any:
    """What :func:`fit_stream` trains and returns, never the caller's object (whose
    parameters and fitted state stay as they are, so that fits over it never meet): a copy
    of it (its fitted state too, for ``warm_start``), its callbacks the caller's own, not
    copies; resumed, the checkpoint's model, showing what the caller's estimator asks for
    (its display parameters: they are no part of the model, nor of the options)."""
    params = estimator.get_params(deep=True)
    display = {name: value for name, value in params.items() if is_display_parameter(name)}
    if resumed is not None:
        return resumed.model.set_params(**display)
    callbacks = {id(value): value for name, value in display.items() if callable(value)}
    return copy.deepcopy(estimator, callbacks)  # the memo keeps the callbacks uncopied


def _callback(estimator: Any) -> Any:
    """The ``on_epoch`` of what learns (the estimator, or the one a calibration wraps)."""
    return getattr(getattr(estimator, "estimator", estimator), "on_epoch", None)
