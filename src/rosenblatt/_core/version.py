"""The version of the package (the public ``rosenblatt.__version__``)."""

__version__ = "0.1.0"
