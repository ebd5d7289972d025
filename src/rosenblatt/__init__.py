"""rosenblatt: perceptron-family linear classification with the theory made executable.

Heavy or optional parts (plots, Dask, the command line) are imported lazily.
"""

from . import theory
from .baselines import CentroidClassifier, LinearProgramClassifier
from .exceptions import ModelFileError, NotSeparableError
from .linear import AveragedPerceptron, Perceptron, VotedPerceptron
from .trace import Trace, trace

__version__ = "0.1.0"

__all__ = [
    "AveragedPerceptron",
    "CentroidClassifier",
    "LinearProgramClassifier",
    "ModelFileError",
    "NotSeparableError",
    "Perceptron",
    "Trace",
    "VotedPerceptron",
    "theory",
    "trace",
    "__version__",
]
