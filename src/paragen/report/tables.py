"""Paper-vs-reproduced tables (their Markdown, CSV and LaTeX renderings: :mod:`paragen.report.render`).

Every cell carries the published number, the reproduced number, their
difference and, where a number is missing, the reason (docs/architecture.md, principle 7).
Nothing here invents a value: reproduced numbers come only from metric files
written by ``paragen score``.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paragen.metrics.randomization import EXHAUSTIVE_MAX_RULES, MONTE_CARLO_DRAWS
from paragen.config.matrix import METRIC_PATHS
from paragen.config.papers import Column, PaperTable
from paragen.training.stopping import TrainingOutcome


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
    reproduced: float | None  # with several seeds: their mean
    note: str = ""  # why a number is missing
    sd: float | None = None  # sample standard deviation over seeds (several seeds only)
    per_seed: tuple[tuple[int, float], ...] = ()  # (training seed, value) of each run (several seeds only)
    interval: tuple[float, float] | None = None  # one run's 95 % interval from resampling rules (metrics' <path>_ci95)
    compared: bool = True  # False: the row is not the paper's system (no difference shown; the note says why)

    @property
    def difference(self) -> float | None:
        if self.paper is None or self.reproduced is None or not self.compared:
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
    training: dict[str, list[tuple[int | None, TrainingOutcome]]] = field(default_factory=dict)
    """Per row that ran, per seed run (seed None: the row's only run): best epoch, epochs run, whether it hit the
    epoch cap."""
    training_notes: list[str] = field(default_factory=list)
    """Rows whose run is still training (its run directory is locked), one line each."""
    comparisons: list[str] = field(default_factory=list)
    """Paired tests between rows (paragen.report.comparisons), one line each."""
    comparisons_heading: str = "Paired bootstrap tests (Koehn, 2004) of the paper's comparisons:"
    """What the comparison lines are (rule data: :data:`RULE_TESTS_HEADING`)."""
    predictions: list[str] = field(default_factory=list)
    """Rule data: the closest-epoch hypothesis read as a prediction per held-out type (paragen.report.heldout)."""
    findings: list[str] = field(default_factory=list)
    """What the table's own tests and readings conclude, one short line each (the verdicts of ``comparisons`` and
    ``readings``): the first thing under the table, and REPORT.md's findings summary."""
    readings: list[str] = field(default_factory=list)
    """Each trained run read against the floor row by the table's ``reading`` rules (paragen.report.reading)."""
    reading_rules: str = ""
    """Those rules in words, with their thresholds (the section's heading)."""
    setup: list[str] = field(default_factory=list)
    """Provenance too long for the caption (rows without training, embeddings, per-run wall times), one paragraph
    each: printed under the table in Markdown, not in the LaTeX caption."""
    units: dict[str, str] = field(default_factory=dict)
    """Column key -> the unit and tokenisation of its metric (:mod:`paragen.report.units`): the CSV's ``unit``."""
    own: bool = False
    """A table of your own data (``paper: own``): no paper to compare with, so a cell is our number alone (no "— /"
    before it, no difference after it, no paper or difference column in the CSV)."""

    def training_lines(self) -> list[str]:
        return [f"{row}{'' if seed is None else f' (seed {seed})'}: {outcome.describe()}"
                for row, runs in self.training.items() for seed, outcome in runs]

    @property
    def intervals(self) -> bool:
        """Whether a cell carries a rule-resampling interval (then the CSV has ci95_low / ci95_high)."""
        return any(cell.interval for cell in self.cells.values())

    @property
    def seeded(self) -> bool:
        """Whether a row shows several seeds (then the CSV has the seed columns)."""
        return any(cell.per_seed for cell in self.cells.values())


RULE_TESTS_HEADING = ("Paired tests of the paper's comparisons, by rule (sign-flip tests over the test rules: exact "
                      f"up to {EXHAUSTIVE_MAX_RULES} rules, {MONTE_CARLO_DRAWS:,} seeded draws beyond):")


def _at(metrics: dict[str, Any] | None, path: str) -> Any:
    """The value at ``path`` (keys joined by ``/``) in a metrics file, None where the path stops."""
    value: Any = metrics
    for part in path.split("/"):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def metric_value(metrics: dict[str, Any], path: str) -> float | None:
    value = _at(metrics, path)
    return None if value is None else float(value)


def read_metrics(path: str, metrics: list[str]) -> dict[str, float]:
    """The ``metrics`` of one metrics file (``results/metrics/<run>.json``, read once), or a clear error naming the
    file and the metric it lacks."""
    scores = json.loads(Path(path).read_text(encoding="utf-8"))
    result = {}
    for metric in metrics:
        try:
            value = metric_value(scores, METRIC_PATHS[metric])
        except TypeError:  # the path ends at a section, not a number
            value = None
        if value is None:
            raise ValueError(f"{path}: no {metric} score at {METRIC_PATHS[metric]!r}; was the run scored with "
                             f"{metric}?")
        result[metric] = value
    return result


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


@dataclass(frozen=True)
class SeedRun:
    """One training run behind a row: its seed (None for a row's only run), the metrics file it wrote and, per key,
    the other metrics files merged under that key (``alignment``: what ``paragen align`` writes)."""

    seed: int | None
    metrics: Path
    extras: dict[str, Path] = field(default_factory=dict)


RowSource = Path | str | list[SeedRun]
"""A row's metrics file, the reason it cannot run, or the runs of its seeds."""


def _runs(source: RowSource, extras: dict[str, Path]) -> list[SeedRun] | str:
    if isinstance(source, str):
        return source
    return [SeedRun(None, source, extras)] if isinstance(source, Path) else source


@dataclass(frozen=True)
class LoadedRun:
    """A seed run's metrics as read once for all of a row's columns: the metrics file with the extras that exist
    merged in (None when the file is missing), and the extras whose file is missing."""

    run: SeedRun
    metrics: dict[str, Any] | None
    missing: dict[str, Path]


def load_run(run: SeedRun) -> LoadedRun:
    if not run.metrics.exists():
        return LoadedRun(run, None, {})
    metrics = json.loads(run.metrics.read_text(encoding="utf-8"))
    missing = {}
    for key, path in run.extras.items():
        if path.exists():
            metrics[key] = json.loads(path.read_text(encoding="utf-8"))
        else:
            missing[key] = path
    return LoadedRun(run, metrics, missing)


def _run_value(loaded: LoadedRun, path: str) -> tuple[float | None, str]:
    """One run's value of a column, or None and why it is missing. A column of one test split
    (``splits/<split>/...``) reads a metrics file of the test split alone at its top level, which is where
    ``paragen evaluate`` writes it (a table of your own data may hold a row scored on test alone)."""
    if loaded.metrics is None:
        return None, f"not yet run ({loaded.run.metrics} missing)"
    if path.startswith("splits/") and "splits" not in loaded.metrics:
        split, _, path = path.removeprefix("splits/").partition("/")
        if split != "test":
            return None, f"not scored on {split} ({loaded.run.metrics} holds the test split alone)"
    elif path.startswith("splits/"):  # a system other than identity scores the test split alone
        split = path.split("/")[1]
        if split not in loaded.metrics["splits"]:
            scored = ", ".join(loaded.metrics["splits"])
            return None, f"not scored on {split} ({loaded.run.metrics} holds {scored} alone)"
    extra = loaded.missing.get(path.split("/")[0])
    if extra is not None:
        return None, f"not yet run ({extra} missing)"
    value = metric_value(loaded.metrics, path)
    if value is None and null_on_path(loaded.metrics, path):
        return None, f"not applicable ({path} is null for this row)"
    if value is None:
        return None, f"{path} absent from {loaded.run.metrics}"
    return value, ""


def _interval(loaded: LoadedRun, path: str) -> tuple[float, float] | None:
    """The ``<path>_ci95`` pair a metrics file gives beside a value (``paragen score --groups``), if any."""
    value = _at(loaded.metrics, f"{path}_ci95")
    return (float(value[0]), float(value[1])) if isinstance(value, list) and len(value) == 2 else None


def row_cell(published: float | None, runs: list[LoadedRun], path: str, notes: list[str]) -> Cell:
    """A row's cell from its runs: the value of a single run; mean, sd and per-seed values of several, and no
    number at all when any seed's value is missing (a mean over the seeds that happen to exist would mislead)."""
    found = [_run_value(loaded, path) for loaded in runs]
    missing = [why for value, why in found if value is None]
    if missing:
        return Cell(published, None, "; ".join(notes + list(dict.fromkeys(missing))))
    values = [value for value, _ in found]
    if len(runs) == 1:
        bounds = _interval(runs[0], path)
        return Cell(published, values[0], "; ".join(notes), interval=bounds)
    from paragen.config.seeds import mean_sd

    average, sd = mean_sd(values)
    return Cell(published, average, "; ".join(notes), sd,
                tuple((loaded.run.seed, v) for loaded, v in zip(runs, values)))


def _not_compared(cell: Cell, reason: str) -> Cell:
    """The cell without a difference to the paper, its note saying why."""
    return replace(cell, compared=False, note="; ".join(filter(None, [cell.note, reason])))


def fill_table(name: str, title: str, caption: str, paper: PaperTable, row_sources: dict[str, RowSource],
               rescored: dict[tuple[str, str, str], float] | None = None,
               extras: dict[str, dict[str, Path]] | None = None,
               not_comparable: dict[str, str] | None = None) -> ResultTable:
    """Cells for the paper's baselines, then each of our rows.

    ``row_sources`` maps a row label to the metrics file its experiment writes, to the reason
    it cannot run (e.g. its dataset is absent), or to the runs of its seeds (each cell: mean ± sd).
    ``rescored`` holds our scores of released outputs. ``extras`` adds, per single-run row, other metrics files
    under a key of the row's metrics (``alignment``: the file ``paragen align`` writes), so a column can read
    ``alignment/attention/accuracy`` (seed runs carry their own). ``not_comparable`` maps a row to why its numbers
    are not the paper's system's: its cells show both numbers but no difference, and say why.
    A table with no published rows (a stand-in) does not mark every cell "not in paper"; its caption says so once.
    """
    table = ResultTable(name, title, caption, paper.columns, [b.label for b in paper.baselines] + list(row_sources),
                        decimals=paper.decimals, own=paper.study == "own")
    for baseline in paper.baselines:
        specs = {spec["column"]: spec for spec in baseline.rescored}
        for column in paper.columns:
            published = baseline.values.get(column.published_key)
            spec = specs.get(column.key)
            key = (spec["test_set"], spec["system"], spec["metric"]) if spec else None
            if key is None:
                cell = Cell(published, None, f"as published ({baseline.source}); no released outputs to rescore")
            elif rescored and key in rescored:
                cell = Cell(published, rescored[key], f"rescored from the released {key[1]} outputs ({key[0]} test)"
                            + ("" if published is not None else "; not in paper"))
            else:
                cell = Cell(published, None, "released outputs not rescored (run `paragen published-outputs`)")
            if column.key in baseline.not_comparable:
                cell = _not_compared(cell, baseline.not_comparable[column.key])
            table.cells[(baseline.label, column.key)] = cell
    for row, source in row_sources.items():
        published = paper.rows.get(row, {})
        runs = _runs(source, (extras or {}).get(row) or {})
        loaded = runs if isinstance(runs, str) else [load_run(run) for run in runs]
        for column in paper.columns:
            number = published.get(column.published_key)
            notes = [] if number is not None or not paper.rows else ["not in paper"]
            if isinstance(loaded, str):
                cell = Cell(number, None, "; ".join(notes + [loaded]))
            else:
                cell = row_cell(number, loaded, column.value, notes)
            reason = (not_comparable or {}).get(row)
            if reason and cell.reproduced is not None:  # shown, but no difference: it is not the paper's system
                cell = _not_compared(cell, reason)
            table.cells[(row, column.key)] = cell
    return table


def drop_short_intervals(table: ResultTable, rules_by_column: dict[str, int], fewest: int) -> list[str]:
    """Take the rule-resampling interval off every cell of a column with fewer than ``fewest`` rules (its coverage
    falls well short of 95 % there: :data:`paragen.metrics.randomization.INTERVAL_MIN_RULES`); returns the labels of
    the columns that lost one."""
    short = {key for key, rules in rules_by_column.items() if rules < fewest}
    dropped = set()
    for key, cell in list(table.cells.items()):
        if cell.interval is not None and key[1] in short:
            table.cells[key] = replace(cell, interval=None)
            dropped.add(key[1])
    return [c.label for c in table.columns if c.key in dropped]
