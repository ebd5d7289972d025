"""The playground under a class's load: concurrent clients posting runs to one server.

Starts ``rosenblatt playground`` (a fresh process, as a teacher does, on 127.0.0.1 and a
free port), then ``--clients`` threads post ``--requests`` runs to ``/api/run`` in all,
taking the next of three kinds in turn:

- ``OR``: the lecture notes' modified OR example (4 points, online, bias input -1);
- ``averaged 2000``: 2,000 points, the averaged perceptron, 10 epochs (the page's cap);
- ``kernel 300``: 300 points, the RBF kernel perceptron, 10 epochs.

It prints, per kind, the requests answered 200, the median and 99th percentile of their
latency (seconds from sending to the whole answer), the 503s (busy: the server's queue
was full), the other 5xx answers, and the requests that got no answer at all (the
connection closed or reset, or no answer within ``--timeout``); then the server's CPU
seconds (user and system), which a machine shared with other work leaves comparable
where the wall-clock latencies depend on how much of it the server wins. Nothing leaves
127.0.0.1; the run is bounded (``--requests``, and ``--deadline`` seconds after which
no request is sent) and stops the server when done.

Usage::

    python benchmarks/playground_load.py                # 4 clients, 200 requests
    python benchmarks/playground_load.py --clients 16 --requests 400
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict

import numpy as np
from _machine import cpu_name

OR_POINTS = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]


def bodies() -> dict[str, bytes]:
    """The three kinds of run, as the page posts them."""
    rng = np.random.default_rng(0)
    wide = rng.uniform(-2.5, 2.5, size=(2000, 2))
    ring = rng.uniform(-2.5, 2.5, size=(300, 2))
    runs = {
        "OR": {"points": OR_POINTS, "labels": [-1, 1, 1, 1], "bias": -1.0},
        "averaged 2000": {
            "points": wide.round(2).tolist(),
            "labels": np.where(wide[:, 0] + 0.5 * wide[:, 1] > 0.1, 1, -1).tolist(),
            "algorithm": "averaged",
            "epochs": 10,
        },
        "kernel 300": {
            "points": ring.round(2).tolist(),
            "labels": np.where(np.hypot(*ring.T) < 1.5, 1, -1).tolist(),
            "algorithm": "kernel",
            "kernel": "rbf",
            "epochs": 10,
        },
    }
    return {kind: json.dumps(body).encode() for kind, body in runs.items()}


def start_server() -> tuple[subprocess.Popen, int]:
    """``rosenblatt playground`` on a free port of 127.0.0.1, and that port."""
    server = subprocess.Popen(
        [sys.executable, "-m", "rosenblatt", "playground", "--port", "0", "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},  # the address on one line
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not found:
        server.kill()
        raise SystemExit(f"the playground did not start: {line}{server.stderr.read()}")
    return server, int(found.group(1))


def post(port: int, body: bytes, timeout: float) -> tuple[str, float]:
    """``(outcome, seconds)``: the status code, or ``"no answer"`` and why."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/api/run", body, {"Content-Type": "application/json"})
        reply = connection.getresponse()
        reply.read()
        return str(reply.status), time.perf_counter() - start
    except (OSError, http.client.HTTPException) as error:  # closed, reset, timed out
        return f"no answer ({type(error).__name__})", time.perf_counter() - start
    finally:
        connection.close()


def load(port: int, clients: int, requests: int, deadline: float, timeout: float) -> dict:
    """Every request's kind, outcome and latency, from ``clients`` threads."""
    kinds = bodies()
    order = [list(kinds)[k % len(kinds)] for k in range(requests)]
    results: dict[str, list[tuple[str, float]]] = defaultdict(list)
    lock = threading.Lock()
    stop = time.monotonic() + deadline

    def client():
        while time.monotonic() < stop:
            with lock:
                if not order:
                    return
                kind = order.pop(0)
            outcome = post(port, kinds[kind], timeout)
            with lock:
                results[kind].append(outcome)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients (4)")
    parser.add_argument("--requests", type=int, default=200, help="requests in all (200)")
    parser.add_argument("--deadline", type=float, default=600, help="send none after (s)")
    parser.add_argument("--timeout", type=float, default=120, help="a request's limit (s)")
    args = parser.parse_args()
    if not (1 <= args.clients <= 64 and 1 <= args.requests <= 5000):
        parser.error("at most 64 clients and 5,000 requests")

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server, port = start_server()
    try:
        start = time.perf_counter()
        results = load(port, args.clients, args.requests, args.deadline, args.timeout)
        seconds = time.perf_counter() - start
    finally:
        server.send_signal(signal.SIGINT)  # Ctrl-C, as a teacher stops it
        try:
            _, log = server.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            _, log = server.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the server's, once it is reaped
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    print(f"# {args.clients} clients, {args.requests} requests, {seconds:.1f} s; {cpu_name()}")
    print(f"{'run':<15}{'200':>6}{'p50 s':>8}{'p99 s':>8}{'503':>6}{'5xx':>6}{'no answer':>11}")
    unanswered = 0
    for kind, outcomes in results.items():
        times = np.array([t for status, t in outcomes if status == "200"])
        busy = sum(status == "503" for status, _ in outcomes)
        failed = sum(status.startswith("5") and status != "503" for status, _ in outcomes)
        lost = sum(status.startswith("no answer") for status, _ in outcomes)
        unanswered += lost
        p50, p99 = np.percentile(times, [50, 99]) if times.size else (np.nan, np.nan)
        print(f"{kind:<15}{times.size:>6}{p50:>8.2f}{p99:>8.2f}{busy:>6}{failed:>6}{lost:>11}")
    answered = sum(status == "200" for o in results.values() for status, _ in o)
    print(f"server CPU: {cpu:.1f} s, {1000 * cpu / max(answered, 1):.0f} ms a run answered")
    reasons = sorted({s for o in results.values() for s, _ in o if s.startswith("no answer")})
    if reasons:
        print("no answer:", ", ".join(reasons))
    errors = [line for line in log.splitlines() if line.strip()]
    print(f"server's standard error: {len(errors)} line(s)")
    for line in errors[:5]:
        print("  ", line[:160])
    return 1 if unanswered else 0


if __name__ == "__main__":
    sys.exit(main())
