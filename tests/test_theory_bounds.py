"""rosenblatt.theory.mistake_bounds: Block-Novikoff, the notes' beta / gamma^2, unit norm."""

import numpy as np
import pytest
from conftest import OR_X, OR_Y, PROPERTY
from hypothesis import given
from hypothesis import strategies as st
from test_theory import separable_problems

from rosenblatt import Perceptron
from rosenblatt.exceptions import NotSeparableError
from rosenblatt.theory import MistakeBounds, max_margin, mistake_bound, mistake_bounds

# seed 003's modified OR patterns (x1, x2, x0) with the threshold input x0 = -1
NOTES_OR = np.array([[-1, -1, -1], [1, -1, -1], [-1, 1, -1], [1, 1, -1]], dtype=float)


def test_the_notes_modified_or_problem():
    beta = 4 * (1 + 1 + 1)  # every pattern (±1, ±1, ∓1) has squared norm 3
    bounds = mistake_bounds(OR_X, OR_Y)
    assert isinstance(bounds, MistakeBounds)
    assert bounds.beta == beta
    assert bounds.radius == pytest.approx(np.sqrt(3))
    assert bounds.margin == pytest.approx(1 / np.sqrt(3))  # w = (1, 1, 1) / sqrt(3)
    # (R / gamma)^2 = 3 * 3, beta / gamma^2 = 12 * 3, 1 / (gamma / R)^2 = 9
    assert (bounds.novikoff, bounds.notes, bounds.unit_norm) == (9.0, 36.0, 9.0)
    assert bounds.novikoff == mistake_bound(OR_X, OR_Y)
    # the notes' run, with their input -1, in their order: 3 updates
    notes_run = Perceptron(intercept_scaling=-1, shuffle=False, tol=None).fit(OR_X, OR_Y)
    assert notes_run.n_mistakes_ == 3 <= bounds.novikoff <= bounds.notes
    # the patterns as the notes write them, learnt through the origin: the same bounds
    written = mistake_bounds(NOTES_OR, OR_Y, fit_intercept=False)
    assert (written.beta, written.novikoff, written.notes) == (12.0, 9.0, 36.0)


def test_hand_examples_and_rounding():
    pair = [[1.0, 0.0], [-1.0, 0.0]]
    through_origin = mistake_bounds(pair, [1, -1], fit_intercept=False)
    # R = gamma = 1, beta = 1 + 1
    assert (through_origin.novikoff, through_origin.beta, through_origin.notes) == (1.0, 2.0, 2.0)
    augmented = mistake_bounds(pair, [1, -1])  # (±1, 0, 1): R^2 = 2, beta = 4, gamma = 1
    assert (augmented.novikoff, augmented.beta, augmented.notes) == (2.0, 4.0, 4.0)
    # s = 2: R^2 = 6, gamma = 2/3, beta = 24; 13.5 is rounded up, 54 is exact
    scaled = mistake_bounds(OR_X, OR_Y, intercept_scaling=2.0)
    assert 13.5 <= scaled.novikoff <= 13.5 * (1 + 2e-9)
    assert scaled.novikoff == mistake_bound(OR_X, OR_Y, intercept_scaling=2.0)
    assert scaled.beta == 24.0 and scaled.notes == 54.0


def test_inseparable_data_and_bad_arguments_raise():
    xor = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    with pytest.raises(NotSeparableError, match="mistake_bounds"):
        mistake_bounds(xor, [0, 1, 1, 0])
    with pytest.raises(NotSeparableError, match="through the origin"):
        mistake_bounds([[1.0], [2.0]], [0, 1], fit_intercept=False)
    with pytest.raises(ValueError, match="intercept_scaling"):
        mistake_bounds(OR_X, OR_Y, intercept_scaling=-1.0)


@PROPERTY
@given(st.data(), st.booleans(), st.sampled_from([0.5, 1.0, 3.0]))
def test_updates_never_exceed_novikoff_which_never_exceeds_the_notes(data, fit_intercept, s):
    X, y = data.draw(separable_problems(fit_intercept=fit_intercept))
    bounds = mistake_bounds(X, y, fit_intercept=fit_intercept, intercept_scaling=s)
    assert bounds.novikoff == mistake_bound(X, y, fit_intercept=fit_intercept, intercept_scaling=s)
    assert bounds.novikoff <= bounds.notes and bounds.unit_norm == bounds.novikoff
    # the ingredients, by hand, on the patterns the perceptron learns from
    patterns = np.hstack([X, np.full((len(y), 1), s)]) if fit_intercept else X
    norms = np.sum(patterns**2, axis=1)
    assert bounds.radius == pytest.approx(np.sqrt(norms.max()), rel=1e-12)
    assert bounds.beta == pytest.approx(norms.sum(), rel=1e-12)
    assert bounds.notes == pytest.approx(bounds.beta / bounds.margin**2, rel=1e-6)
    # scaled into the unit ball, the patterns' margin is gamma / R: 1 / gamma^2 is the bound
    unit = max_margin(patterns / bounds.radius, y, fit_intercept=False).margin
    assert 1 / unit**2 == pytest.approx(bounds.unit_norm, rel=1e-6)
    order = np.array(data.draw(st.permutations(range(len(y)))))
    seed = data.draw(st.integers(0, 2**16))
    epochs = int(bounds.novikoff) + 2  # each epoch before the last updates at least once
    for eta in (0.1, 1.0, 7.5):
        for shuffle, rows in ((False, order), (False, order[::-1]), (True, order)):
            clf = Perceptron(
                eta=eta,
                fit_intercept=fit_intercept,
                intercept_scaling=s,
                shuffle=shuffle,
                random_state=seed,
                tol=None,
                max_iter=epochs,
            ).fit(X[rows], y[rows])
            assert clf.converged_
            assert clf.n_mistakes_ <= bounds.novikoff <= bounds.notes
