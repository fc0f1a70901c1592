"""Scoring speed: SARI on 359 sentences x 8 references, ROUGE on 10,000 headlines, BLEU on both.

Usage: python bench/scoring_speed.py [--mirror DIR]   (default: $PARAGEN_MIRROR, as paragen's own commands)

Uses the real Turk test set and DRESS output when the mirror is present, else a generated corpus
of the same shape. Prints seconds per call (best of 3).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from paragen.data.registry import default_mirror
from paragen.metrics.bleu import corpus_bleu
from paragen.metrics.rouge import corpus_rouge
from paragen.metrics.sari import corpus_sari


def best_of(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def generated(n: int, length: int, rng: random.Random, vocab: list[str]) -> list[str]:
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(length // 2, length))) for _ in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=default_mirror(), help="a local mirror (docs/datasets.md)")
    args = parser.parse_args()
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(5000)]
    turk = Path(args.mirror) / "turkcorpus/cocoxu_simplification/data/turkcorpus/test.8turkers.tok."
    output = Path(args.mirror) / "system_outputs/XingxingZhang_dress/all-system-output/WikiLarge/test/lower/Dress.lower"
    if turk.with_name(turk.name + "norm").exists() and output.exists():
        read = lambda p: p.read_text(encoding="utf-8").rstrip("\n").split("\n")  # noqa: E731
        sources = read(turk.with_name(turk.name + "norm"))
        refs = [read(turk.with_name(turk.name + f"turk.{i}")) for i in range(8)]
        hyps = read(output)
        origin = "real Turk test + DRESS output"
    else:
        sources = generated(359, 44, rng, vocab)
        refs = [generated(359, 40, rng, vocab) for _ in range(8)]
        hyps = generated(359, 40, rng, vocab)
        origin = "generated (mirror absent)"
    print(f"SARI legacy, {len(sources)} sentences x {len(refs)} refs ({origin}): "
          f"{best_of(3, lambda: corpus_sari(sources, hyps, refs, 'legacy')):.3f} s")
    print(f"SARI easse,  {len(sources)} sentences x {len(refs)} refs: "
          f"{best_of(3, lambda: corpus_sari(sources, hyps, refs, 'easse')):.3f} s")
    print(f"BLEU, {len(sources)} sentences x {len(refs)} refs: {best_of(3, lambda: corpus_bleu(hyps, refs)):.3f} s")
    heads = generated(10000, 12, rng, vocab)
    golds = generated(10000, 12, rng, vocab)
    print(f"ROUGE-1/2/L words, 10,000 headlines: {best_of(3, lambda: corpus_rouge(heads, golds)):.3f} s")
    chinese = [" ".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(20)) for _ in range(10000)]
    chinese_gold = [" ".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(20)) for _ in range(10000)]
    print(f"ROUGE-1/2/L characters, 10,000 summaries: "
          f"{best_of(3, lambda: corpus_rouge(chinese, chinese_gold, unit='char')):.3f} s")


if __name__ == "__main__":
    main()
