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

The options below make an attentional EncDec meet what 004 targets (odd generation: repeats and dropped content,
and misalignment); each is off (0) by default, and off they leave the data draw for draw as without them:

- ``merge_fraction``: many-to-one rewrites, groups of ``merge_size`` content types written as one word ``m<g>``;
- ``context_fraction``: one-to-many rewrites, types written ``a<i>`` or ``b<i>`` by the source's register marker
  (``xa`` / ``xb``, its first token, not linked);
- ``duplicate_share``: a content word repeated later in the source, mentioned once (its first occurrence);
- ``reverse_share``: the marker ``xrev`` in front, and the headline's content in reverse order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paragen.atomic import atomic_open

if TYPE_CHECKING:  # data sits below config (docs/architecture.md): the schema is for annotations only
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


REVERSE_MARKER = "xrev"
REGISTER_MARKERS = ("xa", "xb")


@dataclass(frozen=True)
class TypeForms:
    """How the headline writes each content word type: rewritten (``r<i>``), merged into a group (``m<g>``) or
    by register (``a<i>`` / ``b<i>``); any other type is copied."""

    rewrites: frozenset[int]
    merged: dict[int, int]  # content type -> group
    by_register: frozenset[int]

    def form(self, word: int, register: int | None) -> str:
        if word in self.rewrites:
            return rewritten_word(word)
        if word in self.merged:
            return f"m{self.merged[word]}"
        if word in self.by_register and register is not None:
            return f"{'ab'[register]}{word}"
        return content_word(word)


def type_forms(spec: HeadlineSyntheticDataset) -> TypeForms:
    """The rewritten types (:func:`rewritten_types`, unchanged), then disjoint merged and register-dependent sets
    drawn from the other types, each from its own seeded stream (the same in every split)."""
    rewrites = rewritten_types(spec)
    rest = [w for w in range(spec.content_words) if w not in rewrites]
    random.Random(f"{spec.seed}-forms").shuffle(rest)
    merged_count = round(spec.merge_fraction * spec.content_words) // spec.merge_size * spec.merge_size
    merged = {w: k // spec.merge_size for k, w in enumerate(sorted(rest[:merged_count]))}
    register_count = round(spec.context_fraction * spec.content_words)
    return TypeForms(rewrites, merged, frozenset(rest[merged_count:merged_count + register_count]))


def make_pair(rng: random.Random, spec: HeadlineSyntheticDataset, rewrites: frozenset[int] | TypeForms) \
        -> AlignedPair:
    """One source and its headline; at least one content word, so no headline is empty. The options' draws
    come after the base draws and only when the option is on."""
    forms = rewrites if isinstance(rewrites, TypeForms) else TypeForms(rewrites, {}, frozenset())
    length = rng.randint(*spec.source_length)
    is_content = [rng.random() < spec.content_share for _ in range(length)]
    if not any(is_content):
        is_content[rng.randrange(length)] = True
    words = [rng.randrange(spec.content_words if content else spec.filler_words) for content in is_content]
    source = [content_word(w) if content else filler_word(w) for w, content in zip(words, is_content)]
    repeated: set[int] = set()  # positions of a content word's later mention: dropped like a filler
    if spec.duplicate_share > 0 and rng.random() < spec.duplicate_share:
        first = rng.choice([i for i, c in enumerate(is_content) if c])
        later = [i for i in range(first + 2, length) if not is_content[i]]
        if later:
            position = rng.choice(later)
            words[position], is_content[position] = words[first], True
            source[position] = content_word(words[first])
            repeated.add(position)
    reverse = spec.reverse_share > 0 and rng.random() < spec.reverse_share
    register = rng.randrange(2) if spec.context_fraction > 0 else None
    prefix = ([REGISTER_MARKERS[register]] if register is not None else []) + ([REVERSE_MARKER] if reverse else [])
    kept = []
    for position, (word, content) in enumerate(zip(words, is_content)):
        if not content or position in repeated:
            continue
        if len(kept) == spec.max_target_length:
            break
        kept.append((position + len(prefix), forms.form(word, register)))
    if reverse:
        kept.reverse()
    return AlignedPair(prefix + source, [form for _, form in kept], [(i, j) for j, (i, _) in enumerate(kept)])


def generate(spec: HeadlineSyntheticDataset) -> dict[str, list[AlignedPair]]:
    """Every split; deterministic for ``spec.seed``. Splits are drawn independently from one generator, so a
    test source may repeat a training one only by chance."""
    rng = random.Random(spec.seed)
    forms = type_forms(spec)
    sizes = {"train": spec.train_pairs, "valid": spec.valid_pairs, "test": spec.test_pairs}
    return {split: [make_pair(rng, spec, forms) for _ in range(sizes[split])] for split in SPLITS}


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
