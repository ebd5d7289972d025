"""Helpers of the service's tests: models to serve, a client, a service in a subprocess."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import warnings

import numpy as np

import rosenblatt
from rosenblatt.persistence import load, model_bytes, read_manifest

N_FEATURES = 20


def dense_model(path, n_features=N_FEATURES, classes=("no", "yes"), seed=0, metadata=None):
    """A Perceptron (shuffling, so that learning draws from its random state) saved at
    ``path``; its training rows and labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, n_features))
    y = np.asarray(classes)[(X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)]
    with warnings.catch_warnings():  # five epochs do not converge: no matter here
        warnings.simplefilter("ignore")
        model = rosenblatt.Perceptron(random_state=seed, max_iter=5, tol=None).fit(X, y)
    rosenblatt.save(model, path, metadata=metadata)
    return X, y


def post(url, endpoint, body=None, content_type="application/json", method="POST"):
    """``(status, answer, headers)``: the answer's JSON (or text), whatever the status."""
    if body is not None and not isinstance(body, bytes):
        body = json.dumps(body).encode()
    request = urllib.request.Request(
        url + endpoint, data=body, method=method, headers={"Content-Type": content_type}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, raw, headers = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        status, raw, headers = error.code, error.read(), dict(error.headers)
    kind = headers.get("content-type", "")
    return status, json.loads(raw) if kind.startswith("application/json") else raw.decode(), headers


def get(url, endpoint):
    return post(url, endpoint, method="GET")


def replayed_bytes(base_path, requests, metadata=None):
    """The bytes of the model file at ``base_path`` after ``partial_fit`` of each ``(X, y)``
    in order: the serial replay the service must equal."""
    model = load(base_path)
    metadata = read_manifest(base_path)["metadata"] if metadata is None else metadata
    for X, y in requests:
        model.partial_fit(X, y)
    return model_bytes(model, metadata=metadata)


class Subprocess:
    """``rosenblatt serve`` in a process of its own (to be killed), its address read from the
    line it prints."""

    def __init__(self, model, *args, timeout=120):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rosenblatt", "serve", "-m", str(model), "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.process.kill()
                raise AssertionError(f"no service after {timeout} s: {self.stderr}") from None
            if line is None:
                raise AssertionError(f"the service ended: {''.join(self.stderr)}")
            self.stderr.append(line)
            found = re.search(r"at (http://[\d.]+:\d+)", line)
            if found:
                self.url = found[1]
                return

    def _read(self):
        for line in self.process.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def kill(self):
        self.process.kill()  # SIGKILL: no clean-up runs
        self.process.wait(timeout=60)

    def terminate(self):
        self.process.terminate()  # SIGTERM: uvicorn's graceful stop
        self.process.wait(timeout=60)


def leftovers(folder) -> list[str]:
    """Temporary files of atomic writes left in ``folder``."""
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))
