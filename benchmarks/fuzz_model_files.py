"""The long run of the model-file fuzzer: thousands of mutated files, random operators and
sites, through ``rosenblatt.load``, ``persistence.load_predictor`` and the command line.

Run: ``.venv/bin/python benchmarks/fuzz_model_files.py [--count N] [--seed S] [--workers W]
[--cli-count M] [--keep DIR]`` (or ``make fuzz``)

Each file is a reference model (``tests/model_mutations.py``: every kind the format
holds, small and fitted with fixed seeds) with one random operator applied at one random
site, re-signed so that its content reaches the loader's checks. A file passes when
both loaders refuse it with a one-line ``ModelFileError``, or load a model that predicts
the reference data exactly as the saved model did (for a *value* mutation, which may be
another valid model: any labels, as long as it predicts), and the two loaders agree;
``--cli-count`` of the files of command-line models also run through ``rosenblatt
predict``, which must print the saved model's predictions or exit 2 with one line that
is not a bug's. A signal (the compiled loops reading out of bounds), a raw exception or
changed predictions is a failure.

Progress goes to standard error; at the end standard output gets a table of the files
by model kind and outcome (refused / same / lenient-accepted / failed), the failures
grouped by operator, site and what happened, with a command that rebuilds one of each
group. Exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import model_mutations as mm  # noqa: E402
from _report import print_groups  # noqa: E402

OUTCOMES = ("refused", "same", "lenient-accepted", "failed")


class Progress:
    """``label: done/total`` on standard error, at most twice a second."""

    def __init__(self, label, total):
        self.label, self.total, self.done, self.shown = label, total, 0, 0.0

    def __call__(self, n):
        self.done += n
        now = time.monotonic()
        if now - self.shown > 0.5 or self.done == self.total:
            self.shown = now
            end = "\n" if self.done == self.total else ""
            print(f"\r{self.label}: {self.done}/{self.total}", end=end, file=sys.stderr)


def _group(mutation, reasons):
    """What makes failures alike: the type of failure, the operator, the site without its
    indices."""
    site = re.sub(r"/\d+(?=/|$)", "/*", mutation.site)
    site = re.sub(r"votes\.\d+\.", "votes.*.", site)
    return mm.failure_type(reasons), mutation.operator, mutation.category, site


def _cli_check(mutations, references, results, count, seed, workers):
    """Run ``count`` of the command-line models' files through ``rosenblatt predict``: half
    of them (at most) among the files that loaded or failed in the workers, which reach
    further into the command line than the files both loaders refuse."""
    kinds = sorted(k for k, ref in references.items() if ref.cli_data)
    expected = {}
    for kind in kinds:
        code, stdout, stderr = mm.cli_predict(references[kind].path, references[kind].cli_data)
        if code != 0:
            sys.exit(f"the unmutated {kind} model fails on the command line: {stderr}")
        expected[kind] = stdout
    rng = random.Random(seed)
    candidates = [m for m in mutations if m.kind in expected]
    loaded = [m for m in candidates if mm.outcome_class(results[m.file]) != "refused"]
    chosen = rng.sample(loaded, min(count // 2, len(loaded)))
    rest = [m for m in candidates if m not in chosen]
    chosen += rng.sample(rest, min(count - len(chosen), len(rest)))
    return len(chosen), cli_failures(
        chosen, lambda mutation: mm.run_cli(mutation, references, expected), workers
    )


def cli_failures(chosen, check, workers):
    """``[(mutation, ["cli: WHY"])]`` for the ``chosen`` mutations that ``check`` (a
    command-line run: a reason, or None) fails, ``workers`` runs at a time, with progress."""
    progress, lock, failed = Progress("command line", len(chosen)), threading.Lock(), []

    def run(k):
        for mutation in chosen[k::workers]:
            why = check(mutation)
            with lock:
                if why:
                    failed.append((mutation, [f"cli: {why}"]))
                progress(1)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="mutated files (10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the operators and sites")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--cli-count", type=int, default=100, help="files run by the CLI")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a file may take")
    parser.add_argument("--groups", type=int, default=80, help="failure groups shown (80)")
    parser.add_argument(
        "--keep",
        help="write the files here and keep them, with failures.jsonl (default: a temp dir)",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="rosenblatt-fuzz-") as scratch:
        folder = Path(args.keep or scratch)
        started = time.monotonic()
        print("training the reference models...", file=sys.stderr)
        references = mm.write_references(folder / "references")
        mutations = mm.random_plan(
            references,
            folder / "mutated",
            args.count,
            args.seed,
            Progress("mutating", args.count),
        )
        results = mm.run_files(
            mutations,
            references,
            folder / "work",
            args.workers,
            args.timeout,
            Progress("loading", len(mutations)),
        )
        table, failed = defaultdict(Counter), []
        for mutation in mutations:
            result = results[mutation.file]
            reasons = mm.failures_of(mutation, result)
            if reasons:
                failed.append((mutation, reasons))
            outcome = "failed" if reasons else mm.outcome_class(result)
            table[mutation.kind][outcome] += 1
        cli_runs, cli_failed = _cli_check(
            mutations, references, results, args.cli_count, args.seed, args.workers
        )
        if args.keep:
            with open(folder / "failures.jsonl", "w") as out:
                for mutation, reasons in failed + cli_failed:
                    out.write(json.dumps({**asdict(mutation), "reasons": reasons}) + "\n")
        _print_report(table, failed, cli_runs, cli_failed, args, time.monotonic() - started)
    return 1 if failed or cli_failed else 0


def _print_report(table, failed, cli_runs, cli_failed, args, seconds):
    width = max(map(len, table)) + 2
    print(f"{'model kind':<{width}}" + "".join(f"{o:>18}" for o in OUTCOMES))
    totals = Counter()
    for kind in sorted(table):
        totals.update(table[kind])
        print(f"{kind:<{width}}" + "".join(f"{table[kind][o]:>18}" for o in OUTCOMES))
    print(f"{'all':<{width}}" + "".join(f"{totals[o]:>18}" for o in OUTCOMES))
    print(
        f"\n{sum(totals.values())} files (seed {args.seed}), {cli_runs} of them also through "
        f"`rosenblatt predict` ({len(cli_failed)} failed), in {seconds:.0f} s"
    )
    groups = defaultdict(list)
    for mutation, reasons in failed + cli_failed:
        groups[_group(mutation, reasons)].append((mutation, reasons))
    if not groups:
        print("no failures")
        return
    types = Counter(mm.failure_type(reasons) for _, reasons in failed + cli_failed)
    print(
        f"\n{len(failed) + len(cli_failed)} failures in {len(groups)} groups "
        f"({', '.join(f'{n} {t}' for t, n in types.most_common())}):"
    )
    ordered = sorted(groups.items(), key=lambda g: (mm.FAILURE_TYPES.index(g[0][0]), -len(g[1])))

    def describe(key, members):
        kind, operator, category, site = key
        mutation, reasons = members[0]
        kinds = sorted({m.kind for m, _ in members})
        details = [f"kinds: {', '.join(kinds)}", f"e.g. {mutation.kind}: {mutation.note}"]
        command = f"reproduce: .venv/bin/python tests/model_mutations.py reproduce {mutation.ident}"
        return kind, f"{operator} ({category}) at {site}", details, "; ".join(reasons), command

    print_groups(ordered, args.groups, describe)


if __name__ == "__main__":
    sys.exit(main())
