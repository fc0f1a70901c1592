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

from paragen.report_items import STUDIES
from paragen.stopping_rule import TrainingOutcome


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    value: str  # '/'-separated path into a metrics JSON file
    decimals: int | None = None  # shown with this many decimals instead of the table's (counts: 0)


@dataclass(frozen=True)
class Baseline:
    """Another paper's system in a table: its published numbers, rescored from released outputs if possible."""

    label: str
    values: dict[str, float]
    source: str
    rescored: list[dict[str, str]] = field(default_factory=list)
    """Per column: {column, test_set, system, metric} of a row of results/tables/published_outputs.csv."""


@dataclass(frozen=True)
class PaperTable:
    """Published numbers of one paper table (a file under ``paragen/paper_results``)."""

    paper: str
    table: str
    metric: str
    columns: list[Column]
    rows: dict[str, dict[str, float]]
    baselines: list[Baseline] = field(default_factory=list)
    decimals: int = 1
    study: str = ""
    """Which of the four papers the table belongs to (a key of ``paragen.report_items.STUDIES``)."""

    @classmethod
    def load(cls, name: str) -> "PaperTable":
        text = resources.files("paragen.paper_results").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
        if raw.get("study") not in STUDIES:
            raise ValueError(f"paragen/paper_results/{name}.yaml: study: {raw.get('study')!r} is not one of the "
                             f"papers; allowed values: {sorted(STUDIES)}")
        rows = {row: {str(k): float(v) for k, v in values.items()} for row, values in (raw.get("rows") or {}).items()}
        baselines = [Baseline(b["label"], {str(k): float(v) for k, v in b["values"].items()}, b["source"],
                              b.get("rescored", [])) for b in raw.get("baselines", [])]
        return cls(raw["paper"], raw["table"], raw["metric"], [Column(**c) for c in raw["columns"]], rows, baselines,
                   int(raw.get("decimals", 1)), raw["study"])


def read_rescored(path: str | Path) -> dict[tuple[str, str, str], float]:
    """(test set, system, metric) -> our score, from the DRESS rescoring table (``paragen published-outputs``)."""
    path = Path(path)
    if not path.exists():
        return {}
    with open(path, encoding="utf-8", newline="") as handle:
        return {(r["test_set"], r["system"], r["metric"]): float(r["ours"]) for r in csv.DictReader(handle)}


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
    decimals: int = 1
    training: dict[str, TrainingOutcome] = field(default_factory=dict)
    """Per row that ran: best epoch, epochs run and whether the run hit the epoch cap."""

    def training_lines(self) -> list[str]:
        return [f"{row}: {outcome.describe()}" for row, outcome in self.training.items()]


def metric_value(metrics: dict[str, Any], path: str) -> float | None:
    value: Any = metrics
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return None if value is None else float(value)


def null_on_path(metrics: dict[str, Any], path: str) -> bool:
    """Whether the metrics file says ``null`` on the way to ``path``: the measure does not apply to the row (e.g.
    source-side prediction accuracy of a model without the SPM head)."""
    value: Any = metrics
    for part in path.split("/"):
        if value is None:
            return True
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    return value is None


def fill_table(name: str, title: str, caption: str, paper: PaperTable, row_sources: dict[str, Path | str],
               rescored: dict[tuple[str, str, str], float] | None = None,
               extras: dict[str, dict[str, Path]] | None = None) -> ResultTable:
    """Cells for the paper's baselines, then each of our rows.

    ``row_sources`` maps a row label to the metrics file its experiment writes, or to the reason
    it cannot run (e.g. its dataset is absent). ``rescored`` holds our scores of released outputs.
    ``extras`` adds, per row, other metrics files under a key of the row's metrics (``alignment``: the file
    ``paragen align`` writes), so a column can read ``alignment/attention/accuracy``.
    """
    table = ResultTable(name, title, caption, paper.columns, [b.label for b in paper.baselines] + list(row_sources),
                        decimals=paper.decimals)
    for baseline in paper.baselines:
        specs = {spec["column"]: spec for spec in baseline.rescored}
        for column in paper.columns:
            published = baseline.values.get(column.key)
            spec = specs.get(column.key)
            key = (spec["test_set"], spec["system"], spec["metric"]) if spec else None
            if key is None:
                cell = Cell(published, None, f"as published ({baseline.source}); no released outputs to rescore")
            elif rescored and key in rescored:
                cell = Cell(published, rescored[key], f"rescored from the released {key[1]} outputs ({key[0]} test)"
                            + ("" if published is not None else "; not in paper"))
            else:
                cell = Cell(published, None, "released outputs not rescored (run `paragen published-outputs`)")
            table.cells[(baseline.label, column.key)] = cell
    for row, source in row_sources.items():
        published = paper.rows.get(row, {})
        metrics = None
        if isinstance(source, Path) and source.exists():
            metrics = json.loads(source.read_text(encoding="utf-8"))
        missing_extras = {}
        for key, path in ((extras or {}).get(row) or {}).items():
            if metrics is not None and path.exists():
                metrics[key] = json.loads(path.read_text(encoding="utf-8"))
            else:
                missing_extras[key] = path
        for column in paper.columns:
            reproduced = metric_value(metrics, column.value) if metrics is not None else None
            extra = missing_extras.get(column.value.split("/")[0])
            notes = []
            if column.key not in published:
                notes.append("not in paper")
            if isinstance(source, str):
                notes.append(source)
            elif metrics is None:
                notes.append(f"not yet run ({source} missing)")
            elif extra is not None:
                notes.append(f"not yet run ({extra} missing)")
            elif reproduced is None and null_on_path(metrics, column.value):
                notes.append(f"not applicable ({column.value} is null for this row)")
            elif reproduced is None:
                notes.append(f"{column.value} absent from {source}")
            table.cells[(row, column.key)] = Cell(published.get(column.key), reproduced, "; ".join(notes))
    return table


def _num(value: float | None, signed: bool = False, decimals: int = 1) -> str:
    if value is None:
        return "—"
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


ABSENT = "not run: dataset absent"
"""How a row whose dataset is not switched on reads, in its cells as well as in the notes."""


def cell_text(cell: Cell, decimals: int = 1) -> str:
    ours = ABSENT if cell.reproduced is None and ABSENT in cell.note else _num(cell.reproduced, decimals=decimals)
    text = f"{_num(cell.paper, decimals=decimals)} / {ours}"
    if cell.difference is not None:
        text += f" ({_num(cell.difference, signed=True, decimals=decimals)})"
    return text


def _decimals(table: ResultTable, column: Column) -> int:
    return table.decimals if column.decimals is None else column.decimals


def to_markdown(table: ResultTable) -> str:
    header = "| model | " + " | ".join(c.label for c in table.columns) + " |"
    lines = [f"# {table.title}", "", header, "|" + " --- |" * (len(table.columns) + 1)]
    for row in table.rows:
        cells = (cell_text(table.cells[(row, c.key)], _decimals(table, c)) for c in table.columns)
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    notes = sorted({f"{row}, {c.label}: {table.cells[(row, c.key)].note}" for row in table.rows
                    for c in table.columns if table.cells[(row, c.key)].note})
    lines += ["", table.caption, "", "Each cell: paper / reproduced (reproduced − paper); — marks a missing number."]
    if table.training:
        lines += ["", "Training (model selection on the validation split):"] + [f"- {t}" for t in table.training_lines()]
    if notes:
        lines += ["", "Notes (why a number is missing, or where it comes from):"] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def to_csv(table: ResultTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "row", "column", "paper", "reproduced", "difference", "note", "best_epoch",
                     "epochs_run", "hit_epoch_cap"])
    fmt = lambda v: "" if v is None else f"{v:.2f}"  # noqa: E731
    for row in table.rows:
        outcome = table.training.get(row)
        run = [outcome.best_epoch, outcome.epochs_run, str(outcome.hit_cap).lower()] if outcome else ["", "", ""]
        for c in table.columns:
            cell = table.cells[(row, c.key)]
            writer.writerow([table.name, row, c.key, fmt(cell.paper), fmt(cell.reproduced), fmt(cell.difference),
                             cell.note, *run])
    return buffer.getvalue()


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "→": r"$\rightarrow$", "∅": r"$\emptyset$",
                  "−": "-", "×": r"$\times$", "—": "--"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(table: ResultTable) -> str:
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "c" * len(table.columns) + "}",
             r"\hline", "Model & " + " & ".join(latex_escape(c.label) for c in table.columns) + r" \\", r"\hline"]
    for row in table.rows:
        cells = [latex_escape(cell_text(table.cells[(row, c.key)], _decimals(table, c))) for c in table.columns]
        lines.append(latex_escape(row) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}",
              r"\caption{" + latex_escape(" ".join([table.caption, "Cells: paper / reproduced (difference).",
                                                     *(f"{t}." for t in table.training_lines())])) + "}",
              r"\label{tab:" + table.name + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"
