"""Kernel perceptrons on a budget: the experiment of DOGMA's ``demo.m``, reproduced.

DOGMA (Francesco Orabona's MATLAB library of online kernel learners) ships a demo
whose output is the published reference for budgeted kernel perceptrons: 20,000
points ``x ~ N(0, I_2)``, labelled by the sign of ``w . x`` for a random ``w``, 10 %
of the labels flipped; the first half trains (one pass, in order), the second
tests; RBF kernel ``exp(-|x - z|^2)`` (gamma = 1), no bias. The Projectron's
threshold is 0.01; the Randomized Budget Perceptron and the Forgetron get the
Projectron's number of support vectors as their budget.

Two error rates, as DOGMA reports them: the **online** error (mistakes made while
training, over the training samples: ``mistakes_per_epoch_[0] / n_train``) and the
**test** error of the last or the averaged hypothesis. The data are drawn afresh
(numpy's generator, not MATLAB's), so the figures differ from the published ones
by the noise of one draw; ``--seeds`` averages several draws.

Run with ``python examples/budget_dogma.py [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from rosenblatt import KernelPerceptron, Projectron

# DOGMA's demo.out: (support vectors, online error %, test error % last / averaged)
PUBLISHED = {
    "Kernel perceptron": (2156, 21.56, None, 10.11),
    "Projectron (0.01)": (106, None, None, 9.96),
    "Projectron++ (0.01)": (None, 15.90, None, None),
    "Randomized Budget Perceptron": (106, 24.09, None, None),
    "Forgetron (self-tuned)": (106, 23.63, None, None),
}


def dogma_problem(seed: int, n: int = 20_000, noise: float = 0.1):
    """The demo's data: train and test halves of noisy linearly labelled Gaussian points."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 2))
    y = np.sign(x @ rng.standard_normal(2))
    flipped = rng.permutation(n)[: int(n * noise)]
    y[flipped] = -y[flipped]
    half = n // 2
    return x[:half], y[:half], x[half:], y[half:]


def run(seed: int) -> dict[str, tuple[int, float, float, float, float]]:
    """Per learner: (support vectors, online error, test error last, averaged, fit seconds)."""
    X, y, X_test, y_test = dogma_problem(seed)
    common = dict(gamma=1.0, max_iter=1, shuffle=False, fit_intercept=False)
    rows = {}

    def fit(name, make, averages=True):
        last = make("last")
        start = time.perf_counter()
        with warnings.catch_warnings():  # one pass over noisy data: it does not converge
            warnings.simplefilter("ignore")
            last.fit(X, y)
        seconds = time.perf_counter() - start
        averaged = None
        if averages:  # the policies that evict keep no average (it would need the evicted)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                averaged = make("averaged").fit(X, y)
        rows[name] = (
            len(last.support_),
            last.mistakes_per_epoch_[0] / len(y),
            1 - last.score(X_test, y_test),
            None if averaged is None else 1 - averaged.score(X_test, y_test),
            seconds,
        )

    fit("Kernel perceptron", lambda p: KernelPerceptron(prediction=p, **common))
    fit(
        "Projectron (0.01)", lambda p: Projectron(max_projection_error=0.01, prediction=p, **common)
    )
    fit(
        "Projectron++ (0.01)",
        lambda p: Projectron(max_projection_error=0.01, plus=True, prediction=p, **common),
    )
    budget = rows["Projectron (0.01)"][0]
    for name, policy in (
        ("Randomized Budget Perceptron", "random"),
        ("Forgetron (self-tuned)", "forgetron"),
    ):
        fit(
            name,
            lambda p, policy=policy: KernelPerceptron(
                budget=budget, budget_policy=policy, random_state=seed, prediction=p, **common
            ),
            averages=False,
        )
    return rows


def _cell(value, fmt):
    return "–" if value is None else format(value, fmt)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="draws to average (default 1)")
    args = parser.parse_args(argv)
    runs = [run(seed) for seed in range(args.seeds)]
    print(
        f"DOGMA demo, {args.seeds} draw(s); ours | published. Errors in %, online = mistakes "
        "while training / 10,000"
    )
    print(
        f"{'learner':30} {'SVs':>12} {'online err':>14} {'test last':>10} "
        f"{'test avg':>14} {'fit s':>6}"
    )
    for name, published in PUBLISHED.items():
        values = np.array(
            [[np.nan if v is None else v for v in r[name]] for r in runs], dtype=float
        )
        with warnings.catch_warnings():  # the learners without an average: all NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            sv, online, last, averaged, seconds = np.nanmean(values, axis=0)
        averaged = None if np.isnan(averaged) else averaged
        print(
            f"{name:30} {sv:5.0f} | {_cell(published[0], '4d'):>4} "
            f"{100 * online:6.2f} | {_cell(published[1], '5.2f'):>5} "
            f"{100 * last:10.2f} "
            f"{_cell(None if averaged is None else 100 * averaged, '6.2f'):>6} | "
            f"{_cell(published[3], '5.2f'):>5} {seconds:6.2f}"
        )


if __name__ == "__main__":
    main()
