"""``python -m rosenblatt``: the command line, as the ``rosenblatt`` script runs it."""

from .apps.cli import main

if __name__ == "__main__":
    main()
