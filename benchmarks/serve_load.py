"""``rosenblatt serve`` under load, beside Vowpal Wabbit's daemon on the same data.

Two models, each served by ``rosenblatt serve`` (a fresh process on 127.0.0.1 and a free
port, its learning log on disk, fsynced before every answer):

- ``dense``: a Perceptron of 20 features (rows of numbers rounded to 4 decimals);
- ``text``: a hashed text model (2**20 features, as ``rosenblatt train --stream x.tsv``
  makes one), documents of about 20 words.

For each: ``/predict`` and ``/learn``, with 1, 4 and 16 clients, each request one row or a
batch of 100, clients sending their next request as soon as the last is answered
(persistent connections, pre-built requests). Each cell runs ``--seconds`` after a short
warm-up; it prints rows per second, the median and 99th percentile of the latency (from
sending a request to its whole answer), and the requests not answered 200.

Vowpal Wabbit's daemon gets the same rows (VW's text format, ``-b 20``, hinge loss, labels
+-1) over its socket protocol: ``--daemon --port`` with ``-t`` for predictions (no
learning), without it for learning; one child process per client (VW's children learn
apart: each has its own copy of the weights). It runs where a ``vw`` executable is on
PATH, or where a Python with the ``vowpalwabbit`` package is given (``--vw-python``, or
this one if it has the package: its ``pylibvw`` module has VW's daemon mode, driven by
``run_parser``); otherwise the script says so and runs ``rosenblatt serve`` alone.

Everything stays on 127.0.0.1; every cell is bounded in time; the servers are stopped.

Usage::

    python benchmarks/serve_load.py                       # about 3 minutes
    python benchmarks/serve_load.py --seconds 1 --vw-python /tmp/vw/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np
from _machine import cpu_name

N_FEATURES = 20
HASH_FEATURES = 2**20
BATCHES = (1, 100)
CLIENTS = (1, 4, 16)
POOL = 64  # distinct requests per cell, sent in turn
WARMUP = 0.3


# ---------------------------------------------------------------------- data
def dense_rows(rng, n):
    X = rng.normal(size=(n, N_FEATURES)).round(4)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    return X, y


_WORDS = [f"w{k}" for k in range(5000)]


def documents(rng, n):
    weights = 1.0 / np.arange(1, len(_WORDS) // 2 + 1)  # Zipf's law, about
    weights /= weights.sum()
    docs, labels = [], []
    for _ in range(n):
        words = rng.choice(len(_WORDS) // 2, size=int(rng.integers(10, 30)), p=weights)
        label = int(rng.choice([-1, 1]))
        if label == 1:  # a topic of its own: some words from the vocabulary's other half
            words[rng.random(words.shape[0]) < 0.3] += len(_WORDS) // 2
        docs.append(" ".join(_WORDS[w] for w in words))
        labels.append(label)
    return docs, np.array(labels)


def models(folder):
    """The two model files, trained on data of their kind."""
    import rosenblatt
    from rosenblatt.data.streaming import hashing_vectorizer

    rng = np.random.default_rng(0)
    X, y = dense_rows(rng, 2000)
    dense = os.path.join(folder, "dense.rbl")
    rosenblatt.save(rosenblatt.Perceptron(random_state=0).fit(X, y), dense)
    from sklearn.pipeline import Pipeline

    docs, labels = documents(rng, 2000)
    text_model = Pipeline(
        [
            ("vectorizer", hashing_vectorizer(HASH_FEATURES, np.float64)),
            ("classifier", rosenblatt.Perceptron(random_state=0)),
        ]
    ).fit(docs, labels)
    text = os.path.join(folder, "text.rbl")
    rosenblatt.save(text_model, text, metadata={"data_format": "text"})
    return {"dense": dense, "text": text}


def requests(kind, endpoint, batch, seed):
    """``POOL`` requests of ``batch`` rows: (rosenblatt's JSON body, VW's lines)."""
    rng = np.random.default_rng(seed)
    pool = []
    for _ in range(POOL):
        if kind == "dense":
            X, y = dense_rows(rng, batch)
            rows = X.tolist()
            vw = [
                f"{label} |f " + " ".join(f"{j}:{v:g}" for j, v in enumerate(row))
                for row, label in zip(rows, y.tolist())
            ]
        else:
            rows, y = documents(rng, batch)
            vw = [f"{label} |w {doc}" for doc, label in zip(rows, y.tolist())]
        body = {"rows": rows}
        if endpoint == "learn":
            body["labels"] = y.tolist()
        pool.append((json.dumps(body).encode(), ("\n".join(vw) + "\n").encode()))
    return pool


# ---------------------------------------------------------------------- clients
def http_request(path, body):
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body


async def http_exchange(reader, writer, request):
    """Send one request, read its whole answer; its status."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = int(re.search(rb"(?i)content-length:\s*(\d+)", head)[1])
    await reader.readexactly(length)
    return status


async def vw_exchange(reader, writer, lines, n_rows):
    """Send examples, read one prediction line each; 200 when all came."""
    writer.write(lines)
    for _ in range(n_rows):
        await reader.readline()
    return 200


async def run_cell(port, exchange, payloads, n_clients, rows_per_request, seconds):
    """``n_clients`` connections sending in turn for ``seconds`` after a warm-up; rows per
    second, the latencies, and the answers not 200 (a connection the server closes counts
    once, and its client stops)."""
    latencies, failures, done = [], 0, 0
    start = end = 0.0

    async def client(k):
        nonlocal failures, done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = k
        try:
            while True:
                sent = time.perf_counter()
                if sent >= end:
                    return
                try:
                    status = await exchange(reader, writer, payloads[i % len(payloads)])
                except (OSError, asyncio.IncompleteReadError):  # the server closed it
                    failures += 1
                    return
                now = time.perf_counter()
                i += n_clients
                if sent >= start:
                    latencies.append(now - sent)
                    if status == 200:
                        done += 1
                    else:
                        failures += 1
        finally:
            writer.close()

    start = time.perf_counter() + WARMUP
    end = start + seconds
    await asyncio.gather(*(client(k) for k in range(n_clients)))
    elapsed = time.perf_counter() - start
    return done * rows_per_request / elapsed, np.array(latencies), failures


# ---------------------------------------------------------------------- servers
def start_rosenblatt(model):
    server = subprocess.Popen(
        [sys.executable, "-m", "rosenblatt", "serve", "-m", model, "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    for line in server.stderr:
        found = re.search(r"at http://127\.0\.0\.1:(\d+)", line)
        if found:
            return server, int(found[1])
    raise SystemExit(f"rosenblatt serve did not start: {server.wait()}")


def stop(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()


def vw_command(vw_python):
    """How to start VW's daemon here: ``(argv prefix, what it is)``, or ``(None, why not)``."""
    found = shutil.which("vw")
    if found:
        return [found], f"{found} ({_vw_version([found, '--version'])})"
    pythons = [vw_python] if vw_python else []
    if importlib.util.find_spec("pylibvw") is not None:
        pythons.append(sys.executable)
    for python in pythons:
        script = "import sys, pylibvw; ws = pylibvw.vw(sys.argv[1:]); ws.run_parser(); ws.finish()"
        version = _vw_version(
            [python, "-c", "import vowpalwabbit; print(vowpalwabbit.__version__)"]
        )
        if version:
            return [python, "-c", script], f"the vowpalwabbit {version} package's daemon ({python})"
    return None, (
        "no `vw` executable on PATH, and no Python with the vowpalwabbit package (pip install "
        "vowpalwabbit gives its pylibvw module, no `vw` executable; give that Python with "
        "--vw-python); VW is not run (building it from source is out of scope)"
    )


def _vw_version(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_vw(prefix, n_children, learn):
    port = free_port()
    argv = [
        *prefix,
        "--daemon",
        "--foreground",
        "--port",
        str(port),
        "--num_children",
        str(n_children),
        "--quiet",
        "-b",
        "20",
        "--loss_function",
        "hinge",
        "--binary",
        *([] if learn else ["-t"]),
    ]
    server = subprocess.Popen(argv, start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, port
        except OSError:
            time.sleep(0.05)
    os.killpg(server.pid, signal.SIGKILL)
    raise SystemExit("VW's daemon did not start")


def stop_vw(server):
    os.killpg(server.pid, signal.SIGTERM)  # its group: the daemon and the children it forked
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


# ---------------------------------------------------------------------- the run
def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="Measured seconds a cell.")
    parser.add_argument("--vw-python", help="A Python with the vowpalwabbit package.")
    parser.add_argument("--no-vw", action="store_true", help="Run rosenblatt serve alone.")
    args = parser.parse_args()
    prefix, vw_said = (None, "not asked (--no-vw)") if args.no_vw else vw_command(args.vw_python)
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; load average before: {_load()}")
    print(f"Vowpal Wabbit: {vw_said}")
    table = []
    with tempfile.TemporaryDirectory() as folder:
        paths = models(folder)
        for kind, path in paths.items():
            server, port = start_rosenblatt(path)
            try:
                for endpoint in ("predict", "learn"):
                    for batch in BATCHES:
                        pool = requests(kind, endpoint, batch, seed=_seed(kind, endpoint, batch))
                        bodies = [http_request(f"/{endpoint}", body) for body, _ in pool]
                        for clients in CLIENTS:
                            cell = asyncio.run(
                                run_cell(port, http_exchange, bodies, clients, batch, args.seconds)
                            )
                            table.append(("rosenblatt", kind, endpoint, batch, clients, *cell))
                            _print(table[-1])
            finally:
                stop(server)
            if prefix is None:
                continue
            for endpoint in ("predict", "learn"):
                for batch in BATCHES:
                    pool = requests(kind, endpoint, batch, seed=_seed(kind, endpoint, batch))
                    for clients in CLIENTS:
                        vw, port = start_vw(prefix, clients, learn=endpoint == "learn")
                        try:

                            async def exchange(reader, writer, lines, n=batch):
                                return await vw_exchange(reader, writer, lines, n)

                            lines = [vw_lines for _, vw_lines in pool]
                            cell = asyncio.run(
                                run_cell(port, exchange, lines, clients, batch, args.seconds)
                            )
                        finally:
                            stop_vw(vw)
                        table.append(("vw daemon", kind, endpoint, batch, clients, *cell))
                        _print(table[-1])
    print(f"\nload average after: {_load()}\n")
    print(
        "| server | model | endpoint | rows a request | clients | rows/s | p50 ms | p99 ms "
        "| not 200 |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for row in table:
        print(_row(row))


def _row(row):
    server, kind, endpoint, batch, clients, rate, latencies, failures = row
    p50, p99 = (np.percentile(latencies, q) * 1e3 for q in (50, 99)) if len(latencies) else (0, 0)
    return (
        f"| {server} | {kind} | /{endpoint} | {batch} | {clients} | {rate:,.0f} | {p50:.2f} | "
        f"{p99:.2f} | {failures} |"
    )


def _print(row):
    print(_row(row), flush=True)


def _seed(*cell):
    """A seed of its own for each cell's requests (the same in every run)."""
    return zlib.crc32(repr(cell).encode())


def _load():
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
