"""examples/mistake_bound.py runs and every row obeys the Block-Novikoff bound."""

import numpy as np
from conftest import load_example


def test_every_row_respects_the_mistake_bound(capsys):
    example = load_example("mistake_bound")
    rows = example.main()
    printed = capsys.readouterr().out.splitlines()
    assert len(rows) == 6 and len(printed) == 1 + len(rows)
    for row, line in zip(rows, printed[1:]):
        assert row["mistakes"] <= row["bound"]
        assert row["mistakes_shuffled"] <= row["bound"]
        assert row["ok"] and line.rstrip().endswith("yes")
        assert row["bound"] >= (row["R"] / row["gamma_star"]) ** 2
        # the construction's margin, seen in augmented space, bounds gamma* from below
        assert row["gamma_star"] >= row["gamma"] / np.sqrt(1 + 0.3**2) - 1e-9


def test_generated_data_has_the_requested_margin():
    example = load_example("mistake_bound")
    X, y = example.separable_data(0.1, n_samples=50, seed=4)
    assert X.shape == (50, 2) and set(np.unique(y)) == {-1, 1}
    from rosenblatt.theory import max_margin

    assert max_margin(X, y).margin >= 0.1 - 1e-9
