"""examples/lecture.py walks the notes in order, and every slide shows the notes' numbers."""

from conftest import load_example


def test_the_lecture_runs_and_shows_the_notes_numbers(capsys):
    slides = load_example("lecture").main()
    printed = capsys.readouterr().out
    titles = [line for line in printed.splitlines() if line.startswith("--- ")]
    assert [t.split()[1] for t in titles] == [f"{k}." for k in range(1, 10)]
    # seed 003's modified OR: (1, 1, -1) after 3 updates online, (2, 2, -2) in batch mode
    assert slides["traces"] == {
        "online": [1.0, 1.0, -1.0],
        "batch": [2.0, 2.0, -2.0],
        "online_updates": 3,
    }
    assert "  1    0    0    0     1     1     1      0     YES     1     1     1" in printed
    assert slides["bounds"] == {"novikoff": 9.0, "notes": 36.0, "unit_norm": 9.0}
    assert slides["separability"] == {"or": True, "xor": False}
    assert slides["feature_map"] == {"separable": True, "accuracy": 1.0}
    assert slides["centroid"]["accuracy"] == 1.0
    assert slides["kernel"] == {"accuracy": 1.0, "converged": True}
    averaging = slides["averaging"]
    assert averaging["AveragedPerceptron"] > averaging["Perceptron"]  # the average does not jump
    assert averaging["VotedPerceptron"] > averaging["Perceptron"]
    assert slides["losses"]["logistic"][2] == 1.0  # log base 2: 1 at z = 0
    assert "the perceptron loss is not" in printed
