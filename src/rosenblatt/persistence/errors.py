"""What loading says about a file it refuses: one :class:`~rosenblatt.exceptions.ModelFileError`
line that names the file, what is wrong with it and what to do.

Only what a damaged, crafted or foreign file can make the readers raise is a refusal:

- :data:`ZIP_DAMAGE`, around the zip reader alone (a truncated or altered archive);
- :data:`DAMAGE`, around the decoding of its content: the ``ValueError`` of every
  declared check (the decoder's own, :class:`~rosenblatt._core.validation.BrokenInvariant`,
  the engine's ``from_state``), of JSON and of the ``.npy`` format, and the exhaustion
  that a crafted size or nesting causes (``MemoryError``, ``RecursionError``);
- the decoder's own reasons (a class outside the registries, a parameter value the rules
  refuse, a class that differs from the installed one).

Anything else (a ``TypeError``, an ``AttributeError``, a ``KeyError``...) is a bug in
rosenblatt, not in the file, and surfaces as one, traceback and all: the decoder checks
every value it hands on, so that a crafted file is refused before code that would raise
such an error sees it.

>>> from rosenblatt.persistence.errors import DAMAGE, fail
>>> TypeError in DAMAGE, issubclass(ValueError, DAMAGE)
(False, True)
>>> str(fail("m.rbm", "the model file is\\n damaged", "re-save it"))
'm.rbm: the model file is damaged; re-save it'
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .._core.validation import BrokenInvariant
from ..exceptions import ModelFileError
from .policy import UNSAFE_WHY

# What the zip reader (zipfile, zlib) raises on a damaged or crafted archive: caught only
# around its calls, where nothing else runs. A member's compression method and flags are
# checked before it is opened (container._inflate), so zipfile's refusal of an encrypted
# member (RuntimeError) never arises.
ZIP_DAMAGE = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,  # a deflate stream that ends early
    struct.error,  # a header shorter than its fields
    ValueError,  # a name that is not UTF-8, a negative offset
    OverflowError,  # an offset past what a seek takes
    NotImplementedError,  # a zip feature zipfile lacks ("zip file version 7.8")
)

# What decoding a damaged or crafted file raises (json, numpy's .npy reader, the decoder,
# the declared invariants, the engine's from_state, a size or a nesting too large).
DAMAGE = (ValueError, MemoryError, RecursionError)


class Incompatible(Exception):
    """The file fits the format but not the classes installed here (other versions)."""


class UnsafeParameter(Exception):
    """A parameter value outside :data:`~rosenblatt.persistence.PARAMETER_RULES`."""


class ForeignClass(Exception):
    """A class outside :data:`~rosenblatt.persistence.REGISTRY` and ``STATE_REGISTRY``."""

    def __init__(self, key: object) -> None:
        super().__init__(key)
        self.key = key


def fail(path: str | os.PathLike[str], what: object, todo: str) -> ModelFileError:
    # one line, whatever a crafted value's repr spans (an array's has line breaks)
    return ModelFileError(f"{path}: {' '.join(str(what).split())}; {todo}")


RESAVE = "re-save the model with rosenblatt.save (or `rosenblatt train`) and try again"
RETRAIN = (
    "re-train the model and save it again (rosenblatt.save(model, path), or "
    "`rosenblatt train DATA --model PATH`)"
)


def _writers(manifest) -> str:
    """What wrote a file, from its manifest (for messages)."""
    versions = manifest.get("versions")
    if isinstance(versions, dict) and versions:
        return ", ".join(
            f"{name} {version}"
            for name, version in versions.items()
            if name != "python" and isinstance(version, str)
        )
    return f"rosenblatt {manifest.get('library_version', '?')}"


@contextmanager
def translated(path: str | os.PathLike[str], manifest: Mapping[str, Any]) -> Iterator[None]:
    """Run the decoding of the file at ``path`` (whose checked manifest is ``manifest``);
    turn what a damaged, crafted or foreign file makes it raise into one
    :class:`~rosenblatt.exceptions.ModelFileError`, and let anything else through."""
    try:
        yield
    except ModelFileError:
        raise
    except BrokenInvariant as exc:
        raise fail(path, f"the model file is damaged or crafted: {exc!s:.300}", RESAVE) from None
    except Incompatible as exc:
        raise fail(
            path,
            f"written by {_writers(manifest)}: {exc}",
            "load it where those versions are installed, or re-train the model "
            "and save it again here",
        ) from None
    except UnsafeParameter as exc:
        what, allowed = exc.args
        raise fail(
            path,
            f"the file gives the {what}, which rosenblatt does not load (allowed: "
            f"{allowed}; other values {UNSAFE_WHY.removeprefix('they ')}: see "
            "rosenblatt.persistence.PARAMETER_RULES)",
            "only load model files written by rosenblatt.save; if you wrote this one, "
            "set that parameter to an allowed value, fit again and save",
        ) from None
    except ForeignClass as exc:
        raise fail(
            path,
            f"the file asks for class {exc.key!r:.120}, which rosenblatt does "
            "not load (allowed: the classes in rosenblatt.persistence.REGISTRY "
            "and STATE_REGISTRY)",
            "only load model files written by rosenblatt.save",
        ) from None
    except DAMAGE as exc:
        raise fail(
            path,
            f"the model file is damaged or crafted ({type(exc).__name__}: {exc!s:.300})",
            RESAVE,
        ) from None
