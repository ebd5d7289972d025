"""rosenblatt: perceptron-family linear classification with the theory made executable.

Heavy or optional parts (plots, Dask, the command line) are imported lazily.
"""

from .exceptions import ModelFileError, NotSeparableError
from .linear import AveragedPerceptron, Perceptron, VotedPerceptron

__version__ = "0.1.0"

__all__ = [
    "AveragedPerceptron",
    "ModelFileError",
    "NotSeparableError",
    "Perceptron",
    "VotedPerceptron",
    "__version__",
]
