"""Public path of the playground, :mod:`rosenblatt.apps.playground`: its modules (``runs``,
``presets``, ``server``, ``export``) load from there on first use."""

from importlib import import_module


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return import_module(f".apps.playground.{name}", __package__)
    except ModuleNotFoundError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
