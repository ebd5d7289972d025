"""The streams online calibration is measured on, and what it is measured against.

``tests/test_online_calibration.py`` asserts on them (on a subsample);
``benchmarks/calibration.py`` prints README's table from them. Each stream is a
sequence of (features, label) in a fixed order, learnt in one pass:

- spambase (``../shared/data``, absent on some machines: its streams are then left
  out, saying so): the e-mails in a seeded random order (the file lists every spam
  first);
- SMS spam (bundled): the messages in the corpus's order, through the package's
  stateless text features for streams (hashed words, ``rosenblatt.streaming.
  hashing_vectorizer``), which need no pass over the data first;
- and each with a class balance that shifts halfway: a first half with few spam
  messages, a second half with many, drawn without replacement from the data.

Every method is scored on the whole stream, prequentially where it learns online:

- ``uncalibrated``: the logistic of the score, ``1 / (1 + exp(-s))``, of the same
  estimator trained online on the same stream, each sample scored before it learns it;
- ``online OPS`` and ``online OPS+tracking``: ``calibrated(estimator, method="online")``
  without and with calibeating, each sample's probabilities as they were before the
  model learnt it (``prequential_proba``);
- ``offline sigmoid`` and ``offline isotonic``: ``calibrated(estimator)`` fitted on the
  whole stream at once (five folds, the estimator's own epochs) and scored on it: the
  offline floor, which sees every label before it predicts any (in-sample: on text,
  whose hashed words a perceptron memorises, far below what any model predicts of
  unseen messages);
- ``offline sigmoid, out of fold`` and ``offline isotonic, out of fold``: the same, each
  sample scored by the one fitted on the other four fifths: the offline floor of
  predicting samples not learnt;
- on the shifting streams also ``sigmoid fitted on the first half``: a calibration fitted
  once, before the shift, and kept (what ``calibrated`` gives a model that goes on
  learning online), scored on the second half.
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import brier_score_loss, log_loss

from rosenblatt import AveragedPerceptron, calibrated

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
#: the spam fraction of each half of a shifting stream
SHIFT = {"spambase": (0.15, 0.70), "sms": (0.05, 0.25)}


@functools.cache
def _data(name):
    """``(X, y)`` of a data set, y 1 for spam; None where it is absent."""
    if name == "spambase":
        if not (SHARED / "spambase55.csv").is_file():
            return None
        from rosenblatt.data.io import read_data

        data = read_data(SHARED / "spambase55.csv")
        return np.asarray(data.X), np.asarray(data.y)
    from rosenblatt.datasets import load_sms_spam
    from rosenblatt.streaming import hashing_vectorizer

    sms = load_sms_spam()
    return hashing_vectorizer(2**18).transform(sms.data), np.asarray(sms.target)


def stream(name, kind, n=None, seed=0):
    """``(X, y, half)`` of a stream: ``kind`` "fixed" or "shift" (``half``: where the
    balance changes, else None); ``n`` samples at most (a seeded subsample, in order)."""
    data = _data(name)
    if data is None:
        return None
    X, y = data
    rng = np.random.RandomState(seed)
    if kind == "fixed":
        order = rng.permutation(len(y)) if name == "spambase" else np.arange(len(y))
        if n is not None:
            order = np.sort(rng.choice(order, n, replace=False)) if name == "sms" else order[:n]
        return X[order], y[order], None
    spam, ham = rng.permutation(np.flatnonzero(y == 1)), rng.permutation(np.flatnonzero(y == 0))
    before, after = SHIFT[name]
    # the longest halves the data allow, or n samples
    size = int(min(len(spam) / (before + after), len(ham) / (2 - before - after)))
    size = size if n is None else min(size, n // 2)
    halves = []
    for fraction in (before, after):
        k = int(round(fraction * size))
        half = np.concatenate([spam[:k], ham[: size - k]])
        spam, ham = spam[k:], ham[size - k :]
        halves.append(rng.permutation(half))
    order = np.concatenate(halves)
    return X[order], y[order], size


def estimator():
    """The online estimator every method calibrates."""
    return AveragedPerceptron(random_state=0)


@dataclass(frozen=True)
class Score:
    """Mean log-loss and Brier score of a method's probabilities of spam, on the whole
    stream and on its last quarter; seconds it took."""

    log_loss: float
    brier: float
    last_log_loss: float
    last_brier: float
    seconds: float


def _score(y, p, seconds, start=0):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    quarter = len(y) - (len(y) - start) // 4
    return Score(
        log_loss(y[start:], p[start:], labels=[0, 1]),
        brier_score_loss(y[start:], p[start:]),
        log_loss(y[quarter:], p[quarter:], labels=[0, 1]),
        brier_score_loss(y[quarter:], p[quarter:]),
        seconds,
    )


def prequential_scores(X, y, base, batch_size):
    """The scores of ``base`` trained online, ``batch_size`` samples at a time, each
    batch scored before it learns it (as online calibration's estimator is)."""
    model, scores = clone(base), np.zeros(len(y))
    for start in range(0, len(y), batch_size):
        rows = slice(start, start + batch_size)
        if start:
            scores[rows] = model.decision_function(X[rows])
        model.partial_fit(X[rows], y[rows], classes=[0, 1])
    return scores


def hindsight(scores, y, method):
    """The best fixed map of ``scores`` in hindsight, scored on them: Platt's sigmoid
    (the comparator of OPS's regret bound) or an isotonic fit."""
    if method == "sigmoid":
        from sklearn.linear_model import LogisticRegression

        fit = LogisticRegression(C=1e10).fit(scores[:, None], y)
        return fit.predict_proba(scores[:, None])[:, 1]
    from sklearn.isotonic import IsotonicRegression

    return IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit_transform(scores, y)


def _offline(base, method, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return calibrated(clone(base), method=method).fit(X, y)


def _out_of_fold(base, method, X, y):
    """Each sample's probability from ``calibrated(base, method)`` fitted on the other
    four fifths of the stream (contiguous folds): offline, but never in-sample."""
    from sklearn.model_selection import cross_val_predict

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = calibrated(clone(base), method=method)
        return cross_val_predict(model, X, y, cv=5, method="predict_proba")[:, 1]


def methods(X, y, half=None, base=None, batch_size=None, out_of_fold=("sigmoid", "isotonic")):
    """``{method: Score}`` on the stream (from ``half`` on for the shifting streams);
    ``out_of_fold``: the offline methods also scored out of fold (five fits each)."""
    base = estimator() if base is None else base
    online = calibrated(clone(base), method="online")
    batch_size = online.batch_size if batch_size is None else batch_size
    start = 0 if half is None else half
    results = {}

    def timed(name, probability, *args):
        began = time.perf_counter()
        p = probability(*args)
        results[name] = _score(y, p, time.perf_counter() - began, start)
        return p

    scores = timed("uncalibrated", prequential_scores, X, y, base, batch_size)
    results["uncalibrated"] = _score(y, expit(scores), results["uncalibrated"].seconds, start)
    for method in ("sigmoid", "isotonic"):
        timed(f"{method} in hindsight", hindsight, scores, y, method)
    for name, calibeating in (("online OPS", None), ("online OPS+tracking", "tracking")):
        model = clone(online).set_params(calibeating=calibeating, batch_size=batch_size)
        timed(name, lambda m: m.prequential_proba(X, y, classes=[0, 1])[:, 1], model)
    for method in ("sigmoid", "isotonic"):
        timed(f"offline {method}", lambda m: _offline(base, m, X, y).predict_proba(X)[:, 1], method)
    for method in out_of_fold:
        timed(f"offline {method}, out of fold", _out_of_fold, base, method, X, y)
    if half is not None:  # fitted once, before the shift (its first half is not scored)
        timed(
            "sigmoid fitted on the first half",
            lambda: np.r_[
                np.full(half, 0.5),
                _offline(base, "sigmoid", X[:half], y[:half]).predict_proba(X[half:])[:, 1],
            ],
        )
    return results
