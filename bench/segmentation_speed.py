"""Segmentation throughput: BPE (subword-nmt) and jieba on generated corpora of 100,000 lines.

Usage: python bench/segmentation_speed.py [--lines 100000] [--workers N]

Prints lines/s for one process and for all cores (paragen segments in parallel, order kept).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from paragen.data.segment import learn_bpe_codes, segment_lines


def english(rng: random.Random, n: int) -> list[str]:
    """Pseudo-words of 1-4 syllables (about 20,000 types), drawn with a Zipf-like skew."""
    syllables = [c + v for c in "bcdfghklmnprstvw" for v in ("a", "e", "i", "o", "u", "ar", "en", "or")]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(20000)]
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    return [" ".join(rng.choices(words, weights, k=rng.randint(15, 35))) for _ in range(n)]


def chinese(rng: random.Random, n: int) -> list[str]:
    words = ["北京", "经济", "发展", "我们", "今天", "公司", "市场", "政府", "技术", "手机", "的", "了", "在", "是"]
    return ["".join(rng.choice(words) for _ in range(rng.randint(20, 50))) for _ in range(n)]


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    rng = random.Random(0)
    text = english(rng, args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        codes = Path(tmp) / "codes"
        learn_s = timed(lambda: learn_bpe_codes(text[:20000], 5000, codes))
        print(f"BPE learn, 5,000 merges on 20,000 lines: {learn_s:.1f} s")
        for workers in sorted({1, args.workers}):
            seconds = timed(lambda w=workers: segment_lines(text, "bpe", codes, workers=w, progress=False))
            print(f"BPE apply, {args.lines:,} lines, {workers} process(es): {args.lines / seconds:,.0f} lines/s")
    zh = chinese(rng, args.lines)
    segment_lines(zh[:10], "jieba", workers=1, progress=False)  # load jieba's dictionary once
    for workers in sorted({1, args.workers}):
        seconds = timed(lambda w=workers: segment_lines(zh, "jieba", workers=w, progress=False))
        print(f"jieba, {args.lines:,} lines, {workers} process(es): {args.lines / seconds:,.0f} lines/s")


if __name__ == "__main__":
    main()
