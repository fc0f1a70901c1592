"""Vocabularies of the papers' sizes, built from a segmented training split.

Sizes the papers report (``paragen vocab-build --size``): 50,000 words (WEAN on PWKP and EW-SEW),
4,000 characters shared between source and summary (WEAN on LCSTS, §3.2.3), 3,000 characters or
10,000 words (CopyNet on LCSTS +C / +W), 10,000 (the transformer report), and Gigaword's BPE
vocabulary shared between source and target (SPM §5.4: pass no size to keep every BPE symbol).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from paragen.data.corpus import CorpusError, iter_lines
from paragen.data.vocabulary import SPECIALS, Vocabulary


def build_vocabularies(directory: str | Path, size: int | None, shared: bool,
                       out_dir: str | Path | None = None) -> list[Path]:
    """Write ``vocab.txt`` (shared) or ``vocab.src.txt`` and ``vocab.tgt.txt`` into ``out_dir`` (default:
    ``directory``, which holds the segmented ``train.src`` and ``train.tgt``).

    ``size`` counts tokens besides the four special symbols, as the papers' sizes do. The DAG writes them to
    ``data/vocab/<name>.<scheme>/``, outside the segmented directory, which the segment stage owns whole.
    """
    directory = Path(directory)
    out = Path(out_dir) if out_dir is not None else directory
    sides = {side: directory / f"train.{side}" for side in ("src", "tgt")}
    missing = [str(p) for p in sides.values() if not p.exists()]
    if missing:
        raise CorpusError(f"vocabularies are built on the training split, which is missing: {', '.join(missing)}")
    def corpus(side: str) -> Iterator[list[str]]:  # streamed: only the token counts are held
        return (line.split() for line in iter_lines(sides[side]))

    size = None if size is None else size + len(SPECIALS)
    if shared:
        Vocabulary.build([corpus("src"), corpus("tgt")], size).save(out / "vocab.txt")
        return [out / "vocab.txt"]
    written = []
    for side in sides:
        Vocabulary.build([corpus(side)], size).save(out / f"vocab.{side}.txt")
        written.append(out / f"vocab.{side}.txt")
    return written
