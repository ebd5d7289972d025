"""One playground run: every presentation of a training run, precomputed for the page.

The page never learns anything itself: it asks for a run (points, labels and
settings), gets back every step the package took, and only moves a cursor
through them. The steps come from the package's own training paths:

- ``online``, ``batch``, ``averaged``, ``voted``: :func:`rosenblatt.theory.trace.trace`,
  the engine's epoch with every activation and update recorded; the averaged
  weights and the vote after each presentation are the engine's record's
  (:class:`rosenblatt.engine.votes.VoteRecord`), the last average
  :class:`rosenblatt.AveragedPerceptron`'s;
- ``kernel``: :class:`rosenblatt.estimators.kernel.KernelPerceptron` with its update record,
  the orders its fit presented (:func:`rosenblatt.engine.orders.recorded_orders`)
  and :class:`rosenblatt.engine.dual.Kernel`'s values;
- the comparison panels (``compare``: up to :data:`MAX_PANELS` of
  :data:`COMPARE_ALGORITHMS`), each learner's own run on the same points in the same
  order, read the same way: the weights after every presentation (the last ones, or
  the engine record's average over the presentations so far), the vote and the
  kernel expansion as grids, and the mistakes so far;
- separability, margins, ``R`` and the bound: :mod:`rosenblatt.theory`; the notes'
  quadratic features: :func:`rosenblatt.theory.notes_feature_map`.

A run is capped (:data:`MAX_POINTS` points, :data:`MAX_PRESENTATIONS`
presentations), so no request takes more than a few seconds. Its settings are
checked as the estimators check their parameters (:data:`SETTING_CONSTRAINTS`);
the caps and bounds are served to the page (:func:`limits`), which checks a run
against them before asking for it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..._core.config import TEACHING_BIAS_INPUT
from ..._core.validation import Interval, Options, check_args
from ...theory.feature_maps import NOTES_FEATURE_NAMES, notes_feature_map
from .presets import VIEW

__all__ = [
    "ALGORITHMS",
    "COMPARE_ALGORITHMS",
    "MAX_EPOCHS",
    "MAX_PANELS",
    "MAX_POINTS",
    "MAX_PRESENTATIONS",
    "PAGE_EPOCHS",
    "SETTING_CONSTRAINTS",
    "PlaygroundError",
    "Settings",
    "limits",
    "page_epochs",
    "parse_request",
    "run_size",
    "run",
]

ALGORITHMS = ("online", "batch", "averaged", "voted", "kernel")
KERNELS = ("rbf", "poly")
MAX_POINTS = 2_000
#: points x epochs: the page gets every presentation, so this bounds the reply's size
MAX_PRESENTATIONS = 20_000
MAX_EPOCHS = 1_000
#: the epochs the page asks for, at most (it asks for fewer where the caps need it:
#: :func:`page_epochs`)
PAGE_EPOCHS = 100
#: a kernel run's reply holds every coefficient after every presentation (the support set
#: under a budget changes in ways no update log rebuilds): points x presentations at most
MAX_KERNEL_CELLS = 4_000_000
#: what the budget of a kernel run may be: 0 for none, else at most the points
BUDGET_POLICIES = ("stop", "random", "forgetron")
#: the highest degree of the polynomial kernel, and the highest seed (NumPy's seeds are 32-bit)
MAX_DEGREE = 10
MAX_SEED = 2**32 - 1
#: decision values per side of the grid drawn for curved boundaries
GRID_SIZE = 41
#: grids in one reply; between two of them the page shows the earlier
MAX_GRIDS = 200
FEATURES = ("x1", "x2")
#: the learners a comparison panel may run beside the page's own (``#compare``)
COMPARE_ALGORITHMS = ("perceptron", "averaged", "voted", "kernel", "budgeted-kernel")
#: the most panels beside the page's learner
MAX_PANELS = 4


def limits() -> dict:
    """The caps a run keeps, served to the page (``/api/presets``) so it checks the same.

    Examples
    --------
    >>> limits()["max_points"] == MAX_POINTS
    True
    """
    return {
        "max_points": MAX_POINTS,
        "max_presentations": MAX_PRESENTATIONS,
        "max_kernel_cells": MAX_KERNEL_CELLS,
        "max_epochs": MAX_EPOCHS,
        "max_degree": MAX_DEGREE,
        "max_seed": MAX_SEED,
        "max_panels": MAX_PANELS,
        "page_epochs": PAGE_EPOCHS,
    }


def page_epochs(n_points: int, settings: Settings) -> int:
    """The epochs the page asks for a run of ``n_points`` points (the page computes the
    same from :func:`limits`): :data:`PAGE_EPOCHS`, fewer where the presentations or the
    kernel runs' coefficients would pass their caps, at least one.

    Examples
    --------
    >>> page_epochs(4, Settings()), page_epochs(2000, Settings())
    (100, 10)
    >>> page_epochs(300, Settings(algorithm="kernel", compare=("kernel",)))
    22
    """
    most = min(PAGE_EPOCHS, MAX_EPOCHS)
    n = max(1, n_points)
    kernels = _kernel_runs(settings)
    if kernels:  # a kernel reply holds every coefficient after every presentation, per run
        most = min(most, MAX_KERNEL_CELLS // (n * n * kernels))
    return max(1, min(most, MAX_PRESENTATIONS // n))


class PlaygroundError(ValueError):
    """A request the playground refuses; the message says what to change."""


@dataclass(frozen=True)
class Settings:
    """What the page's controls set (see :func:`parse_request` for the checks)."""

    algorithm: str = "online"
    eta: float = 1.0
    bias: float = TEACHING_BIAS_INPUT
    shuffle: bool = False
    seed: int = 0
    feature_map: bool = False
    kernel: str = "rbf"
    gamma: float = 1.0
    degree: int = 2
    epochs: int = 100
    budget: int = 0  # kernel: the most support vectors kept (0: no budget)
    budget_policy: str = "stop"
    compare: tuple[str, ...] = ()  # the comparison panels' learners, in order


# ---------------------------------------------------------------------- the request
_POSITIVE = Interval(numbers.Real, 0, None, closed="neither")
_SIGN = Options((1, -1))  # a label, and the constant bias input

#: What each setting of a run request may be, declared as the estimators declare their
#: parameters; the bounds are :func:`limits`' (the page checks the same).
SETTING_CONSTRAINTS = {
    "algorithm": [Options(ALGORITHMS)],
    "eta": [_POSITIVE],
    "bias": [_SIGN],
    "seed": [Interval(numbers.Integral, 0, MAX_SEED)],
    "kernel": [Options(KERNELS)],
    "gamma": [_POSITIVE],
    "degree": [Interval(numbers.Integral, 1, MAX_DEGREE)],
    "epochs": [Interval(numbers.Integral, 1, MAX_EPOCHS)],
    "budget": [Interval(numbers.Integral, 0, MAX_POINTS)],
    "budget_policy": [Options(BUDGET_POLICIES)],
}


def _setting(value, default):
    """A setting as JSON gave it: JSON has one kind of number, so 2.0 is a whole 2."""
    if isinstance(default, int) and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _settings(payload) -> Settings:
    defaults = asdict(Settings())
    values = {
        name: _setting(payload.get(name, defaults[name]), defaults[name])
        for name in SETTING_CONSTRAINTS
    }
    try:  # the page's fields, never the command line's options, even under `rosenblatt`
        check_args("a playground run", SETTING_CONSTRAINTS, values, "setting")
    except ValueError as error:
        raise PlaygroundError(str(error)) from None
    return Settings(
        **{name: type(defaults[name])(value) for name, value in values.items()},
        shuffle=bool(payload.get("shuffle", False)),
        feature_map=bool(payload.get("feature_map", False)),
        compare=_compare(payload.get("compare", [])),
    )


def _compare(names) -> tuple[str, ...]:
    """The comparison panels asked for: a list of at most :data:`MAX_PANELS` names."""
    if not isinstance(names, list) or len(names) > MAX_PANELS:
        raise PlaygroundError(
            f"compare must be a list of at most {MAX_PANELS} learners; got {names!r:.80}."
        )
    for name in names:
        if name not in COMPARE_ALGORITHMS:
            raise PlaygroundError(
                f"compare: {name!r:.40} is no learner the playground compares; choose from "
                f"{', '.join(COMPARE_ALGORITHMS)}."
            )
    return tuple(names)


def _points(payload):
    points, labels = payload.get("points", []), payload.get("labels", [])
    if not isinstance(points, list) or not isinstance(labels, list):
        raise PlaygroundError("points and labels must be lists.")
    if len(points) > MAX_POINTS:
        raise PlaygroundError(
            f"{len(points)} points is more than the playground draws ({MAX_POINTS}); "
            "remove some points."
        )
    if len(points) != len(labels):
        raise PlaygroundError(f"{len(points)} points but {len(labels)} labels; give one each.")
    if not points:
        raise PlaygroundError("there are no points: click the plot to add some, or pick a preset.")
    for i, (point, label) in enumerate(zip(points, labels)):
        ok = isinstance(point, list) and len(point) == 2
        ok = ok and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in point)
        if not ok:
            raise PlaygroundError(f"point {i + 1} must be a pair of numbers; got {point!r}.")
        if not all(math.isfinite(v) for v in point):
            raise PlaygroundError(f"point {i + 1} has a non-finite coordinate: {point!r}.")
        if not _SIGN.accepts(label):
            raise PlaygroundError(f"label {i + 1} must be {_SIGN}; got {label!r}.")
    y = np.asarray(labels, dtype=np.float64)
    if np.unique(y).shape[0] < 2:
        raise PlaygroundError("all points are in one class: add a point of the other class.")
    return np.asarray(points, dtype=np.float64), y


def parse_request(payload: Any) -> tuple[np.ndarray, np.ndarray, Settings]:
    """Check a run request (parsed JSON) and return ``(X, y, settings)``.

    Raises
    ------
    PlaygroundError
        With a message for the page: what was wrong and what to do.

    Examples
    --------
    >>> from rosenblatt.apps.playground.runs import PlaygroundError, parse_request
    >>> X, y, s = parse_request({"points": [[0, 0], [1, 1]], "labels": [1, -1], "eta": 0.5})
    >>> X.shape, y.tolist(), s.eta, s.algorithm
    ((2, 2), [1.0, -1.0], 0.5, 'online')
    >>> try:
    ...     parse_request({"points": [[0, 0]], "labels": [1], "algorithm": "svm"})
    ... except PlaygroundError as error:
    ...     print(error)
    The 'algorithm' setting of a playground run must be one of 'online', 'batch', \
'averaged', 'voted', 'kernel'; got 'svm'.
    """
    if not isinstance(payload, dict):
        raise PlaygroundError("the request must be a JSON object.")
    settings = _settings(payload)
    X, y = _points(payload)
    presentations, cells = _work(X, settings)
    if presentations > MAX_PRESENTATIONS:
        raise PlaygroundError(
            f"{settings.epochs} epochs of {X.shape[0]} points is too long a run for the page "
            f"(at most {MAX_PRESENTATIONS} presentations, points times epochs); "
            "ask for fewer epochs."
        )
    if cells > MAX_KERNEL_CELLS:
        raise PlaygroundError(
            f"{settings.epochs} kernel epochs of {X.shape[0]} points is too large a run for the "
            f"page (it shows every coefficient after every presentation: at most "
            f"{MAX_KERNEL_CELLS} points squared times epochs); ask for fewer epochs or points."
        )
    return X, y, settings


def _kernel_runs(settings: Settings) -> int:
    """The kernel perceptrons a request trains: the page's learner and its panels'."""
    panels = sum(name.endswith("kernel") for name in settings.compare)
    return panels + (settings.algorithm == "kernel")


def _work(X: np.ndarray, settings: Settings) -> tuple[int, int]:
    """A run's presentations (points times epochs) and, for its kernel runs (the page's
    learner and the panels'), the coefficients its reply shows (points squared times
    epochs, per kernel run; 0 without one)."""
    n = X.shape[0]
    return n * settings.epochs, n * n * settings.epochs * _kernel_runs(settings)


def run_size(X: np.ndarray, settings: Settings) -> float:
    """How large a run is against the page's caps, 1 for the largest allowed.

    The larger of its presentations over :data:`MAX_PRESENTATIONS` and, for a kernel run,
    its coefficients over :data:`MAX_KERNEL_CELLS`.

    Examples
    --------
    >>> from rosenblatt.apps.playground.presets import preset
    >>> X, y = preset("or")
    >>> run_size(X, Settings(epochs=100)), run_size(X, Settings(algorithm="kernel", epochs=5))
    (0.02, 0.001)
    >>> run_size(X, Settings(algorithm="kernel", epochs=5, compare=("kernel",)))
    0.002
    """
    presentations, cells = _work(X, settings)
    return max(presentations / MAX_PRESENTATIONS, cells / MAX_KERNEL_CELLS)


# ---------------------------------------------------------------------- features
def _features(X: np.ndarray, settings: Settings) -> np.ndarray:
    """The points as the learners see them: the plane, or the notes' quadratic features."""
    return notes_feature_map(X) if settings.feature_map else X


def _grid_points():
    xs = np.linspace(VIEW[0], VIEW[1], GRID_SIZE)
    ys = np.linspace(VIEW[2], VIEW[3], GRID_SIZE)
    gx, gy = np.meshgrid(xs, ys)  # row j holds y_j: row-major from (x_min, y_min)
    return np.column_stack([gx.ravel(), gy.ravel()])


def _plain(values) -> list:
    """JSON lists, rounded to 6 decimals (the notes' integers stay exact, replies stay small)."""
    return np.round(np.asarray(values, dtype=np.float64), 6).tolist()


def _grids(cursors, values_at) -> dict:
    """Grids of decision values at the cursors where the model changed (at most
    :data:`MAX_GRIDS`, evenly spread, the last one always kept), each scaled to
    [-1, 1]. ``values_at(cursors)`` returns one row of values per cursor."""
    cursors = np.unique(np.asarray(cursors, dtype=np.int64))
    if cursors.shape[0] > MAX_GRIDS:
        keep = np.linspace(0, cursors.shape[0] - 1, MAX_GRIDS).round().astype(np.int64)
        cursors = cursors[np.unique(keep)]
    values = values_at(cursors)
    scale = np.max(np.abs(values), axis=1, keepdims=True)
    values = values / np.where(scale > 0, scale, 1.0)
    return {"size": GRID_SIZE, "at": cursors.tolist(), "values": np.round(values, 3).tolist()}


# ---------------------------------------------------------------------- theory
def _theory(Z, y, bias, plane: bool) -> dict:
    """Separability (LP), the three margins of :data:`rosenblatt.theory.MARGINS` (the
    separator's geometric ``margin``, the augmented ``gamma``, the ``normalized`` gamma/R),
    ``R`` and ``(R/gamma)^2``."""
    from ...exceptions import NumericOverflowError, SolverError
    from ...theory import is_linearly_separable, max_margin, mistake_bounds, radius

    separable = bool(is_linearly_separable(Z, y))
    out: dict[str, Any] = {
        "separable": separable,
        "margin": None,
        "gamma": None,
        "normalized": None,
        "bound": None,
    }
    # R and gamma as the bound needs them: of the patterns augmented with the bias input
    augmented = np.column_stack([Z, np.full(Z.shape[0], abs(bias))])
    out["R"] = radius(augmented)
    out["max_margin"] = None
    if separable:
        best = max_margin(Z, y)
        out["margin"] = float(best.margin)
        try:  # the bound's QP on (x, bias) can fail where the points are far from 1 in size
            bounds = mistake_bounds(Z, y, intercept_scaling=abs(bias))
            out["bound"] = float(bounds.novikoff)
            out["gamma"] = float(bounds.margin)
            out["normalized"] = float(bounds.unit_norm_margin)
        except (SolverError, NumericOverflowError) as error:
            out["bound_error"] = str(error)  # the run is still shown, without its bound
        if plane:
            out["max_margin"] = {
                "coef": best.coef.tolist(),
                "intercept": float(best.intercept),
                "margin": float(best.margin),
            }
    return out


# ---------------------------------------------------------------------- primal runs
def _cursor_weights(tr, n_rows):
    """The learner's augmented weights after each of 0..n_rows presentations."""
    if tr.mode == "online":
        return tr.weights
    # batch: the epoch's summed update lands after its last presentation
    done = np.arange(n_rows + 1) // (n_rows // tr.n_epochs)
    return tr.weights[done]


def _voters(record, n_rows, counted):
    """Each distinct weight vector in turn: the cursors it was current for (start..end-1)
    and its votes at the end, from the engine's record: one per presentation of the
    ``counted`` that VotedPerceptron counts (a converged run's skipped epochs too)."""
    from ...engine.votes import survival_counts

    time = record.updates(0)["time"]
    starts = np.r_[0, time + 1]
    ends = np.r_[starts[1:], n_rows + 1]
    return starts, ends, survival_counts(time, counted).astype(np.int64)


def _trace(Z, y, s: Settings, mode: str = "online"):
    """The engine's run of the perceptron on the page's points, every step recorded."""
    from ...theory.trace import trace

    return trace(
        Z,
        y,
        mode=mode,
        eta=s.eta,
        bias_input=s.bias,
        shuffle=s.shuffle,
        max_iter=s.epochs,
        random_state=s.seed,
    )


def _vote_grids(tr, G, cursors, counted=None):
    """The grids of the voted perceptron's vote over the points ``G`` at ``cursors`` (the
    engine's tally, :meth:`~rosenblatt.engine.votes.VoteRecord.tally`); the last cursor
    counts ``counted`` presentations when given (a converged run's skipped epochs)."""
    n_rows = tr.pattern.shape[0]

    def vote_grid(at):
        if counted is not None:
            at = np.where(at == n_rows, counted, at)
        point = np.tile(np.arange(G.shape[0]), at.shape[0])
        tally = tr.record.tally(0, G, point, np.repeat(at, G.shape[0]))
        return (tally[:, 0] - tally[:, 1]).reshape(at.shape[0], G.shape[0])

    return _grids(cursors, vote_grid)


def _epoch_ends(tr) -> list[int]:
    return (np.flatnonzero(np.diff(np.r_[tr.epoch, -1])) + 1).tolist()


def _primal(X, Z, y, s: Settings) -> dict:
    tr = _trace(Z, y, s, "batch" if s.algorithm == "batch" else "online")
    n_rows = tr.pattern.shape[0]
    frame = tr.to_frame()
    delta = frame[[c for c in frame.columns if c.startswith("dw_")]].to_numpy()
    weights = _cursor_weights(tr, n_rows)
    out = {
        "n_rows": n_rows,
        "epoch_ends": _epoch_ends(tr),
        "converged": tr.converged,
        "rows": {
            "pattern": tr.pattern.tolist(),
            "epoch": tr.epoch.tolist(),
            "activation": _plain(tr.activation),
            "updated": tr.updated.tolist(),
            "tx": _plain(tr.tx),
            "delta": _plain(delta),
        },
        "weights": _plain(weights),
        "averaged": None,
        "voted": None,
        "kernel": None,
        "grids": None,
    }
    Ga = np.column_stack(
        [
            _features(_grid_points(), s),
            np.full(GRID_SIZE**2, s.bias),
        ]
    )
    changed = np.r_[0, np.flatnonzero(np.any(weights[1:] != weights[:-1], axis=1)) + 1]
    if s.algorithm == "averaged":
        # the engine's average after each presentation; the last one is
        # AveragedPerceptron's (it counts the epochs a converged run skips)
        averaged = tr.averaged
        out["averaged"] = _plain(averaged)
        if s.feature_map:
            out["grids"] = _grids(np.arange(n_rows + 1), lambda c: averaged[c] @ Ga.T)
    elif s.algorithm == "voted":
        # after the last presentation the page shows VotedPerceptron's vote, which counts
        # the epochs a converged run skips as presentations of its last vector (the
        # engine's credit, as the trace reports it)
        counted = tr.counted
        cursors = np.arange(n_rows + 1)
        out["voted"] = {
            **_voted(tr, weights, n_rows, counted),
            # per row: the vote on its pattern of the weights after the presentations before it
            "tally": tr.record.tally(0, Z, tr.pattern, cursors[:-1]).tolist(),
        }
        G = _features(_grid_points(), s)
        out["grids"] = _vote_grids(tr, G, np.arange(1, n_rows + 1), counted)
    elif s.feature_map:
        out["grids"] = _grids(changed, lambda c: weights[c] @ Ga.T)
    return out


# ---------------------------------------------------------------------- the dual run
def _support_spells(coef: np.ndarray) -> list[list[int]]:
    """``[sample, start, end]``: sample ``j`` is a support vector after ``c`` presentations
    for ``start <= c < end`` (``coef[c, j] != 0``), one entry per unbroken spell; a spell
    that ends before the last cursor is a support vector a budget evicted."""
    member = np.vstack(
        [np.zeros((1, coef.shape[1]), bool), coef != 0.0, np.zeros((1, coef.shape[1]), bool)]
    )
    spells = []
    for j in range(coef.shape[1]):
        edges = np.flatnonzero(np.diff(member[:, j].astype(np.int8)))
        spells += [[j, int(a), int(b)] for a, b in zip(edges[::2], edges[1::2])]
    return sorted(spells, key=lambda spell: (spell[1], spell[0]))


def _dual(X, Z, y, s: Settings) -> dict:
    from ...engine.dual import Kernel, recorded_presentations
    from ...engine.orders import recorded_orders
    from ...estimators.kernel import KernelPerceptron

    n = Z.shape[0]
    clf = KernelPerceptron(
        kernel=s.kernel,
        gamma=s.gamma,
        degree=s.degree,
        eta=s.eta,
        max_iter=s.epochs,
        shuffle=s.shuffle,
        random_state=s.seed,
        prediction="last",
        budget=s.budget or None,
        budget_policy=s.budget_policy,
    )
    # a run that stops short warns as any fit does (`rosenblatt playground` filters that out,
    # the reply's note says it); no catch_warnings here: the server's threads run this at
    # once, and it swaps the process's warning filters, restored out of order
    with recorded_orders() as orders, recorded_presentations() as rec:
        clf.fit(Z, y)
    # what the engine presented, computed and learnt, presentation by presentation
    pattern = np.concatenate(orders)
    activation = np.concatenate([act[0] for act, _ in rec]) + 0.0  # y f(x); + 0.0: no -0.0
    coef = np.concatenate([np.zeros((1, n))] + [history[0] for _, history in rec])
    n_rows = pattern.shape[0]
    kernel = Kernel(s.kernel, gamma=clf.gamma_, coef0=clf.coef0, degree=s.degree)
    s2 = clf.intercept_scaling**2
    rows = np.arange(n_rows)
    changed = np.r_[0, np.flatnonzero(np.any(coef[1:] != coef[:-1], axis=1)) + 1]
    updated = np.zeros(n_rows, dtype=bool)
    updated[changed[1:] - 1] = True
    grid = kernel.values(_features(_grid_points(), s), Z) + s2
    return {
        "n_rows": n_rows,
        "epoch_ends": (n * np.arange(1, clf.n_iter_ + 1)).tolist(),
        "converged": bool(clf.converged_),
        "rows": {
            "pattern": pattern.tolist(),
            "epoch": (rows // n + 1).tolist(),
            "activation": _plain(activation),
            "updated": updated.tolist(),
            "tx": None,
            "delta": None,
        },
        "weights": None,
        "averaged": None,
        "voted": None,
        "kernel": {
            "support": _support_spells(coef),
            "budget": s.budget or None,
            "alpha": _plain(coef[rows + 1, pattern]),
        },
        "grids": _grids(changed, lambda c: coef[c] @ grid.T),
    }


# ---------------------------------------------------------------------- comparison panels
def _so_far(mistakes) -> list[int]:
    """Mistakes after each of 0..n presentations, from each presentation's mistake."""
    return np.r_[0, np.cumsum(np.asarray(mistakes, dtype=np.int64))].tolist()


def _linear_panel(name: str, tr, Z, s: Settings) -> dict:
    """A perceptron, averaged or voted panel, read off the one online run they share
    (they learn the same way; they differ in what they predict with)."""
    n_rows = tr.pattern.shape[0]
    at = np.arange(n_rows + 1)
    width = Z.shape[1]
    if name == "averaged":
        # the engine record's average over the presentations so far: after the
        # presentations of e epochs it is AveragedPerceptron(max_iter=e)'s
        W, w0 = tr.record.after(0, at, width, averaged=True)
        weights = np.column_stack([W, w0])
    else:  # the last weights; for the voted perceptron the vector in force, voting
        weights = tr.weights
    panel: dict[str, Any] = {
        "weights": _plain(weights),
        "grids": None,
        "support": None,
        "budget": None,
        "voted": None,
    }
    if name == "voted":  # the vote over the presentations so far
        panel["grids"] = _vote_grids(tr, _features(_grid_points(), s), np.arange(1, n_rows + 1))
        panel["voted"] = _voted(tr, weights, n_rows, n_rows)
    return panel


def _voted(tr, weights, n_rows, counted) -> dict:
    """Every weight vector the run passed through (``voters``: its weights ``w``, the
    cursors it was in force for, ``start`` to ``end - 1``, and its ``votes`` at the end) and,
    per cursor, the one in force and its votes so far (``current``): what the page draws
    the vote from, ``sign(sum_k c_k sign(w_k . x))``, at its own resolution."""
    starts, ends, votes = _voters(tr.record, n_rows, counted)
    cursors = np.arange(n_rows + 1)
    current, count = tr.record.in_force(0, np.r_[cursors[:-1], counted])
    return {
        "voters": [
            {"w": _plain(weights[a]), "start": int(a), "end": int(b), "votes": int(v)}
            for a, b, v in zip(starts, ends, votes)
        ],
        "current": np.column_stack([current, count]).tolist(),
    }


def _kernel_panel(X, Z, y, s: Settings, budget: int) -> dict:
    """A kernel perceptron's panel (``budget`` 0: none): its own run, as the page's
    kernel learner is run."""
    from dataclasses import replace

    out = _dual(X, Z, y, replace(s, algorithm="kernel", budget=budget))
    return {
        "n_rows": out["n_rows"],
        "epoch_ends": out["epoch_ends"],
        "converged": out["converged"],
        "pattern": out["rows"]["pattern"],
        # a budget that stops learning lets mistakes pass without an update: the
        # engine's own y f(x) <= 0 counts them
        "mistakes": _so_far(np.asarray(out["rows"]["activation"]) <= 0),
        "weights": None,
        "grids": out["grids"],
        "support": out["kernel"]["support"],
        "budget": out["kernel"]["budget"],
        "voted": None,
    }


def _panels(X, Z, y, s: Settings) -> list[dict]:
    """The comparison panels, in the order asked: each learner trained on the same points
    in the same order (the same shuffling seed), every value the engine's."""
    panels = []
    tr = None
    for name in s.compare:
        if name.endswith("kernel"):
            budget = 0
            if name == "budgeted-kernel":  # the page's budget, else half the points
                budget = s.budget or max(1, X.shape[0] // 2)
            panel = _kernel_panel(X, Z, y, s, budget)
        else:
            if tr is None:  # one online run for the linear learners
                tr = _trace(Z, y, s)
            panel = {
                "n_rows": int(tr.pattern.shape[0]),
                "epoch_ends": _epoch_ends(tr),
                "converged": tr.converged,
                "pattern": tr.pattern.tolist(),
                "mistakes": _so_far(tr.updated),
                **_linear_panel(name, tr, Z, s),
            }
        panels.append({"algorithm": name, **panel})
    return panels


# ---------------------------------------------------------------------- the run
def run(X: np.ndarray, y: np.ndarray, settings: Settings) -> dict:
    """Every presentation of one training run on the page's points, as JSON-ready data.

    Parameters
    ----------
    X : ndarray of shape (n_points, 2)
    y : ndarray of shape (n_points,)
        +1 / -1.
    settings : Settings

    Returns
    -------
    dict
        ``n_points``, ``view``, ``features``, ``theory``, ``n_rows``, ``epoch_ends``,
        ``converged``, ``rows``, ``weights``, ``averaged``, ``voted``, ``kernel``,
        ``grids``, ``panels``, ``note``: the fields the page reads (see the package's
        docs). Each of ``panels`` (one per learner of ``settings.compare``) holds
        ``algorithm``, ``n_rows``, ``epoch_ends``, ``converged``, ``pattern``,
        ``mistakes`` (after each of 0..n_rows presentations), ``weights`` (the
        augmented ``[w_1, ..., w_0]`` after each of them; None for a kernel),
        ``grids``, ``support`` and ``budget`` (kernels).

    Examples
    --------
    The lecture notes' modified OR example, bias input -1:

    >>> from rosenblatt.apps.playground.presets import preset
    >>> from rosenblatt.apps.playground.runs import Settings, run
    >>> X, y = preset("or")
    >>> out = run(X, y, Settings(algorithm="online", eta=1.0, bias=-1.0))
    >>> out["weights"][8], sum(out["rows"]["updated"]), out["theory"]["separable"]
    ([1.0, 1.0, -1.0], 3, True)

    The averaged perceptron beside it, after the 8 presentations of two epochs:

    >>> out = run(X, y, Settings(bias=-1.0, compare=("averaged",)))
    >>> out["panels"][0]["weights"][8], out["panels"][0]["mistakes"][8]
    ([1.0, 0.777778, -0.555556], 3)
    """
    Z = _features(X, settings)
    plane = not settings.feature_map
    if settings.algorithm == "kernel":
        out = _dual(X, Z, y, settings)
    else:
        out = _primal(X, Z, y, settings)
    out["theory"] = _theory(Z, y, settings.bias, plane)
    if settings.algorithm == "kernel":
        out["theory"]["bound"] = None  # the bound above is for the linear perceptron
    out["panels"] = _panels(X, Z, y, settings)
    out.update(
        n_points=int(X.shape[0]),
        view=list(VIEW),
        features=list(NOTES_FEATURE_NAMES if settings.feature_map else FEATURES),
        algorithm=settings.algorithm,
        eta=settings.eta,
        bias=settings.bias,
        note=None
        if out["converged"]
        else f"stopped after {len(out['epoch_ends'])} epochs without an error-free epoch",
    )
    return out
