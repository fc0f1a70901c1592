"""``python -m paragen.pipeline.sbatch [--params FILE]``: the sbatch options of one job running the whole DAG
(the largest memory and GPU request of its stages, their summed wall time; see docs/cluster.md)."""

from __future__ import annotations

import argparse

from paragen.config import load_config
from paragen.pipeline.plan import build_plan
from paragen.pipeline.resources import serial


def main(argv: list[str] | None = None) -> int:
    """Print ``--mem=... --time=... [--gpus=...]`` for one sbatch job that runs every stage in turn."""
    parser = argparse.ArgumentParser(prog="python -m paragen.pipeline.sbatch", description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    args = parser.parse_args(argv)
    whole = serial(s.resources for s in build_plan(load_config(args.params)).stages)
    print(f"--mem={whole.mem_mb} --time={whole.runtime}" + (f" --gpus={whole.gpus}" if whole.gpus else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
