"""Train one experiment for a few epochs at a chosen precision: on the CPU under bf16 autocast (as ``training.amp``
does on CUDA), or on a GPU in fp32 (``amp`` off), to tell what a CPU/GPU difference comes from.

Why: the same turk-mini configuration (``smini_nmt``) trained on the CPU kept a flat validation loss from epoch 2
while on an H200 it kept falling (docs/measurements.md, 2026-11-26). On CUDA the training step runs under bf16
autocast; on the CPU ``training.amp`` does nothing. Training on the CPU with the same autocast tells whether bf16
rounding explains the difference: if the probe's validation losses follow the GPU's, it does; if they follow the
CPU's fp32 run, the difference lies elsewhere (CUDA kernels, the CUDA generator's dropout masks).

    python bench/probes/precision_probe.py --experiment smini_nmt --epochs 4 --workdir /tmp/probe            # CPU, bf16
    python bench/probes/precision_probe.py --experiment smini_nmt --epochs 8 --workdir runs_fp32 --device cuda --fp32
    python bench/probes/precision_probe.py --experiment smini_nmt --epochs 4 --workdir seed2 --device cuda --seed 2

The models run every recurrence with autocast off (``models/state.py``), so bf16 reaches the same layers on
either device (embeddings, attention, output projections); the CPU's and the GPU's kernels and dropout masks
still differ, which is why the GPU runs in fp32 and with another seed (``--seed``) settled the question
(docs/decisions.md M9-M11).

The work folder gets a copy of ``--params`` whose training stops after ``--epochs`` and links to this checkout's
``data/`` (prepare the experiment's dataset first, e.g. with snakemake up to its vocabulary); the run goes to
``<workdir>/runs/<experiment>/`` (resumable: run the same command again). It prints the per-epoch log at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import torch
import yaml

import paragen.training.trainer as trainer
from paragen.cli import main as paragen_main
from paragen.config import load_config
from paragen.training.train_log import read_log


def cpu_bf16_autocast(device: torch.device, enabled: bool) -> torch.autocast:
    """What ``trainer.autocast`` gives on CUDA, on any device (the probe's one change)."""
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=enabled)


def prepare_workdir(params: Path, experiment: str, epochs: int, workdir: Path, fp32: bool = False,
                    seed: int | None = None) -> Path:
    """``workdir`` with params.yaml (the experiment's training stopped after ``epochs``, with ``fp32`` its ``amp``
    off, with ``seed`` trained from that seed: the experiment's own seed where it names one, else its training's)
    and a link to data/."""
    config = load_config(params)
    spec = config.experiments[experiment]
    raw = yaml.safe_load(params.read_text(encoding="utf-8"))
    raw["training"][spec.training]["max_epochs"] = epochs
    if fp32:
        raw["training"][spec.training]["amp"] = False
    if seed is not None:
        owner = raw["experiments"][experiment] if spec.seed is not None else raw["training"][spec.training]
        owner["seed"] = seed
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    data = workdir / "data"
    if not data.exists():
        data.symlink_to(params.resolve().parent / "data")
    return workdir / "params.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", required=True)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--params", type=Path, default=Path("params.yaml"))
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--device", default="cpu", help="cpu (bf16 autocast, the default) or cuda")
    parser.add_argument("--fp32", action="store_true", help="amp off: fp32 on any device")
    parser.add_argument("--seed", type=int, help="training seed (default: the experiment's)")
    args = parser.parse_args(argv)
    params = prepare_workdir(args.params, args.experiment, args.epochs, args.workdir, args.fp32, args.seed)
    os.chdir(args.workdir)
    if not args.fp32:
        trainer.autocast = cpu_bf16_autocast  # on CUDA the same as training.amp
    status = paragen_main(["train", "--params", str(params), "--experiment", args.experiment, "--device",
                           args.device, "--quiet"])
    log = Path("runs") / args.experiment / "train_log.csv"
    if log.exists():
        for row in read_log(log):
            print(", ".join(f"{key} {value:g}" for key, value in row.items()))
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
