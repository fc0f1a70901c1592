"""Aten operators per training step and per decoder step: a hardware-independent measure of launch overhead.

Usage: python bench/op_count.py [--models encdec rnnsearch copynet wean ...] [--sentences 64] [--length 20]
       [--params params.yaml] [--joeynmt] [--workdir bench/.joeynmt] [--json FILE]
       python bench/op_count.py --table BEFORE.json AFTER.json   (the Markdown table docs/speed.md shows)

Why count operators: on a GPU each computing operator is at least one kernel launch unless it is fused or
captured in a graph, so a recurrent model whose step runs a few hundred small operators is bound by launches,
not by arithmetic. Counting them needs no GPU, gives the same figure on every machine, and shows what a change
to the step loop saves before a GPU is at hand. (CPU decomposes the LSTM/GRU cells that CUDA fuses, so the CPU
count is a pessimistic proxy: compare like with like.)

What it counts: one training step (forward, backward, gradient clipping, Adam) of ``--sentences`` random
sentences whose targets are ``--length`` tokens long (sources 1.5x as long, also when the target is shorter), under a ``TorchDispatchMode`` that
sees every aten operator torch dispatches. ``computing`` leaves out the operators that only make views (``t``,
``detach``, ``slice``, ``view``, ...: ``OpOverload.is_view``). Per decoder step is the marginal count, ``(ops at
length L) - (ops at length L/2)`` divided by ``L - L/2``: what one more target token costs, forward and
backward, with the encoder (same source length) and the optimiser taken out.

``--models`` are names under ``models:`` in ``--params`` (default: the embedded default's four RNN models).
``--joeynmt`` also counts JoeyNMT 2.3.0's RNN model at ``bench/anchor_joeynmt.py``'s configuration (bi-GRU
300, GRU decoder 300, embeddings 150, Luong attention with input feeding, bridge), run inside the JoeyNMT
environment that script sets up (``--workdir``), beside paragen at the same configuration (``anchor``).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from anchor_joeynmt import PARAGEN_MODEL as ANCHOR  # the JoeyNMT anchor's model; this folder is on sys.path

VOCABULARY = 1000


class OperatorCounter(TorchDispatchMode):
    """Counts every aten operator dispatched while active: all of them, and those that compute (not views)."""

    def __init__(self) -> None:
        super().__init__()
        self.all = 0
        self.computing = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.all += 1
        self.computing += not func.is_view
        return func(*args, **(kwargs or {}))


def paragen_step_counts(model_config: dict, sentences: int, length: int, source_length: int) -> tuple[int, int]:
    """(all, computing) aten operators of one paragen training step at target length ``length``."""
    from paragen.config import ModelConfig
    from paragen.data.batching import iterate_batches
    from paragen.data.vocabulary import SPECIALS, Vocabulary
    from paragen.models import build_model, vocabulary_for

    config = ModelConfig(**model_config)
    words = [f"w{i}" for i in range(VOCABULARY - len(SPECIALS))]
    vocab = vocabulary_for(config, Vocabulary(list(SPECIALS) + words))
    rng = random.Random(0)
    sources = [[rng.choice(words) for _ in range(source_length)] for _ in range(sentences)]
    targets = [[rng.choice(words) for _ in range(length)] for _ in range(sentences)]
    torch.manual_seed(0)
    model = build_model(config, len(vocab))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    (batch,) = list(iterate_batches(sources, targets, vocab, sentences, torch.Generator().manual_seed(0)))
    model.train()
    step = lambda: _train_step(model, optimizer, lambda: model.loss(batch).total)  # noqa: E731
    step()  # Adam's state is created on its first step: count a later one
    with OperatorCounter() as counter:
        step()
    return counter.all, counter.computing


def _train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, loss) -> None:
    optimizer.zero_grad()
    loss().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()


def per_step(counts_long: tuple[int, int], counts_short: tuple[int, int], length: int) -> tuple[float, float]:
    """The marginal operators of one decoder step (all, computing) between lengths ``length // 2`` and ``length``."""
    steps = length - length // 2
    return tuple((a - b) / steps for a, b in zip(counts_long, counts_short))  # type: ignore[return-value]


def joeynmt_step_counts(sentences: int, length: int, source_length: int) -> tuple[int, int]:
    """(all, computing) of one JoeyNMT 2.3.0 RNN training step (run in JoeyNMT's environment). The batch tensors
    are made as ``joeynmt.batch.Batch`` makes them: ``trg_input`` = <s> y_1..y_n, ``trg`` = y_1..y_n </s>, masks of
    shape (batch, 1, length)."""
    from types import SimpleNamespace

    from joeynmt.model import build_model as joey_build
    from joeynmt.vocabulary import Vocabulary as JoeyVocabulary

    specials = SimpleNamespace(unk_token="<unk>", pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                               sep_token=None, lang_tags=[], unk_id=0, pad_id=1, bos_id=2, eos_id=3)
    vocab = JoeyVocabulary([f"w{i}" for i in range(VOCABULARY - 4)], specials)
    cfg = {"encoder": {"type": "recurrent", "rnn_type": "gru", "embeddings": {"embedding_dim": 150},
                       "hidden_size": 300, "bidirectional": True, "dropout": 0.1, "num_layers": 1},
           "decoder": {"type": "recurrent", "rnn_type": "gru", "embeddings": {"embedding_dim": 150},
                       "hidden_size": 300, "dropout": 0.1, "hidden_dropout": 0.1, "num_layers": 1,
                       "input_feeding": True, "init_hidden": "bridge", "attention": "luong"}}
    torch.manual_seed(0)
    model = joey_build(cfg, src_vocab=vocab, trg_vocab=vocab)
    model.loss_function = ("crossentropy", 0.0)  # the setter builds XentLoss(pad_index, smoothing)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)
    src = torch.randint(4, len(vocab), (sentences, source_length), generator=generator)
    words = torch.randint(4, len(vocab), (sentences, length), generator=generator)
    trg_input = torch.cat([torch.full((sentences, 1), vocab.bos_index), words], dim=1)
    trg = torch.cat([words, torch.full((sentences, 1), vocab.eos_index)], dim=1)
    inputs = {"src": src, "trg": trg, "trg_input": trg_input, "src_mask": (src != vocab.pad_index).unsqueeze(1),
              "src_length": torch.full((sentences,), source_length), "trg_mask": (trg != vocab.pad_index).unsqueeze(1)}
    model.train()

    def loss():
        return model(return_type="loss", **inputs)[0]

    _train_step(model, optimizer, loss)
    with OperatorCounter() as counter:
        _train_step(model, optimizer, loss)
    return counter.all, counter.computing


def markdown_table(before: dict, after: dict) -> str:
    """Computing operators per decoder step and per training step, before and after, one row per model (rows of
    ``after`` only; JoeyNMT's row, when counted, beside them)."""
    lines = ["| model | computing ops per decoder step, before / after | after / before | per training step, "
             "before / after |", "| --- | --- | --- | --- |"]
    for name, row in after["rows"].items():
        old = before["rows"].get(name)
        per, step = row["per_decoder_step"][1], row["step"][1]
        if old is None:
            lines.append(f"| {name} | — / {per:.0f} | — | — / {step:,} |")
            continue
        old_per, old_step = old["per_decoder_step"][1], old["step"][1]
        lines.append(f"| {name} | {old_per:.0f} / {per:.0f} | {per / old_per:.2f} | {old_step:,} / {step:,} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["encdec", "rnnsearch", "copynet", "wean"])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--sentences", type=int, default=64)
    parser.add_argument("--length", type=int, default=20)
    parser.add_argument("--joeynmt", action="store_true")
    parser.add_argument("--joeynmt-only", action="store_true", help=argparse.SUPPRESS)  # run inside its venv
    parser.add_argument("--workdir", default="bench/.joeynmt")
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--table", nargs=2, metavar=("BEFORE", "AFTER"), help="print the table of two --json files")
    args = parser.parse_args()
    if args.table:
        before, after = (json.loads(Path(p).read_text(encoding="utf-8")) for p in args.table)
        print(markdown_table(before, after), end="")
        return
    torch.set_num_threads(1)
    if args.joeynmt_only:
        long, short = (joeynmt_step_counts(args.sentences, n, args.length * 3 // 2)
                       for n in (args.length, args.length // 2))
        print(json.dumps({"step": long, "per_decoder_step": per_step(long, short, args.length)}))
        return
    from paragen.config import load_config

    models = {name: load_config(args.params).models[name].model_dump(exclude_unset=True) for name in args.models}
    models["anchor"] = ANCHOR
    rows = {}
    for name, config in models.items():
        long, short = (paragen_step_counts(config, args.sentences, n, args.length * 3 // 2)
                       for n in (args.length, args.length // 2))
        rows[f"paragen {name}"] = {"step": long, "per_decoder_step": per_step(long, short, args.length)}
    if args.joeynmt:
        python = Path(args.workdir) / "venv" / "bin" / "python"
        if not python.exists():
            sys.exit(f"{python}: no JoeyNMT environment; set it up with `python bench/anchor_joeynmt.py` first")
        done = subprocess.run([str(python), __file__, "--joeynmt-only", "--sentences", str(args.sentences),
                               "--length", str(args.length)], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"JoeyNMT count failed:\n{done.stderr}")
        rows["JoeyNMT 2.3.0 anchor"] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{'model':<28} {'ops/step':>9} {'computing':>10} {'ops/decoder step':>17} {'computing':>10}")
    for name, row in rows.items():
        (all_ops, computing), (per_all, per_computing) = row["step"], row["per_decoder_step"]
        print(f"{name:<28} {all_ops:>9,} {computing:>10,} {per_all:>17.1f} {per_computing:>10.1f}")
    if args.json:
        from paragen.atomic import write_text

        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        write_text(args.json, json.dumps({"sentences": args.sentences, "length": args.length, "commit": revision,
                                          "torch": torch.__version__, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
