"""The Block-Novikoff mistake bound, checked on data with a known margin.

For each margin ``gamma`` we draw points uniformly in the square [-1, 1]^2,
keep those at least ``gamma`` away from a random line, label them by its side,
and train the library's Perceptron in the given order and shuffled. The number
of updates it makes never exceeds ``(R / gamma*)^2``, where ``R`` and the
largest margin ``gamma*`` are those of the patterns as the perceptron sees
them: augmented with the constant input 1 of its intercept.

Run with ``python examples/mistake_bound.py``.
"""

import numpy as np

from rosenblatt import Perceptron
from rosenblatt.theory import max_margin, mistake_bound, radius


def separable_data(gamma, n_samples=200, n_features=2, seed=0):
    """Points at distance >= gamma from a random hyperplane, labelled by its side."""
    rng = np.random.default_rng(seed)
    normal = rng.normal(size=n_features)
    normal /= np.linalg.norm(normal)
    offset = rng.uniform(-0.3, 0.3)
    X = np.empty((0, n_features))
    while X.shape[0] < n_samples:  # rejection sampling
        candidates = rng.uniform(-1, 1, size=(4 * n_samples, n_features))
        X = np.vstack([X, candidates[np.abs(candidates @ normal + offset) >= gamma]])
    X = X[:n_samples]
    return X, np.where(X @ normal + offset > 0, 1, -1)


def main(gammas=(0.5, 0.2, 0.1, 0.05, 0.02, 0.01), seed=0):
    """Print the table; return its rows as dicts."""
    rows = []
    for k, gamma in enumerate(gammas):
        X, y = separable_data(gamma, seed=seed + k)
        augmented = np.hstack([X, np.ones((X.shape[0], 1))])  # intercept_scaling = 1
        R = radius(augmented)
        gamma_star = max_margin(augmented, y, fit_intercept=False).margin
        bound = mistake_bound(X, y)
        in_order = Perceptron(shuffle=False, max_iter=100_000).fit(X, y).n_mistakes_
        shuffled = Perceptron(shuffle=True, random_state=seed, max_iter=100_000).fit(X, y)
        rows.append(
            dict(
                gamma=gamma,
                R=R,
                gamma_star=gamma_star,
                bound=bound,
                mistakes=in_order,
                mistakes_shuffled=shuffled.n_mistakes_,
                ok=max(in_order, shuffled.n_mistakes_) <= bound,
            )
        )
    header = (
        f"{'gamma':>7} {'R':>6} {'gamma*':>8} {'(R/gamma*)^2':>13} {'mistakes':>9} "
        f"{'shuffled':>9}  ok"
    )
    print(header)
    for r in rows:
        print(
            f"{r['gamma']:>7.3f} {r['R']:>6.3f} {r['gamma_star']:>8.4f} {r['bound']:>13.1f} "
            f"{r['mistakes']:>9d} {r['mistakes_shuffled']:>9d}  {'yes' if r['ok'] else 'NO'}"
        )
    return rows


if __name__ == "__main__":
    main()
