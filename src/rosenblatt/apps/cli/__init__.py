"""The ``rosenblatt`` command line: thin typer commands over functions that return data."""

from .app import app


def main() -> None:
    """Entry point of the ``rosenblatt`` console script."""
    app()


__all__ = ["app", "main"]
