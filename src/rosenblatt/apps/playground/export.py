"""A static copy of the playground: one preset's runs, every step precomputed.

The copy is a folder with ``index.html`` and ``static/``; it needs no server
and works from a ``file://`` URL or any static host (a course page). The runs
of every algorithm on the preset are embedded in ``index.html``; the page
switches between them and steps through them as the live one does, but cannot
edit points or settings.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, replace

from ..._core.files import check_writable, write_atomically
from ..palette import palette_json
from .presets import PRESETS, preset, presets
from .runs import ALGORITHMS, MAX_EPOCHS, MAX_PRESENTATIONS, Settings, run
from .server import static_files

__all__ = ["MARKER", "export"]

#: where ``index.html`` takes the embedded runs
MARKER = "<!-- playground-static-data -->"


def _request(name, X, y, settings: Settings) -> dict:
    request = asdict(settings)
    request.update(preset=name, points=X.tolist(), labels=y.astype(int).tolist())
    return request


def export(
    folder: str | os.PathLike[str], name: str = "or", settings: Settings | None = None
) -> str:
    """Write the static playground for preset ``name`` to ``folder``; return its index page.

    Parameters
    ----------
    folder : str or path-like
        Created if missing; files of the same names are replaced, each atomically.
    name : str, default="or"
        A preset (see :data:`rosenblatt.apps.playground.presets.PRESETS`).
    settings : Settings or None
        eta, bias input, shuffling, seed, feature map and kernel of every run
        (the algorithm is each of the five in turn). None: the page's defaults,
        the lecture notes' worked example.

    Returns
    -------
    str
        The path of ``index.html``.

    Examples
    --------
    >>> import os, tempfile
    >>> from rosenblatt.apps.playground.export import export
    >>> page = export(tempfile.mkdtemp(), "xor")
    >>> sorted(os.listdir(os.path.dirname(page)))
    ['index.html', 'static']
    """
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}.")
    check_writable(folder, folder=True)  # before the runs: a file of that name, say, fails now
    X, y = preset(name)
    base = settings or Settings()
    epochs = max(1, min(base.epochs, MAX_EPOCHS, MAX_PRESENTATIONS // X.shape[0]))
    runs = []
    for algorithm in ALGORITHMS:
        each = replace(base, algorithm=algorithm, epochs=epochs)
        runs.append({"request": _request(name, X, y, each), "response": run(X, y, each)})
    data = {"presets": presets(), "palette": palette_json(), "preset": name, "runs": runs}
    files = static_files()
    # the packaged page holds MARKER once: tests/test_playground_api.py checks the asset
    page = files.pop("index.html").decode()
    # "</" inside a script element would end it early: JSON allows the escape "<\/"
    embedded = json.dumps(data).replace("</", "<\\/")
    page = page.replace(MARKER, f"<script>window.PLAYGROUND_STATIC = {embedded};</script>")
    folder = os.fspath(folder)
    os.makedirs(os.path.join(folder, "static"), exist_ok=True)
    for file_name, content in files.items():
        write_atomically(os.path.join(folder, "static", file_name), content)
    index = os.path.join(folder, "index.html")
    write_atomically(index, page.encode())
    return index
