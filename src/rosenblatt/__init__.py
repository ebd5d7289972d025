"""rosenblatt: perceptron-family linear classification with the theory made executable.

Heavy or optional parts (plots, Dask, the command line) are imported lazily.
"""

from . import datasets, theory
from .baselines import CentroidClassifier, LinearProgramClassifier
from .exceptions import ModelFileError, NotSeparableError
from .kernel import KernelPerceptron
from .linear import AveragedPerceptron, Perceptron, VotedPerceptron
from .text import TfDfTransformer
from .trace import Trace, trace

__version__ = "0.1.0"

__all__ = [
    "AveragedPerceptron",
    "CentroidClassifier",
    "KernelPerceptron",
    "LinearProgramClassifier",
    "ModelFileError",
    "NotSeparableError",
    "Perceptron",
    "TfDfTransformer",
    "Trace",
    "VotedPerceptron",
    "datasets",
    "theory",
    "trace",
    "__version__",
]
