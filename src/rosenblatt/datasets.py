"""Public path of :mod:`rosenblatt.data.datasets`; its loaders load on first use."""

from importlib import import_module

__all__ = ["load_sms_spam", "read_labelled_text"]  # noqa: F822 (loaded by __getattr__)


def __getattr__(name):
    return getattr(import_module(".data.datasets", __package__), name)


def __dir__():
    return sorted(__all__)
