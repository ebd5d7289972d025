"""Training that survives a crash: checkpoints of streamed training, and resuming them.

A run interrupted anywhere and resumed from its last checkpoint gives the model file an
uninterrupted run gives, byte for byte (in this process by an exception after a chunk,
and in a child process by SIGKILL at random moments); a checkpoint of another input or
other options is refused, naming what differs; standard input cannot be resumed.
"""

from __future__ import annotations

import copy
import os
import random
import re
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from checkpoint_mutations import Crash, crash_after
from conftest import PROPERTY, assert_one_line_error, run_cli
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file, make_classification

from rosenblatt import (
    AveragedPerceptron,
    KernelPerceptron,
    ModelFileError,
    Perceptron,
    VotedPerceptron,
    calibrated,
    load,
    save,
)
from rosenblatt._core.validation import BrokenInvariant
from rosenblatt.engine.driver import EpochCount, RunState
from rosenblatt.streaming import fit_stream
from rosenblatt.training.checkpoint import read_checkpoint, write_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

LEARNERS = {
    "perceptron": lambda: Perceptron(random_state=3),
    "averaged": lambda: AveragedPerceptron(random_state=1, tol=None),
    "voted": lambda: VotedPerceptron(random_state=2),
    "multinomial": lambda: Perceptron(random_state=5, multi_class="multinomial", tol=None),
    "online calibration": lambda: calibrated(Perceptron(random_state=4), method="online"),
}


@pytest.fixture(scope="module")
def noisy_file(tmp_path_factory):
    X, y = make_classification(600, 8, n_classes=3, n_informative=4, flip_y=0.1, random_state=0)
    path = tmp_path_factory.mktemp("data") / "noisy.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def _bytes(model, path):
    save(model, path)
    return path.read_bytes()


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_a_run_interrupted_anywhere_resumes_to_the_same_bytes(tmp_path, noisy_file, learner):
    make = LEARNERS[learner]
    options = {"chunk_size": 50, "epochs": 4}  # 12 chunks per epoch
    expected = _bytes(fit_stream(make(), noisy_file, **options), tmp_path / "expected.rbm")
    checkpoint = tmp_path / "run.ckpt"
    # after the first checkpoint, mid-epoch, at an epoch's last chunk, in the last epoch
    for crash in (2, 7, 12, 13, 29, 47):
        checkpoint.unlink(missing_ok=True)
        with pytest.raises(Crash):
            fit_stream(
                make(),
                noisy_file,
                checkpoint=checkpoint,
                checkpoint_every=100,  # every second chunk
                on_progress=crash_after(crash),
                **options,
            )
        kept = read_checkpoint(checkpoint)
        assert not kept.finished and kept.position["done"] in range(13)
        resumed = fit_stream(make(), noisy_file, resume=checkpoint, **options)
        assert _bytes(resumed, tmp_path / "resumed.rbm") == expected, crash
        # the resumed run wrote the finished run's checkpoint: resuming gives the model back
        assert read_checkpoint(checkpoint).finished
        again = fit_stream(make(), noisy_file, resume=checkpoint, **options)
        assert _bytes(again, tmp_path / "again.rbm") == expected


def test_a_run_interrupted_twice_resumes_to_the_same_bytes(tmp_path, noisy_file):
    options = {"chunk_size": 50, "epochs": 5, "checkpoint_every": 50}
    make = LEARNERS["averaged"]
    expected = _bytes(fit_stream(make(), noisy_file, epochs=5, chunk_size=50), tmp_path / "e")
    checkpoint = tmp_path / "run.ckpt"
    with pytest.raises(Crash):
        fit_stream(make(), noisy_file, checkpoint=checkpoint, on_progress=crash_after(9), **options)
    with pytest.raises(Crash):
        fit_stream(make(), noisy_file, resume=checkpoint, on_progress=crash_after(20), **options)
    resumed = fit_stream(make(), noisy_file, resume=checkpoint, **options)
    assert _bytes(resumed, tmp_path / "r") == expected


def test_text_resumes_through_its_hashing_pipeline(tmp_path):
    rng = random.Random(0)
    words = ["free", "offer", "win", "lecture", "notes", "exam", "prize", "cash", "homework"]
    lines = []
    for _ in range(400):
        spam = rng.random() < 0.4
        text = " ".join(rng.choice(words[:3] + words[6:] if spam else words[3:6]) for _ in range(6))
        lines.append(f"{'spam' if spam else 'ham'}\t{text}\n")
    path = tmp_path / "sms.tsv"
    path.write_text("".join(lines))
    options = {"chunk_size": 40, "epochs": 3, "n_features": 2**10}
    expected = _bytes(fit_stream(Perceptron(random_state=0), path, **options), tmp_path / "e")
    checkpoint = tmp_path / "run.ckpt"
    with pytest.raises(Crash):
        fit_stream(
            Perceptron(random_state=0),
            path,
            checkpoint=checkpoint,
            checkpoint_every=40,
            on_progress=crash_after(14),
            **options,
        )
    resumed = fit_stream(Perceptron(random_state=0), path, resume=checkpoint, **options)
    assert _bytes(resumed, tmp_path / "r") == expected


def test_a_checkpoint_loads_as_the_model_learnt_so_far(tmp_path, noisy_file):
    checkpoint = tmp_path / "run.ckpt"
    with pytest.raises(Crash):
        fit_stream(
            AveragedPerceptron(random_state=0, tol=None),
            noisy_file,
            chunk_size=50,
            epochs=3,
            checkpoint=checkpoint,
            checkpoint_every=300,
            on_progress=crash_after(19),
        )
    model = load(checkpoint)  # every check of a model file
    kept = read_checkpoint(checkpoint)
    assert kept.position == {**kept.position, "epoch": 2, "done": 6, "rows": 300}
    assert model.n_iter_ == 1 and len(model.mistakes_per_epoch_) == 1
    assert model.predict(np.zeros((2, 8))).shape == (2,)
    state = model.training_state_
    assert np.array_equal(model.coef_, state.public_weights(True, 1.0)[0])


# ---------------------------------------------------------------------- refusals
def _crashed_checkpoint(tmp_path, path, make=None, **options):
    checkpoint = tmp_path / "run.ckpt"
    options = {"chunk_size": 50, "epochs": 4, **options}
    with pytest.raises(Crash):
        fit_stream(
            (make or LEARNERS["averaged"])(),
            path,
            checkpoint=checkpoint,
            checkpoint_every=100,
            on_progress=crash_after(5),
            **options,
        )
    return checkpoint


def test_a_checkpoint_of_other_options_is_refused_naming_them(tmp_path, noisy_file):
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file)
    make = LEARNERS["averaged"]
    with pytest.raises(ValueError, match=r"another options \(epochs=4 there, 6 here\)"):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=6, resume=checkpoint)
    with pytest.raises(ValueError, match=r"eta=1.0 there, 0.5 here"):
        fit_stream(
            AveragedPerceptron(random_state=1, tol=None, eta=0.5),
            noisy_file,
            chunk_size=50,
            epochs=4,
            resume=checkpoint,
        )
    with pytest.raises(ValueError, match=r"chunk_size=50 there, 60 here"):
        fit_stream(make(), noisy_file, chunk_size=60, epochs=4, resume=checkpoint)


SHOWN = {  # a learner with the given display parameters (on_epoch, verbose)
    "averaged": lambda **shown: AveragedPerceptron(random_state=1, tol=None, **shown),
    "online calibration": lambda **shown: calibrated(
        Perceptron(random_state=4, **shown), method="online"
    ),
}


@pytest.mark.parametrize("learner", list(SHOWN))
def test_what_a_run_shows_is_no_option_a_checkpoint_holds(tmp_path, noisy_file, capsys, learner):
    """A callback and ``verbose`` change what a run shows, not its model: a run resumes
    with others, shows what the estimator given asks for, and gives the bytes of an
    uninterrupted run of that estimator; the nested estimator's (online calibration) too."""
    make, options, first, later = SHOWN[learner], {"chunk_size": 50, "epochs": 4}, [], []
    checkpoint = _crashed_checkpoint(
        tmp_path, noisy_file, make=lambda: make(on_epoch=first.append), **options
    )
    kept = read_checkpoint(checkpoint).options
    assert [name for name in kept if name.endswith(("on_epoch", "verbose"))] == []
    expected = _bytes(fit_stream(make(verbose=1), noisy_file, **options), tmp_path / "e")
    capsys.readouterr()
    resumed = fit_stream(
        make(verbose=1, on_epoch=later.append), noisy_file, resume=checkpoint, **options
    )
    assert [report.epoch for report in later] == [1, 2, 3, 4]  # the crash was in epoch 1
    shown = [line.partition(":")[0] for line in capsys.readouterr().out.splitlines()]
    assert shown == [f"-- Epoch {epoch}" for epoch in (1, 2, 3, 4)]
    assert _bytes(resumed, tmp_path / "r") == expected


def test_the_fit_and_the_estimator_each_have_their_random_state(tmp_path, noisy_file):
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file, random_state=5)
    with pytest.raises(ValueError, match=r"another options \(random_state=5 there, 6 here\)"):
        fit_stream(
            LEARNERS["averaged"](),
            noisy_file,
            chunk_size=50,
            epochs=4,
            random_state=6,
            resume=checkpoint,
        )
    with pytest.raises(ValueError, match=r"\(estimator__random_state=1 there, 2 here\)"):
        fit_stream(
            AveragedPerceptron(random_state=2, tol=None),
            noisy_file,
            chunk_size=50,
            epochs=4,
            random_state=5,
            resume=checkpoint,
        )


def test_a_checkpoint_of_another_input_is_refused_before_the_scan(tmp_path, noisy_file):
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file)
    other = tmp_path / "other.svm"
    other.write_bytes(noisy_file.read_bytes() + b"1 1:0.5\n")
    with pytest.raises(ValueError, match=r"another input \(size="):
        fit_stream(LEARNERS["averaged"](), other, chunk_size=50, epochs=4, resume=checkpoint)
    # a copy of the file is the same input
    copy = tmp_path / "copy.svm"
    copy.write_bytes(noisy_file.read_bytes())
    fit_stream(LEARNERS["averaged"](), copy, chunk_size=50, epochs=4, resume=checkpoint)


def test_standard_input_and_kernels_cannot_be_resumed(tmp_path, noisy_file):
    with pytest.raises(ValueError, match="standard input .* cannot be resumed"):
        fit_stream(Perceptron(), "-", format="svmlight", checkpoint=tmp_path / "c")
    with pytest.raises(TypeError, match="not KernelPerceptron"):
        fit_stream(KernelPerceptron(), noisy_file, checkpoint=tmp_path / "c")
    with pytest.raises(ValueError, match="give checkpoint"):
        fit_stream(Perceptron(), noisy_file, checkpoint_every=10)
    with pytest.raises(ValueError, match="'checkpoint_every' argument of fit_stream"):
        fit_stream(Perceptron(), noisy_file, checkpoint=tmp_path / "c", checkpoint_every=0)
    assert not (tmp_path / "c").exists()


def test_a_model_file_or_a_damaged_record_is_no_checkpoint(tmp_path, noisy_file):
    model = tmp_path / "model.rbm"
    save(fit_stream(Perceptron(random_state=0), noisy_file, chunk_size=50), model)
    with pytest.raises(ModelFileError, match="not a checkpoint of streamed training"):
        fit_stream(Perceptron(random_state=0), noisy_file, chunk_size=50, resume=model)
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file)
    kept = read_checkpoint(checkpoint)
    common = {"input": kept.input, "options": kept.options, "run": kept.run}
    make = LEARNERS["averaged"]
    for position, message in [
        ({**kept.position, "done": 99}, "done must be 0..12"),
        ({**kept.position, "order": [0] * 12}, "order must be a permutation"),
        ({**kept.position, "epoch": 9}, "epoch must be 1..4"),
        ({**kept.position, "rng": {"meta": {}, "arrays": {}}}, "not a RandomState"),
    ]:
        write_checkpoint(checkpoint, kept.model, position=position, **common)
        with pytest.raises(ModelFileError, match=f"record does not hold: .*{message}"):
            fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)
    run = {**kept.run, "mistakes_per_epoch": [1, 2, 3]}  # more epochs than it ran
    write_checkpoint(
        checkpoint,
        kept.model,
        input=kept.input,
        options=kept.options,
        position=kept.position,
        run=run,
    )
    with pytest.raises(ModelFileError, match="one entry per epoch"):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)
    position = {**kept.position, "epoch": 3}  # a stream ahead of its run and model
    write_checkpoint(checkpoint, kept.model, position=position, **common)
    with pytest.raises(ModelFileError, match="stream is in epoch 3, its run and model have"):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)
    # a model of another class than the record's
    other = fit_stream(VotedPerceptron(random_state=2), noisy_file, chunk_size=50, epochs=1)
    write_checkpoint(checkpoint, other, position=kept.position, **common)
    with pytest.raises(ValueError, match="estimator='VotedPerceptron' there, 'Averaged"):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)


def _damaged(kept, checkpoint, part, change):
    """Write ``kept`` again with ``change(record[part])`` (a deep copy) in its record."""
    record = {name: getattr(kept, name) for name in ("input", "options", "position", "run")}
    record[part] = copy.deepcopy(record[part])
    change(record[part])
    write_checkpoint(checkpoint, kept.model, **record)


def _set(path, value):
    """A change that sets the field at ``path`` (keys, in order) to ``value``."""

    def change(tree):
        for key in path[:-1]:
            tree = tree[key]
        tree[path[-1]] = value

    return change


KEY = ("rng", "arrays", "rng.state.key")
DAMAGE = {  # a damaged field of a checkpoint's record, and the refusal naming it
    "run rng null": ("run", _set(("rng",), None), "the run's rng must be a random source"),
    "run rng a string": ("run", _set(("rng",), "PCG64"), "the run's rng is not a random source"),
    "run rng key a string": (
        "run",
        _set(KEY, "key"),
        "the run's rng's array 'rng.state.key' is not a list of unsigned ints",
    ),
    "run rng key holding a string": (
        "run",
        _set((*KEY, "values", 3), "7"),
        "the run's rng's array 'rng.state.key' is not a list of unsigned ints",
    ),
    "run rng key dtype null": (
        "run",
        _set((*KEY, "dtype"), None),
        "the run's rng's array 'rng.state.key' is not a list of unsigned ints",
    ),
    "run rng gauss past a float": (
        "run",
        _set(("rng", "meta", "state", "gauss"), 10**400),
        f"the run's rng.gauss must be a finite number; it is 1{'0' * 39}",  # cut at 40
    ),
    "run rng nested deep": (
        "run",
        _set(("rng", "meta", "state", "state"), {"a": {"b": {"c": {"d": {}}}}}),
        "the run's rng is nested deeper than a random source's state",
    ),
    "run not started": (
        "run",
        lambda run: run.update(active=None, trained=None, partial=None),
        "the run must have started (its active units)",
    ),
    "run partial null": (
        "run",
        _set(("partial",), None),
        "the run's partial epoch must be counted",
    ),
    "position rng key a string": (
        "position",
        _set(KEY, "key"),
        "the stream position's rng's array 'rng.state.key' is not a list of unsigned ints",
    ),
    "position rng null": (
        "position",
        _set(("rng",), None),
        "the stream position's rng is not a random source",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_random_source_is_refused_as_every_field_is(tmp_path, noisy_file, damage):
    """Issue 42: a damaged random source got "unexpected AttributeError"; it gets the
    refusal of every other damaged field, from Python and from the command line."""
    from rosenblatt.apps.cli._train_stream import train_stream

    part, change, message = DAMAGE[damage]
    checkpoint = tmp_path / "run.ckpt"
    options = {"chunk_size": 50, "epochs": 4, "seed": 0}  # the command line's below
    with pytest.raises(Crash):
        train_stream(
            noisy_file,
            "averaged",
            checkpoint=checkpoint,
            checkpoint_every=100,
            on_progress=crash_after(5),
            **options,
        )
    _damaged(read_checkpoint(checkpoint), checkpoint, part, change)
    with pytest.raises(ModelFileError) as refused:
        train_stream(noisy_file, "averaged", resume=checkpoint, **options)
    assert str(refused.value) == (
        f"{checkpoint}: is a checkpoint whose record does not hold: {message}; start afresh"
    )
    command = ["train", noisy_file, "-m", tmp_path / "m.rbl", "--stream", "-a", "averaged"]
    result = run_cli(*command, "--chunk-size", 50, "--max-iter", 4, "--resume", checkpoint)
    assert_one_line_error(result, f"does not hold: {message}; start afresh")
    assert "unexpected" not in result.stderr and not (tmp_path / "m.rbl").exists()


def test_online_calibration_s_estimator_is_held_to_its_estimator(tmp_path, noisy_file):
    """No option holds the fitted estimator_ of online calibration: it must be its
    estimator's clone (a checkpoint is only written by fit_stream, which makes it so)."""
    make = LEARNERS["online calibration"]
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file, make=make)
    kept = read_checkpoint(checkpoint)
    record = {"input": kept.input, "options": kept.options, "run": kept.run}
    kept.model.estimator_.set_params(tol=-0.5)  # what no fit accepts: a raw error, once
    write_checkpoint(checkpoint, kept.model, position=kept.position, **record)
    message = "its model's estimator_ is not its estimator's quiet clone (tol=-0.5 in estimator_, "
    with pytest.raises(ModelFileError, match=re.escape(message + "0.001 in the clone)")):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)
    kept.model.estimator_.set_params(tol=1e-3, verbose=0.5)  # its updates show nothing
    write_checkpoint(checkpoint, kept.model, position=kept.position, **record)
    message = "quiet clone (verbose=0.5 in estimator_, 0 in the clone)"
    with pytest.raises(ModelFileError, match=re.escape(message)):
        fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)


def test_a_model_that_does_not_fit_its_input_is_refused(tmp_path, noisy_file):
    checkpoint = _crashed_checkpoint(tmp_path, noisy_file)
    kept = read_checkpoint(checkpoint)
    record = {"input": kept.input, "options": kept.options, "run": kept.run}
    X, y = make_classification(60, 8, n_classes=3, n_informative=4, random_state=0)
    make = LEARNERS["averaged"]
    for X_other, y_other, message in [
        (X, np.choose(y, [0, 1, 5]), "its model's classes [0, 1, 5] are not the input's [0, 1, 2]"),
        (np.hstack([X, X[:, :1]]), y, "its model has 9 features, its input 8"),
    ]:
        other = make().fit(X_other, y_other)
        write_checkpoint(checkpoint, other, position=kept.position, **record)
        with pytest.raises(ModelFileError, match=re.escape(f"record does not hold: {message}")):
            fit_stream(make(), noisy_file, chunk_size=50, epochs=4, resume=checkpoint)


# ---------------------------------------------------------------------- the run's state
@PROPERTY
@given(
    history=st.lists(st.integers(0, 10**6), max_size=6),
    units=st.integers(1, 4),
    partial=st.booleans(),
    best=st.one_of(st.none(), st.floats(0, 1)),
    seed=st.integers(0, 2**32 - 1),
    generator=st.booleans(),
)
def test_a_run_state_comes_back_exactly(history, units, partial, best, seed, generator):
    rng = np.random.default_rng(seed) if generator else np.random.RandomState(seed)
    rng.random()
    run = RunState(
        epochs=len(history),
        mistakes_per_epoch=history,
        active=np.arange(units) % 2 == 0,
        trained=np.full(units, len(history)),
        presented=7,
        best=best,
        stale=2,
        rng=rng,
    )
    if partial:
        weights = np.linspace(0.1, 1 / 3, units)
        run.partial = EpochCount(np.arange(units), 9, weights, 9.0 / 7)
    again = RunState.from_state(run.to_state())
    assert again.to_state() == run.to_state()
    assert again.rng.random() == rng.random()
    if partial:
        assert np.array_equal(again.partial.mistake_weight, run.partial.mistake_weight)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"version": 2}, "version 1"),
        ({"epochs": -1}, "epochs must be a count"),
        ({"active": [True], "trained": [1, 2]}, "units must agree"),
        ({"trained": [5]}, "no more epochs than the run"),
        ({"best": "inf"}, "best must be a float"),
        (
            {
                "partial": {
                    "mistakes": [1, 2],
                    "presented": 1,
                    "mistake_weight": [1.0],
                    "presented_weight": 1.0,
                }
            },
            "partial epoch must count each unit",
        ),
        (
            {
                "partial": {
                    "mistakes": [1],
                    "presented": 1,
                    "mistake_weight": [-1.0],
                    "presented_weight": 1.0,
                }
            },
            "partial epoch must count each unit, in finite weights >= 0",
        ),
        (
            {
                "partial": {
                    "mistakes": [1],
                    "presented": 1,
                    "mistake_weight": [1.0],
                    "presented_weight": -2.0,
                }
            },
            "in finite weights >= 0",
        ),
        (
            {
                "rng": {
                    "meta": {"kind": "RandomState"},
                    "arrays": {"k": {"dtype": "object", "values": []}},
                }
            },
            "not a list of unsigned ints",
        ),
        ({"rng": {"meta": {}, "arrays": {"k": "uint32"}}}, "rng's array 'k' is not a list of"),
        ({"rng": {"meta": {}, "arrays": {"k": None}}}, "rng's array 'k' is not a list of"),
        ({"rng": {"meta": {}, "arrays": []}}, "the run's rng is not a random source"),
        ({"rng": [1, 2]}, "the run's rng is not a random source"),
        ({"rng": {"meta": None, "arrays": {}}}, "the run's rng is not a RandomState or a"),
    ],
)
def test_a_run_state_that_does_not_fit_is_refused(change, message):
    state = RunState(
        epochs=2, mistakes_per_epoch=[3, 1], active=np.array([True]), trained=np.array([2])
    ).to_state()
    with pytest.raises(BrokenInvariant, match=message):
        RunState.from_state({**state, **change})


# ---------------------------------------------------------------------- command line
def test_the_command_line_checks_its_options(tmp_path, noisy_file):
    model = tmp_path / "m.rbl"
    result = run_cli("train", noisy_file, "-m", model, "--checkpoint", tmp_path / "c")
    assert_one_line_error(result, "--checkpoint goes with --stream")
    result = run_cli("train", noisy_file, "-m", model, "--stream", "--checkpoint-every", "9")
    assert_one_line_error(result, "--checkpoint-every goes with --checkpoint")
    result = run_cli(
        "train",
        "-",
        "--format",
        "svmlight",
        "-m",
        model,
        "--stream",
        "--checkpoint",
        "c",
        input=noisy_file.read_bytes(),
    )
    assert_one_line_error(result, "standard input", "cannot be resumed", "drop --checkpoint")
    checkpoint = tmp_path / "run.ckpt"
    run = ["train", noisy_file, "-m", model, "--stream", "--chunk-size", "50", "-q"]
    first = run_cli(*run[:-1], "--max-iter", "3", "--checkpoint", checkpoint)
    assert first.exit_code == 0 and "raise --max-iter" in " ".join(first.stderr.split())
    again = run_cli(*run[:-1], "--max-iter", "3", "--resume", checkpoint)
    assert again.exit_code == 0 and "a finished run: its model, not trained again" in again.stderr
    result = run_cli(*run, "--max-iter", "4", "--resume", checkpoint)
    assert_one_line_error(result, "--max-iter=3 there, 4 here", "--resume with the options")
    result = run_cli(*run, "--max-iter", "3", "--seed", "7", "--resume", checkpoint)
    assert_one_line_error(result, "--seed=0 there, 7 here")
    result = run_cli(*run, "--max-iter", "3", "--resume", tmp_path / "none.ckpt")
    assert result.exit_code != 0 and "none.ckpt" in result.stderr
    assert "Traceback" not in result.output


@pytest.fixture(scope="module")
def calibration_csv(tmp_path_factory):
    """The issue's file: a CSV of a few hundred rows."""
    X, y = make_classification(400, 5, flip_y=0.1, random_state=0)
    path = tmp_path_factory.mktemp("csv") / "data.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt=["%.6f"] * 5 + ["%d"])
    return path


@pytest.mark.parametrize("first_quiet", [False, True], ids=["shown", "quiet"])
def test_online_calibration_resumes_from_the_command_line_shown_or_quiet(
    tmp_path, calibration_csv, monkeypatch, first_quiet
):
    """Issue 42: the progress callback was held to as an option, so a run with its bars
    did not resume quietly (-q), nor a quiet one with its bars; the model file also held
    the callback's repr, so the two did not give the same bytes."""
    from rosenblatt.training import checkpoint as checkpoints

    command = ["train", calibration_csv, "--stream", "-a", "averaged", "--calibrate", "online"]
    command += ["--chunk-size", "150", "--max-iter", "3"]
    every, quiet = ["--checkpoint-every", "150"], ["-q"] if first_quiet else []
    expected = tmp_path / "expected.rbl"
    assert run_cli(*command, "-m", expected, "-q").exit_code == 0
    shown = tmp_path / "shown.rbl"
    assert run_cli(*command, "-m", shown).exit_code == 0
    assert shown.read_bytes() == expected.read_bytes()  # the bars are no part of the model

    checkpoint, written, real = tmp_path / "run.ckpt", [], checkpoints.write_checkpoint

    def crash_after_the_third(*args, **kwargs):  # a kill in epoch 2, after 2 of its 3 chunks
        real(*args, **kwargs)
        written.append(1)
        if len(written) == 3:
            raise Crash

    with monkeypatch.context() as patch:
        patch.setattr(checkpoints, "write_checkpoint", crash_after_the_third)
        killed = run_cli(
            *command, "-m", tmp_path / "killed.rbl", "--checkpoint", checkpoint, *every, *quiet
        )
    assert killed.exit_code != 0 and not (tmp_path / "killed.rbl").exists()
    kept = read_checkpoint(checkpoint)
    assert (kept.finished, kept.position["epoch"], kept.position["done"]) == (False, 2, 2)
    for resumed_quiet in ([], ["-q"]):
        saved = checkpoint.read_bytes()
        model = tmp_path / f"resumed{len(resumed_quiet)}.rbl"
        result = run_cli(*command, "-m", model, "--resume", checkpoint, *every, *resumed_quiet)
        assert result.exit_code == 0, result.output
        assert model.read_bytes() == expected.read_bytes()
        checkpoint.write_bytes(saved)  # the same interrupted run, resumed the other way


def test_sigkill_at_random_moments_and_resume_give_the_same_model_file(tmp_path):
    """The issue's test: a run killed (SIGKILL) at random moments after its checkpoints
    began, resumed each time, writes the model file of a run never interrupted."""
    X, y = make_classification(10_000, 20, flip_y=0.15, random_state=1)
    data = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(data))
    command = [sys.executable, "-m", "rosenblatt", "train", str(data), "--stream", "-q"]
    command += ["--algorithm", "averaged", "--chunk-size", "200", "--max-iter", "8"]
    expected = tmp_path / "expected.rbl"
    subprocess.run([*command, "-m", str(expected)], check=True, timeout=300)
    model, checkpoint = tmp_path / "model.rbl", tmp_path / "run.ckpt"
    every = ["--checkpoint-every", "200"]  # a checkpoint after every chunk
    pace = random.Random(2026)
    kills = 0
    first = [*command, "-m", str(model), "--checkpoint", str(checkpoint), *every]
    resumed = [*command, "-m", str(model), "--resume", str(checkpoint), *every]

    def written():  # each write renames a new file over the last: another inode or time
        return (checkpoint.stat().st_ino, checkpoint.stat().st_mtime_ns)

    for attempt in range(4):
        before = written() if checkpoint.exists() else None
        child = subprocess.Popen(resumed if attempt else first)
        deadline = time.monotonic() + 120
        # wait for this run's first checkpoint, then kill it a random moment later
        while time.monotonic() < deadline and child.poll() is None:
            if checkpoint.exists() and written() != before:
                break
            time.sleep(0.01)
        time.sleep(pace.uniform(0.0, 0.6))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            kills += 1
        child.wait(timeout=60)
        assert not model.exists() or child.returncode == 0
        assert read_checkpoint(checkpoint).model is not None  # whole, never half-written
    if not model.exists():
        subprocess.run(resumed, check=True, timeout=300)
    # a kill in the middle of a write leaves its temporary file; resuming removes it
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []
    assert kills >= 2, "the run ended before it could be killed: make it longer"
    assert model.read_bytes() == expected.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert load(model).n_iter_ == load(expected).n_iter_
