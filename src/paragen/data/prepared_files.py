"""The prepared layout every real dataset shares, published whole: ``<split>.src``, ``<split>.tgt`` (the first
reference), ``<split>.ref.<k>`` when a split has several references, and ``prepare.json``.

A recipe's preparation (:mod:`paragen.data.prepare`) and a local dataset's (:mod:`paragen.data.local`) both end
here, so segmentation and everything after it read one layout, and the directory is replaced whole: no split or
reference an earlier configuration wrote survives to be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paragen.atomic import atomic_open, replaced_directory, write_json


@dataclass
class Split:
    """One prepared split: its sources, every reference aligned with them, and the notes its cleaning logged."""

    sources: list[str]
    references: list[list[str]]  # references[k][i]: k-th reference of sentence i
    notes: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.sources)

    def select(self, rows: list[int], note: str | None = None) -> "Split":
        """The pairs at ``rows`` (all references kept aligned), with ``note`` added to the log."""
        return Split([self.sources[i] for i in rows], [[ref[i] for i in rows] for ref in self.references],
                     self.notes + ([note] if note else []))


def write_split(out_dir: Path, split: str, data: Split) -> None:
    """Write the split; a reference-only split (no sources mirrored) gets no ``.src`` file."""
    if any(data.sources):
        with atomic_open(out_dir / f"{split}.src") as handle:
            handle.writelines(s + "\n" for s in data.sources)
    with atomic_open(out_dir / f"{split}.tgt") as handle:
        handle.writelines(t + "\n" for t in data.references[0])
    if len(data.references) > 1:
        for k, ref in enumerate(data.references):
            with atomic_open(out_dir / f"{split}.ref.{k}") as handle:
                handle.writelines(r + "\n" for r in ref)


def publish_prepared(out_dir: Path, splits: dict[str, Split], record: dict) -> None:
    """Replace ``out_dir`` whole (:func:`paragen.atomic.replaced_directory`) with these splits and ``record`` as
    ``prepare.json``: what a recipe's and a local dataset's preparation both publish."""
    with replaced_directory(out_dir) as staging:
        for split, data in splits.items():
            write_split(staging, split, data)
        write_json(staging / "prepare.json", record)
