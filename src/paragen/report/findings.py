"""REPORT.md's findings summary: what each table's own tests and readings conclude, lifted from the table as the
report stage wrote it (its findings lines, :data:`paragen.report.render.FINDINGS_HEADING`; the matrix's generated
reading), never typed. A table without a test or a reading says what it holds instead: rows not run here and why,
or scores alone."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from paragen.report.render import FINDINGS_HEADING

MATRIX_READING = "## Reading"
"""The heading of the matrix's generated reading (:mod:`paragen.report.matrix_render`)."""


def table_findings(markdown: str) -> list[str]:
    """The findings lines of a table's Markdown (the list under its findings heading), or none."""
    lines = markdown.splitlines()
    if FINDINGS_HEADING not in lines:
        return []
    found = []
    for line in lines[lines.index(FINDINGS_HEADING) + 1:]:
        if not line.startswith("- "):
            break
        found.append(line[2:])
    return found


def matrix_findings(markdown: str) -> list[str]:
    """The matrix's generated reading (its first paragraph under the heading), as one finding."""
    lines = markdown.splitlines()
    if MATRIX_READING not in lines:
        return []
    paragraph = next((line for line in lines[lines.index(MATRIX_READING) + 1:] if line.strip()), "")
    return [" ".join(paragraph.split())] if paragraph.strip() else []


def summary_lines(title: str, anchor: str, findings: list[str], absent: str) -> list[str]:
    """One table's entry in the summary: its title linked to its section, then its findings (or ``absent``: why it
    has none)."""
    head = f"- **[{title}](#{anchor})**"
    if not findings:
        return [f"{head}: {absent}"]
    if len(findings) == 1:
        return [f"{head}: {findings[0]}"]
    return [f"{head}:"] + [f"  - {finding}" for finding in findings]


def no_findings(markdown: str | None, cells_csv: str | None, rows: list[str]) -> str:
    """What a table without findings holds: "no table yet"; none of its own ``rows`` with a number (each cell of
    the table's CSV empty), with the reasons its cells give; or scores without a test."""
    if markdown is None:
        return "no table yet."
    ours = [cell for cell in csv.DictReader(io.StringIO(cells_csv or "")) if cell["row"] in rows]
    if ours and not any(cell["reproduced"] for cell in ours):
        reasons = "; ".join(sorted({cell["note"] for cell in ours if cell["note"]}))
        return f"none of its rows ran here ({reasons}); the published numbers are shown."
    return "scores only: the table makes no paired test and no reading."


def read_or_none(path: str) -> str | None:
    return Path(path).read_text(encoding="utf-8") if Path(path).exists() else None
