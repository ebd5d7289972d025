"""Mutated checkpoints of streamed training, resumed from Python and from the command line:
the engine of the checkpoint fuzz test (``tests/test_checkpoint_fuzz.py``) and of the long
run (``benchmarks/fuzz_checkpoints.py``).

What is checked, and why
------------------------
A checkpoint (:mod:`rosenblatt.training.checkpoint`) is a model file whose manifest
holds the record of a run: what it read, with which options, where its stream and its
epochs stood, its random sources. Resuming trusts none of it: a damaged checkpoint must
either resume into a valid model (one that predicts the input, and saves and loads as
itself; a changed position or count may be another run that no reader can tell from
the saved one) or be refused in one line: from Python a ``ModelFileError``, or the
``ValueError`` that ``fit_stream`` documents for a checkpoint of another input or other
options; from the command line exit status 2 and one line on standard error that is
neither a traceback nor an ``unexpected`` error (a bug's).

This module

- trains the reference runs (:data:`REFERENCES`: each online learner, online
  calibration, several classes, sparse features, text, a finished run, and two as
  ``rosenblatt train --stream`` trains them) on small files, each killed in the middle
  (an exception after a chunk) so that its checkpoint is one of a run under way
  (:func:`write_references`);
- mutates a checkpoint at one site with one operator (:data:`OPERATORS`), seeded: a
  JSON value of its record, or of its model's state, replaced by null, a string, a huge
  number, a nested object, a float or a boolean; a list cut short or made longer; a key
  removed (each re-signed with ``forging.forge``, so that the content reaches the
  checks); an array of its model cut short (re-signed); a byte of the file flipped (not
  re-signed: the checksum's to catch) or of one member (re-signed) (:func:`mutate`);
- resumes each in worker processes (``python tests/checkpoint_mutations.py worker``,
  through ``model_mutations.run_jobs``, which records a worker's crash and goes on), and
  the command line's through ``rosenblatt train --stream --resume`` (:func:`cli_check`);
- judges every outcome (:func:`failures_of`).

Reproduce one case: ``python tests/checkpoint_mutations.py reproduce REFERENCE OPERATOR SEED``
builds the mutated checkpoint again and resumes it in this process, traceback and all.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # run as a script (the worker): its neighbours
    sys.path.insert(0, str(TESTS))

import model_mutations as mm  # noqa: E402
from forging import forge  # noqa: E402

RECORD = ("metadata", "checkpoint")  # where the manifest holds a checkpoint's record


# ---------------------------------------------------------------------- reference runs
def _learners():
    """``{name: () -> estimator}``: the learners ``fit_stream`` resumes, fixed seeds."""
    from rosenblatt import AveragedPerceptron, Perceptron, VotedPerceptron, calibrated

    return {
        "perceptron": lambda: Perceptron(random_state=3),
        "averaged": lambda: AveragedPerceptron(random_state=1, tol=None),
        "voted": lambda: VotedPerceptron(random_state=2),
        "online-calibration": lambda: calibrated(Perceptron(random_state=4), method="online"),
        "averaged-ovr": lambda: AveragedPerceptron(random_state=5, tol=None),
        "multinomial": lambda: Perceptron(random_state=6, multi_class="multinomial", tol=None),
        "sparse": lambda: Perceptron(random_state=7),
        "text": lambda: Perceptron(random_state=8),
        "finished": lambda: AveragedPerceptron(random_state=9, tol=None),
    }


@dataclass(frozen=True)
class Reference:
    """A streamed run whose checkpoint is mutated.

    ``data``: its file (a key of :func:`write_data`'s); ``options``: ``fit_stream``'s,
    or for a command-line run (``cli``: ``rosenblatt train``'s algorithm, and
    ``calibrate``) ``train_stream``'s; ``crash``: the chunks it trains before it is
    killed (None: it finishes, and its checkpoint is the finished run's).
    """

    data: str
    options: dict
    crash: int | None = 9
    cli: dict | None = None

    def resume(self, name, data, checkpoint):
        """Resume this run from ``checkpoint`` in Python: the model it gives."""
        if self.cli is None:
            from rosenblatt.streaming import fit_stream

            return fit_stream(_learners()[name](), data, resume=checkpoint, **self.options)
        from rosenblatt.apps.cli._train_stream import train_stream

        options = {**self.cli, **self.options, "evaluate": False}
        return train_stream(data, resume=checkpoint, **options)[0]

    def command(self, data, checkpoint, model):
        """``rosenblatt train`` resuming this command-line run."""
        assert self.cli is not None
        args = ["train", data, "--stream", "-a", self.cli["algorithm"]]
        args += ["--chunk-size", self.options["chunk_size"], "--max-iter", self.options["epochs"]]
        args += ["--seed", self.options["seed"], "--resume", checkpoint, "-m", model]
        if self.cli.get("calibrate"):
            args += ["--calibrate", self.cli["calibrate"]]
        return [*args, "-q", "--json"]  # --json: the training accuracy, a pass over the file


_RUN = {"chunk_size": 50, "epochs": 4}  # 12 chunks an epoch of the 600-row files
REFERENCES = {
    "perceptron": Reference("binary", _RUN, crash=17),
    "averaged": Reference("binary", _RUN, crash=13),
    "voted": Reference("binary", _RUN, crash=20),
    "online-calibration": Reference("binary", _RUN, crash=9),
    "averaged-ovr": Reference("three", _RUN, crash=15),
    "multinomial": Reference("three", _RUN, crash=26),
    "sparse": Reference("sparse", _RUN, crash=11),
    "text": Reference("text", {**_RUN, "n_features": 2**10}, crash=10),
    "finished": Reference("binary", {"chunk_size": 50, "epochs": 2}, crash=None),
    "cli-calibrated": Reference(
        "csv",
        {"chunk_size": 50, "epochs": 3, "seed": 0},
        crash=14,
        cli={"algorithm": "averaged", "calibrate": "online"},
    ),
    "cli-perceptron": Reference(
        "three",
        {"chunk_size": 50, "epochs": 3, "seed": 0},
        crash=8,
        cli={"algorithm": "perceptron"},
    ),
}


def write_data(folder):
    """The reference runs' input files in ``folder``: ``{key: path}``."""
    from sklearn.datasets import dump_svmlight_file, make_classification

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    X, y = make_classification(600, 8, flip_y=0.1, random_state=0)
    paths["binary"] = folder / "binary.svm"
    dump_svmlight_file(X, y, str(paths["binary"]), zero_based=False)
    X, y = make_classification(600, 8, n_classes=3, n_informative=4, flip_y=0.1, random_state=1)
    paths["three"] = folder / "three.svm"
    dump_svmlight_file(X, y, str(paths["three"]), zero_based=False)
    rng = np.random.RandomState(2)
    X = np.round(rng.randn(600, 300), 3) * (rng.rand(600, 300) < 0.03)  # sparse rows
    y = (X @ rng.randn(300) + 0.3 * rng.randn(600) > 0).astype(int)
    paths["sparse"] = folder / "sparse.svm"
    dump_svmlight_file(X, y, str(paths["sparse"]), zero_based=False)
    X, y = make_classification(600, 5, flip_y=0.1, random_state=3)
    paths["csv"] = folder / "data.csv"
    np.savetxt(paths["csv"], np.column_stack([X, y]), delimiter=",", fmt=["%.6f"] * 5 + ["%d"])
    words = ["free", "offer", "win", "lecture", "notes", "exam", "prize", "cash", "homework"]
    lines = []
    for _ in range(600):
        spam = rng.rand() < 0.4
        chosen = rng.choice(words[:3] + words[6:] if spam else words[3:6], 6)
        lines.append(f"{'spam' if spam else 'ham'}\t{' '.join(chosen)}\n")
    paths["text"] = folder / "sms.tsv"
    paths["text"].write_text("".join(lines))
    return {key: str(path) for key, path in paths.items()}


class Crash(Exception):
    """Stands for a kill: raised after a chunk, it ends the run where it is."""


def crash_after(chunks):
    """An ``on_progress`` that raises :class:`Crash` after the given number of trained
    chunks."""
    done = [0]

    def on_progress(report):
        if report.stage == "train":
            done[0] += 1
            if done[0] == chunks:
                raise Crash

    return on_progress


def write_references(folder, names=None):
    """Train the reference runs (``names``, default all) and keep their checkpoints in
    ``folder``: ``{"data": {key: path}, "checkpoints": {name: path}}``."""
    from sklearn.exceptions import ConvergenceWarning

    from rosenblatt.apps.cli._train_stream import train_stream
    from rosenblatt.streaming import fit_stream

    folder = Path(folder)
    data = write_data(folder / "data")
    checkpoints = {}
    for name, reference in REFERENCES.items():
        if names is not None and name not in names:
            continue
        path = folder / f"{name}.ckpt"
        run = {"checkpoint": path, "checkpoint_every": 100, **reference.options}
        if reference.crash is not None:
            run["on_progress"] = crash_after(reference.crash)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            try:
                if reference.cli is None:
                    fit_stream(_learners()[name](), data[reference.data], **run)
                else:
                    train_stream(data[reference.data], **reference.cli, **run)
            except Crash:
                pass
        checkpoints[name] = str(path)
    return {"data": data, "checkpoints": checkpoints}


# ---------------------------------------------------------------------- sites and operators
def _json_sites(node, path=(), weight=1.0):
    """Every value below ``node`` (not the node itself): ``(path, value, weight)``, depth
    first; the items of a list share their weight (a random source's 624 key words weigh
    what one field does)."""
    items = list(node.items() if isinstance(node, dict) else enumerate(node))
    share = weight / len(items) if isinstance(node, list) and items else weight
    for key, value in items:
        yield (*path, key), value, share
        if isinstance(value, (dict, list)):
            yield from _json_sites(value, (*path, key), share)


HUGE = [10**30, -(10**30), 2**64, 2**63 - 1, 2**61, 10**15, 10**400, 1e308, -1e308]
STRINGS = ["", "x", "PCG64", "1e3", "null"]
NESTED = [{"a": [1, {"b": None}]}, [[{}]], {"$array": "rng.state.key"}, {"": {"": {"": {}}}}]


def _replaced(value, rng, operator):
    """The value operator ``operator`` puts in place of ``value`` (None: not applicable)."""
    if operator == "null":
        return None
    if operator == "string":
        return rng.choice(STRINGS)
    if operator == "huge":
        return rng.choice(HUGE)
    if operator == "nested":
        return copy.deepcopy(rng.choice(NESTED))
    if operator == "negative" and type(value) in (int, float):
        return -1 if value == 0 else -value
    if operator == "float" and type(value) is int:
        return value + 0.5
    if operator == "bool":
        return rng.choice([True, False])
    if operator == "list-cut" and isinstance(value, list) and value:
        return value[: rng.randrange(len(value))]
    if operator == "list-grow" and isinstance(value, list):
        return [*value, copy.deepcopy(value[-1]) if value and rng.random() < 0.5 else 0]
    return _NOT_APPLICABLE


_NOT_APPLICABLE = object()
JSON_OPERATORS = (
    "null",
    "string",
    "huge",
    "nested",
    "negative",
    "float",
    "bool",
    "list-cut",
    "list-grow",
    "key-remove",
)
OPERATORS = (*JSON_OPERATORS, "array-cut", "byte-flip", "member-byte-flip")


def _edit_json(tree, rng, operator, attempts=50):
    """Apply a JSON operator at a random site of ``tree`` (in place): ``(path, note)``,
    or None when no site takes it."""
    sites = list(_json_sites(tree))
    # each top-level part (the record's input, options, position, run...) as likely as
    # another, however many fields it holds: the run's few fields meet every operator
    totals: dict = {}
    for path, _, weight in sites:
        totals[path[0]] = totals.get(path[0], 0.0) + weight
    weights = [weight / totals[path[0]] for path, _, weight in sites]
    for _ in range(attempts if sites else 0):
        path, value, _ = rng.choices(sites, weights)[0]
        parent = tree
        for key in path[:-1]:
            parent = parent[key]
        if operator == "key-remove":
            if not isinstance(path[-1], str):
                continue
            del parent[path[-1]]
            return path, "removed"
        new = _replaced(value, rng, operator)
        if new is _NOT_APPLICABLE:
            continue
        parent[path[-1]] = new
        return path, f"{_short(value)} -> {_short(new)}"
    return None


def _short(value):
    text = json.dumps(value)
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text)} characters)"


def _cut_array(members, rng):
    """An ``arrays/*.npy`` member cut short along its first axis (re-saved as a valid .npy)."""
    import io

    names = sorted(name for name in members if name.startswith("arrays/"))
    rng.shuffle(names)
    for name in names:
        array = np.load(io.BytesIO(members[name]), allow_pickle=False)
        if array.ndim == 0 or array.shape[0] == 0:
            continue
        cut = array[: rng.randrange(array.shape[0])]
        buffer = io.BytesIO()
        np.save(buffer, cut, allow_pickle=False)
        members[name] = buffer.getvalue()
        return name, f"shape {array.shape} -> {cut.shape}"
    return None


def mutate(checkpoints, target, reference, operator, seed):
    """Write ``target``: the checkpoint of ``reference`` (``checkpoints[reference]``) with
    ``operator`` applied at a site chosen by ``seed``. Returns the
    ``model_mutations.Mutation`` (its ``kind`` the reference; a value mutation: it may be
    another valid run), or None when the operator has nowhere to apply."""
    rng = random.Random(f"{reference}/{operator}/{seed}")
    mutation = mm.Mutation(reference, operator, seed, mm.VALUE, file=str(target))
    target = Path(target)
    data = bytearray(Path(checkpoints[reference]).read_bytes())
    if operator == "byte-flip":  # the checksum's to catch: not re-signed
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
        mutation.site, mutation.note = f"byte {at}", "one bit flipped"
        return mutation
    target.write_bytes(bytes(data))
    done = []

    def edit(manifest, members):
        if operator == "member-byte-flip":
            name = rng.choice(sorted(members))
            member = bytearray(members[name])
            at = rng.randrange(len(member))
            member[at] ^= 1 << rng.randrange(8)
            members[name] = bytes(member)
            done.append((f"{name}:byte {at}", "one bit flipped"))
        elif operator == "array-cut":
            cut = _cut_array(members, rng)
            if cut is not None:
                done.append(cut)
        elif rng.random() < 0.75:  # the record, most of the time: what resuming reads first
            found = _edit_json(manifest[RECORD[0]][RECORD[1]], rng, operator)
            if found is not None:
                done.append(("record:" + "/".join(map(str, found[0])), found[1]))
        else:
            tree = json.loads(members["state.json"])
            found = _edit_json(tree, rng, operator)
            if found is not None:
                members["state.json"] = json.dumps(tree).encode()
                done.append(("state.json:" + "/".join(map(str, found[0])), found[1]))

    forge(target, edit)
    if not done:
        target.unlink()
        return None
    mutation.site, mutation.note = done[0]
    return mutation


def plan(references, folder, count, seed=0, progress=None):
    """``count`` mutated checkpoints in ``folder``: the references and the operators in
    turn (every reference meets every operator), each site from a seed drawn from
    ``seed``. Returns the list of ``model_mutations.Mutation``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng, names = random.Random(seed), sorted(REFERENCES)
    mutations, index = [], 0
    while len(mutations) < count:
        reference, operator = names[index % len(names)], OPERATORS[index % len(OPERATORS)]
        target = folder / f"{index:06d}-{reference}-{operator}.ckpt"
        made = mutate(references["checkpoints"], target, reference, operator, rng.randrange(2**31))
        index += 1
        if made is not None:
            mutations.append(made)
            if progress:
                progress(1)
    return mutations


# ---------------------------------------------------------------------- resuming
DOCUMENTED = "was written for another"  # fit_stream's ValueError: another input or options


def _sample(path):
    """The first 50 rows of a reference's input, as its model predicts them."""
    from sklearn.datasets import load_svmlight_file

    if path.endswith(".svm"):
        return load_svmlight_file(path)[0][:50]
    if path.endswith(".csv"):
        return np.loadtxt(path, delimiter=",")[:50, :-1]
    return [line.split("\t", 1)[1] for line in Path(path).read_text().splitlines()[:50]]


def _checked(model, X, scratch):
    """Why ``model`` is not a valid model of the input (None: it is): it predicts the
    sample as labels it knows, and saves and loads into a model that predicts the same."""
    from rosenblatt import load, save

    labels = np.asarray(model.predict(X))
    if labels.shape != (len(X) if isinstance(X, list) else X.shape[0],):
        return f"predict gave shape {labels.shape}"
    if not np.isin(labels, model.classes_).all():
        return "predict gave labels outside its classes"
    save(model, scratch)
    if not np.array_equal(load(scratch).predict(X), labels):
        return "saved and loaded, it predicts otherwise"
    return None


def resume_outcome(job, samples):
    """What resuming ``job``'s checkpoint gave: ``ok``, ``refused: MESSAGE``,
    ``documented: MESSAGE``, ``raw: TYPE: MESSAGE`` or ``invalid: WHY``."""
    from rosenblatt import ModelFileError

    scratch = Path(job["file"] + ".resumed")
    shutil.copyfile(job["file"], scratch)  # the resumed run writes its checkpoints there
    reference = REFERENCES[job["reference"]]
    try:
        model = reference.resume(job["reference"], job["data"], scratch)
    except ModelFileError as exc:
        return f"refused: {exc}"
    except ValueError as exc:
        if DOCUMENTED in str(exc) and type(exc) is ValueError:
            return f"documented: {exc}"
        return f"raw: {type(exc).__name__}: {str(exc)[:300]}"
    except Exception as exc:
        return f"raw: {type(exc).__name__}: {str(exc)[:300]}"
    if job["data"] not in samples:
        samples[job["data"]] = _sample(job["data"])
    try:
        why = _checked(model, samples[job["data"]], Path(job["file"] + ".model"))
    except Exception as exc:
        why = f"{type(exc).__name__}: {str(exc)[:300]}"
    return "ok" if why is None else f"invalid: {why}"


def worker(results, listing):
    """Resume every checkpoint listed (JSON lines ``{"file", "reference", "data"}``);
    write ``start`` then ``done`` lines to ``results`` (``model_mutations.run_jobs``)."""
    import faulthandler

    faulthandler.enable()  # a crash prints the stack it happened in (to our stderr)
    warnings.simplefilter("ignore")
    samples = {}
    with open(results, "a") as out:

        def emit(record):
            out.write(json.dumps(record) + "\n")
            out.flush()

        for line in Path(listing).read_text().splitlines():
            job = json.loads(line)
            emit({"file": job["file"], "event": "start"})
            started = time.perf_counter()
            outcome = resume_outcome(job, samples)
            seconds = round(time.perf_counter() - started, 4)
            emit({"file": job["file"], "event": "done", "outcome": outcome, "seconds": seconds})


def run_cases(mutations, references, folder, workers=2, timeout=60, progress=None):
    """Resume every mutated checkpoint in worker processes: ``{file: result}``."""
    jobs = [
        {
            "file": m.file,
            "reference": m.kind,
            "data": references["data"][REFERENCES[m.kind].data],
        }
        for m in mutations
    ]
    return mm.run_jobs(jobs, folder, workers, timeout, progress, script=__file__)


def cli_check(mutation, references, timeout=120):
    """Resume a command-line reference's mutated checkpoint with ``rosenblatt train``: why
    it fails (None: it passes): exit 0 with a model file and its JSON summary, or exit 2
    with one line on standard error that is no bug's (``model_mutations.cli_failure``)."""
    reference = REFERENCES[mutation.kind]
    scratch = Path(mutation.file + ".cli")
    shutil.copyfile(mutation.file, scratch)
    model = Path(mutation.file + ".cli.rbl")
    data = references["data"][reference.data]
    run = mm.cli_run(reference.command(data, scratch, model), timeout)
    why = mm.cli_failure(run, "", mm.VALUE)
    if why is None and run[0] == 0:
        try:
            json.loads(run[1])
        except ValueError:
            return f"exit 0 without the JSON summary: {run[1][:200]!r}"
        if not model.is_file():
            return "exit 0 without the model file"
    return why


# ---------------------------------------------------------------------- judging
OUTCOMES = ("refused", "documented", "ok", "failed")


def outcome_class(result):
    """``refused``, ``documented`` or ``ok`` for a passing result."""
    return result.get("outcome", "").partition(":")[0]


def failures_of(result):
    """Why ``result`` fails the oracle: a list of short reasons (empty: it passes)."""
    if "crash" in result:
        where = f" at {result['where']}" if result.get("where") else ""
        return [f"{result['crash']}{where}"]
    outcome = result["outcome"]
    if outcome == "ok":
        return []
    if outcome.startswith(("refused: ", "documented: ")):
        return [] if "\n" not in outcome.strip() else ["a refusal of several lines"]
    return [outcome]


def summary(failed, limit=40):
    """Failures as readable lines: reference | operator | site | change | what happened."""
    lines = []
    for mutation, reasons in failed[:limit]:
        lines.append(
            f"{mutation.kind} | {mutation.operator} | {mutation.site} | {mutation.note} | "
            f"{' '.join('; '.join(reasons).split())[:400]} "
            f"(reproduce: python tests/checkpoint_mutations.py reproduce {mutation.ident})"
        )
    if len(failed) > limit:
        lines.append(f"... and {len(failed) - limit} more")
    return "\n".join(lines)


# ---------------------------------------------------------------------- reproducing
def reproduce(reference, operator, seed):
    """Build the mutated checkpoint ``reference operator seed`` again and resume it here,
    tracebacks shown."""
    import tempfile
    import traceback

    folder = Path(tempfile.mkdtemp(prefix="rosenblatt-ckpt-fuzz-"))
    references = write_references(folder, names={reference})
    target = folder / "case.ckpt"
    mutation = mutate(references["checkpoints"], target, reference, operator, int(seed))
    if mutation is None:
        sys.exit(f"{operator} changes nothing in the {reference} checkpoint")
    print(json.dumps(asdict(mutation), indent=1))
    run = REFERENCES[reference]
    data = references["data"][run.data]
    try:
        model = run.resume(reference, data, mutation.file)
        print("resumed:", _checked(model, _sample(data), folder / "model.rbl") or "valid")
    except Exception:
        traceback.print_exc()
    if run.cli is not None:
        shutil.copyfile(mutation.file, mutation.file + ".cli")
        code, stdout, stderr = mm.cli_run(
            run.command(data, mutation.file + ".cli", folder / "cli.rbl")
        )
        print(f"--- rosenblatt train --resume: exit {code}\n{stdout[:300]}{stderr}")


if __name__ == "__main__":
    command, *args = sys.argv[1:] or [""]
    if command == "worker":
        worker(*args)
    elif command == "reproduce":
        reproduce(*args)
    else:
        sys.exit(
            "usage: checkpoint_mutations.py worker RESULTS LIST | reproduce REFERENCE OPERATOR SEED"
        )
