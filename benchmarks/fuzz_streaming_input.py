"""The long run of the streaming-input fuzzer: thousands of mutated CSV, svmlight and TSV
files, each read whole, in chunks of 1, 7 and 100 samples, and as a stream of 1, 7 and 100
lines from the file and from standard input; every way must give the same rows or the same
error (the same line and column).

Run: ``.venv/bin/python benchmarks/fuzz_streaming_input.py [--cases N] [--seed S]``
(or ``make fuzz-input``)

The cases and the ways of reading them are ``tests/input_mutations.py``'s (the test suite
runs a seeded slice of them, ``tests/test_input_fuzz.py``). Progress goes to standard error;
at the end standard output gets a table of the cases by format and outcome (all ways read
the same data, all ways gave the same error, or failed), then the failures grouped by
format and mutations, each with the command that shows one of them. Exits 1 if anything
failed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import input_mutations as im  # noqa: E402
from _report import print_groups  # noqa: E402

OUTCOMES = ("data", "error", "failed")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=3_000, help="mutated files (3000)")
    parser.add_argument("--seed", type=int, default=0, help="the first case's seed (0)")
    parser.add_argument("--groups", type=int, default=40, help="failure groups shown (40)")
    args = parser.parse_args(argv)

    table: defaultdict[str, Counter] = defaultdict(Counter)
    failed = []
    started = shown = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rosenblatt-fuzz-input-") as scratch:
        for k, seed in enumerate(range(args.seed, args.seed + args.cases), 1):
            case = im.make_case(seed)
            verdict, why = im.check(case, Path(scratch))
            table[case.fmt][verdict] += 1
            if why is not None:
                failed.append((case, why))
            if time.monotonic() - shown > 0.5 or k == args.cases:
                shown = time.monotonic()
                end = "\n" if k == args.cases else ""
                print(f"\rcases: {k}/{args.cases}", end=end, file=sys.stderr)
    _report(table, failed, args, time.monotonic() - started)
    return 1 if failed else 0


def _report(table, failed, args, seconds):
    print(f"{'format':<8}" + "".join(f"{o:>10}" for o in OUTCOMES))
    totals: Counter = Counter()
    for fmt in im.FORMATS:
        totals.update(table[fmt])
        print(f"{fmt:<8}" + "".join(f"{table[fmt][o]:>10}" for o in OUTCOMES))
    print(f"{'all':<8}" + "".join(f"{totals[o]:>10}" for o in OUTCOMES))
    ways = 1 + 3 * len(im.CHUNK_SIZES)
    print(
        f"\n{args.cases} cases (seeds {args.seed} to {args.seed + args.cases - 1}), each read "
        f"{ways} ways, in {seconds:.0f} s"
    )
    if not failed:
        print("no failures")
        return
    groups = defaultdict(list)
    for case, why in failed:
        groups[(case.fmt, tuple(sorted(set(case.mutations))))].append((case, why))
    print(f"\n{len(failed)} failures in {len(groups)} groups:")
    ordered = sorted(groups.items(), key=lambda item: -len(item[1]))

    def describe(key, members):
        (fmt, mutations), (case, why) = key, members[0]
        command = f"show it: .venv/bin/python tests/input_mutations.py {case.seed}"
        return fmt, ", ".join(mutations) or "unmutated", [], why, command

    print_groups(ordered, args.groups, describe, width=600)


if __name__ == "__main__":
    sys.exit(main())
