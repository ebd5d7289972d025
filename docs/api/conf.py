"""Sphinx configuration of rosenblatt's API reference (``make docs``).

The reference is built from the numpydoc docstrings of the public modules by
autodoc and numpydoc, with every warning an error (``sphinx-build -W``) and
every cross-reference checked (``nitpicky``): a broken reference or a malformed
docstring fails the build, and ``make test`` runs it.
"""

import inspect

import rosenblatt

project = "rosenblatt"
author = "the rosenblatt authors"
copyright = "the rosenblatt authors, BSD-3-Clause"
version = release = rosenblatt.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]

root_doc = "index"
exclude_patterns = []
templates_path = []
html_theme = "alabaster"
html_static_path = []
html_title = f"rosenblatt {release}"

# autodoc: the signature shows names and defaults; the types are in the
# docstrings' Parameters sections (several annotations exist only for type checkers)
autodoc_typehints = "none"
autodoc_member_order = "bysource"
autodoc_default_options = {
    # methods the estimators inherit from the library's private base classes are
    # theirs to document; scikit-learn's and Python's own are skipped (below)
    "inherited-members": True,
}
autosummary_generate = False

# numpydoc: the class pages list their methods through autodoc (:members:), so
# numpydoc adds no second, autosummary-made list of them
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Every cross-reference must resolve, except to the libraries the package
# builds on (the build reaches no network, so there is no intersphinx) and to
# internals, which the docstrings name for readers of the source: private
# modules and names (a part starting with one underscore) and the training
# engine (only its EpochReport is documented, in engine.rst)
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sp|sklearn|pandas|matplotlib|dask|distributed|typer)(\..*)?"),
    (r"py:.*", r"(ValueError|TypeError|RuntimeError|OSError|Exception|Warning|UserWarning)"),
    (r"py:.*", r"(.*\.)?_[A-Za-z].*"),
    (r"py:.*", r"rosenblatt\.engine\..*"),
]


def _defined_outside(obj) -> bool:
    """Whether a class member comes from outside the package (scikit-learn, Python)."""
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if not (inspect.isroutine(obj) or inspect.isdatadescriptor(obj)):
        return False
    module = getattr(obj, "__module__", None)
    if module is None:
        module = getattr(getattr(obj, "__objclass__", None), "__module__", None)
    return not (module or "").startswith("rosenblatt")


def _skip_member(app, what, name, obj, skip, options):
    """Leave out what the classes inherit from scikit-learn and Python."""
    if what in ("class", "exception") and _defined_outside(obj):
        return True
    return None


def _resolve_top_level(app, env, node, contnode):
    """Resolve ``rosenblatt.Perceptron`` to where it is documented (``estimators.linear``).

    The docstrings name the public objects as users import them, from the
    package; the reference documents each one once, in the module defining it.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    prefix, _, name = target.partition(".")
    if prefix != "rosenblatt" or name not in rosenblatt.__all__:
        return None
    obj = getattr(rosenblatt, name)
    if inspect.ismodule(obj):
        return None
    canonical = f"{obj.__module__}.{obj.__qualname__}"
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode
    )


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("missing-reference", _resolve_top_level)
