"""A/B of the multiplicative attention score's kernel: ``bmm`` with one query column against a multiply and a sum.

Usage: python bench/probes/attention_energies.py [--passes 8] [--batches 6] [--threads 1]

Why: a CPU profile of the anchor's model (``bench/anchor_joeynmt.py``: RNNSearch, GRU, embeddings 150, hidden 300,
Luong ``general`` attention with input feeding, batches of 64) showed ``bmm`` calls with a single query column
taking far longer than their arithmetic needs. :meth:`paragen.models.attention.Attention.energies` now computes
``keys · query`` as ``(keys * query).sum(-1)``; this script times whole training passes (forward, backward, Adam)
of that model with each kernel, alternating them pass by pass in one process so that a busy machine slows both
alike, and prints the median and fastest pass of each. The two give the same scores to float rounding
(``tests/test_equations.py`` pins them by hand).

Since the CPU fast path of teacher forcing (docs/speed.md), CPU training computes the score in its own attention
step (``paragen.models.attention.LoopAttention``), which never calls ``Attention.energies``; this script switches
that path off (``RecurrentDecoder.forcing`` returns None), so it times the kernel where search and the plain
training path still use it, not what CPU training runs today.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import torch

from paragen.config import ModelConfig
from paragen.data.batching import iterate_batches
from paragen.data.vocabulary import SPECIALS, Vocabulary
from paragen.models import build_model
from paragen.models.attention import Attention
from paragen.models.decoders import RecurrentDecoder

from anchor_joeynmt import BATCH, PARAGEN_MODEL  # this folder is on sys.path when the script runs

MULTIPLY_AND_SUM = Attention.energies
RecurrentDecoder.forcing = lambda *_: None  # the plain training path, the one that calls Attention.energies


def bmm_energies(self: Attention, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """The former kernel: (batch, src_len, size) x (batch, size, 1) -> (batch, src_len)."""
    if self.score in ("dot", "general"):
        return torch.bmm(keys, query.unsqueeze(2)).squeeze(2)
    return MULTIPLY_AND_SUM(self, query, keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=8, help="timed passes per kernel (alternating)")
    parser.add_argument("--batches", type=int, default=6, help=f"batches of {BATCH} sentences per pass")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rng = random.Random(0)
    words = [f"w{i}" for i in range(1000)]
    vocab = Vocabulary(list(SPECIALS) + words)
    sources = [[rng.choice(words) for _ in range(rng.randint(10, 30))] for _ in range(BATCH * args.batches)]
    targets = [list(reversed(s)) for s in sources]  # a reversal task, as the anchor's (in memory, longer lines)
    torch.manual_seed(0)
    model = build_model(ModelConfig(**PARAGEN_MODEL), len(vocab), None)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    batches = list(iterate_batches(sources, targets, vocab, BATCH, torch.Generator().manual_seed(0)))
    model.train()

    def one_pass() -> float:
        started = time.perf_counter()
        for batch in batches:
            optimizer.zero_grad()
            model.loss(batch).total.backward()
            optimizer.step()
        return time.perf_counter() - started

    kernels = {"bmm": bmm_energies, "multiply-and-sum": MULTIPLY_AND_SUM}
    seconds: dict[str, list[float]] = {name: [] for name in kernels}
    one_pass()  # warm-up
    for i in range(args.passes):
        for name in (list(kernels) if i % 2 == 0 else list(reversed(kernels))):
            Attention.energies = kernels[name]
            seconds[name].append(one_pass())
    Attention.energies = MULTIPLY_AND_SUM
    print(f"torch {torch.__version__}, {args.threads} thread(s), {len(batches)} batches of {BATCH} a pass, "
          f"{args.passes} passes each, alternating")
    for name, values in seconds.items():
        print(f"{name:>17}: median {statistics.median(values):.3f} s a pass, fastest {min(values):.3f} s")
    ratio = statistics.median(seconds["bmm"]) / statistics.median(seconds["multiply-and-sum"])
    print(f"median bmm / median multiply-and-sum: {ratio:.2f}")


if __name__ == "__main__":
    main()
