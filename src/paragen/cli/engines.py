"""The commands that keep the two workflow engines in step: dvc.yaml rendered from params.yaml, outputs made
by Snakemake recorded into dvc.lock, the DVC cache rehashed."""

from __future__ import annotations

import argparse
import logging

from paragen.cli.args import input_dir, output_file
from paragen.cli.common import Commands, load_params
from paragen.atomic import holds
from paragen.config import ConfigError
from paragen.data.corpus import CorpusError
from paragen.pipeline import dvc

log = logging.getLogger("paragen")


def cmd_dvc_yaml(args: argparse.Namespace) -> None:
    config = load_params(args)
    if args.check:
        if not holds(args.output, dvc.render_dvc_yaml(config, args.params)):
            raise ConfigError(f"{args.output} is out of date with {args.params}: run `paragen dvc-yaml`")
        print(f"{args.output} is up to date")
        return
    changed = dvc.write_dvc_yaml(config, args.output, args.params)
    print(f"{args.output} {'written' if changed else 'already up to date'}")


def cmd_dvc_commit(args: argparse.Namespace) -> None:
    from paragen.pipeline.dvc_record import describe, record_into_dvc_lock

    print(describe(*record_into_dvc_lock(load_params(args), args.params)))


def cmd_verify_cache(args: argparse.Namespace) -> None:
    from paragen.pipeline.dvc_cache import corrupted_objects

    bad = corrupted_objects(args.cache, progress=not args.quiet)
    for path, actual in bad:
        print(f"{path}: content hashes to {actual}, not to its name: corrupted")
    if bad:
        raise CorpusError(f"{len(bad)} corrupted object(s) in {args.cache}: delete them, then `dvc pull` or "
                          "`dvc repro` to restore them")
    print(f"{args.cache}: every object matches its md5")


def register(commands: Commands) -> None:
    """Add this module's subcommands to ``paragen``'s parser."""
    add = commands.add
    p = add("dvc-yaml", cmd_dvc_yaml, "render dvc.yaml from params.yaml")
    p.add_argument("--output", default="dvc.yaml", type=output_file)
    p.add_argument("--check", action="store_true", help="fail if dvc.yaml differs from what params.yaml gives")
    add("dvc-commit", cmd_dvc_commit, "record outputs made by Snakemake into dvc.lock (`dvc commit`), so `dvc status` "
        "is clean and `dvc repro` reruns nothing; the Snakefile does this after a run without --config overrides")
    p = add("verify-cache", cmd_verify_cache, "rehash every object of the DVC cache and name the corrupted ones "
            "(dvc status trusts unchanged size and mtime)", params=False)
    p.add_argument("--cache", default=".dvc/cache", type=input_dir, help="DVC cache directory (`dvc cache dir`)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
