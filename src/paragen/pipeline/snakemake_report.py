"""Caption files for ``snakemake --report``, written from the stages' :class:`~paragen.pipeline.report_items.ReportItem`\\ s.

Snakemake reads a report caption from a file (reStructuredText, rendered through Jinja first), so each item's
plain-text caption is written to one small ``.rst`` file when the workflow is parsed (``workflow/rules/common.smk``).
The text is escaped for both, so a title with ``*``, backquotes or ``{{`` shows as typed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from paragen.atomic import write_text
from paragen.pipeline.report_items import ReportItem

CAPTION_DIR = ".snakemake/paragen-captions"
"""Beside Snakemake's own metadata: generated, ignored by git and DVC, rewritten on every parse."""

_RST_SPECIAL = re.compile(r"([^\w\s]|_)")
"""Every punctuation character: RST may read any of them as markup (roles, references, substitutions, list
enumerators, section underlines), and an escaped one is always literal."""

_WILDCARD = re.compile(r"[{}]")


def rst_text(text: str) -> str:
    """``text`` as one RST paragraph that renders exactly as ``text`` (a backslash makes any character literal),
    inside a Jinja ``raw`` block (Snakemake renders captions as Jinja templates before RST)."""
    if "endraw" in text:
        raise ValueError(f"a report caption may not contain 'endraw': {text!r}")
    escaped = _RST_SPECIAL.sub(r"\\\1", " ".join(text.split()))
    return "{% raw %}" + escaped + "{% endraw %}\n"


def caption_file(directory: Path, item: ReportItem) -> Path:
    return directory / (item.path.replace("/", "__") + ".rst")


def write_captions(items: Iterable[ReportItem], directory: str | Path = CAPTION_DIR) -> dict[str, str]:
    """Write one caption file per item (only where its text changed); output path -> absolute caption path.

    Snakemake applies wildcards to a report item's category and subcategory, so braces there are refused with
    the item's path (they come from a table's title in params.yaml)."""
    directory = Path(directory).resolve()
    files: dict[str, str] = {}
    for item in items:
        for field, value in (("category", item.category), ("subcategory", item.subcategory)):
            if _WILDCARD.search(value):
                raise ValueError(f"report {field} {value!r} of {item.path}: braces are not allowed (Snakemake reads "
                                 "{name} as a wildcard); remove them from the table's title in params.yaml")
        path = caption_file(directory, item)
        text = rst_text(item.caption)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_text(path, text)
        files[item.path] = str(path)
    return files
