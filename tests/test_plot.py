"""rosenblatt.plot and rosenblatt.report: headless figures, GIF animations, one HTML page."""

import base64
import re

import matplotlib.image
import numpy as np
import pytest
from PIL import Image

from rosenblatt import Perceptron
from rosenblatt.baselines import CentroidClassifier
from rosenblatt.kernel import KernelPerceptron
from rosenblatt.plot import (
    animate_training,
    new_figure,
    plot_decision_boundary,
    plot_mistakes,
    plot_scores,
    save_figure,
)
from rosenblatt.report import ReportFigure, ReportTable, render_report, write_report

OR_X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=float)
OR_Y = np.array([-1, 1, 1, 1])
XOR_X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
XOR_Y = np.array([0, 1, 1, 0])


def legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_decision_boundary_png_has_the_requested_size(tmp_path):
    fig, ax = new_figure(5, 4)
    plot_decision_boundary(Perceptron(shuffle=False).fit(OR_X, OR_Y), OR_X, OR_Y, ax=ax)
    path = save_figure(fig, tmp_path / "or.png", dpi=60)
    assert matplotlib.image.imread(path).shape[:2] == (240, 300)  # (height, width) = size * dpi


def test_margin_lines_on_separable_data(tmp_path):
    ax = plot_decision_boundary(Perceptron(shuffle=False).fit(OR_X, OR_Y), OR_X, OR_Y)
    texts = legend_texts(ax)
    # the perceptron's w = (1, 1), b = 1: closest points at |f| = 1, margin 1/sqrt(2)
    assert "through the closest points (margin 0.707)" in texts
    assert "maximum margin (γ = 0.707)" in texts
    path = save_figure(ax.figure, tmp_path / "or.svg")
    assert "<svg" in open(path, encoding="utf-8").read(2000)


def test_no_margin_on_inseparable_data_but_a_curved_kernel_boundary():
    kernel = KernelPerceptron(random_state=0).fit(XOR_X, XOR_Y)
    ax = plot_decision_boundary(kernel, XOR_X, XOR_Y)
    assert not any("margin" in t for t in legend_texts(ax))
    assert ax.collections  # filled regions and the zero-level contour


def test_multiclass_regions_and_wrong_dimension():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(10, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 10)
    ax = plot_decision_boundary(CentroidClassifier().fit(X, y), X, y)
    assert legend_texts(ax)[-3:] == ["class a", "class b", "class c"]
    with pytest.raises(ValueError, match="draws 2-D data; got X of shape"):
        plot_decision_boundary(CentroidClassifier().fit(np.c_[X, X], y), np.c_[X, X], y)


def test_mistakes_plot_draws_the_history(tmp_path):
    model = Perceptron(mode="batch", shuffle=False).fit(OR_X, OR_Y)
    ax = plot_mistakes(model)
    assert ax.lines[0].get_ydata().tolist() == model.mistakes_per_epoch_ == [4, 0]
    with pytest.raises(ValueError, match="no mistakes_per_epoch_"):
        plot_mistakes(CentroidClassifier().fit(OR_X, OR_Y))
    with pytest.raises(ValueError, match=r"\.png, \.svg, \.pdf or \.jpg"):
        save_figure(ax.figure, tmp_path / "m.tiff")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_scores_plot():
    ax = plot_scores(["OR", "XOR"], ["p", "k"], [[1.0, 1.0], [0.5, np.nan]])
    assert [round(p.get_height(), 2) for p in ax.patches] == [1.0, 0.5, 1.0, 0.0]


@pytest.mark.parametrize("mode, frames", [("online", 4), ("batch", 2)])
def test_training_animation_has_a_frame_per_update(tmp_path, mode, frames):
    path = tmp_path / f"{mode}.gif"
    tr = animate_training(OR_X, OR_Y, path, mode=mode, bias_input=-1.0, dpi=40)
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == frames  # the start + one per weight change (3 online, 1 batch)
        assert gif.size == (260, 180)  # 6.5 x 4.5 inches at 40 dpi
    assert tr.n_updates == (3 if mode == "online" else 4)


def test_long_training_animation_is_thinned(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.2 * X[:, 1] > 0, 1, -1)
    path = tmp_path / "long.gif"
    tr = animate_training(X, y, path, max_frames=6, dpi=30)
    assert tr.n_updates > 6
    with Image.open(path) as gif:
        assert 2 <= gif.n_frames <= 6
    with pytest.raises(ValueError, match="give a .gif path"):
        animate_training(X, y, tmp_path / "long.png")


def test_report_embeds_every_image_as_a_data_uri(tmp_path):
    fig, ax = new_figure(3, 2)
    png = save_figure(fig, tmp_path / "a.png", dpi=40)
    svg = save_figure(fig, tmp_path / "b.svg")
    gif = tmp_path / "c.gif"
    animate_training(OR_X, OR_Y, gif, dpi=30)
    table = ReportTable(
        "Scores", ["model", "acc"], [["<Perceptron>", "1.000"]], text_columns=("model",)
    )
    figures = [
        ReportFigure("PNG", png, "a png"),
        ReportFigure("SVG", svg),
        ReportFigure("GIF & co", str(gif)),
    ]
    path = write_report(tmp_path / "report.html", "Report", [table], figures, intro="x < y")
    page = open(path, encoding="utf-8").read()
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == 3 and all(s.startswith("data:image/") for s in sources)
    assert not re.search(r'(href|src)="(https?:|//|file:)', page)
    assert sources[0].startswith("data:image/png;base64,")
    assert base64.b64decode(sources[2].split(",", 1)[1]) == gif.read_bytes()
    assert "&lt;Perceptron&gt;" in page and "x &lt; y" in page and "GIF &amp; co" in page
    with pytest.raises(ValueError, match="Cannot embed"):
        render_report("bad", figures=[ReportFigure("pdf", str(tmp_path / "x.pdf"))])
