"""rosenblatt.apps.plot and rosenblatt.apps.report: headless figures, GIF animations, HTML."""

import base64
import re

import matplotlib.image
import numpy as np
import pytest
from conftest import OR_X, OR_Y, assert_one_line_error, fit_quiet, run_cli
from matplotlib.text import Text
from PIL import Image, ImageSequence
from rosenblatt.trace import trace
from typer.testing import CliRunner

from rosenblatt import Perceptron
from rosenblatt.apps.cli import app
from rosenblatt.apps.plot import (
    ANIMATION_SIZE,
    animate_training,
    new_figure,
    pixel_figure_size,
    plot_decision_boundary,
    plot_losses,
    plot_mistakes,
    plot_scores,
    plot_training_step,
    save_figure,
)
from rosenblatt.apps.report import ReportFigure, ReportTable, render_report, write_report
from rosenblatt.estimators.baselines import CentroidClassifier
from rosenblatt.estimators.kernel import KernelPerceptron
from rosenblatt.theory import LOSSES, max_margin

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
    # the perceptron's w = (1, 1), b = 1: closest points at |f| = 1, margin 1/sqrt(2); the
    # geometric margin of a separator w . x + b, not the augmented gamma of the bound
    assert texts[0] == "Perceptron boundary (last weights)"
    assert "through the closest points (its geometric margin 0.707)" in texts
    assert "maximum-margin line (geometric margin 0.707)" in texts
    assert ax.get_title() == "Perceptron: decision boundary"  # separable: nothing more
    path = save_figure(ax.figure, tmp_path / "or.svg")
    assert "<svg" in open(path, encoding="utf-8").read(2000)


def test_no_margin_on_inseparable_data_but_a_curved_kernel_boundary():
    kernel = KernelPerceptron(random_state=0).fit(XOR_X, XOR_Y)
    ax = plot_decision_boundary(kernel, XOR_X, XOR_Y)
    assert not any("margin" in t for t in legend_texts(ax))
    assert ax.collections  # filled regions and the zero-level contour


XOR_CSV = "x1,x2,label\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,-1\n"


def test_xor_plot_says_it_is_not_separable_and_names_only_what_it_draws(tmp_path):
    """No line separates XOR: the title says so and that the perceptron did not converge;
    its last weights predict one class over the whole plot, so no boundary is drawn and the
    legend says that instead of naming a line; both classes' points are there."""
    data = tmp_path / "xor.csv"
    data.write_text(XOR_CSV)
    X, y = XOR_X * 2 - 1, np.array([-1, 1, 1, -1])
    model = fit_quiet(Perceptron(random_state=0), X, y)  # what `rosenblatt plot` trains
    ax = plot_decision_boundary(model, X, y)
    assert ax.get_title() == (
        f"Perceptron: decision boundary\nnot linearly separable: no convergence in "
        f"{model.n_iter_} epochs"
    )
    assert not model.converged_
    assert not [c for c in ax.collections if c.get_gid() == "decision boundary"]
    assert legend_texts(ax) == [
        "Perceptron: class -1 everywhere (no boundary in view)",
        "class -1 (t = −1, orange square)",
        "class 1 (t = +1, blue circle)",
    ]
    # the command line draws the same
    out = tmp_path / "xor.png"
    assert run_cli("plot", data, "-o", out).exit_code == 0
    pixels = np.asarray(Image.open(out).convert("RGB")).reshape(-1, 3)
    for color in ("#0072B2", "#D55E00"):  # both classes' points, in their colours
        rgb = [int(color[k : k + 2], 16) for k in (1, 3, 5)]
        assert (pixels == rgb).all(axis=1).sum() > 30, color


def test_an_averaged_model_on_xor_draws_the_boundary_it_names():
    from rosenblatt import AveragedPerceptron

    X, y = XOR_X * 2 - 1, np.array([-1, 1, 1, -1])
    model = fit_quiet(AveragedPerceptron(shuffle=False, max_iter=3, tol=None), X, y)
    ax = plot_decision_boundary(model, X, y)
    drawn = [c for c in ax.collections if c.get_gid() == "decision boundary"]
    assert (
        len(drawn) == 1 and legend_texts(ax)[0] == "AveragedPerceptron boundary (averaged weights)"
    )
    assert ax.get_title().endswith("not linearly separable: no convergence in 3 epochs")


def test_plot_colours_each_class_as_the_playground_does(tmp_path):
    """One picture language: class +1 a blue circle, class -1 an orange square, their regions
    tinted in the same colours (the palette the playground is served)."""
    from rosenblatt.apps.palette import REGION_ALPHA, palette_json

    palette = palette_json()
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,1\n")
    out = tmp_path / "or.png"
    assert run_cli("plot", data, "-o", out).exit_code == 0
    pixels = np.asarray(Image.open(out).convert("RGB")).reshape(-1, 3).astype(int)
    for name, count in (("positive", 3), ("negative", 1)):
        rgb = np.array([int(palette[name]["color"][k : k + 2], 16) for k in (1, 3, 5)])
        assert (pixels == rgb).all(axis=1).sum() > 30 * count, name
        tint = np.round(255 * (1 - REGION_ALPHA) + rgb * REGION_ALPHA)  # its region, on white
        assert (np.abs(pixels - tint) <= 2).all(axis=1).sum() > 5_000, name
    ax = plot_decision_boundary(Perceptron(shuffle=False).fit(OR_X, OR_Y), OR_X, OR_Y)
    points = [c for c in ax.collections if c.get_label().startswith("class")]
    colors = [tuple(np.round(c.get_facecolor()[0][:3] * 255).astype(int)) for c in points]
    assert colors == [(213, 94, 0), (0, 114, 178)]  # class -1, class +1


def test_multiclass_regions_and_wrong_dimension():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(10, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 10)
    ax = plot_decision_boundary(CentroidClassifier().fit(X, y), X, y)
    assert legend_texts(ax)[-3:] == [
        "class a (orange square)",
        "class b (blue circle)",
        "class c (green triangle)",
    ]
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


def test_losses_plot_draws_five_labelled_curves():
    ax = plot_losses()
    handles, labels = ax.get_legend_handles_labels()
    assert labels == [
        "0-1: [z ≤ 0]",
        "perceptron: max(0, −z)",
        "hinge: max(0, 1 − z)",
        "squared: (1 − z)²",
        "logistic: log₂(1 + e^−z)",
    ]
    assert legend_texts(ax) == labels and ax.get_xlim() == (-2.0, 2.0)
    for line, loss in zip(handles, LOSSES.values()):
        z = np.asarray(line.get_xdata())
        assert z.min() == -2.0 and z.max() == 2.0 and 0.0 in z
        np.testing.assert_array_equal(line.get_ydata(), loss(z))
    hinge = np.asarray(handles[2].get_ydata())
    assert hinge[np.asarray(handles[2].get_xdata()) == 0.0].tolist() == [1.0]
    # the base-2 logistic loss is 1 at z = 0, above the 0-1 loss, and the figure says which
    # surrogates bound the 0-1 loss from above
    logistic = np.asarray(handles[4].get_ydata())
    assert logistic[np.asarray(handles[4].get_xdata()) == 0.0].tolist() == [1.0]
    (note,) = ax.texts
    assert "on or above the 0-1 loss" in note.get_text()
    assert "logistic (log base 2)" in note.get_text() and "not the perceptron" in note.get_text()


def test_plot_losses_command_writes_a_png_without_data(tmp_path):
    out = tmp_path / "losses.png"
    result = run_cli("plot", "--losses", "-o", out)
    assert result.exit_code == 0, result.output
    assert "wrote the losses plot (0-1, perceptron, hinge, squared, logistic)" in result.stderr
    with Image.open(out) as image:
        assert (image.format, image.size) == ("PNG", (600, 450))
        image.verify()
    assert_one_line_error(run_cli("plot", "-o", out), "plot needs DATA", "--losses")
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    assert_one_line_error(run_cli("plot", data, "--losses", "-o", out), "--losses draws no data")
    gif = tmp_path / "losses.gif"
    assert_one_line_error(run_cli("plot", "--losses", "-o", gif), "a losses plot is written as")
    assert not gif.exists()


@pytest.mark.parametrize("mode, frames", [("online", 4), ("batch", 2)])
def test_training_animation_has_a_frame_per_update(tmp_path, mode, frames):
    path = tmp_path / f"{mode}.gif"
    tr = animate_training(OR_X, OR_Y, path, mode=mode, bias_input=-1.0, dpi=40)
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == frames  # the start + one per weight change (3 online, 1 batch)
        assert gif.size == (260, 180)  # 6.5 x 4.5 inches at 40 dpi
    assert tr.n_updates == (3 if mode == "online" else 4)


def test_the_animation_holds_its_last_frame_and_titles_w_once(tmp_path):
    """The notes' defaults (bias input -1): 1.5 frames a second while the line moves, the
    converged line held for HOLD_SECONDS before the GIF starts over; every title gives w
    once, the start's too."""
    from rosenblatt.apps._plot_animation import HOLD_SECONDS

    path = tmp_path / "or.gif"
    tr = animate_training(OR_X, OR_Y, path, dpi=30)
    assert tr.bias_input == -1.0 and tr.weights[-1].tolist() == [1.0, 1.0, -1.0]
    durations = []
    with Image.open(path) as gif:
        for frame in range(gif.n_frames):
            gif.seek(frame)
            durations.append(gif.info["duration"])
    assert durations[:-1] == [660] * 3 and durations[-1] == int(1000 * HOLD_SECONDS)
    for step in range(tr.weights.shape[0]):
        title = plot_training_step(tr, OR_X, OR_Y, step).get_title(loc="left")
        assert title.count("w =") == 1 and title.count("w") == 1, title
    assert plot_training_step(tr, OR_X, OR_Y, 0).get_title(loc="left").splitlines() == [
        "start: no line yet",
        "w = (0, 0, 0)",
    ]


def test_a_boundary_through_the_notes_feature_map(tmp_path):
    """plot --feature-map trains on (x1, x2, x1 x2, x1^2, x2^2): XOR's boundary is a conic
    and every pattern is on its side."""
    from sklearn.pipeline import Pipeline

    from rosenblatt.apps.cli.plotting import _model, make_plot
    from rosenblatt.data.io import read_data

    data = tmp_path / "xor.csv"
    data.write_text("x1,x2,y\n-1,-1,-1\n1,-1,1\n-1,1,1\n1,1,-1\n")
    out = tmp_path / "xor.png"
    result = make_plot(data, out, feature_map=True, max_iter=50)
    assert out.is_file() and result.model == "Perceptron on the notes' features"
    model = _model(None, read_data(data), "perceptron", 50, 1.0, 0, feature_map=True)
    assert isinstance(model, Pipeline) and model.score(OR_X, [-1, 1, 1, -1]) == 1.0
    refused = run_cli("plot", data, "-o", tmp_path / "xor.gif", "--feature-map")
    assert_one_line_error(refused, "--feature-map", "animation")


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


# ---------------------------------------------------------------------- issue: plots
def assert_legend_outside(ax):
    """The legend overlaps neither the data area nor the x axis' ticks and label."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(ax.get_window_extent(renderer))
    assert not legend.overlaps(ax.xaxis.get_tightbbox(renderer))
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1  # inside the image
    assert fig.bbox.y0 <= legend.y0 and legend.y1 <= fig.bbox.y1
    return legend


def or_trace(**kwargs):
    return trace(OR_X, OR_Y, bias_input=-1.0, **kwargs)


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plot_decision_boundary(Perceptron(shuffle=False).fit(OR_X, OR_Y), OR_X, OR_Y),
        lambda: plot_mistakes(Perceptron(shuffle=False).fit(OR_X, OR_Y)),
        lambda: plot_scores(["OR", "breast cancer"], list("abcdef"), np.full((2, 6), 0.9)),
        lambda: plot_training_step(or_trace(), OR_X, OR_Y, 2),
    ],
    ids=["boundary", "mistakes", "scores", "animation frame"],
)
def test_legends_do_not_cover_the_data(draw):
    ax = draw()
    assert_legend_outside(ax)
    points = [c for c in ax.collections if len(c.get_offsets())]  # the scattered patterns
    for collection in points:
        for x, y in ax.transData.transform(collection.get_offsets()):
            assert not ax.get_legend().get_window_extent().contains(x, y)


def test_the_legend_fits_the_smallest_image():
    figsize, dpi = pixel_figure_size(300, 300)
    fig, ax = new_figure(*figsize)
    fig.set_dpi(dpi)
    plot_decision_boundary(Perceptron(shuffle=False).fit(OR_X, OR_Y), OR_X, OR_Y, ax=ax)
    assert_legend_outside(ax)  # all of it inside the 300 x 300 image


def test_legends_of_side_by_side_boundaries_stay_apart():
    fig, axes = new_figure(11.0, 4.5, ncols=2)
    kernel = KernelPerceptron(random_state=0).fit(XOR_X, XOR_Y)
    for ax in axes:
        plot_decision_boundary(kernel, XOR_X, XOR_Y, ax=ax)
    left, right = (assert_legend_outside(ax) for ax in axes)
    assert not left.overlaps(right)
    assert not left.overlaps(axes[1].get_window_extent())


def test_the_perceptron_line_is_drawn_over_the_maximum_margin_line():
    model = Perceptron(shuffle=False).fit(OR_X, OR_Y)
    best = max_margin(OR_X, OR_Y)
    # the modified OR problem: the perceptron stops on the maximum-margin line itself
    w, b = model.coef_.ravel(), model.intercept_[0]
    scale = np.linalg.norm(w) / np.linalg.norm(best.coef)
    np.testing.assert_allclose([*w, b], scale * np.array([*best.coef, best.intercept]))
    ax = plot_decision_boundary(model, OR_X, OR_Y)
    by_id = {c.get_gid(): c for c in ax.collections if c.get_gid()}
    boundary, widest = by_id["decision boundary"], by_id["maximum margin"]
    assert boundary.get_zorder() > widest.get_zorder()
    # and the maximum-margin line is wider, so it still shows on both sides
    assert max(widest.get_linewidths()) > max(boundary.get_linewidths())


def test_animation_frames_all_have_the_requested_size(tmp_path):
    path = tmp_path / "or.gif"
    animate_training(OR_X, OR_Y, path, bias_input=-1.0, size=(480, 320))
    with Image.open(path) as gif:
        sizes = [frame.size for frame in ImageSequence.Iterator(gif)]
    assert len(sizes) == 4 and set(sizes) == {(480, 320)}
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]  # written atomically


def spines(frame):
    """The pixel columns and rows of the axes' frame: the outermost long dark lines."""
    dark = np.asarray(frame.convert("L")) < 100
    columns = np.flatnonzero(dark.mean(axis=0) > 0.5)
    rows = np.flatnonzero(dark.mean(axis=1) > 0.4)
    return columns.min(), columns.max(), rows.min(), rows.max()


def test_animation_layout_does_not_move_between_frames(tmp_path):
    path = tmp_path / "or.gif"
    animate_training(OR_X, OR_Y, path, bias_input=-1.0)  # the start has no line and title
    with Image.open(path) as gif:
        frames = {spines(frame) for frame in ImageSequence.Iterator(gif)}
    assert len(frames) == 1, frames


@pytest.mark.parametrize("size", [(300, 300), (520, 360), (1600, 900)])
def test_animation_titles_are_readable_and_fit_the_frame(size):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] > 0.3, 1, -1)
    y[:6] *= -1  # not separable: batch epochs with many misclassified patterns
    tr = trace(X, y, mode="batch", eta=0.37, max_iter=5)
    figsize, dpi = pixel_figure_size(*size, design=ANIMATION_SIZE)
    fig, ax = new_figure(*figsize)
    fig.set_dpi(dpi)
    titles = []
    for step in range(1, tr.weights.shape[0]):
        plot_training_step(tr, X, y, step, ax=ax)
        fig.canvas.draw()
        text = ax.get_title(loc="left")
        title = next(t for t in ax.get_children() if isinstance(t, Text) and t.get_text() == text)
        titles.append(text)
        height_px = title.get_fontsize() * dpi / 72
        assert height_px >= max(12, size[1] / 32)  # tall enough to read at the frame's size
        box = title.get_window_extent()
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1  # not clipped
        assert box.y1 <= fig.bbox.y1
    assert titles[0].startswith("epoch 1: 40 patterns: 1, 2, 3, ...\n")  # cut short
    # no line separates these points: every frame says so, on a line of its own
    assert all(t.endswith("\nnot linearly separable: no convergence") for t in titles)


def test_axes_are_named_after_the_csv_columns(tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("height,weight,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    svg = tmp_path / "b.svg"
    assert run_cli("plot", data, "-o", svg).exit_code == 0
    texts = re.findall(r"<!-- (.*?) -->", svg.read_text(encoding="utf-8"))  # text, as drawn
    assert "height" in texts and "weight" in texts and "$x_1$" not in texts
    plain = tmp_path / "plain.csv"
    plain.write_text("-1,-1,0\n1,-1,1\n-1,1,1\n1,1,1\n")
    assert run_cli("plot", plain, "-o", svg).exit_code == 0
    assert {"$x_1$", "$x_2$"} <= set(re.findall(r"<!-- (.*?) -->", svg.read_text()))
    ax = plot_training_step(or_trace(), OR_X, OR_Y, 1, feature_names=["cost ($)", "t"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == (r"cost (\$)", "t")  # a dollar, not math


def test_pdf_and_jpg_figures(tmp_path):
    fig, ax = new_figure(4, 3)
    plot_mistakes(Perceptron(shuffle=False).fit(OR_X, OR_Y), ax=ax)
    pdf = save_figure(fig, tmp_path / "m.pdf")
    jpg = save_figure(fig, tmp_path / "m.JPG", dpi=50)
    assert open(pdf, "rb").read(5) == b"%PDF-"
    with Image.open(jpg) as image:
        assert (image.format, image.size) == ("JPEG", (200, 150))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.JPG", "m.pdf"]  # no temp files


def test_size_option_sets_the_pixels_of_every_kind(tmp_path):
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    for name, kind, size in (
        ("b.png", "boundary", (800, 600)),
        ("m.jpg", "mistakes", (1000, 400)),
        ("a.gif", "animation", (300, 300)),
    ):
        out = tmp_path / name
        result = run_cli("plot", data, "-o", out, "--kind", kind, "--size", "{}x{}".format(*size))
        assert result.exit_code == 0, result.output
        with Image.open(out) as image:
            assert {frame.size for frame in ImageSequence.Iterator(image)} == {size}
    pdf = tmp_path / "b.pdf"
    assert run_cli("plot", data, "-o", pdf, "--size", "1200x600").exit_code == 0
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)", pdf.read_bytes())
    assert float(box[1]) / float(box[2]) == pytest.approx(2.0, rel=1e-3)  # the proportions


@pytest.mark.parametrize("bad", ["abc", "0x3", "800x", "800x600x2", "299x600", "20000x600"])
def test_a_bad_size_is_one_line_and_exit_2(tmp_path, bad):
    data = tmp_path / "or.csv"
    data.write_text("x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n")
    out = tmp_path / "b.png"
    result = run_cli("plot", data, "-o", out, "--size", bad)
    assert_one_line_error(result, "--size takes WIDTHxHEIGHT in pixels", repr(bad))
    assert not out.exists()
    with pytest.raises(ValueError, match="from 300 to 10000 pixels"):
        pixel_figure_size(0, 3)


def test_plot_reads_standard_input_and_takes_the_train_options_names(tmp_path):
    """``plot -`` with ``--format`` like every command; ``--max-iter`` as in train."""
    out = tmp_path / "m.png"
    text = "x1,x2,label\n-1,-1,no\n1,-1,yes\n-1,1,yes\n1,1,yes\n"
    result = CliRunner().invoke(
        app,
        ["plot", "-", "-o", str(out), "--kind", "mistakes", "--format", "csv", "--max-iter", "2"],
        input=text,
    )
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.size == (600, 450)
    (tmp_path / "or.data").write_text(text)
    unknown = run_cli("plot", tmp_path / "or.data", "-o", out)
    assert unknown.exit_code == 2 and "--format" in unknown.stderr
