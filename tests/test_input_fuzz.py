"""Mutated data files read every way a file is read give the same rows or the same error
(see ``tests/input_mutations.py``): a seeded slice of what
``benchmarks/fuzz_streaming_input.py`` runs by the thousand.

Each case is a small CSV, svmlight or label<TAB>text file with a few mutations (bad
values, ragged rows, stray quotes, line breaks in quoted cells, fields beyond the size
limit, blank lines, control bytes, odd labels and indices, gzip), read whole, in chunks
of 1, 7 and 100 samples and as a stream of 1, 7 and 100 lines from the file and from
standard input. ``python tests/input_mutations.py SEED`` shows a failing case.
"""

from collections import Counter

import input_mutations as im
import pytest

CASES = 200
SEED = 10_000  # past the seeds the long run starts with


def test_every_way_of_reading_a_mutated_file_agrees(tmp_path):
    verdicts: Counter = Counter()
    failed = []
    for seed in range(SEED, SEED + CASES):
        case = im.make_case(seed)
        verdict, why = im.check(case, tmp_path)
        verdicts[case.fmt, verdict] += 1
        if why is not None:
            failed.append(f"{case.describe()[:300]}\n  -> {why[:400]}")
    assert not failed, f"{len(failed)} of {CASES} cases read differently:\n" + "\n".join(failed[:5])
    for fmt in im.FORMATS:  # the slice reaches both outcomes in every format
        assert verdicts[fmt, "data"] >= 5 and verdicts[fmt, "error"] >= 5, verdicts


@pytest.mark.parametrize(
    "name, mutate, fmt",
    [
        ("a stray quote", im.stray_quote, "csv"),
        ("a quoted line break", im.quoted_break, "csv"),
        ("a field too long", im.huge_field, "csv"),
        ("a tab removed or added", im.tab_change, "tsv"),
        ("an index out of place", im.svm_index, "svm"),
    ],
)
def test_the_mutations_change_the_file(name, mutate, fmt):
    """Each mutation the slice relies on does mutate (else the fuzzer would test nothing)."""
    import random

    lines = {"csv": ["1,2,0", "3,4,1"], "tsv": ["ham\tok", "spam\twin"], "svm": ["1 1:2"]}[fmt]
    changed = 0
    for seed in range(20):
        mutated = list(lines)
        mutate(random.Random(seed), mutated, fmt)
        changed += mutated != lines
    assert changed >= 15, name
