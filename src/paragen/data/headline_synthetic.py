"""A synthetic lossy headline task whose word alignments are known (the stand-in of the headline suite, 004).

Kiyono et al. (004) can show what source-side prediction aligns only by example (Figure 4, Table 4): Gigaword
has no gold alignment. Here every target token comes from one known source position, so an aligner (SPM's
q_j, or attention) can be scored against the truth:

- a source is a sequence of *content* words ``c<i>`` and *filler* words ``f<i>``;
- its headline keeps the content words in order, drops every filler, stops after ``max_target_length`` content
  words (the lossy part: later content is not in the headline), and writes a fixed share of the content word
  types through a word-to-word mapping ``c<i> -> r<i>`` (the inflection-like rewrites of 004 Table 4);
- ``<split>.align`` holds, per pair, the Pharaoh-style ``i-j`` links: source position i produced target
  position j (0-based), one link per target token.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from paragen.atomic import atomic_open
from paragen.config import HeadlineSyntheticDataset

SPLITS: tuple[str, ...] = ("train", "valid", "test")


@dataclass(frozen=True)
class AlignedPair:
    source: list[str]
    target: list[str]
    links: list[tuple[int, int]]  # (source position, target position), one per target token, in target order


def content_word(index: int) -> str:
    return f"c{index}"


def filler_word(index: int) -> str:
    return f"f{index}"


def rewritten_word(index: int) -> str:
    """The headline form of content word ``index`` when its type is one of the rewritten ones."""
    return f"r{index}"


def rewritten_types(spec: HeadlineSyntheticDataset) -> frozenset[int]:
    """Which content word types the headline rewrites: ``round(rewrite_fraction x content_words)`` of them,
    drawn once from the dataset's seed (the same mapping in every split)."""
    count = round(spec.rewrite_fraction * spec.content_words)
    return frozenset(random.Random(f"{spec.seed}-rewrites").sample(range(spec.content_words), count))


def make_pair(rng: random.Random, spec: HeadlineSyntheticDataset, rewrites: frozenset[int]) -> AlignedPair:
    """One source and its headline; at least one content word, so no headline is empty."""
    length = rng.randint(*spec.source_length)
    is_content = [rng.random() < spec.content_share for _ in range(length)]
    if not any(is_content):
        is_content[rng.randrange(length)] = True
    words = [rng.randrange(spec.content_words if content else spec.filler_words) for content in is_content]
    source = [content_word(w) if content else filler_word(w) for w, content in zip(words, is_content)]
    target, links = [], []
    for position, (word, content) in enumerate(zip(words, is_content)):
        if not content:
            continue
        if len(target) == spec.max_target_length:
            break
        links.append((position, len(target)))
        target.append(rewritten_word(word) if word in rewrites else content_word(word))
    return AlignedPair(source, target, links)


def generate(spec: HeadlineSyntheticDataset) -> dict[str, list[AlignedPair]]:
    """Every split; deterministic for ``spec.seed``. Splits are drawn independently from one generator, so a
    test source may repeat a training one only by chance."""
    rng = random.Random(spec.seed)
    rewrites = rewritten_types(spec)
    sizes = {"train": spec.train_pairs, "valid": spec.valid_pairs, "test": spec.test_pairs}
    return {split: [make_pair(rng, spec, rewrites) for _ in range(sizes[split])] for split in SPLITS}


def write_splits(splits: dict[str, list[AlignedPair]], out_dir: str | Path) -> None:
    """``<split>.src``, ``<split>.tgt`` and ``<split>.align`` (``i-j`` links), one pair per line."""
    out_dir = Path(out_dir)
    for split, pairs in splits.items():
        with atomic_open(out_dir / f"{split}.src") as src, atomic_open(out_dir / f"{split}.tgt") as tgt, \
                atomic_open(out_dir / f"{split}.align") as align:
            for pair in pairs:
                src.write(" ".join(pair.source) + "\n")
                tgt.write(" ".join(pair.target) + "\n")
                align.write(" ".join(f"{i}-{j}" for i, j in pair.links) + "\n")


def read_alignments(path: str | Path) -> list[list[tuple[int, int]]]:
    """Parse a ``.align`` file; a malformed link names the file, the line and what was expected."""
    alignments = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            links = []
            for item in line.split():
                left, sep, right = item.partition("-")
                if not (sep and left.isdigit() and right.isdigit()):
                    raise ValueError(f"{path}:{number}: expected links like 3-0 (source-target positions), "
                                     f"got {item!r}")
                links.append((int(left), int(right)))
            alignments.append(links)
    return alignments
