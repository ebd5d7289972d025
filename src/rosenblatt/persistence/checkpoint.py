"""A checkpoint of streamed training: the model so far, and where the run stands.

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

>>> from rosenblatt.persistence.checkpoint import differences
>>> differences({"epochs": 5, "seed": 0}, {"epochs": 7, "seed": 0})
['epochs=5 there, 7 here']
>>> differences({"scaling": True, "eta": 1}, {"scaling": 1.0, "eta": 1.0})
['scaling=True there, 1.0 here']
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .container import model_params
from .errors import fail

__all__ = ["Checkpoint", "differences", "input_fingerprint", "read_checkpoint", "write_checkpoint"]

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


def options_of(estimator: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options a run is held to: the fit's, and the estimator's class and the
    parameters that define its model (:func:`~rosenblatt.persistence.container.model_params`,
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
    from . import save

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
    from . import load_with_manifest

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
