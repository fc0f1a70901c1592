"""Training tokens/s and decoding sentences/s per model configuration of params.yaml.

Usage: python bench/train_speed.py [--models seq2seq_mini wean_mini ...] [--vocab 10000]
       [--sentences 2048] [--length 25] [--batch 64] [--device cuda] [--amp] [--threads N]

Runs on a generated corpus (random words, lengths uniform in [length/2, length]) so the figures
depend only on the model, vocabulary size and device. Training: full forward/backward/Adam steps
over length-bucketed batches (the trainer's own batching), bf16 autocast when --amp and CUDA.
Decoding: beam search (--beam, default 5) over --decode-sentences sentences. Prints one line per
model; the first batch of each phase is a warm-up and is not timed.
"""

from __future__ import annotations

import argparse
import random
import time

import torch

from paragen.data.batching import iterate_batches
from paragen.config import load_config
from paragen.decoding.decode import translate
from paragen.models import build_model
from paragen.training.trainer import autocast, pick_device
from paragen.data.vocabulary import SPECIALS, Vocabulary


def corpus(n: int, length: int, words: list[str], rng: random.Random) -> list[list[str]]:
    return [[rng.choice(words) for _ in range(rng.randint(max(1, length // 2), length))] for _ in range(n)]


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def bench_model(name: str, args: argparse.Namespace, vocab: Vocabulary, sources, targets, device) -> str:
    config = load_config(args.params).models[name]
    torch.manual_seed(0)
    model = build_model(config, len(vocab)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = list(iterate_batches(sources, targets, vocab, args.batch, torch.Generator().manual_seed(0)))
    model.train()
    tokens, started = 0, 0.0
    for i, batch in enumerate(batches):
        if i == 1:
            sync(device)
            started, tokens = time.perf_counter(), 0
        optimizer.zero_grad()
        with autocast(device, args.amp):
            result = model.loss(batch.to(device))
        loss, n = result.total, result.tokens
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        tokens += n
    sync(device)
    train_rate = tokens / (time.perf_counter() - started)
    decode_sources = sources[: args.decode_sentences]
    translate(model, decode_sources[: args.batch], vocab, beam_size=args.beam, max_length=2 * args.length,
              length_penalty=1.0, nbest=1, batch_size=args.batch, device=device)  # warm-up
    sync(device)
    started = time.perf_counter()
    translate(model, decode_sources, vocab, beam_size=args.beam, max_length=2 * args.length, length_penalty=1.0,
              nbest=1, batch_size=args.batch, device=device)
    sync(device)
    decode_rate = len(decode_sources) / (time.perf_counter() - started)
    params = sum(p.numel() for p in model.parameters()) / 1e6
    return (f"{name:18s} {params:7.2f}M params  train {train_rate:9.0f} tokens/s  "
            f"decode (beam {args.beam}) {decode_rate:7.1f} sentences/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--models", nargs="+", default=["seq2seq_mini", "wean_mini"])
    parser.add_argument("--vocab", type=int, default=10000, help="vocabulary size besides the special symbols")
    parser.add_argument("--sentences", type=int, default=2048, help="training sentences (one pass)")
    parser.add_argument("--decode-sentences", type=int, default=256)
    parser.add_argument("--length", type=int, default=25, help="maximum sentence length in tokens")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--device", default=None, help="default: cuda if available, else cpu")
    parser.add_argument("--amp", action="store_true", help="bf16 autocast (CUDA only)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    rng = random.Random(0)
    words = [f"w{i}" for i in range(args.vocab)]
    vocab = Vocabulary(list(SPECIALS) + words)
    sources = corpus(args.sentences, args.length, words, rng)
    targets = corpus(args.sentences, args.length, words, rng)
    print(f"device {device}{' (' + torch.cuda.get_device_name(device) + ')' if device.type == 'cuda' else ''}, "
          f"threads {torch.get_num_threads()}, amp {args.amp and device.type == 'cuda'}, vocab {len(vocab)}, "
          f"{args.sentences} sentences of <= {args.length} tokens, batch {args.batch}")
    for name in args.models:
        print(bench_model(name, args, vocab, sources, targets, device), flush=True)


if __name__ == "__main__":
    main()
