"""Reading prepared parallel corpora, with errors that name the file and line."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Iterator
from pathlib import Path


class CorpusError(ValueError):
    """A prepared corpus file is malformed."""


# Longest line, in characters, that ROUGE scoring accepts and `prepare` keeps. ROUGE-L's longest common
# subsequence (rouge-score) builds a table of len(hyp) x len(ref) Python integers: one 4,000-character pair takes
# 4.5 s scored on characters and 0.3 s on words (measured 2026-11-24, docs/measurements.md; 280 MB on characters),
# a 10 MB line exhausted 24 GB. No sentence or summary of the papers' datasets comes near it. BLEU and SARI are
# linear in a line's length and only meet read_lines's general bound (READ_LIMIT_CHARS).
MAX_LINE_CHARS = 4000


@dataclass(frozen=True)
class ParallelCorpus:
    """Tokenised source/target pairs of one split, plus an optional tag per pair."""

    sources: list[list[str]]
    targets: list[list[str]]
    tags: list[str] | None = None

    def __len__(self) -> int:
        return len(self.sources)


def characters(text: str) -> list[str]:
    """Character tokens: every non-whitespace character (how LCSTS is segmented and scored)."""
    return [ch for ch in text if not ch.isspace()]


def check_aligned(path_a: str | Path, count_a: int, path_b: str | Path, count_b: int) -> None:
    """Parallel files must have one line per sentence each; the error names both files and counts."""
    if count_a != count_b:
        raise CorpusError(f"{path_a} has {count_a} lines but {path_b} has {count_b}: "
                          "files must be aligned line by line")


READ_LIMIT_CHARS = 1_000_000
"""Longest line any file may have (characters) when the caller names no limit: a line is read with a bound, so a
file without line breaks (``/dev/zero``, a binary) fails at once instead of filling memory."""

BOM = "\ufeff"


def read_lines(path: str | Path, max_chars: int | None = None, why: str = "") -> list[str]:
    """Lines of a UTF-8 text file without line terminators, each read with a bound (:func:`iter_lines`)."""
    return list(iter_lines(path, max_chars, why))


def iter_lines(path: str | Path, max_chars: int | None = None, why: str = "") -> Iterator[str]:
    """The lines of :func:`read_lines` one at a time, for a pass over a file too large to hold (a vocabulary
    of Gigaword's 3.8M training pairs counts tokens, it does not keep them).

    A byte-order mark at the start is dropped (an editor's artefact, not text: left in, it would be part of the
    first token). Refused, naming the file and line: bad UTF-8, NUL bytes (a binary file), a carriage return
    inside a line (CR-only line endings would read as one line), a line over ``max_chars`` characters (``why``
    says who imposes that limit).
    """
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: file not found")
    limit = READ_LIMIT_CHARS if max_chars is None else max_chars
    with open(path, "rb") as handle:
        number = 0
        while True:
            raw = handle.readline(4 * limit + 3)  # UTF-8 takes at most 4 bytes a character, plus CR LF
            if not raw:
                break
            number += 1
            if not raw.endswith(b"\n") and len(raw) > 4 * limit:
                raise CorpusError(f"{path}:{number}: line longer than {limit:,} characters{why}")
            nul = raw.find(b"\0")
            if nul >= 0:
                raise CorpusError(f"{path}:{number}: NUL byte at byte {nul + 1} of the line: not a text file")
            try:
                line = raw.decode("utf-8").rstrip("\n").removesuffix("\r")
            except UnicodeDecodeError as error:
                raise CorpusError(f"{path}:{number}: not valid UTF-8 ({error.reason} at byte {error.start})") from None
            if number == 1:
                line = line.removeprefix(BOM)
            if "\r" in line:
                raise CorpusError(f"{path}:{number}: carriage return inside the line (CR-only line endings?): "
                                  "convert the file to LF or CRLF line endings, one sentence per line")
            if len(line) > limit:
                raise CorpusError(f"{path}:{number}: line has {len(line):,} characters; at most {limit:,} are "
                                  f"accepted per line{why}")
            yield line


def read_split(directory: str | Path, split: str, require_nonempty: bool = True) -> ParallelCorpus:
    """Read ``<split>.src`` / ``<split>.tgt`` (and ``<split>.tag`` when present)."""
    directory = Path(directory)
    src_path, tgt_path, tag_path = (directory / f"{split}.{s}" for s in ("src", "tgt", "tag"))
    sources, targets = tokenised(src_path, require_nonempty), tokenised(tgt_path, require_nonempty)
    check_aligned(src_path, len(sources), tgt_path, len(targets))
    tags = None
    if tag_path.exists():
        tags = read_lines(tag_path)
        check_aligned(tag_path, len(tags), src_path, len(sources))
    return ParallelCorpus(sources, targets, tags)


def tokenised(path: Path, require_nonempty: bool) -> list[list[str]]:
    """The whitespace tokens of each line, each distinct token one shared string (``sys.intern``): a corpus is
    mostly repeats of a few thousand types, and a string object per occurrence would hold LCSTS's 2.4M training
    texts (about 250M characters) in tens of gigabytes."""
    lines = []
    for number, line in enumerate(iter_lines(path), start=1):
        tokens = line.split()
        if require_nonempty and not tokens:
            raise CorpusError(f"{path}:{number}: empty line (expected a tokenised sentence)")
        lines.append(list(map(sys.intern, tokens)))
    return lines


def reference_files(directory: str | Path, split: str) -> list[str]:
    """``<split>.ref.0..N`` when the split has several references, else ``<split>.tgt``."""
    directory = Path(directory)
    refs = sorted(directory.glob(f"{split}.ref.*"), key=lambda p: int(p.suffix[1:]))
    return [str(p) for p in refs] or [str(directory / f"{split}.tgt")]


def read_raw(path: Path, notes: list[str]) -> list[str]:
    """Lines of a raw file; CRLF endings are stripped and counted in ``notes``."""
    data = path.read_bytes() if path.exists() else None
    if data is None:
        raise CorpusError(f"{path}: file not found (run `paragen fetch` first)")
    crlf = data.count(b"\r\n")
    if crlf:
        notes.append(f"{path.name}: {crlf} CRLF line endings stripped")
    return read_lines(path)
