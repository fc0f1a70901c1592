"""argparse types for path and number arguments: a wrong value is one line naming the argument and the value.

argparse turns an ``ArgumentTypeError`` into ``paragen CMD: error: argument --ref: MESSAGE``, so
a directory given where a file is expected (or the reverse) never reaches the code as a traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def input_file(value: str) -> str:
    """An existing regular file to read."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: is a directory, expected a file")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{value}: no such file")
    return value


def output_file(value: str) -> str:
    """A file to write: not a directory, and its parent (if it exists) is a directory."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: is a directory, expected a file to write")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise argparse.ArgumentTypeError(f"{value}: {parent} is a file, not a directory")
            break
    return value


def input_dir(value: str) -> str:
    """An existing directory to read from."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: is a file, expected a directory")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{value}: no such directory")
    return value


def output_dir(value: str) -> str:
    """A directory to write into (created when missing), which must not be a file."""
    if Path(value).exists() and not Path(value).is_dir():
        raise argparse.ArgumentTypeError(f"{value}: is a file, expected a directory")
    return value


def named_input_file(value: str) -> str:
    """``NAME=FILE`` with FILE an existing regular file."""
    name, sep, path = value.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{value}: expected NAME=FILE")
    input_file(path)
    return value


def whole_number(value: str, least: int) -> int:
    """A whole number of at least ``least``, or argparse's error saying what was expected."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r}: expected a whole number") from None
    if number < least:
        raise argparse.ArgumentTypeError(f"{value}: expected a number of at least {least}")
    return number


def positive_int(value: str) -> int:
    """A whole number of at least 1."""
    return whole_number(value, 1)


def non_negative_int(value: str) -> int:
    """A whole number of at least 0 (a count allowed to be zero)."""
    return whole_number(value, 0)


def line_numbers(value: str) -> list[int]:
    """Comma-separated 1-based line numbers, e.g. ``1,4,9``."""
    numbers = []
    for item in value.split(","):
        try:
            number = int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r}: expected comma-separated line numbers like 1,4,9") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"{value!r}: line numbers start at 1")
        numbers.append(number)
    return numbers
