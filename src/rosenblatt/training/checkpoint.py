"""Checkpoints of streamed training: what one is, and the checkpoints of one fit.

A checkpoint is a model file (:func:`rosenblatt.save`'s format, written atomically, read
with every check :func:`rosenblatt.load` makes), of the estimator as it stood after a
chunk, whose manifest's metadata holds the ``"checkpoint"`` record: what the run was
(a fingerprint of the input, the options of the fit), where it stood (the stream's
position: epoch, chunk order, chunks done, the chunk orders' random source; the
engine's :class:`~rosenblatt.engine.driver.RunState`: the epochs' record, the units still
learning, the current epoch's count so far, the row orders' random source), or that it
finished. Every field is checked before the run goes on from it, and a checkpoint of
another input or other options is refused, naming what differs. So a checkpoint also
loads as a model: the weights learnt so far.

:class:`CheckpointPlan` is the checkpoints of one fit of
:func:`~rosenblatt.training.stream.fit_stream`: where and how often they are written,
and the one it resumes from, checked before the file is scanned.

>>> from rosenblatt.training.checkpoint import differences
>>> differences({"epochs": 5, "seed": 0}, {"epochs": 7, "seed": 0})
['epochs=5 there, 7 here']
>>> differences({"scaling": True, "eta": 1}, {"scaling": 1.0, "eta": 1.0})
['scaling=True there, 1.0 here']
"""

from __future__ import annotations

import hashlib
import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.config import DEFAULT_CHECKPOINT_ROWS, DISPLAY_PARAMETERS
from .._core.files import check_writable, remove_leftovers
from .._core.validation import NONE, BrokenInvariant, Interval, check_args, hold
from ..engine.driver import RunState
from ..exceptions import ModelFileError
from ..persistence import load_with_manifest, save
from ..persistence.container import described, is_estimator
from ..persistence.errors import fail

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import DTypeLike

    from .._core.typing import ArrayLike, RandomStateLike
    from ..data.streaming import ChunkIndex, StreamEpochs

__all__ = [
    "Checkpoint",
    "CheckpointPlan",
    "differences",
    "input_fingerprint",
    "is_display_parameter",
    "model_params",
    "read_checkpoint",
    "write_checkpoint",
]

#: a count of rows or epochs: 1 or more
POSITIVE = Interval(numbers.Integral, 1, None, closed="left")

KIND = "rosenblatt-stream-checkpoint"
# 2: the options hold the model's parameters only, named estimator__NAME (1 held every one,
# a callback's repr among them, and the fit's random_state hid the estimator's)
VERSION = 2
_EDGE_BYTES = 1 << 20  # the input's first and last MiB are hashed (with its size)


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint as read: the checked model and the record (see the module).

    Attributes
    ----------
    model : estimator
    input, options : dict
        What the run read, and with which options (its estimator's among them).
    position, run : dict or None
        The stream's position and the engine's run state (None once finished).
    finished : bool
    """

    model: Any
    input: dict[str, Any]
    options: dict[str, Any]
    position: dict[str, Any] | None
    run: dict[str, Any] | None
    finished: bool


def input_fingerprint(path: str | os.PathLike[str], n_samples: int | None = None) -> dict:
    """What identifies an input file: its size, the SHA-256 of its first and of its last
    MiB (their first 16 hex digits), and (after the scan) its number of samples. A copy
    of the file has the same; an edit that keeps the size and both ends is not seen."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = hashlib.sha256(handle.read(_EDGE_BYTES)).hexdigest()[:16]
        handle.seek(max(0, size - _EDGE_BYTES))
        tail = hashlib.sha256(handle.read(_EDGE_BYTES)).hexdigest()[:16]
    found: dict[str, Any] = {"size": size, "first_mib_sha256": head, "last_mib_sha256": tail}
    if n_samples is not None:
        found["n_samples"] = int(n_samples)
    return found


def model_params(estimator: Any) -> dict[str, Any]:
    """The parameters that define ``estimator``'s model, described (as a model file's
    manifest shows them: ``persistence.container.described``) and named as
    ``get_params(deep=True)`` names them, without the display parameters
    (:data:`rosenblatt._core.config.DISPLAY_PARAMETERS`) at any depth; an estimator
    among them by its class name (its own parameters follow it). What a checkpoint holds a
    resumed run to: a progress bar or ``verbose`` lines do not change the model.

    Examples
    --------
    >>> from rosenblatt import Perceptron, calibrated
    >>> online = calibrated(Perceptron(eta=0.5, on_epoch=print, verbose=1), method="online")
    >>> params = model_params(online)
    >>> params["estimator"], params["estimator__eta"], "estimator__verbose" in params
    ('Perceptron', 0.5, False)
    """
    return {
        name: type(value).__name__ if is_estimator(value) else described(value)
        for name, value in estimator.get_params(deep=True).items()
        if not is_display_parameter(name)
    }


def is_display_parameter(name: str) -> bool:
    """Whether the parameter ``name`` (as ``get_params(deep=True)`` names it, a nested
    estimator's ``estimator__verbose`` too) only changes what training shows
    (``rosenblatt._core.config.DISPLAY_PARAMETERS``).

    Examples
    --------
    >>> is_display_parameter("estimator__on_epoch"), is_display_parameter("eta")
    (True, False)
    """
    return name.rpartition("__")[2] in DISPLAY_PARAMETERS


def options_of(estimator: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a run is held to: the fit's, and the estimator's class and the
    parameters that define its model (:func:`model_params`,
    named as the fit's ``estimator`` parameter: ``estimator__eta``), not those that only
    change what the run shows (a callback, ``verbose``).

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> options = options_of(Perceptron(eta=0.5, verbose=1), {"epochs": 5})
    >>> options["epochs"], options["estimator"], options["estimator__eta"]
    (5, 'Perceptron', 0.5)
    >>> "estimator__verbose" in options or "estimator__on_epoch" in options
    False
    """
    params = {f"estimator__{name}": value for name, value in model_params(estimator).items()}
    return {**options, "estimator": type(estimator).__name__, **params}


def differences(
    there: Mapping[str, Any], here: Mapping[str, Any], sides: tuple[str, str] = ("there", "here")
) -> list[str]:
    """``name=a there, b here`` for every option that differs (in ``here``'s order);
    ``sides`` names the two otherwise."""
    names = list(here) + [name for name in there if name not in here]
    return [
        f"{name}={there.get(name)!r:.200} {sides[0]}, {here.get(name)!r:.200} {sides[1]}"
        for name in names
        if not _same(there.get(name), here.get(name))
    ]


def _same(a: Any, b: Any) -> bool:
    """Equal JSON values, a boolean never equal to a number (as Python has ``True == 1``):
    ``intercept_scaling=True`` is not the ``1.0`` it equals."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key]) for key in a)
    return bool(a == b)


def write_checkpoint(
    path: str | os.PathLike[str],
    model: Any,
    *,
    input: Mapping[str, Any],
    options: Mapping[str, Any],
    position: Mapping[str, Any] | None,
    run: Mapping[str, Any] | None,
) -> None:
    """Write a checkpoint atomically: ``path`` holds the previous one or this one, whole.

    ``position`` and ``run`` None: the run has finished (``model`` is its result)."""
    record = {
        "kind": KIND,
        "version": VERSION,
        "finished": position is None,
        "input": dict(input),
        "options": dict(options),
        "position": position,
        "run": run,
    }
    save(model, path, metadata={"checkpoint": record})


def read_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read and check a checkpoint (the model as :func:`rosenblatt.load` checks it).

    Raises
    ------
    rosenblatt.exceptions.ModelFileError
        If the file is damaged, not a model file, or a model file that is no checkpoint.
    FileNotFoundError
        If there is none at ``path``.
    """
    manifest, model = load_with_manifest(path)
    metadata = manifest.get("metadata")
    record = metadata.get("checkpoint") if isinstance(metadata, dict) else None
    if not isinstance(record, dict) or record.get("kind") != KIND:
        raise fail(
            path,
            "is a model file but not a checkpoint of streamed training",
            "resume from the file that --checkpoint (fit_stream's checkpoint) wrote",
        )
    if record.get("version") != VERSION:
        raise fail(
            path,
            f"is a checkpoint of version {record.get('version')!r:.20}; this rosenblatt "
            f"resumes version {VERSION}",
            "start the run afresh",
        )
    finished = record.get("finished")
    parts = {name: record.get(name) for name in ("input", "options", "position", "run")}
    if (
        type(finished) is not bool
        or not isinstance(parts["input"], dict)
        or not isinstance(parts["options"], dict)
        or any(not isinstance(parts[n], dict) for n in ("position", "run") if not finished)
    ):
        raise fail(path, "is a checkpoint whose record is damaged", "start the run afresh")
    return Checkpoint(
        model,
        input=parts["input"],
        options=parts["options"],
        position=parts["position"],
        run=parts["run"],
        finished=finished,
    )


class CheckpointPlan:
    """The checkpoints of one streamed fit: where, how often, what they hold the run to,
    and the one it resumes from; made and checked before the file is scanned.

    :func:`~rosenblatt.training.stream.fit_stream` makes one from its arguments; a caller
    that scans the file itself (``rosenblatt train --stream``) makes it first, with
    :meth:`prepare`, so that a wrong checkpoint fails before the scan, and passes it as
    ``checkpoint``.

    Attributes
    ----------
    path : path-like or None
        Where checkpoints are written (None: nowhere).
    every : int
        Rows between checkpoints.
    options : dict
        The fit's options and the estimator's parameters, as the checkpoints keep them.
    input : dict
        What identifies the input (after the scan).
    resumed : Checkpoint or None
        The checkpoint the fit goes on from.
    """

    def __init__(self, path, every, options, resumed, resume_path):
        self.path, self.options, self.resumed = path, options, resumed
        self.every = DEFAULT_CHECKPOINT_ROWS if every is None else int(every)
        self._resume_path = resume_path
        self.input: dict[str, Any] = {}
        self.run: RunState | None = None  # the resumed run's, checked
        self._rows_at_last = 0

    @classmethod
    def prepare(
        cls,
        estimator: Any,
        path: str | os.PathLike[str],
        *,
        checkpoint: str | os.PathLike[str] | None,
        checkpoint_every: int | None,
        resume: str | os.PathLike[str] | None,
        epochs: int,
        random_state: RandomStateLike,
        classes: ArrayLike | None,
        n_features: int | None,
        dtype: DTypeLike,
        vectorizer: Any,
    ) -> CheckpointPlan:
        """Check the arguments, the input and the checkpoint's file; read the one to
        resume from and hold it to the options (and the input's size and ends)."""
        check_args(
            "fit_stream",
            {"checkpoint_every": [POSITIVE, NONE]},
            {"checkpoint_every": checkpoint_every},
        )
        checkpoint = resume if checkpoint is None else checkpoint
        if checkpoint_every is not None and checkpoint is None:
            raise ValueError(
                "checkpoint_every says how often to write a checkpoint; give checkpoint"
            )
        if checkpoint is not None:
            _check_resumable(estimator, path)
            check_writable(checkpoint)
        resumed = read_checkpoint(resume) if resume is not None else None
        if resumed is not None:  # what a kill in the middle of writing one left
            assert checkpoint is not None  # the resumed one, at least
            remove_leftovers(checkpoint)
        options = options_of(
            estimator,
            {
                "epochs": epochs,
                "random_state": described(random_state),
                "classes": None if classes is None else np.asarray(classes).tolist(),
                "n_features": n_features,
                "dtype": np.dtype(dtype).name,
                "vectorizer": described(vectorizer),
            },
        )
        plan = cls(checkpoint, checkpoint_every, options, resumed, resume)
        if resumed is not None:
            # the model it holds is of the estimator's class and parameters, as its record says
            plan.check_same("options", options_of(resumed.model, {}), options_of(estimator, {}))
            plan.check_same("options", resumed.options, options)
            if not resumed.finished:
                try:
                    run = RunState.from_state(resumed.run)
                    # a checkpoint is written after a batch: its run has started, its order
                    # source drawn (fit_batches keeps it in the run), its epoch counted so far
                    hold(run.started, "the run must have started (its active units)")
                    hold(run.rng is not None, "the run's rng must be a random source")
                    hold(run.partial is not None, "the run's partial epoch must be counted")
                except BrokenInvariant as exc:
                    raise plan.damaged(exc) from None
                plan.run = run
            before_scan = input_fingerprint(path)  # a wrong file is refused before the scan
            plan.check_same("input", {k: resumed.input.get(k) for k in before_scan}, before_scan)
        return plan

    def read_with(self, index: ChunkIndex) -> None:
        """After the scan: what identifies the input (the scan's findings with the file's
        fingerprint), held to the resumed checkpoint's."""
        if self.path is None:
            return
        self.input = {
            **input_fingerprint(index.path, index.n_samples),
            "format": index.format,
            "chunk_size": index.chunk_size,
            "n_chunks": index.n_chunks,
            "n_features": index.n_features,
            "zero_based": index.zero_based,
            "label_index": index.label_index,
            "header": index.header,
            "classes": index.classes.tolist(),
            "aside_columns": index.aside,  # None (not set) in a checkpoint without any
        }
        if self.resumed is not None:
            self.check_same("input", self.resumed.input, self.input)

    def check_model(self, model: Any, classes: np.ndarray, n_features: int | None) -> None:
        """Refuse a resumed checkpoint whose model does not fit its input (other classes,
        or, ``n_features`` given, another number of features) or its own options: online
        calibration's fitted estimator is its estimator's quiet clone (no option holds it)."""
        fitted = getattr(model, "estimator_", None)
        if fitted is not None:
            shown = {
                name: described(value)
                for name, value in fitted.get_params(deep=True).items()
                if is_display_parameter(name)
            }
            quiet = {name: DISPLAY_PARAMETERS[name.rpartition("__")[2]] for name in shown}
            made = differences(
                {**model_params(fitted), **shown},
                {**model_params(model.estimator), **quiet},
                ("in estimator_", "in the clone"),
            )
            if made:
                raise self.damaged(
                    f"its model's estimator_ is not its estimator's quiet clone ({'; '.join(made)})"
                )
        if not np.array_equal(model.classes_, classes):
            raise self.damaged(
                f"its model's classes {model.classes_.tolist()!r:.100} are not the input's "
                f"{classes.tolist()!r:.100}"
            )
        if n_features is not None and model.n_features_in_ != n_features:
            raise self.damaged(
                f"its model has {model.n_features_in_} features, its input {n_features}"
            )

    def check_same(self, what: str, there: Mapping[str, Any], here: Mapping[str, Any]) -> None:
        """Refuse a checkpoint of another input or other options, naming what differs."""
        different = differences(there, here)
        if different:
            todo = (
                "resume with the file it was written for"
                if what == "input"
                else "resume with the options it was written with"
            )
            raise ValueError(
                f"the checkpoint {os.fspath(self._resume_path)!r} was written for another "
                f"{what} ({'; '.join(different)}): {todo}, or start afresh without resume"
            )

    def damaged(self, why: object) -> ModelFileError:
        """The refusal of a resumed checkpoint whose record does not hold together."""
        return fail(
            self._resume_path, f"is a checkpoint whose record does not hold: {why}", "start afresh"
        )

    def after_batch(
        self, model: Any, stream: StreamEpochs, run: RunState
    ) -> Callable[[Callable[[], None]], None]:
        """What ``fit_batches`` calls after every batch: a checkpoint when one is due."""

        def after_batch(publish):
            if stream.rows_handed_out - self._rows_at_last < self.every:
                return
            publish()
            self.write(model, stream.position(), run.to_state())
            self._rows_at_last = stream.rows_handed_out

        return after_batch

    def write(
        self,
        model: Any,
        position: Mapping[str, Any] | None = None,
        run: Mapping[str, Any] | None = None,
    ) -> None:
        """Write a checkpoint (``position`` None: the finished run's)."""
        write_checkpoint(
            self.path, model, input=self.input, options=self.options, position=position, run=run
        )


def _check_resumable(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Checkpoints need a file to read again and a learner that resumes mid-run."""
    from ..estimators._base import BaseLinearPerceptron
    from ..estimators.calibration import OnlineCalibratedClassifier

    if os.fspath(path) == "-" or not os.path.isfile(path):
        raise ValueError(
            f"{os.fspath(path)!r} is not a file: standard input (or a pipe) cannot be "
            "resumed, its rows are gone once read; save it to a file and train on the "
            "file, or drop checkpoint and resume"
        )
    if not isinstance(estimator, (BaseLinearPerceptron, OnlineCalibratedClassifier)):
        raise TypeError(
            f"checkpoints resume Perceptron, AveragedPerceptron and VotedPerceptron (and "
            f"their online calibration), not {type(estimator).__name__}"
        )
