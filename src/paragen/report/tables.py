"""Paper-vs-reproduced tables and their Markdown, CSV and LaTeX renderings.

Every cell carries the published number, the reproduced number, their
difference and, where a number is missing, the reason (DESIGN.md principle 7).
Nothing here invents a value: reproduced numbers come only from metric files
written by ``paragen score``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    value: str  # '/'-separated path into a metrics JSON file


@dataclass(frozen=True)
class PaperTable:
    """Published numbers of one paper table (a file under ``paragen/paper_results``)."""

    paper: str
    table: str
    metric: str
    columns: list[Column]
    rows: dict[str, dict[str, float]]

    @classmethod
    def load(cls, name: str) -> "PaperTable":
        text = resources.files("paragen.paper_results").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
        return cls(raw["paper"], raw["table"], raw["metric"], [Column(**c) for c in raw["columns"]],
                   {row: {str(k): float(v) for k, v in values.items()} for row, values in raw["rows"].items()})


@dataclass(frozen=True)
class Cell:
    paper: float | None
    reproduced: float | None
    note: str = ""  # why a number is missing

    @property
    def difference(self) -> float | None:
        if self.paper is None or self.reproduced is None:
            return None
        return self.reproduced - self.paper


@dataclass
class ResultTable:
    name: str
    title: str
    caption: str
    columns: list[Column]
    rows: list[str]
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)


def metric_value(metrics: dict[str, Any], path: str) -> float | None:
    value: Any = metrics
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value)


def fill_table(name: str, title: str, caption: str, paper: PaperTable,
               row_metrics: dict[str, Path]) -> ResultTable:
    """Cells for each row label, reading the metrics file that row's experiment wrote."""
    table = ResultTable(name, title, caption, paper.columns, list(row_metrics))
    for row, path in row_metrics.items():
        metrics = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        published = paper.rows.get(row, {})
        for column in paper.columns:
            reproduced = metric_value(metrics, column.value) if metrics is not None else None
            notes = []
            if column.key not in published:
                notes.append("not in paper")
            if metrics is None:
                notes.append(f"not yet run ({path} missing)")
            elif reproduced is None:
                notes.append(f"{column.value} absent from {path}")
            table.cells[(row, column.key)] = Cell(published.get(column.key), reproduced, "; ".join(notes))
    return table


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.1f}" if signed else f"{value:.1f}"


def cell_text(cell: Cell) -> str:
    text = f"{_num(cell.paper)} / {_num(cell.reproduced)}"
    if cell.difference is not None:
        text += f" ({_num(cell.difference, signed=True)})"
    return text


def to_markdown(table: ResultTable) -> str:
    header = "| model | " + " | ".join(c.label for c in table.columns) + " |"
    lines = [f"# {table.title}", "", header, "|" + " --- |" * (len(table.columns) + 1)]
    for row in table.rows:
        lines.append(f"| {row} | " + " | ".join(cell_text(table.cells[(row, c.key)]) for c in table.columns) + " |")
    notes = sorted({f"{row}, {c.label}: {table.cells[(row, c.key)].note}" for row in table.rows
                    for c in table.columns if table.cells[(row, c.key)].note})
    lines += ["", table.caption, "", "Each cell: paper / reproduced (reproduced − paper); — marks a missing number."]
    if notes:
        lines += ["", "Missing numbers:"] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def to_csv(table: ResultTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "row", "column", "paper", "reproduced", "difference", "note"])
    fmt = lambda v: "" if v is None else f"{v:.2f}"  # noqa: E731
    for row in table.rows:
        for c in table.columns:
            cell = table.cells[(row, c.key)]
            writer.writerow([table.name, row, c.key, fmt(cell.paper), fmt(cell.reproduced), fmt(cell.difference),
                             cell.note])
    return buffer.getvalue()


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "→": r"$\rightarrow$", "∅": r"$\emptyset$",
                  "−": "-", "×": r"$\times$", "—": "--"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(table: ResultTable) -> str:
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "c" * len(table.columns) + "}",
             r"\hline", "Model & " + " & ".join(latex_escape(c.label) for c in table.columns) + r" \\", r"\hline"]
    for row in table.rows:
        cells = [latex_escape(cell_text(table.cells[(row, c.key)])) for c in table.columns]
        lines.append(latex_escape(row) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}",
              r"\caption{" + latex_escape(table.caption + " Cells: paper / reproduced (difference).") + "}",
              r"\label{tab:" + table.name + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"
