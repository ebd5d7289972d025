"""One picture language: the colour and marker of each class, wherever a class is drawn.

``rosenblatt plot`` (its figures and the training animation), the demo's HTML report
and the playground (its points, shading and legend) all read :data:`CLASS_STYLES`, so
that a class looks the same on a slide made from any of them: the class with target
-1 (the first of two classes) is an orange square, the class with target +1 (the
second) a blue circle, and with several classes the k-th class (in sorted order)
takes the k-th style. The colours are Okabe and Ito's, told apart by colour-blind
readers; the marker tells them apart in grey print too.

Examples
--------
>>> from rosenblatt.apps.palette import class_style, sign_style
>>> sign_style(+1).color, sign_style(+1).words, sign_style(-1).words
('#0072B2', 'blue circle', 'orange square')
>>> class_style(0) == sign_style(-1), class_style(2).words
(True, 'green triangle')
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = [
    "CLASS_STYLES",
    "REGION_ALPHA",
    "ClassStyle",
    "class_label",
    "class_style",
    "palette_json",
    "sign_style",
]


@dataclass(frozen=True)
class ClassStyle:
    """How one class is drawn.

    Attributes
    ----------
    color : str
        ``#RRGGBB``.
    marker : str
        The matplotlib marker.
    shape : str
        The same marker in words, as the playground draws it (``circle``, ``square``,
        ``triangle``, ...).
    words : str
        Colour and shape, as legends state them (``"blue circle"``).
    """

    color: str
    marker: str
    shape: str
    words: str

    @property
    def rgb(self) -> tuple[int, int, int]:
        """The colour as three 0-255 integers."""
        return tuple(int(self.color[k : k + 2], 16) for k in (1, 3, 5))  # type: ignore[return-value]


#: Class ``k`` of the classes in sorted order takes ``CLASS_STYLES[k % 8]``: of two
#: classes, the first (target -1) the orange square, the second (target +1) the blue circle.
CLASS_STYLES = (
    ClassStyle("#D55E00", "s", "square", "orange square"),
    ClassStyle("#0072B2", "o", "circle", "blue circle"),
    ClassStyle("#009E73", "^", "triangle", "green triangle"),
    ClassStyle("#CC79A7", "D", "diamond", "pink diamond"),
    ClassStyle("#E69F00", "v", "triangle-down", "yellow-orange triangle pointing down"),
    ClassStyle("#56B4E9", "p", "pentagon", "sky-blue pentagon"),
    ClassStyle("#000000", "X", "cross", "black cross"),
    ClassStyle("#F0E442", "*", "star", "yellow star"),
)

#: how opaque the shading of a class's decision region is (its points are opaque)
REGION_ALPHA = 0.2


def class_style(k: int) -> ClassStyle:
    """The style of class index ``k`` (0-based, the classes in sorted order)."""
    return CLASS_STYLES[k % len(CLASS_STYLES)]


def sign_style(sign: float) -> ClassStyle:
    """The style of the class with target ``sign`` (+1 or -1) in a two-class problem."""
    return class_style(1 if sign > 0 else 0)


def class_label(label: object, k: int, n_classes: int) -> str:
    """A legend entry for class ``label``, index ``k`` of ``n_classes``: its name, its
    target when there are two, and how it is drawn.

    Examples
    --------
    >>> class_label(0, 0, 2), class_label("spam", 1, 2), class_label(7, 2, 3)
    ('class 0 (t = −1, orange square)', 'class spam (t = +1, blue circle)', \
'class 7 (green triangle)')
    """
    words = class_style(k).words
    if n_classes == 2:
        return f"class {label} (t = {'+1' if k == 1 else '−1'}, {words})"
    return f"class {label} ({words})"


def palette_json() -> dict:
    """The styles as JSON for the playground (``/api/presets`` and static copies): the
    page colours its points, regions and legend with them.

    Examples
    --------
    >>> palette_json()["positive"]["color"], palette_json()["region_alpha"]
    ('#0072B2', 0.2)
    """
    return {
        "positive": asdict(sign_style(+1)),
        "negative": asdict(sign_style(-1)),
        "classes": [asdict(style) for style in CLASS_STYLES],
        "region_alpha": REGION_ALPHA,
    }
