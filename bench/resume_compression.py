"""How much gzip shrinks a training's resume state (what a GPU call of the queue packs; docs/cluster.md).

Usage: python bench/resume_compression.py [--experiments smini_transformer synp_rnnsearch] [--steps 10]

Builds each experiment's model at its vocabulary's upper bound (paragen.pipeline.resources.vocabulary_size),
takes --steps Adam steps on random gradients so both moments hold values, saves weights and optimiser as the
trainer does, and gzips the file at level 6 (the queue's packing level). A state after training has other values
but the same float32 format, whose mantissas gzip cannot shrink.
"""

from __future__ import annotations

import argparse
import gzip
import io
import time

import torch

from paragen.config import load_config
from paragen.models import build_model
from paragen.pipeline.resources import vocabulary_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", nargs="+", default=["smini_transformer", "synp_rnnsearch"])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--params", default="params.yaml")
    args = parser.parse_args()
    torch.manual_seed(0)
    config = load_config(args.params)
    for name in args.experiments:
        spec = config.experiments[name]
        model = build_model(config.models[spec.model], vocabulary_size(config, spec.dataset))
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        for _ in range(args.steps):
            optimizer.zero_grad()
            sum((p * torch.randn_like(p)).sum() for p in model.parameters()).backward()
            optimizer.step()
        buffer = io.BytesIO()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
        raw = buffer.getvalue()
        started = time.perf_counter()
        packed = gzip.compress(raw, 6)
        print(f"{name}: state {len(raw) / 2**20:.1f} MiB, gzip -6 {len(packed) / 2**20:.1f} MiB "
              f"({len(packed) / len(raw):.3f} of it) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
