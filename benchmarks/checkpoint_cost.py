"""What checkpoints cost a streamed run: whole ``rosenblatt train --stream`` commands, each
in a fresh process, without checkpoints and with one every N rows (medians of 3 runs).

    .venv/bin/python benchmarks/checkpoint_cost.py [--rows 100000] [--repeats 3]

It also checks what the checkpoints are for: every run's model file has the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--chunk-size", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from sklearn.datasets import dump_svmlight_file, make_classification

    folder = Path(tempfile.mkdtemp())
    X, y = make_classification(args.rows, 20, flip_y=0.1, random_state=0)
    data = folder / "train.svm"
    dump_svmlight_file(X, y, str(data))
    command = [sys.executable, "-m", "rosenblatt", "train", str(data), "--stream", "-q"]
    command += ["--algorithm", "averaged", "--chunk-size", str(args.chunk_size)]
    cases = {"no checkpoints": []}
    for every in (args.chunk_size, 10 * args.chunk_size, None):
        name = f"every {every:,} rows" if every else "default (1,000,000 rows)"
        cases[name] = ["--checkpoint", str(folder / "run.ckpt")]
        cases[name] += ["--checkpoint-every", str(every)] if every else []
    print(f"{cpu_name()}; {args.rows:,} rows x 20 features, chunks of {args.chunk_size:,}, ")
    print("averaged perceptron, 5 epochs; whole commands, median of", args.repeats, "runs\n")
    print(f"{'checkpoints':<28}{'seconds':>9}{'ratio':>8}  model file")
    baseline = None
    digests = set()
    for name, options in cases.items():
        times = []
        for _ in range(args.repeats):
            (folder / "run.ckpt").unlink(missing_ok=True)
            model = folder / "model.rbl"
            start = time.perf_counter()
            subprocess.run([*command, "-m", str(model), *options], check=True)
            times.append(time.perf_counter() - start)
            digest = hashlib.sha256(model.read_bytes()).hexdigest()[:12]
            digests.add(digest)
        median = statistics.median(times)
        baseline = baseline or median
        print(f"{name:<28}{median:>9.2f}{median / baseline:>8.2f}  sha256 {digest}")
    print("\nthe same model file in every run:", len(digests) == 1)


if __name__ == "__main__":
    main()
