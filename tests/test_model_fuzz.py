"""Mutated model files against both loaders and the command line: every one is refused
cleanly or predicts exactly as the saved model did (see ``tests/model_mutations.py``).

A deterministic few hundred files: each operator of ``model_mutations.OPERATORS`` applied
to eight reference models (the kinds in turn, so every kind meets many operators) at a
seeded site. They run in worker processes, so that a file that crashes the compiled
loops (a signal) is reported by name instead of killing the test run; a dozen more run
through ``rosenblatt predict``. ``benchmarks/fuzz_model_files.py`` runs thousands.

A failure names the reference kind, the operator (and its category: strict files must be
refused or predict as before; value files may be another valid model but must load
into one that predicts, or be refused), the site, what the mutation did and what
happened; ``python tests/model_mutations.py reproduce KIND OPERATOR SEED`` rebuilds the
file and loads it in one process, with the traceback.
"""

import json
import shutil
import threading

import model_mutations as mm
import numpy as np
import pytest

from rosenblatt import Perceptron, save

pytestmark = pytest.mark.filterwarnings("ignore")

SEED = 0
PER_OPERATOR = 8
# operators most likely to break the command line's loaders or the compiled loops
CLI_OPERATORS = (
    "array-drop-column",
    "array-add-row",
    "int-out-of-range",
    "member-swap",
    "kind-sparse",
    "class-swap",
    "manifest-class",
    "dtype-unicode",
    "array-transpose",
    "key-remove",
    "list-drop-item",
    "array-nonfinite",
)


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    references = mm.write_references(folder / "references")
    mutations = mm.plan(references, folder / "mutated", PER_OPERATOR, SEED)
    return references, mutations, folder


def _report(failed, what):
    lines = [f"{len(failed)} mutated model files {what}:", mm.summary(failed)]
    first = failed[0][0]
    lines.append(f"reproduce one: python tests/model_mutations.py reproduce {first.ident}")
    return "\n".join(lines)


def test_the_plan_covers_every_kind_and_operator(fuzz):
    references, mutations, _ = fuzz
    assert {m.kind for m in mutations} == set(references)
    assert {m.operator for m in mutations} == set(mm.OPERATORS)
    assert {m.category for m in mutations} == {mm.STRICT, mm.VALUE}
    assert len(mutations) == len({m.file for m in mutations}) >= 300


def test_mutated_files_are_refused_or_predict_as_saved(fuzz):
    references, mutations, folder = fuzz
    results = mm.run_files(mutations, references, folder / "work", workers=2, timeout=30)
    failed = [(m, why) for m in mutations if (why := mm.failures_of(m, results[m.file]))]
    assert not failed, _report(failed, "were not refused cleanly nor predict as saved")


def _cli_runs(runs):
    """``rosenblatt predict`` on ``[(model, data)]``, two at a time."""
    done, lock = {}, threading.Lock()

    def run(k):
        for i in range(k, len(runs), 2):
            outcome = mm.cli_predict(*runs[i])
            with lock:
                done[i] = outcome

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [done[i] for i in range(len(runs))]


def test_command_line_predicts_as_saved_or_fails_in_one_line(fuzz):
    references, _, folder = fuzz
    kinds = sorted(kind for kind, ref in references.items() if ref.cli_data)
    mutations = []
    for i, name in enumerate(CLI_OPERATORS):
        for step in range(len(kinds)):  # the first kind in turn this operator applies to
            kind = kinds[(i + step) % len(kinds)]
            target = folder / f"cli-{i:02d}-{kind}-{name}.rbl"
            made = mm.mutate(references[kind].path, target, kind, name, SEED)
            if made is not None:
                mutations.append(made)
                break
    originals = _cli_runs([(references[k].path, references[k].cli_data) for k in kinds])
    for kind, (code, stdout, stderr) in zip(kinds, originals):
        assert code == 0 and stdout.strip(), f"{kind}: {stderr}"
    expected = {kind: stdout for kind, (_, stdout, _) in zip(kinds, originals)}
    runs = _cli_runs([(m.file, references[m.kind].cli_data) for m in mutations])
    failed = [
        (m, [why])
        for m, run in zip(mutations, runs)
        if (why := mm.cli_failure(run, expected[m.kind], m.category))
    ]
    assert not failed, _report(failed, "made `rosenblatt predict` fail other than in one line")


# ---------------------------------------------------------------------- the oracle
def test_the_oracle_tells_other_predictions_raw_errors_and_crashes(fuzz, tmp_path):
    references, _, _ = fuzz
    reference = references["perceptron"]
    with np.load(reference.data) as npz:
        X, expected = mm._decode_data(npz)
    # a valid model with other weights in place of the reference: predicts other labels
    other = tmp_path / "other.rbl"
    save(Perceptron(max_iter=1, random_state=3).fit(X, 1 - expected), other)
    # a valid model of five features for the reference's four: its predict raises
    wide = tmp_path / "wide.rbl"
    save(Perceptron(max_iter=1).fit(np.hstack([X, X[:, :1]]), expected), wide)
    # the worker kills itself with SIGSEGV on this one (CRASH_ON): the next still runs
    crash = tmp_path / "crash-me.rbl"
    shutil.copy(reference.path, crash)
    same = tmp_path / "same.rbl"
    shutil.copy(reference.path, same)
    files = [other, wide, crash, same]
    mutations = [mm.Mutation("perceptron", "none", 0, mm.STRICT, file=str(f)) for f in files]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(mm.CRASH_ON, "crash-me")
        results = mm.run_files(mutations, references, tmp_path / "work", workers=1, timeout=60)
    got = {f.stem: results[str(f)] for f in files}
    assert (got["other"]["load"], got["other"]["predictor"]) == ("different", "different")
    assert got["wide"]["load"].startswith("raw in predict: ValueError: X has 4 features")
    assert got["crash-me"]["crash"] == "signal 11", json.dumps(got["crash-me"])
    assert (got["same"]["load"], got["same"]["predictor"], got["same"]["agree"]) == (
        "same",
        "same",
        True,
    )
    verdicts = [mm.failures_of(m, results[m.file]) for m in mutations]
    assert [bool(v) for v in verdicts] == [True, True, True, False]
    # a value mutation may give other labels, never a raw error
    value = mm.Mutation("perceptron", "none", 0, mm.VALUE)
    assert not mm.failures_of(value, got["other"]) and mm.failures_of(value, got["wide"])
    assert mm.failures_of(value, {"load": "refused: a\nb", "predictor": "same", "agree": False})


def test_the_command_line_oracle():
    one_line = "error: model.rbl: the model file is damaged or crafted (...)\n"
    assert mm.cli_failure((0, "1\n0\n", ""), "1\n0\n", mm.STRICT) is None
    assert mm.cli_failure((0, "0\n0\n", ""), "1\n0\n", mm.STRICT) == "exit 0 with other predictions"
    assert mm.cli_failure((0, "0\n0\n", ""), "1\n0\n", mm.VALUE) is None
    assert mm.cli_failure((2, "", one_line), "1\n0\n", mm.STRICT) is None
    assert "bug" in mm.cli_failure((2, "", "error: unexpected IndexError: x\n"), "", mm.STRICT)
    assert mm.cli_failure((-11, "", ""), "", mm.STRICT).startswith("signal 11")
    assert mm.cli_failure((1, "", "Traceback (most recent...\n  x\n"), "", mm.VALUE)
