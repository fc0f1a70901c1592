"""``paragen`` command line: one sub-command per pipeline stage, each importable and tested as Python.

Workflow rules only call these commands; every handler is a thin adapter
from arguments to library functions, which are what the tests exercise.
The commands live by stage in :mod:`paragen.cli.data`, :mod:`~paragen.cli.models`, :mod:`~paragen.cli.scoring`,
:mod:`~paragen.cli.reporting` and :mod:`~paragen.cli.engines`; each registers its own subcommands.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Sequence

from paragen.cli import data, engines, gpu_queue, models, reporting, scoring
from paragen.cli.common import Commands, run_command
from paragen.config import ConfigError
from paragen.data.corpus import CorpusError
from paragen.data.fetch import FetchError
from paragen.metrics.rouge_perl import PerlRougeError
from paragen.pipeline.dvc_record import DvcRecordError
from paragen.training.runlock import RunLockedError

COMMAND_MODULES = (data, models, scoring, reporting, engines, gpu_queue)
"""In pipeline order: ``paragen --help`` lists the commands this way."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paragen", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = Commands(parser.add_subparsers(dest="command", required=True))
    for module in COMMAND_MODULES:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        run_command(args)  # holding the locks of what it writes (paragen.locks)
    except (ConfigError, CorpusError, FetchError, FileNotFoundError, ValueError, RunLockedError,
            DvcRecordError, PerlRougeError) as error:  # RuleError (PPDB files), DistributedError are ValueErrors
        print(f"paragen {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a path the argument types could not vet (e.g. named inside a config file)
        where = f"{error.filename}: " if error.filename else ""
        print(f"paragen {args.command}: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
