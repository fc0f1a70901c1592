"""A row whose outputs are mostly empty or one token repeated is marked in its table: each cell of an affected split
gets the note "N of M outputs empty" (the Markdown's notes, the CSV's note column), so a 0.0 is never read as a
score of sentences the run wrote (:mod:`paragen.metrics.degenerate`)."""

from __future__ import annotations

import json
from dataclasses import replace

from paragen.metrics.degenerate import DEGENERATE_SHARE, Degenerate
from paragen.report.tables import ResultTable, RowSource


def split_of(value: str) -> str:
    """The split a column's path reads (``splits/<split>/...``), else test."""
    parts = value.split("/")
    return parts[1] if parts[0] == "splits" and len(parts) > 1 else "test"


def _marked_splits(metrics: dict) -> dict[str, Degenerate]:
    splits = metrics.get("splits") if isinstance(metrics.get("splits"), dict) else {"test": metrics}
    found = {}
    for split, scored in splits.items():
        counts = scored.get("degenerate") if isinstance(scored, dict) else None
        if isinstance(counts, dict):
            found[split] = Degenerate(counts["empty"], counts["one_token_repeated"], counts["lines"])
    return {split: d for split, d in found.items() if d.marked}


def mark_degenerate(table: ResultTable, sources: dict[str, RowSource]) -> None:
    """Append the note to every cell of each row's splits whose outputs are degenerate (every seed run checked)."""
    for row, source in sources.items():
        if isinstance(source, str):
            continue
        runs = [(None, source)] if not isinstance(source, list) else [(run.seed, run.metrics) for run in source]
        found: list[str] = []
        marked: set[str] = set()
        for seed, path in runs:
            if not path.exists():
                continue
            for split, counts in _marked_splits(json.loads(path.read_text(encoding="utf-8"))).items():
                seed_text = f" (seed {seed})" if seed is not None and len(runs) > 1 else ""
                found.append(f"{counts.describe(f'{split} outputs')}{seed_text}")
                marked.add(split)
        if not found:
            continue
        # one text for every marked cell of the row, so the notes say it once for the row where all are marked
        note = f"{'; '.join(found)}: more than {DEGENERATE_SHARE:.0%} of the lines, scored as written"
        for column in table.columns:
            key = (row, column.key)
            if split_of(column.value) in marked and key in table.cells:
                cell = table.cells[key]
                table.cells[key] = replace(cell, note="; ".join(filter(None, [cell.note, note])))
