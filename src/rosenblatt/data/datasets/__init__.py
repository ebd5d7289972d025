"""Datasets shipped with rosenblatt, and the readers behind them.

The loaders are imported on first use, so ``import rosenblatt.data.datasets`` stays cheap.

- :func:`load_sms_spam` -- the SMS Spam Collection (5,574 messages, CC BY 4.0).
- :func:`read_labelled_text` -- parse a ``label<TAB>text`` file, one record per line.
"""

__all__ = ["load_sms_spam", "read_labelled_text"]

_LAZY = {"load_sms_spam": "._sms", "read_labelled_text": "._sms"}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later look-ups skip __getattr__
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
