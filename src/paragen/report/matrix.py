"""The mechanism x task matrix's results: each cell's scores over seeds, its rank within its task, its paired tests
against the task's baseline, the verdict the rules fixed in advance give (docs/decisions.md X3, X6, X10-X12) and
how each cell's runs ended training.

:func:`matrix_results` reads the cells' metrics files, the comparison stage's JSONs and the runs' training logs
(nothing is recomputed here); :mod:`paragen.report.matrix_render` writes them as tables, a paragraph and a heat map.
On rule data a test's p is the exact sign-flip test's over rules (a comparison file from before it has none, and its
cell gets no verdict); a difference is the cell's score minus the baseline's, the numbers the table shows. A cell
whose run hit its epoch cap still within its patience is possibly under-trained: it gets no "worse" verdict. A void
column (X11) gets neither verdicts nor ranks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

from paragen.artifacts import alignment_path, metrics_path, run_dir
from paragen.config import ParagenConfig
from paragen.config.matrix import MatrixCell, matrix_cells
from paragen.config.seeds import mean_sd
from paragen.pipeline.matrix_stages import matrix_tests
from paragen.pipeline.tables import absent_reason
from paragen.report.rule_tests import has_exact_test
from paragen.report.sanity import baseline_void
from paragen.report.tables import read_metrics
from paragen.training.stopping import TrainingOutcome, settings_of_run, training_outcome
from paragen.training.train_log import read_log

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
    rank: float | None = None  # None: not scored, or a void column
    tests: list[dict[str, Any]] = field(default_factory=list)
    """Per seed: seed, run, baseline, value and baseline_value (the main metric of each), delta (their
    difference), p_value (None: a rule-data file without the exact test), p_value_lower (the cell worse) and, on
    rule data, rules (the file's sign-flip part: counts, floor, method)."""
    verdict: str = ""  # better / worse / no difference shown / possibly under-trained / no exact test / baseline / ""
    outcomes: list[tuple[int, str, TrainingOutcome]] = field(default_factory=list)  # (seed, run, how it ended)

    @property
    def mean(self) -> float | None:
        return mean_sd(self.values)[0] if self.values else None

    @property
    def sd(self) -> float | None:
        return mean_sd(self.values)[1] if self.values else None

    @property
    def under_trained(self) -> bool:
        """Whether a run of the cell hit its epoch cap within its patience of its best epoch."""
        return any(outcome.hit_cap for _, _, outcome in self.outcomes)


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


def test_of(path: str) -> dict[str, Any]:
    """The p-values of a comparison file: on rule data the sign-flip test's over rules (``rules``: that part of the
    file; p_value None where the file predates it), else the test split's bootstrap, whose p of the cell being
    worse is taken as 1 − p (the share of resamples in which the cell beats the baseline)."""
    result = json.loads(Path(path).read_text(encoding="utf-8"))
    if result.get("clustered"):
        test = result["clustered"]["overall"]
        if not has_exact_test(test):
            return {"p_value": None, "p_value_lower": None}
        return {"p_value": float(test["p_value"]), "p_value_lower": float(test["p_value_lower"]), "rules": test}
    p_value = float(result["splits"]["test"]["p_value"])
    return {"p_value": p_value, "p_value_lower": 1 - p_value}


def verdict(tests: list[dict[str, Any]], required: int) -> str:
    """X3, X6, X12: better when the mean difference is positive and at least ``required`` seeds give p < 0.05 (the
    cell better); worse when it is negative and at least ``required`` seeds give p < 0.05 for the cell worse
    (``p_value_lower``; 1 − p where a test gives only p: p > 0.95); otherwise no difference shown. A seed without a
    p (a rule-data file from before the exact test) leaves the cell without a verdict: "no exact test"."""
    if not tests:
        return ""
    if any(t["p_value"] is None for t in tests):
        return "no exact test"
    mean_delta = sum(t["delta"] for t in tests) / len(tests)
    if mean_delta > 0 and sum(t["p_value"] < ALPHA for t in tests) >= required:
        return "better"
    lower = [t.get("p_value_lower", 1 - t["p_value"]) for t in tests]
    if mean_delta < 0 and sum(p < ALPHA for p in lower) >= required:
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
                      [s[task.metric] for s in scores], {m: [s[m] for s in scores] for m in task.also}, aligned,
                      outcomes=outcomes(config, cell))


def outcomes(config: ParagenConfig, cell: MatrixCell) -> list[tuple[int, str, TrainingOutcome]]:
    """How each of the cell's runs ended training, judged by the stopping rule it trained under, for the runs whose
    log is here (a report rebuilt from provenance has them back)."""
    ended = []
    for run, seed in cell.runs:
        log = Path(run_dir(run)) / "train_log.csv"
        if log.is_file():
            settings = settings_of_run(Path(run_dir(run)), config.training_of(run))
            ended.append((seed, run, training_outcome(read_log(log), settings)))
    return ended


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
            base = by_key[(test.task, matrix.tasks[test.task].baseline)]
            value = dict(zip(cell.runs, cell.values))[test.run]
            base_value = dict(zip(base.runs, base.values))[test.baseline]
            cell.tests.append({"seed": test.seed, "run": test.run, "baseline": test.baseline, "value": value,
                               "baseline_value": base_value, "delta": value - base_value, **test_of(test.path)})
    results = []
    for name, task in matrix.tasks.items():
        column = [c for c in cells if c.task == name]
        void = sanity_void(config, name, by_key[(name, task.baseline)])
        scored = {c.mechanism: c.mean for c in column if c.mean is not None}
        for cell, rank in ({} if void else ranks(scored)).items():  # type: ignore[arg-type]
            by_key[(name, cell)].rank = rank
        for cell in column:
            cell.verdict = "baseline" if cell.mechanism == task.baseline and cell.status == "scored" else \
                verdict(cell.tests, matrix.required())
            if cell.verdict == "worse" and cell.under_trained:
                cell.verdict = "possibly under-trained"
        results.append(TaskResult(name, task.label, task.metric, task.baseline, column, void))
    return results


def sanity_void(config: ParagenConfig, task_name: str, baseline: CellResult) -> str:
    """Why the column's verdicts are void (X11), or "" when its baseline reaches the bound or none is set."""
    task = config.matrix.tasks[task_name]  # type: ignore[union-attr]
    check = task.sanity
    if check is None or baseline.status != "scored" or not config.runnable(check.system):
        return ""
    return baseline_void(check, task.baseline, list(baseline.runs), f"matrix.tasks.{task_name}.sanity")
