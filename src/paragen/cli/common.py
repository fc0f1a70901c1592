"""What every command module of the CLI shares: how a subcommand is registered, and params.yaml as the engines see
it (``--data``, ``--suites``, ``--scale``, ``--seeds`` overrides; seed replica names)."""

from __future__ import annotations

import argparse
import contextlib
from typing import Callable

from paragen.cli.args import input_file
from paragen.config import ConfigError, ParagenConfig, load_config, parse_config
from paragen.config.runs import ExperimentConfig
from paragen.config.seeds import with_replica
from paragen.data.corpus import read_lines
from paragen.locks import holding
from paragen.project_lock import claim_for_stage

Handler = Callable[[argparse.Namespace], None]


class Commands:
    """The ``paragen`` subparsers: each command module's ``register`` adds its commands through :meth:`add`."""

    def __init__(self, subparsers: argparse._SubParsersAction) -> None:
        self._subparsers = subparsers

    def add(self, name: str, handler: Handler, help_text: str, params: bool = True,
            writes: Callable[[argparse.Namespace], list[tuple[str, bool]]] | None = None) -> argparse.ArgumentParser:
        """A subcommand running ``handler``; with ``params`` it takes ``--params FILE`` (default params.yaml).

        ``writes`` names the outputs the command writes (``(path, False)``) or must not see half-written
        (``(path, True)``): :func:`run_command` holds their locks (:mod:`paragen.locks`) while it runs, so the
        same stage started by the other engine refuses instead of writing beside it."""
        parser = self._subparsers.add_parser(name, help=help_text, description=help_text)
        if params:
            parser.add_argument("--params", default="params.yaml", type=input_file,
                                help="configuration file (default: params.yaml)")
        parser.set_defaults(handler=handler, writes=writes)
        return parser


def run_command(args: argparse.Namespace) -> None:
    """Run the parsed command while holding the locks of what it writes (:meth:`Commands.add`'s ``writes``), after
    making sure no other workflow engine runs this clone's stages (:mod:`paragen.project_lock`)."""
    claim_for_stage()
    if args.writes and getattr(args, "params", None):
        load_params(args)  # a broken params.yaml is refused before any lock file (or its folder) is created
    with contextlib.ExitStack() as stack:
        for target, shared in (args.writes(args) if args.writes else []):
            stack.enter_context(holding(target, shared=shared, doing="reading" if shared else "writing"))
        args.handler(args)


def load_params(args: argparse.Namespace) -> ParagenConfig:
    """params.yaml, with the engines' view of ``data``, ``suites`` and ``scale`` applied (Snakemake --config)."""
    config = load_config(args.params)
    overrides = {}
    for key in ("data", "suites"):
        value = getattr(args, key, None)
        if value is not None:
            overrides[key] = [item for item in value.split(",") if item]
    if getattr(args, "scale", None) is not None:
        overrides["scale"] = args.scale
    if getattr(args, "seeds", None) is not None:
        overrides["seeds"] = args.seeds
    if overrides:
        given = ", ".join(f"--{k}" for k in overrides)
        config = parse_config({**config.model_dump(exclude_unset=True), **overrides}, f"{args.params} with {given}")
    for key in ("experiment", "baseline"):  # a seed replica's name is known whatever `seeds` params.yaml holds
        if getattr(args, key, None):
            config = with_replica(config, getattr(args, key))
    return config


def known_experiment(config: ParagenConfig, name: str) -> ExperimentConfig:
    """``experiments.<name>``, or the valid names when there is none."""
    if name not in config.experiments:
        raise ConfigError(f"unknown experiment {name!r}; allowed values: {sorted(config.experiments)}")
    return config.experiments[name]


def named_files(pairs: list[str]) -> dict[str, tuple[str, list[str]]]:
    """NAME=FILE arguments (vetted by :func:`paragen.cli.args.named_input_file`) -> {name: (path, lines)}."""
    named = {}
    for pair in pairs:
        name, _, path = pair.partition("=")
        named[name] = (path, read_lines(path))
    return named
