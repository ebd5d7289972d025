"""The long run of the checkpoint fuzzer: thousands of mutated checkpoints of streamed
training, resumed through ``fit_stream`` and ``rosenblatt train --stream --resume``.

Run: ``.venv/bin/python benchmarks/fuzz_checkpoints.py [--cases N] [--seed S] [--workers W]
[--cli-cases M] [--keep DIR]`` (or ``make fuzz-checkpoints``)

Each case is the checkpoint of a reference run (``tests/checkpoint_mutations.py``: the
online learners, online calibration, several classes, sparse features, text, a finished
run, two runs of the command line; each killed in the middle) with one operator applied
at one seeded site: a JSON value of its record or of its model's state replaced (null, a
string, a huge number, a nested object...), a list cut short or made longer, a key
removed, an array cut short, a bit flipped. A case passes when resuming it gives a valid
model (it predicts the input, saves and loads as itself) or is refused in one line: a
``ModelFileError``, or the ``ValueError`` of a checkpoint of another input or options;
``--cli-cases`` of the command-line runs' cases also go through ``rosenblatt train``,
which must exit 0 with the model, or 2 with one line that is no bug's. A signal, a
timeout, another exception, a model that does not predict, a refusal of several lines
is a failure.

Progress goes to standard error; at the end standard output gets a table of the cases by
reference run and outcome (refused / documented / ok / failed) and the failures, each
with a command that rebuilds it. Exits 1 if anything failed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import checkpoint_mutations as cm  # noqa: E402
from fuzz_model_files import Progress, cli_failures  # noqa: E402


def cli_cases(mutations, references, count, seed, workers):
    """Run ``count`` of the command-line runs' cases through ``rosenblatt train``:
    ``(runs, [(mutation, [why])])``."""
    candidates = [m for m in mutations if cm.REFERENCES[m.kind].cli is not None]
    chosen = random.Random(seed).sample(candidates, min(count, len(candidates)))
    return len(chosen), cli_failures(chosen, partial(cm.cli_check, references=references), workers)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=3000, help="mutated checkpoints (3000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sites (0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--cli-cases", type=int, default=60, help="cases run by the CLI (60)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a case may take")
    parser.add_argument(
        "--keep", help="write the checkpoints here and keep them (default: a temp dir)"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="rosenblatt-ckpt-fuzz-") as scratch:
        folder = Path(args.keep or scratch).resolve()
        started = time.monotonic()
        print("training the reference runs...", file=sys.stderr)
        references = cm.write_references(folder / "references")
        mutations = cm.plan(
            references, folder / "mutated", args.cases, args.seed, Progress("mutating", args.cases)
        )
        results = cm.run_cases(
            mutations,
            references,
            folder / "work",
            args.workers,
            args.timeout,
            Progress("resuming", len(mutations)),
        )
        table, failed = defaultdict(Counter), []
        for mutation in mutations:
            reasons = cm.failures_of(results[mutation.file])
            if reasons:
                failed.append((mutation, reasons))
            outcome = "failed" if reasons else cm.outcome_class(results[mutation.file])
            table[mutation.kind][outcome] += 1
        cli_runs, cli_failed = cli_cases(
            mutations, references, args.cli_cases, args.seed, args.workers
        )
        _print_report(table, failed + cli_failed, cli_runs, len(cli_failed), args, started)
    return 1 if failed or cli_failed else 0


def _print_report(table, failed, cli_runs, cli_failures, args, started):
    width = max(map(len, table)) + 2
    print(f"{'reference run':<{width}}" + "".join(f"{o:>12}" for o in cm.OUTCOMES))
    totals = Counter()
    for name in sorted(table):
        totals.update(table[name])
        print(f"{name:<{width}}" + "".join(f"{table[name][o]:>12}" for o in cm.OUTCOMES))
    print(f"{'all':<{width}}" + "".join(f"{totals[o]:>12}" for o in cm.OUTCOMES))
    print(
        f"\n{sum(totals.values())} checkpoints (seed {args.seed}), {cli_runs} of them also "
        f"through `rosenblatt train --resume` ({cli_failures} failed), in "
        f"{time.monotonic() - started:.0f} s"
    )
    print(f"\n{len(failed)} failures:\n{cm.summary(failed)}" if failed else "no failures")


if __name__ == "__main__":
    sys.exit(main())
