"""Online calibration against the offline floor and the uncalibrated score, on streams.

Run: ``.venv/bin/python benchmarks/calibration.py [--n N]``

Prints README's table ("Probabilities that follow the stream"): for spambase (its
e-mails in a seeded random order; it lives in ../shared/data and is skipped without
it) and the SMS spam corpus (in the corpus's order, hashed words), each in one pass,
and for each a stream whose share of spam shifts halfway (``tests/
calibration_streams.py`` builds them), the mean log-loss and Brier score of the
probability of spam given by:

- ``uncalibrated``: the logistic ``1 / (1 + exp(-s))`` of the score of an
  AveragedPerceptron trained online on the stream, each batch scored before it learns it;
- ``online OPS`` and ``online OPS+tracking``: ``calibrated(AveragedPerceptron(),
  method="online")`` without and with calibeating, prequential (each sample's
  probability as it was before anything learnt it);
- ``sigmoid/isotonic in hindsight``: the best fixed map of those same prequential
  scores, fitted on all of them (the comparator of OPS's regret bound);
- ``offline sigmoid/isotonic``: ``calibrated(AveragedPerceptron())`` fitted on the
  whole stream (five folds, several epochs) and scored on it: the offline floor,
  which has seen every label before it predicts any (in-sample);
- ``offline sigmoid/isotonic, out of fold``: the same, each sample scored by the one
  fitted on the other four fifths of the stream (the offline floor for samples not
  learnt);
- on the shifting streams, ``sigmoid fitted on the first half``: fitted once before the
  shift and kept (what a calibration fitted once gives a model that goes on learning).

On the shifting streams the figures are of the second half; ``last quarter`` columns
are of the stream's (or the second half's) last quarter, where a method that adapts has
caught up. Log-loss and Brier score do not depend on the machine; the seconds do
(one run, this machine, also printed).
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import calibration_streams as streams  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=None, help="samples per stream (default: all)")
    args = parser.parse_args()
    libraries = ("rosenblatt", "scikit-learn")
    print(", ".join(f"{name} {version(name)}" for name in libraries))
    print()
    print(
        "| stream | method | log-loss | Brier | log-loss, last quarter | Brier, last quarter | s |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in ("spambase", "sms"):
        for kind in ("fixed", "shift"):
            data = streams.stream(name, kind, n=args.n)
            label = f"{name}, {'one pass' if kind == 'fixed' else 'balance shifts halfway'}"
            if data is None:
                print(f"| {label} | skipped: no ../shared/data | | | | | |")
                continue
            X, y, half = data
            label += f" ({len(y)} rows)"
            for method, score in streams.methods(X, y, half).items():
                print(
                    f"| {label} | {method} | {score.log_loss:.4f} | {score.brier:.4f} | "
                    f"{score.last_log_loss:.4f} | {score.last_brier:.4f} | {score.seconds:.2f} |"
                )
                label = ""


if __name__ == "__main__":
    main()
