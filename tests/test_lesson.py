"""A lesson to take home: `rosenblatt lesson` and the page's Lesson button write a notebook
that rebuilds the playground's state with the library, runs top to bottom in a fresh kernel
and gives the page's numbers."""

import json

import nbformat
import numpy as np
import pytest
from conftest import assert_one_line_error, run_cli
from rosenblatt.trace import trace

from rosenblatt.apps.playground.lesson import check_answer, lesson_notebook
from rosenblatt.apps.playground.presets import preset
from rosenblatt.apps.playground.runs import Settings, page_epochs, run

OR_TABLE = "a/a x_1 x_2 x_0 t\n1 -1 -1 -1 -1\n2 1 -1 -1 1\n3 -1 1 -1 1\n4 1 1 -1 1\n"


def _summary(nb):
    """The numbers the executed notebook printed in its "What the page showed" cell."""
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "numbers = {}" in c.source]
    (stream,) = [o for o in cell.outputs if o.output_type == "stream"]
    return json.loads(stream.text)


def test_the_lesson_runs_in_a_fresh_kernel_and_gives_the_pages_numbers():
    """One notebook executed (nbclient, a fresh ipykernel): the page's averaged learner with
    perceptron, voted and kernel panels on the notes' OR, at the page's cursor 6."""
    nbclient = pytest.importorskip("nbclient", reason="the dev extras run notebooks (nbclient)")
    X, y = preset("or")
    settings = Settings(
        algorithm="averaged", bias=-1.0, compare=("perceptron", "voted", "kernel"), epochs=100
    )
    cursor = 6
    nb = lesson_notebook(X, y, settings, cursor=cursor, exercises=True, title="OR")
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    numbers = _summary(nb)
    page = run(X, y, settings)  # what the page is sent for the same request
    assert numbers["page"] == {
        "weights": page["weights"][cursor],
        "mistakes": sum(page["rows"]["updated"][:cursor]),
        "averaged": page["averaged"][cursor],
    }
    # Algorithm 7 at cursor 6: w_0 .. w_6 = 0, (1,1,1), (2,0,0), then (1,1,-1) four times
    assert numbers["page"]["averaged"] == [1.0, round(5 / 7, 6), round(-3 / 7, 6)]
    for k, panel in enumerate(page["panels"], start=1):
        shown = numbers[f"panel {k}: {panel['algorithm']}"]
        c = min(cursor, panel["n_rows"])
        assert shown == {
            "weights": panel["weights"] and panel["weights"][c],
            "mistakes": panel["mistakes"][c],
        }, panel["algorithm"]
    # every exercise cell asks, and the library answers (no answer given yet)
    answers = [o.text for c in nb.cells if "check_answer(online" in c.source for o in c.outputs]
    assert len(answers) == 8 and all("no answer yet" in text for text in answers)
    assert "the separator's geometric margin: 0.707107" in json.dumps(nb.cells[3].outputs)
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1  # the four learners side by side, in one figure


def test_check_answer_is_the_pages_verdict():
    tr = trace([[-1, -1], [1, -1], [-1, 1], [1, 1]], [-1, 1, 1, 1])
    assert check_answer(tr, 2, [2, 0, 0]).startswith("right: w = (2, 0, 0). t w.x = -1 <= 0")
    assert check_answer(tr, 2, "2 0 0".split()).startswith("right")
    assert check_answer(tr, 3, [0, 0, 0]).startswith("not quite: w after presentation 3 is")
    assert check_answer(tr, 3, [1, 1]) == "give the 3 numbers of w (w_1, ..., w_0); got 2."
    with pytest.raises(ValueError, match="presentation must be from 1 to 8; got 9"):
        check_answer(tr, 9, [1, 1, 1])


def test_rosenblatt_lesson_writes_a_valid_notebook_of_a_preset(tmp_path):
    out = tmp_path / "xor.ipynb"
    result = run_cli("lesson", "--out", out, "--preset", "xor", "--compare", "averaged,voted")
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and f"wrote the lesson to {out}" in result.stderr
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    source = "\n".join(c.source for c in nb.cells)
    assert "X = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])" in source
    assert "y = np.array([-1, 1, 1, -1])" in source
    epochs = page_epochs(4, Settings())
    assert f"ETA, BIAS, SHUFFLE, SEED, EPOCHS = 1.0, -1.0, False, 0, {epochs}" in source
    assert "AveragedPerceptron(eta=ETA" in source and "VotedPerceptron(eta=ETA" in source
    assert "check_answer" not in source.split("import check_answer")[1]  # no --exercises


def test_rosenblatt_lesson_reads_a_students_file_as_the_page_does(tmp_path):
    data = tmp_path / "notes.txt"
    data.write_text(OR_TABLE)
    out = tmp_path / "mine.ipynb"
    assert run_cli("lesson", "--out", out, "--data", data, "--exercises").exit_code == 0
    source = "\n".join(c.source for c in nbformat.read(out, as_version=4).cells)
    assert "y = np.array([-1, 1, 1, 1])" in source and "check_answer(online, 8, answer)" in source
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,label\n1,2,a\n3,x,b\n")
    assert_one_line_error(
        run_cli("lesson", "--out", out, "--data", bad), "bad.csv, line 3, column 'x2': 'x' is not"
    )
    for args, fragment in (
        (("--preset", "nope"), "unknown --preset 'nope'"),
        (("--compare", "svm"), "'svm' is no learner a lesson compares"),
        (("--preset", "or", "--data", data), "give --preset or --data, not both"),
    ):
        assert_one_line_error(run_cli("lesson", "--out", out, *args), fragment)
    assert_one_line_error(run_cli("lesson", "--out", tmp_path / "x.txt"), "give a .ipynb path")


def test_lesson_notebooks_refuse_points_they_cannot_draw():
    with pytest.raises(ValueError, match="points of two coordinates"):
        lesson_notebook(np.zeros((3, 3)), [1, -1, 1])


def test_a_missing_data_file_is_one_line(tmp_path):
    result = run_cli("lesson", "--out", tmp_path / "x.ipynb", "--data", tmp_path / "none.csv")
    assert_one_line_error(result, "none.csv")
    assert not (tmp_path / "x.ipynb").exists()
