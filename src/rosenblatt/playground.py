"""Public path of the playground, :mod:`rosenblatt.apps.playground`: its modules (``runs``,
``presets``, ``server``, ``export``) load from there on first use, as attributes
(``from rosenblatt.playground import runs``) or by name (``import rosenblatt.playground.runs``)."""

from importlib import import_module

from ._core.aliases import forward

forward(__name__, "rosenblatt.apps.playground")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return import_module(f".apps.playground.{name}", __package__)
    except ModuleNotFoundError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
