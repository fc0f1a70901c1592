"""Reader for LCSTS's release format (Hu et al., 2015).

Each record looks like::

    <doc id=0>
        <human_label>5</human_label>      (PART II and III only)
        <summary>
            ...summary...
        </summary>
        <short_text>
            ...text...
        </short_text>
    </doc>

A record that breaks this shape stops the reader with the file, the line and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from paragen.data.corpus import CorpusError, read_lines

_DOC_OPEN = re.compile(r"^<doc id=(\d+)>$")
_LABEL = re.compile(r"^<human_label>(\d)</human_label>$")


@dataclass(frozen=True)
class LcstsRecord:
    doc_id: int
    summary: str
    text: str
    human_label: int | None
    line: int  # where the record starts


def _block(lines: list[str], i: int, tag: str, path: Path) -> tuple[str, int]:
    """Content between ``<tag>`` at line i and ``</tag>``; returns it and the next line index."""
    if i >= len(lines) or lines[i].strip() != f"<{tag}>":
        found = lines[i].strip() if i < len(lines) else "end of file"
        raise CorpusError(f"{path}:{i + 1}: expected <{tag}>, found {found!r}")
    content = []
    opened_at = i + 1
    i += 1
    while i < len(lines) and lines[i].strip() != f"</{tag}>":
        if lines[i].strip().startswith("<"):
            raise CorpusError(f"{path}:{i + 1}: expected </{tag}>, found {lines[i].strip()!r}")
        content.append(lines[i].strip())
        i += 1
    if i >= len(lines):
        raise CorpusError(f"{path}:{opened_at}: <{tag}> opened here but never closed (truncated file?)")
    text = "".join(content)
    if not text:
        raise CorpusError(f"{path}:{i + 1}: empty <{tag}>")
    return text, i + 1


def read_lcsts(path: str | Path) -> Iterator[LcstsRecord]:
    path = Path(path)
    lines = read_lines(path)
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        start = i
        opened = _DOC_OPEN.match(lines[i].strip())
        if not opened:
            raise CorpusError(f"{path}:{i + 1}: expected '<doc id=N>', found {lines[i].strip()!r}")
        i += 1
        label = None
        if i < len(lines) and lines[i].strip().startswith("<human_label>"):
            match = _LABEL.match(lines[i].strip())
            if not match:
                raise CorpusError(f"{path}:{i + 1}: expected '<human_label>1-5</human_label>', "
                                  f"found {lines[i].strip()!r}")
            label = int(match.group(1))
            if not 1 <= label <= 5:
                raise CorpusError(f"{path}:{i + 1}: human label {label} outside 1-5")
            i += 1
        summary, i = _block(lines, i, "summary", path)
        text, i = _block(lines, i, "short_text", path)
        if i >= len(lines) or lines[i].strip() != "</doc>":
            found = lines[i].strip() if i < len(lines) else "end of file"
            raise CorpusError(f"{path}:{i + 1}: expected </doc>, found {found!r}")
        i += 1
        yield LcstsRecord(int(opened.group(1)), summary, text, label, start + 1)
