"""A solver that fails raises SolverError (not RuntimeError); inspect and plot report it."""

import numpy as np
import pytest
from conftest import OR_X, OR_Y

import rosenblatt.theory as theory
from rosenblatt import Perceptron
from rosenblatt.apps.cli.inspection import inspect_data
from rosenblatt.apps.plot import plot_decision_boundary
from rosenblatt.theory import SolverError, _solvers

XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_T = np.array([-1.0, 1.0, 1.0, -1.0])


def test_solver_error_is_not_a_runtime_error():
    assert issubclass(SolverError, ArithmeticError)
    assert not issubclass(SolverError, RuntimeError)


def test_both_qp_solvers_failing_raises_solver_error():
    # an infeasible QP (XOR): HiGHS gives up, then Clarabel does
    with pytest.raises(SolverError, match="was not solved: HiGHS says .*rescale the features"):
        _solvers.hard_margin_qp(XOR_X, XOR_T, True)


def test_a_qp_answer_that_does_not_separate_raises_solver_error(monkeypatch):
    monkeypatch.setattr(_solvers, "interior_point_qp", lambda rows, *_: np.zeros(rows.shape[1]))
    with pytest.raises(SolverError, match="does not separate.*Rescale the features"):
        _solvers.hard_margin_qp(XOR_X, XOR_T, True)


class _Failed:
    status, message, x = 4, "Numerical difficulties encountered.", None


def test_the_separability_lp_failing_raises_solver_error(monkeypatch):
    import scipy.optimize

    monkeypatch.setattr(scipy.optimize, "linprog", lambda *args, **kwargs: _Failed())
    with pytest.raises(SolverError, match="LP was not solved \\(Numerical difficulties"):
        theory.is_linearly_separable(OR_X, OR_Y)


def _fail(*args, **kwargs):
    raise SolverError("the solver gave up; rescale the features")


def test_inspect_reports_a_solver_error_as_a_note(tmp_path, monkeypatch):
    data = tmp_path / "or.csv"
    data.write_text("".join(f"{a},{b},{t}\n" for (a, b), t in zip(OR_X, OR_Y)))
    monkeypatch.setattr(theory, "max_margin", _fail)
    (problem,) = inspect_data(data).problems
    assert problem.separable and problem.mistake_bound is None
    assert problem.note == "margin not computed: the solver gave up; rescale the features"
    monkeypatch.setattr(theory, "is_linearly_separable", _fail)
    (problem,) = inspect_data(data).problems
    assert problem.note.startswith("separability not decided: the solver gave up")


def test_the_boundary_plot_leaves_out_a_maximum_margin_it_cannot_solve(monkeypatch):
    model = Perceptron(shuffle=False).fit(OR_X, OR_Y)
    monkeypatch.setattr(theory, "max_margin", _fail)
    ax = plot_decision_boundary(model, OR_X, OR_Y)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert not any(label.startswith("maximum margin") for label in labels)
    assert "through the closest points (its geometric margin 0.707)" in labels
