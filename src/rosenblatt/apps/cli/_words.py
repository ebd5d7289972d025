"""The command line's words for what the library says in Python's.

Below the command line every error, warning and note names Python parameters
(``header=False``, ``max_iter``); a command turns them into its options
(``--no-header``, ``--max-iter``) here, at its boundary, with this one table:
:func:`in_option_words` rewrites a message, :func:`describe` words an error.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..._core.validation import ParameterError
from ...data.readers._svmlight import MAX_FEATURES_ENV

__all__ = ["OPTIONS", "describe", "in_option_words"]

#: The option that sets each parameter a command passes on under that parameter's name
#: (a parameter's refusal then names the option: ``--eta must be positive; got 0.0``).
OPTIONS = {
    "max_iter": "--max-iter",
    "format": "--format",
    "eta": "--eta",
    "random_state": "--seed",
    "intercept_scaling": "--intercept-scaling",
    "multi_class": "--multi-class",
    "n_jobs": "--n-jobs",
    "tol": "--tol",
    "kernel": "--kernel",
    "gamma": "--gamma",
    "degree": "--degree",
    "budget": "--budget",
    "budget_policy": "--budget-policy",
    "prediction": "--prediction",
    "checkpoint_every": "--checkpoint-every",
}

#: Python's spellings in the library's messages and the command line's, in the order they
#: are tried (a longer spelling before a shorter one it contains).
_PHRASES: list[tuple[str, Any]] = [
    # a checkpoint's options name the estimator's parameters as fit_stream's: the CLI's options
    (r"\bestimator__(?:estimator__)*(?=\w+=)", ""),
    (r"\bmax_iter=(\d+)", r"--max-iter=\1"),
    (r"\bepochs=(\d+)", r"--max-iter=\1"),  # fit_stream's epochs: train --stream --max-iter
    (r"\bmax_iter\b", "--max-iter"),
    (r"\braise epochs\b", "raise --max-iter"),  # fit_stream's advice
    (r"\bheader=False\b", "--no-header"),
    (r"\bheader=True\b", "--header"),
    (r"\bzero_based=True or False\b", "--zero-based or --one-based"),
    (r"\bzero_based=True\b", "--zero-based"),
    (r"\bn_features=N\b", "--n-features N"),
    (r"\bgive cache= a folder\b", "give --cache a folder"),
    (r"\blabel_column=('[^']*'|-?\d+)", "--label-column"),
    (r"\bbudget_policy='(\w+)'", r"--budget-policy \1"),
    (r"\bprediction='(\w+)'", r"--prediction \1"),
    (r"\bbudget=(\d+)", r"--budget \1"),
    (r"\braise the limit: n_features=(\d+)", rf"raise the limit: {MAX_FEATURES_ENV}=\1"),
    # train's --n-features; a model's count of features (predict, evaluate) is no option
    (r"\bbeyond n_features=(\d+)(?!.*\bthe model has\b)", r"beyond --n-features \1"),
    (r"\ba larger n_features\b", "a larger --n-features"),
    (r"format='csv' \(or 'svmlight', 'tsv'\)", "--format csv|svmlight|tsv"),
    (r"\bignore=\[([^\]]*)\]", lambda m: "--ignore " + ",".join(_names(m[1]))),
    (r"\bignore='([^']*)'", r"--ignore \1"),
    (r"\bid_columns='([^']*)'", r"--id-column \1"),
    (r"\bid_columns=(-?\d+)", r"--id-column \1"),
    (r"\(id_columns, ignore\)", "(--id-column, --ignore)"),
    (r"\bid_columns\b", "--id-column"),
    (r"\baside_columns=", "the columns --id-column and --ignore set aside: "),  # a checkpoint's
    (r"\btrain_stream\b", "--stream"),
    (r"\bchunk_size=", "--chunk-size="),
    (r"\ba larger chunk_size\b", "a larger --chunk-size"),
    (r" \(or, from Python, give fit_stream the classes\)", ""),
    (r"\brandom_state=", "--seed="),
    (r"\bdrop checkpoint and resume\b", "drop --checkpoint and --resume"),
    (r"\bwithout resume\b", "without --resume"),
    (r"\b(?<!--)resume with the\b", "--resume with the"),
    (r"\buse AveragedPerceptron\b", "use --algorithm averaged"),
    (r"\blearning rate eta\b", "learning rate --eta"),  # the engine's overflow refusal
    (r"\banother kernel \(or gamma\)", "another --kernel (or --gamma)"),
]
_COMPILED = [(re.compile(pattern), words) for pattern, words in _PHRASES]


def _names(listed: str) -> list[str]:
    """The names of a Python list of strings as a message shows it (``'a', 'b'``)."""
    return re.findall(r"'([^']*)'", listed)


def in_option_words(text: str) -> str:
    """``text`` with the library's Python spellings replaced by the command line's.

    Examples
    --------
    >>> in_option_words("line 1 read as a header: pass header=False to read it as data")
    'line 1 read as a header: pass --no-header to read it as data'
    >>> in_option_words("the last of max_iter=5 epochs; raise max_iter")
    'the last of --max-iter=5 epochs; raise --max-iter'
    >>> in_option_words("another options (estimator__estimator__random_state=0 there, 7 here)")
    'another options (--seed=0 there, 7 here)'
    """
    for pattern, words in _COMPILED:
        text = pattern.sub(words, text)
    return text


def describe(exc: BaseException) -> str:
    """The one line the command line prints for an error it stops on."""
    if isinstance(exc, ParameterError) and exc.name in OPTIONS:
        return exc.for_option(OPTIONS[exc.name])
    if isinstance(exc, FileNotFoundError) and exc.filename:
        plain = not exc.strerror or exc.strerror == os.strerror(exc.errno or 0)
        return f"{exc.filename}: {'no such file' if plain else exc.strerror}"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return in_option_words(str(exc) or type(exc).__name__)
