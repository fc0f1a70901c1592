"""The ``paragen`` command line (console script ``paragen = paragen.cli:main``; ``python -m paragen.cli``)."""

from paragen.cli.main import main

__all__ = ["main"]
