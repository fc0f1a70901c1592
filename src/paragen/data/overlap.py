"""How much of a dataset's evaluation lines its training (or validation) split already holds.

A test line whose source sentence the model was trained on measures memory, not generation, and nothing in a
score shows it: a user who points ``train`` and ``test`` at the same files (or at overlapping ones) gets a fine
number. ``paragen prepare`` and ``paragen prepare-local`` therefore count, for every pair of splits, the lines
of the later split whose source occurs in the earlier (*identical sources*) and those whose source and first
reference both do (*identical pairs*; always at most the former), write the counts to ``prepare.json`` and refuse
the dataset when a *guarded* pair overlaps on more lines than ``max_overlap`` (params.yaml
``datasets.<name>.max_overlap``, default 0). Guarded pairs are training against any other split and a validation
split against a test split; two test sets (Gigaword's three) may share sentences and are only counted.

Splits are ordered training first, then validation (names starting with ``valid``), then the rest, so the count
is always of the split evaluated on. Empty sources (a reference-only split) are never counted.
"""

from __future__ import annotations

from typing import Mapping, Protocol

from paragen.data.corpus import CorpusError


class Pairs(Protocol):
    """What is counted of a split: :class:`paragen.data.prepare.Split` has both."""

    sources: list[str]
    references: list[list[str]]


def split_rank(split: str) -> int:
    """0 for training, 1 for validation, 2 for every other split (tests)."""
    return 0 if split == "train" else 1 if split.startswith("valid") else 2


def measure_overlap(splits: Mapping[str, Pairs]) -> dict[str, dict[str, int | bool]]:
    """``{"<earlier>/<later>": {"sources": n, "pairs": m, "guarded": bool}}`` for every pair of splits: ``n`` lines
    of ``later`` have a source found in ``earlier``, ``m`` of them with the same first reference too."""
    names = sorted(splits, key=split_rank)  # stable: a recipe's or the user's order within a rank
    result: dict[str, dict[str, int | bool]] = {}
    for i, earlier in enumerate(names):
        sources = {s for s in splits[earlier].sources if s}
        pairs = set(zip(splits[earlier].sources, splits[earlier].references[0]))
        for later in names[i + 1:]:
            data = splits[later]
            result[f"{earlier}/{later}"] = {
                "sources": sum(1 for s in data.sources if s and s in sources),
                "pairs": sum(1 for pair in zip(data.sources, data.references[0]) if pair[0] and pair in pairs),
                "guarded": split_rank(earlier) < split_rank(later),
            }
    return result


def check_overlap(dataset: str, splits: Mapping[str, Pairs], max_overlap: int,
                  switch: str) -> dict[str, dict[str, int | bool]]:
    """:func:`measure_overlap`, refused with the counts and ``switch`` (the setting that allows it) when a guarded
    pair shares more than ``max_overlap`` source sentences."""
    measured = measure_overlap(splits)
    over = [(key, counts) for key, counts in measured.items() if counts["guarded"] and counts["sources"] > max_overlap]
    if over:
        described = "; ".join(
            f"{counts['sources']:,} of the {len(splits[key.split('/')[1]].sources):,} {key.split('/')[1]} lines have a "
            f"source sentence that is also in {key.split('/')[0]} ({counts['pairs']:,} identical pairs)"
            for key, counts in over)
        needed = max(int(counts["sources"]) for _, counts in over)
        raise CorpusError(f"{dataset}: {described}; a score on such lines measures memory, not generation. Make the "
                          f"splits disjoint, or allow it with {switch}: {needed} (tables then state the overlap)")
    return measured


def allowed_overlap(measured: Mapping[str, Mapping[str, int | bool]]) -> list[str]:
    """Caption phrases for the guarded pairs that do overlap (``"12 test lines share a source with train"``)."""
    return [f"{counts['sources']:,} {key.split('/')[1]} lines share a source sentence with {key.split('/')[0]} "
            f"({counts['pairs']:,} identical pairs)"
            for key, counts in measured.items() if counts.get("guarded") and counts["sources"]]
