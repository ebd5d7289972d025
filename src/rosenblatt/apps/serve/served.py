"""The served model: snapshots that predictions read, and the one writer that learns and saves.

Predictions read :attr:`ServedModel.snapshot`, an immutable ``(model, predictor, version)``
that no one changes once it is published: they never see a half-updated model and never
change a weight. Learning and saving are jobs for one writer thread, taken in arrival
order. The writer takes the learn requests waiting (up to
:data:`~rosenblatt._core.config.SERVE_GROUP_REQUESTS`), learns each on its own, in order,
on a copy of the model (``partial_fit``, on the final step of a pipeline), writes the
group to the log with one ``fsync`` (a group commit), then publishes the copy and answers
each request. A request the model refuses (a label outside its classes, rows whose scores
overflow) is answered with its error and leaves nothing behind: the copy is made again
without it. A save writes the latest snapshot atomically; saving over the served file also
starts the log afresh (:mod:`.journal`).
"""

from __future__ import annotations

import concurrent.futures
import copy
import os
import queue
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from ..._core import config
from ..._core.files import check_writable, remove_leftovers, write_atomically
from ...persistence import model_bytes, read_manifest
from ...persistence.predictor import live_predictor
from ..model_input import jsonable, load_model
from .journal import Journal, LogError, learn_record, point_record, read_log, replay_plan, sha256_of
from .rows import Batch, RequestError, batch_bytes

__all__ = ["Busy", "ServedModel", "Snapshot", "copied", "learn_on", "learns_online"]


@dataclass(frozen=True)
class Snapshot:
    """A model as predictions read it: never changed once published.

    ``predictor`` predicts as ``model`` does on rows that went through ``front`` first (a
    pipeline's steps before its classifier, applied once for labels and scores alike; None:
    none): a numpy-only LinearPredictor for a linear classifier, else the classifier itself;
    ``version`` counts the learn requests the model has learnt.
    """

    model: Any
    predictor: Any
    version: int
    front: Any = None

    @classmethod
    def of(cls, model: Any, version: int) -> Snapshot:
        """The snapshot of ``model``: its predictor (and front) made once, here."""
        predictor = live_predictor(model)  # a linear model, alone or after a scaler
        steps = getattr(model, "steps", None)
        if predictor is not model or not steps or len(steps) < 2:
            return cls(model, predictor, version)
        final = steps[-1][1]
        return cls(model, live_predictor(final), version, lambda X: _front(model, X))


class Busy(Exception):
    """The writer has as many requests waiting as it takes: answer 503, try again later."""


def _final_step(model: Any) -> Any:
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps else model


def learns_online(model: Any) -> bool:
    """Whether the model learns from a batch: it (a pipeline: its last step) has
    ``partial_fit``."""
    return hasattr(_final_step(model), "partial_fit")


def copied(model: Any) -> Any:
    """A deep copy of ``model`` for the writer to learn on.

    A learner's history grows by an entry with every ``partial_fit`` (``mistakes_per_epoch_``,
    one entry an epoch): ``copy.deepcopy`` copies such a list number by number, a cost that
    grows with every request learnt. Lists of plain numbers among the estimators' public
    fitted attributes are copied whole instead (their numbers are immutable): the same copy,
    about ten times sooner.

    Examples
    --------
    >>> from rosenblatt import Perceptron
    >>> model = Perceptron(random_state=0).fit([[0.0, 1.0], [1.0, 0.0]], [0, 1])
    >>> copy_ = copied(model)
    >>> copy_.mistakes_per_epoch_ == model.mistakes_per_epoch_
    True
    >>> copy_.mistakes_per_epoch_ is model.mistakes_per_epoch_, copy_.coef_ is model.coef_
    (False, False)
    """
    memo: dict[int, Any] = {}
    for estimator in _estimators(model):
        for name, value in vars(estimator).items():
            if (
                type(value) is list
                and name.endswith("_")
                and not name.startswith("_")
                and set(map(type, value)) <= {int, float}
            ):
                memo[id(value)] = value.copy()
    return copy.deepcopy(model, memo)


def _estimators(model: Any, depth: int = 0) -> list[Any]:
    """The model and the estimators inside it (a pipeline's steps, a calibrated model's)."""
    found = [model]
    if depth > 4:
        return found
    for value in vars(model).values():
        parts = value if isinstance(value, (list, tuple)) else [value]
        for part in parts[:16]:
            if isinstance(part, tuple) and len(part) == 2:  # a pipeline's (name, step)
                part = part[1]
            if hasattr(part, "get_params") and hasattr(part, "__dict__"):
                found += _estimators(part, depth + 1)
    return found


def _front(model: Any, X: Any) -> Any:
    """Rows through a pipeline's steps before its last (fitted, never refitted), as the
    pipeline passes them on; any other model's rows as they are."""
    for _, step in getattr(model, "steps", [])[:-1]:
        X = step.transform(X)
    return X


def learn_on(model: Any, X: Any, y: Any) -> None:
    """Learn one batch, as the service learns a request: ``partial_fit`` of the model, or of
    a pipeline's last step on the rows its other steps transform."""
    _final_step(model).partial_fit(_front(model, X), y)


@dataclass
class _Job:
    kind: str  # "learn" or "save"
    batch: Batch | None = None
    path: str | None = None
    size: int = 0
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)


class ServedModel:
    """A model that predicts from snapshots and learns through one writer, with its log.

    Build it with :meth:`from_file` (a model file, its log replayed) or directly from a
    fitted model object (no file, no log). Call :meth:`start` before submitting jobs and
    :meth:`stop` at the end.

    Parameters
    ----------
    model : estimator
    path : str, default=None
        The served model file (``/save``'s default target; the log continues it).
    metadata : dict, default=None
        The model file's metadata, kept in every file the service writes.
    log : str, default=None
        The learning log's path (only with ``path``).
    version : int, default=0
    file_sha : str, default=None
        The SHA-256 of the served file's bytes as they are on disk.
    """

    def __init__(
        self,
        model: Any,
        *,
        path: str | None = None,
        metadata: dict[str, Any] | None = None,
        log: str | None = None,
        version: int = 0,
        file_sha: str | None = None,
    ) -> None:
        if log is not None and path is None:
            raise ValueError(
                "a learning log continues a model file; save the model first "
                "(rosenblatt.save) and serve the file, or pass log=None"
            )
        self.path, self.metadata = path, dict(metadata or {})
        self.journal = Journal(log) if log is not None else None
        self.snapshot = Snapshot.of(model, version)
        self.learns = learns_online(model)
        self.replayed = 0  # learn requests the start learnt from the log
        self.updates = 0  # learn requests learnt since the start
        self.rows_learnt = 0
        self.refused = 0
        self._file_sha = file_sha
        self._logged_bytes = 0  # of learning, in the log since the served file was saved
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._pending_bytes = 0
        self._thread: threading.Thread | None = None
        self.max_queue = config.SERVE_LEARN_QUEUE
        self.max_queue_bytes = config.SERVE_LEARN_QUEUE_BYTES
        self.group = config.SERVE_GROUP_REQUESTS

    # ------------------------------------------------------------------ start and stop
    @classmethod
    def from_file(
        cls, path: str | os.PathLike[str], log: str | os.PathLike[str] | None
    ) -> ServedModel:
        """Load a model file and continue its learning log: learn every request logged
        after the file's place in it, then (when it learnt any) save the file and start
        the log afresh. A record cut short by a kill was never acknowledged: it goes.

        Raises
        ------
        rosenblatt.apps.serve.journal.LogError
            A damaged log, or the log of another model file.
        """
        path = os.fspath(path)
        log = None if log is None else os.fspath(log)
        model, metadata = load_model(path)
        with open(path, "rb") as handle:
            sha = sha256_of(handle.read())
        if log is not None:
            check_writable(log)
            if os.path.abspath(log) == os.path.abspath(path):
                raise ValueError(f"the learning log must be another file than the model {path}")
        served = cls(model, path=path, metadata=metadata, log=log, file_sha=sha)
        if log is None or not os.path.exists(log):
            return served
        remove_leftovers(path)  # what kills during atomic writes left beside them
        remove_leftovers(log)
        logged = read_log(log)
        version, requests = replay_plan(logged, sha, log, path)
        for X, y in requests:
            try:
                learn_on(model, X, y)
            except Exception as error:  # learnt once, so learnt again: a log that is not
                raise LogError(f"{log}: a logged request cannot be learnt again: {error}") from None
        served.snapshot = Snapshot.of(model, version)
        served.replayed = len(requests)
        assert served.journal is not None
        if requests:
            served.journal.resume(logged.valid_bytes)
            served.save_served(served.file_bytes(model), version)
        elif len(logged.records) > 1 or logged.torn:
            served.journal.begin(sha, version)  # nothing to learn: a log of one record
        else:
            served.journal.resume(logged.valid_bytes)
        return served

    def start(self) -> None:
        """Start the writer thread."""
        self._thread = threading.Thread(target=self._write, name="rosenblatt-serve-writer")
        self._thread.daemon = True
        self._thread.start()

    @property
    def running(self) -> bool:
        """Whether the writer runs (between :meth:`start` and :meth:`stop`)."""
        return self._thread is not None

    def stop(self) -> None:
        """Let the writer finish the jobs waiting, then end it; a model file whose log
        holds learning since the last save is saved (and the log started afresh), so that
        the next start has nothing to replay."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._logged_bytes and self.path is not None:
            snapshot = self.snapshot
            self.save_served(self.file_bytes(snapshot.model), snapshot.version)
        self.close()

    def close(self) -> None:
        """Close the log (a service that never started, or has stopped)."""
        if self.journal is not None:
            self.journal.close()

    # ------------------------------------------------------------------ jobs
    @property
    def queue_length(self) -> int:
        """Learn and save requests waiting for the writer, or being done."""
        return self._pending

    def submit_learn(self, batch: Batch) -> concurrent.futures.Future:
        """Queue a learn request; its future gives ``(rows learnt, version)``.

        Raises
        ------
        Busy
            When the queue holds :data:`SERVE_LEARN_QUEUE` requests or
            :data:`SERVE_LEARN_QUEUE_BYTES` of rows already.
        """
        if not self.learns:
            raise RequestError(
                f"this model ({type(_final_step(self.snapshot.model)).__name__}) does not learn "
                "online (it has no partial_fit); serve an online learner (Perceptron, "
                "AveragedPerceptron, PassiveAggressive, one calibrated online) to learn"
            )
        return self._submit(_Job("learn", batch=batch, size=batch_bytes(batch.X)))

    def submit_save(self, path: str | None) -> concurrent.futures.Future:
        """Queue a save (after the learn requests before it); its future gives the answer."""
        target = self.path if path is None else os.fspath(path)
        if target is None:
            raise RequestError(
                'this service serves a model object, not a file; send {"path": "model.rbl"}'
            )
        _check_target(target, served=self.path is not None and _same(target, self.path))
        return self._submit(_Job("save", path=target))

    def _submit(self, job: _Job) -> concurrent.futures.Future:
        with self._lock:
            if self._pending >= self.max_queue or (
                self._pending and self._pending_bytes + job.size > self.max_queue_bytes
            ):
                raise Busy()
            self._pending += 1
            self._pending_bytes += job.size
        self._queue.put(job)
        return job.future

    def _done(self, job: _Job, result: Any = None, error: BaseException | None = None) -> None:
        with self._lock:
            self._pending -= 1
            self._pending_bytes -= job.size
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

    # ------------------------------------------------------------------ the writer
    def _write(self) -> None:
        stopping = False
        while not stopping:
            job = self._queue.get()
            if job is None:
                break
            jobs = [job]
            while len(jobs) < self.group and jobs[-1].kind == "learn":
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                jobs.append(more)
            learn = [j for j in jobs if j.kind == "learn"]
            try:
                if learn:
                    self._learn(learn)
            except BaseException as error:  # a bug: every request of the group hears of it
                for j in learn:
                    if not j.future.done():
                        self._done(j, error=error)
            for j in jobs:
                if j.kind == "save":
                    try:
                        self._done(j, self._save(j.path))
                    except BaseException as error:
                        self._done(j, error=error)

    def _learn(self, jobs: list[_Job]) -> None:
        """Learn a group of requests on a copy, log them, publish the copy, answer."""
        batches = {id(job): job.batch for job in jobs if job.batch is not None}
        base = self.snapshot
        work = copied(base.model)
        done: list[Batch] = []
        failed: dict[int, BaseException] = {}
        for job in jobs:
            batch = batches[id(job)]
            try:
                learn_on(work, batch.X, batch.y)
            except Exception as error:  # refused: the copy again, without it
                failed[id(job)] = error
                work = copied(base.model)
                for earlier in done:
                    learn_on(work, earlier.X, earlier.y)
                continue
            done.append(batch)
        if done and self.journal is not None:
            try:
                if not self.journal.open:
                    assert self._file_sha is not None  # a journal comes with a file
                    self.journal.begin(self._file_sha, base.version)
                record = learn_record([(batch.X, batch.y) for batch in done])
                self.journal.append(record)
                self._logged_bytes += len(record)
            except OSError as error:
                why = error.strerror or error
                logged = RequestError(
                    f"the learning log {self.journal.path} cannot be written ({why}); nothing "
                    "of this request was learnt",
                    status=503,
                )
                failed.update((id(job), logged) for job in jobs if id(job) not in failed)
                done = []
        if done:
            self.snapshot = Snapshot.of(work, base.version + len(done))
            self.updates += len(done)
            self.rows_learnt += sum(batch.n_rows for batch in done)
        self.refused += len(failed)
        version = base.version
        for job in jobs:
            if id(job) in failed:
                self._done(job, error=failed[id(job)])
            else:
                version += 1
                self._done(job, (batches[id(job)].n_rows, version))
        if self._logged_bytes >= config.SERVE_LOG_MAX_BYTES and self.path is not None:
            self._compact()

    def _compact(self) -> None:
        """Save the served file and start the log afresh (the log holds
        :data:`~rosenblatt._core.config.SERVE_LOG_MAX_BYTES` of learning since the last save):
        a restart then replays little. A failure is said on standard error, and tried again
        after as much more learning."""
        snapshot = self.snapshot
        try:
            self.save_served(self.file_bytes(snapshot.model), snapshot.version)
        except OSError as error:
            self._logged_bytes = 0  # the next try after as much more learning
            sys.stderr.write(
                f"rosenblatt serve: cannot save {self.path} ({error.strerror or error}); its log "
                "keeps the learning, and a restart replays it\n"
            )

    def _save(self, path: str | None) -> dict[str, Any]:
        """Write the latest snapshot to ``path`` atomically; the answer of ``/save``."""
        assert path is not None
        snapshot = self.snapshot
        data = self.file_bytes(snapshot.model)
        if self.path is not None and _same(path, self.path):
            self.save_served(data, snapshot.version)
        else:
            write_atomically(path, data)
        return {
            "saved": path,
            "version": snapshot.version,
            "sha256": sha256_of(data),
            "bytes": len(data),
        }

    def file_bytes(self, model: Any) -> bytes:
        """The bytes of a model file of ``model``: the served file's metadata, its classes
        (where it names them) the model's own, which a label never seen grows."""
        metadata = self.metadata
        if "classes" in metadata and hasattr(model, "classes_"):
            metadata = dict(metadata, classes=jsonable(model.classes_))
        return model_bytes(model, metadata=metadata)

    def save_served(self, data: bytes, version: int) -> None:
        """Replace the served file by ``data`` (the model at ``version``), the log knowing
        it first: a ``saved`` record, the file, then the log afresh from the new file."""
        assert self.path is not None
        sha = sha256_of(data)
        if self.journal is not None:
            if not self.journal.open:
                assert self._file_sha is not None
                self.journal.begin(self._file_sha, version)
            self.journal.append(point_record("saved", sha, version))
        write_atomically(self.path, data)
        self._file_sha = sha
        if self.journal is not None:
            self.journal.begin(sha, version)
        self._logged_bytes = 0


def _same(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def _check_target(path: str, served: bool) -> None:
    """Refuse a save over anything but a model file (``/save`` writes model files only)."""
    try:
        check_writable(path)
    except OSError as error:
        raise RequestError(f"cannot save to {path}: {error.strerror or error}") from None
    if served or not os.path.exists(path):
        return
    try:
        read_manifest(path)
    except (ValueError, OSError):
        raise RequestError(
            f"{path} exists and is not a rosenblatt model file; /save writes model files "
            "only, over another model file or as a new file: give another path"
        ) from None
