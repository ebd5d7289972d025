"""The playground's starting point sets, all inside the plot's view box.

Each preset is a small two-class problem that shows one idea of the course:
the lecture notes' modified OR (Rosenblatt's worked example), AND, XOR (not
linearly separable), two Gaussian blobs, two moons, and a separable set whose
margin is tiny (many mistakes before convergence, a large mistake bound).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PRESETS", "VIEW", "preset", "presets"]

#: The plot's box ``[x_min, x_max, y_min, y_max]``: points live inside it.
VIEW = (-3.0, 3.0, -3.0, 3.0)

_CORNERS = [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]

#: name -> title, shown in the page's preset list
PRESETS = {
    "or": "Modified OR (the lecture notes' worked example)",
    "and": "AND",
    "xor": "XOR (not linearly separable)",
    "blobs": "Two Gaussian blobs",
    "moons": "Two moons",
    "tiny-margin": "Separable with a tiny margin",
}


def _blobs():
    rng = np.random.default_rng(3)
    plus = rng.normal([1.0, 1.0], 0.55, size=(20, 2))
    minus = rng.normal([-1.0, -0.8], 0.55, size=(20, 2))
    return np.vstack([plus, minus]), np.r_[np.ones(20), -np.ones(20)]


def _moons():
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=60, noise=0.08, random_state=2)
    # scikit-learn's moons span about [-1, 2] x [-0.5, 1]: centre and enlarge them
    X = (X - [0.5, 0.25]) * 1.6
    return X, np.where(y == 1, 1.0, -1.0)


def _tiny_margin():
    rng = np.random.default_rng(5)
    # two bands either side of the line x2 = 0.4 x1, 0.06 apart at the closest
    along = rng.uniform(-2.5, 2.5, size=24)
    offset = np.r_[rng.uniform(0.03, 1.2, size=12), -rng.uniform(0.03, 1.2, size=12)]
    offset[0], offset[12] = 0.03, -0.03
    X = np.column_stack([along, 0.4 * along + offset])
    return X, np.sign(offset)


def preset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Points ``X`` (n, 2) and labels ``y`` (+1/-1) of a preset.

    Parameters
    ----------
    name : str
        One of :data:`PRESETS`.

    Returns
    -------
    X : ndarray of shape (n_points, 2)
    y : ndarray of shape (n_points,)

    Examples
    --------
    >>> from rosenblatt.apps.playground.presets import preset
    >>> X, y = preset("or")
    >>> X.tolist(), y.tolist()
    ([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]], [-1.0, 1.0, 1.0, 1.0])
    """
    if name == "or":
        return np.array(_CORNERS), np.array([-1.0, 1.0, 1.0, 1.0])
    if name == "and":
        return np.array(_CORNERS), np.array([-1.0, -1.0, -1.0, 1.0])
    if name == "xor":
        return np.array(_CORNERS), np.array([-1.0, 1.0, 1.0, -1.0])
    if name == "blobs":
        X, y = _blobs()
    elif name == "moons":
        X, y = _moons()
    elif name == "tiny-margin":
        X, y = _tiny_margin()
    else:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return np.round(np.clip(X, VIEW[0] + 0.1, VIEW[1] - 0.1), 2), y


def presets() -> dict:
    """Every preset as JSON-ready lists, with the view box (the page's ``/api/presets``)."""
    out = {}
    for name, title in PRESETS.items():
        X, y = preset(name)
        out[name] = {"title": title, "points": X.tolist(), "labels": y.astype(int).tolist()}
    return {"view": list(VIEW), "presets": out}
