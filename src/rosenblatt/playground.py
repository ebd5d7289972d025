"""Public path of the playground, :mod:`rosenblatt.apps.playground`: its modules (``runs``,
``presets``, ``server``, ``export``) load from there on first use, as attributes
(``from rosenblatt.playground import runs``)."""

from importlib import import_module

__all__ = ["export", "presets", "runs", "server"]  # noqa: F822 (loaded by __getattr__)


def __getattr__(name):
    if name in __all__:
        return import_module(f".apps.playground.{name}", __package__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
