"""A self-contained HTML report: tables and figures in one file, images embedded as data URIs.

The page has no external stylesheet, script or image, so it can be mailed,
archived or opened offline and still shows everything. Text is escaped; in the
intro, the footer and the captions a span between backticks (```rosenblatt demo```)
is shown as code, without the backticks.
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ReportFigure", "ReportTable", "render_report", "write_report"]

_MIME = {
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".gif": "image/gif",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
}

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #222;
       padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.7rem; text-align: right; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
tr.group th { background: none; border-bottom: 2px solid #bbb; padding-top: 0.9rem; }
code { font-family: ui-monospace, monospace; background: #f3f3f3; padding: 0 0.2em; }
figure { margin: 1.5rem 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9rem; color: #555; max-width: 60rem; }
footer { margin-top: 3rem; font-size: 0.8rem; color: #777; }
"""


@dataclass(frozen=True)
class ReportTable:
    """A table of the report: column names and rows of already formatted cells.

    ``text_columns`` are left-aligned (names); the others right-aligned (numbers).
    With ``group_by`` (a column name), rows with the same value in that column
    are shown together, in the order the values first occur, under one header
    row naming the value; the column itself is not repeated on every row.
    """

    title: str
    columns: list
    rows: list
    text_columns: tuple = ()
    caption: str = ""
    group_by: str | None = None


@dataclass(frozen=True)
class ReportFigure:
    """An image file (PNG, SVG or GIF) with a title and a caption."""

    title: str
    path: str
    caption: str = ""
    alt: str = field(default="")


def _data_uri(path) -> str:
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in _MIME:
        raise ValueError(f"Cannot embed {os.fspath(path)!r}: use a PNG, SVG, GIF or JPEG image.")
    with open(path, "rb") as handle:
        payload = base64.b64encode(handle.read()).decode("ascii")
    return f"data:{_MIME[ext]};base64,{payload}"


def _prose(text) -> str:
    """Escaped text, with each ```code``` span as ``<code>`` (no literal backticks)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(str(text)))


def _groups(table: ReportTable):
    """The columns shown and ``(group value, rows)`` pairs (one unnamed group without group_by)."""
    if table.group_by is None:
        return list(table.columns), [(None, list(table.rows))]
    if table.group_by not in table.columns:
        raise ValueError(
            f"group_by={table.group_by!r} is not a column of table {table.title!r}; "
            f"the columns: {', '.join(map(str, table.columns))}"
        )
    k = list(table.columns).index(table.group_by)
    groups: dict = {}  # insertion-ordered: groups in the order their values first occur
    for row in table.rows:
        groups.setdefault(row[k], []).append([*row[:k], *row[k + 1 :]])
    columns = [c for j, c in enumerate(table.columns) if j != k]
    return columns, list(groups.items())


def _table_html(table: ReportTable) -> str:
    esc = html.escape
    columns, groups = _groups(table)

    def cell(tag, column, value):
        css = ' class="text"' if column in table.text_columns else ""
        return f"<{tag}{css}>{esc(str(value))}</{tag}>"

    def body(name, rows):
        lines = []
        if name is not None:  # the group's value, once, over its rows
            lines.append(
                f'<tr class="group"><th class="text" colspan="{len(columns)}" '
                f'scope="rowgroup">{esc(str(name))}</th></tr>'
            )
        for row in rows:
            lines.append("<tr>" + "".join(cell("td", c, v) for c, v in zip(columns, row)) + "</tr>")
        return "<tbody>\n" + "\n".join(lines) + "\n</tbody>"

    head = "".join(cell("th", c, c) for c in columns)
    caption = f"<p>{_prose(table.caption)}</p>" if table.caption else ""
    bodies = "\n".join(body(name, rows) for name, rows in groups)
    return (
        f"<h2>{esc(table.title)}</h2>\n{caption}\n<table>\n<thead><tr>{head}</tr></thead>\n"
        f"{bodies}\n</table>"
    )


def _figure_html(figure: ReportFigure) -> str:
    esc = html.escape
    alt = esc(figure.alt or figure.title, quote=True)
    caption = f"<figcaption>{_prose(figure.caption)}</figcaption>" if figure.caption else ""
    return (
        f"<figure>\n<h2>{esc(figure.title)}</h2>\n"
        f'<img src="{_data_uri(figure.path)}" alt="{alt}">\n{caption}\n</figure>'
    )


def render_report(
    title: str,
    tables: Sequence[ReportTable] = (),
    figures: Sequence[ReportFigure] = (),
    intro: str = "",
    footer: str = "",
) -> str:
    """Return the report as one HTML string.

    Parameters
    ----------
    title : str
    tables : sequence of ReportTable
    figures : sequence of ReportFigure
        Their image files are read and embedded as base64 ``data:`` URIs.
    intro, footer : str
        Text above the tables and at the bottom (escaped; ```code``` spans are
        shown as code).

    Returns
    -------
    str

    Examples
    --------
    >>> page = render_report("Demo", [ReportTable("Scores", ["model", "acc"], [["a", "1.0"]],
    ...                                           text_columns=("model",))])
    >>> "<td class=\\"text\\">a</td><td>1.0</td>" in page, "src=\\"http" in page
    (True, False)
    """
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{esc(title)}</h1>",
    ]
    if intro:
        parts.append(f"<p>{_prose(intro)}</p>")
    parts.extend(_table_html(t) for t in tables)
    parts.extend(_figure_html(f) for f in figures)
    if footer:
        parts.append(f"<footer>{_prose(footer)}</footer>")
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def write_report(
    path: str | os.PathLike[str],
    title: str,
    tables: Sequence[ReportTable] = (),
    figures: Sequence[ReportFigure] = (),
    intro: str = "",
    footer: str = "",
) -> str:
    """Write :func:`render_report`'s page to ``path`` (UTF-8) and return the path.

    The file is written whole or not at all (a temporary file, then a rename).

    Examples
    --------
    >>> import tempfile, os
    >>> path = write_report(os.path.join(tempfile.mkdtemp(), "r.html"), "Empty")
    >>> open(path, encoding="utf-8").read().count("<h1>Empty</h1>")
    1
    """
    from .._core.files import write_atomically

    page = render_report(title, tables, figures, intro, footer)
    path = os.fspath(path)
    write_atomically(path, page.encode("utf-8"))
    return path
