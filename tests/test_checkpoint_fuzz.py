"""Mutated checkpoints resumed from Python and from the command line: each one resumes
into a valid model or is refused in one line (see ``tests/checkpoint_mutations.py``).

A seeded slice of ``benchmarks/fuzz_checkpoints.py``'s long run: its first CASES cases
of seed 0, which give every reference run and every operator in turn, resumed in worker
processes (a crash of the compiled loops is reported by case instead of killing the test
run); a few of the command line's cases through ``rosenblatt train --resume``. A failure
names the reference run, the operator, the site, what changed and what happened, and the
command that rebuilds it: ``python tests/checkpoint_mutations.py reproduce REFERENCE
OPERATOR SEED``.
"""

from pathlib import Path

import checkpoint_mutations as cm
import pytest

from rosenblatt.training.checkpoint import read_checkpoint

pytestmark = pytest.mark.filterwarnings("ignore")

SEED, CASES, CLI_CASES = 0, 104, 4


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checkpoint-fuzz")
    references = cm.write_references(folder / "references")
    mutations = cm.plan(references, folder / "mutated", CASES, SEED)
    return references, mutations, folder


def test_the_references_are_runs_under_way_and_the_plan_covers_them(fuzz):
    references, mutations, _ = fuzz
    for name, path in references["checkpoints"].items():
        kept = read_checkpoint(path)
        assert kept.finished == (name == "finished"), name
        assert kept.finished or 0 < kept.position["done"] <= kept.input["n_chunks"], name
    assert {m.kind for m in mutations} == set(cm.REFERENCES)
    assert {m.operator for m in mutations} == set(cm.OPERATORS)
    assert len({m.file for m in mutations}) == CASES


def test_mutated_checkpoints_resume_into_a_valid_model_or_are_refused(fuzz):
    references, mutations, folder = fuzz
    results = cm.run_cases(mutations, references, folder / "work", workers=2, timeout=60)
    failed = [(m, why) for m in mutations if (why := cm.failures_of(results[m.file]))]
    assert not failed, f"{len(failed)} mutated checkpoints failed:\n{cm.summary(failed)}"
    outcomes = {cm.outcome_class(results[m.file]) for m in mutations}
    assert outcomes == {"refused", "documented", "ok"}  # the slice reaches all three


def test_the_command_line_resumes_or_refuses_in_one_line(fuzz):
    references, mutations, _ = fuzz
    chosen = [m for m in mutations if cm.REFERENCES[m.kind].cli is not None][:CLI_CASES]
    failed = [(m, [why]) for m in chosen if (why := cm.cli_check(m, references))]
    assert len(chosen) == CLI_CASES and not failed, cm.summary(failed)


# ---------------------------------------------------------------------- the oracle
def test_the_oracle_tells_raw_errors_crashes_and_long_refusals():
    assert cm.failures_of({"outcome": "ok"}) == []
    assert cm.failures_of({"outcome": "refused: x.ckpt: is a checkpoint whose..."}) == []
    assert cm.failures_of({"outcome": "documented: the checkpoint ... another input"}) == []
    assert cm.failures_of({"outcome": "raw: AttributeError: 'str' has no get"}) == [
        "raw: AttributeError: 'str' has no get"
    ]
    assert cm.failures_of({"outcome": "invalid: predict gave shape (3,)"})
    assert cm.failures_of({"outcome": "refused: one\ntwo"}) == ["a refusal of several lines"]
    assert cm.failures_of({"crash": "signal 11", "where": "File x"}) == ["signal 11 at File x"]


def test_resuming_tells_a_documented_value_error_from_another(fuzz, tmp_path, monkeypatch):
    """``documented`` is fit_stream's refusal of another input or options; any other
    ValueError (a ParameterError, numpy's) is a raw error."""
    references, _, _ = fuzz
    copy = tmp_path / "averaged.ckpt"
    copy.write_bytes(Path(references["checkpoints"]["averaged"]).read_bytes())
    job = {"file": str(copy), "reference": "averaged", "data": references["data"]["binary"]}
    assert cm.resume_outcome(job, {}) == "ok"
    other = {**job, "data": references["data"]["three"]}  # another input
    assert cm.resume_outcome(other, {}).startswith("documented: the checkpoint ")
    assert cm.resume_outcome({**job, "reference": "voted"}, {}).startswith("documented:")
    wrong = cm.Reference("binary", {"chunk_size": 0, "epochs": 4})  # a ParameterError
    monkeypatch.setitem(cm.REFERENCES, "averaged", wrong)
    assert cm.resume_outcome(job, {}).startswith("raw: ParameterError: The 'chunk_size'")
