"""The mechanism x task matrix's results: each cell's scores over seeds, its rank within its task, its paired tests
against the task's baseline and the verdict the rules fixed in advance give (docs/decisions.md X3, X6, X10-X12).

:func:`matrix_results` reads the cells' metrics files and the comparison stage's JSONs (nothing is recomputed
here); :mod:`paragen.report.matrix_render` writes them as tables, a paragraph and a heat map.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from paragen.artifacts import alignment_path, metrics_path
from paragen.config import ParagenConfig
from paragen.config.matrix import MatrixCell, matrix_cells
from paragen.config.seeds import mean_sd
from paragen.pipeline.matrix_stages import matrix_tests
from paragen.pipeline.tables import absent_reason
from paragen.report.sanity import baseline_void
from paragen.report.tables import read_metrics

ALPHA = 0.05
"""The level of every paired test (X3)."""


@dataclass
class CellResult:
    """One cell as the table shows it."""

    task: str
    mechanism: str
    status: str  # "scored", "does not apply", "not run"
    reason: str = ""  # why not applied / not run
    experiment: str | None = None
    runs: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # the main metric per seed
    also: dict[str, list[float]] = field(default_factory=dict)  # the other metrics per seed
    alignment: list[float] = field(default_factory=list)  # attention's gold-link accuracy per seed (headline data)
    rank: float | None = None
    tests: list[dict[str, Any]] = field(default_factory=list)  # per seed: seed, run, baseline, delta, p_value
    verdict: str = ""  # better / worse / no difference shown / baseline / void / "" (not tested)

    @property
    def mean(self) -> float | None:
        return mean_sd(self.values)[0] if self.values else None

    @property
    def sd(self) -> float | None:
        return mean_sd(self.values)[1] if self.values else None


@dataclass
class TaskResult:
    """One column: its cells, and whether its baseline works (X11)."""

    name: str
    label: str
    metric: str
    baseline: str
    cells: list[CellResult]
    void: str = ""  # why the column's verdicts are void ("" when they count)


def by_cell(results: list[TaskResult]) -> dict[tuple[str, str], CellResult]:
    """(task, mechanism) -> cell, over every column: how the tables and the heat map look a cell up."""
    return {(c.task, c.mechanism): c for task in results for c in task.cells}


def test_of(path: str) -> tuple[float, float]:
    """(delta, p) of a comparison file: the rule-resampling test on rule data, else the test split's."""
    result = json.loads(Path(path).read_text(encoding="utf-8"))
    test = result["clustered"]["overall"] if result.get("clustered") else result["splits"]["test"]
    return float(test["delta"]), float(test["p_value"])


def verdict(tests: list[dict[str, Any]], required: int) -> str:
    """X3, X6, X12: better when the mean difference is positive and at least ``required`` seeds give p < 0.05;
    worse when it is negative and at least ``required`` seeds give p > 0.95; otherwise no difference shown."""
    if not tests:
        return ""
    mean_delta = sum(t["delta"] for t in tests) / len(tests)
    if mean_delta > 0 and sum(t["p_value"] < ALPHA for t in tests) >= required:
        return "better"
    if mean_delta < 0 and sum(t["p_value"] > 1 - ALPHA for t in tests) >= required:
        return "worse"
    return "no difference shown"


def chance_rate(seeds: int, required: int) -> float:
    """With no true difference, the probability that a cell gets a verdict: 2 P(Binomial(seeds, 0.05) ≥ required)
    (either direction, X12)."""
    return 2 * sum(comb(seeds, k) * ALPHA ** k * (1 - ALPHA) ** (seeds - k) for k in range(required, seeds + 1))


def ranks(values: dict[str, float]) -> dict[str, float]:
    """Rank 1 = highest; tied means (to 0.01) share the mean of their ranks (X10)."""
    ordered = sorted(values, key=lambda key: -round(values[key], 2))
    result: dict[str, float] = {}
    position = 0
    while position < len(ordered):
        tied = [k for k in ordered[position:] if round(values[k], 2) == round(values[ordered[position]], 2)]
        shared = position + 1 + (len(tied) - 1) / 2
        result.update({k: shared for k in tied})
        position += len(tied)
    return result


def _cell(config: ParagenConfig, cell: MatrixCell) -> CellResult:
    task = config.matrix.tasks[cell.task]  # type: ignore[union-attr]
    if not cell.applies:
        return CellResult(cell.task, cell.mechanism, "does not apply", cell.reason or "")
    assert cell.experiment is not None
    runs = [run for run, _ in cell.runs]
    if not config.runnable(cell.experiment):
        return CellResult(cell.task, cell.mechanism, "not run", absent_reason(config, cell.experiment),
                          cell.experiment, runs)
    missing = [metrics_path(r) for r in runs if not Path(metrics_path(r)).exists()]
    if missing:
        return CellResult(cell.task, cell.mechanism, "not run", f"not run yet ({', '.join(missing)} missing)",
                          cell.experiment, runs)
    aligned = [json.loads(Path(alignment_path(r)).read_text(encoding="utf-8"))["attention"]["accuracy"]
               for r in runs if Path(alignment_path(r)).exists()]
    scores = [read_metrics(metrics_path(r), [task.metric, *task.also]) for r in runs]
    return CellResult(cell.task, cell.mechanism, "scored", "", cell.experiment, runs,
                      [s[task.metric] for s in scores], {m: [s[m] for s in scores] for m in task.also}, aligned)


def matrix_results(config: ParagenConfig) -> list[TaskResult]:
    """Every column of the matrix, from the metrics and comparison files the pipeline wrote."""
    matrix = config.matrix
    if matrix is None:
        raise ValueError("params.yaml has no matrix: block")
    cells = [_cell(config, c) for c in matrix_cells(config)]
    by_key = {(c.task, c.mechanism): c for c in cells}
    for test in matrix_tests(config):
        cell = by_key[(test.task, test.mechanism)]
        if cell.status == "scored" and by_key[(test.task, matrix.tasks[test.task].baseline)].status == "scored":
            if not Path(test.path).exists():
                raise FileNotFoundError(f"{test.path}: the paired test of {test.run} against {test.baseline} is "
                                        "missing (run the pipeline's compare stage, or paragen compare)")
            delta, p = test_of(test.path)
            cell.tests.append({"seed": test.seed, "run": test.run, "baseline": test.baseline, "delta": delta,
                               "p_value": p})
    results = []
    for name, task in matrix.tasks.items():
        column = [c for c in cells if c.task == name]
        scored = {c.mechanism: c.mean for c in column if c.mean is not None}
        for cell, rank in ranks(scored).items():  # type: ignore[arg-type]
            by_key[(name, cell)].rank = rank
        for cell in column:
            cell.verdict = "baseline" if cell.mechanism == task.baseline and cell.status == "scored" else \
                verdict(cell.tests, matrix.required())
        results.append(TaskResult(name, task.label, task.metric, task.baseline, column,
                                  sanity_void(config, name, by_key[(name, task.baseline)])))
    return results


def sanity_void(config: ParagenConfig, task_name: str, baseline: CellResult) -> str:
    """Why the column's verdicts are void (X11), or "" when its baseline reaches the bound or none is set."""
    task = config.matrix.tasks[task_name]  # type: ignore[union-attr]
    check = task.sanity
    if check is None or baseline.status != "scored" or not config.runnable(check.system):
        return ""
    return baseline_void(check, task.baseline, list(baseline.runs), f"matrix.tasks.{task_name}.sanity")
