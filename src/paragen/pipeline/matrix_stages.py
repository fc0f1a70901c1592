"""The matrix's own stages (suite ``matrix``): a paired test of every cell against its column's baseline, seed k
against seed k, and ``paragen matrix``, which writes the table, the heat map of ranks and the paragraph.

The cells' experiments are ordinary experiments (:func:`paragen.config.matrix.expand_matrix` declares them), so
their train, decode and evaluate stages come from :mod:`paragen.pipeline.experiment_stages` like any row's, once
each even when a suite's table shows the same run.
"""

from __future__ import annotations

from dataclasses import dataclass

from paragen.artifacts import (MATRIX_FIGURE, MATRIX_TABLE, matrix_comparison_path, metrics_path, provenance_dir,
                               run_dir, table_outputs)
from paragen.config import ParagenConfig
from paragen.config.matrix import MatrixCell, baseline_cell, matrix_cells
from paragen.pipeline.experiment_stages import align_stage, compare_stage
from paragen.pipeline.report_items import ReportItem
from paragen.pipeline.stage import PARAMS_FILE, Stage, shell_command
from paragen.training.stopping import SESSIONS_FILE


@dataclass(frozen=True)
class MatrixTest:
    """One paired test: a cell's seed run against its column's baseline run of the same seed."""

    task: str
    mechanism: str
    seed: int
    run: str
    baseline: str
    path: str


def runnable_cells(config: ParagenConfig) -> list[MatrixCell]:
    """The cells that apply and whose dataset is switched on."""
    return [c for c in matrix_cells(config) if c.applies and config.runnable(c.experiment)]


def matrix_tests(config: ParagenConfig) -> list[MatrixTest]:
    """Every paired test the matrix reports: each runnable cell but the baseline, per seed."""
    cells = matrix_cells(config)
    tests = []
    for cell in runnable_cells(config):
        base = baseline_cell(cells, config, cell.task)
        if cell.mechanism == base.mechanism or base.experiment is None or not config.runnable(base.experiment):
            continue
        for (run, seed), (baseline, _) in zip(cell.runs, base.runs):
            if run != baseline:  # two mechanisms with one model share a run: nothing to test
                tests.append(MatrixTest(cell.task, cell.mechanism, seed, run, baseline,
                                        matrix_comparison_path(run, baseline)))
    return tests


def matrix_stages(config: ParagenConfig) -> list[Stage]:
    """The paired tests and the report of the matrix, when the suite ``matrix`` is on."""
    if "matrix" not in config.suites or config.matrix is None:
        return []
    stages = [compare_stage(config, t.run, t.baseline, config.matrix.tasks[t.task].metric, config.matrix.samples,
                            (f"matrix.tasks.{t.task}.metric",)
                            + (("matrix.samples",) if "samples" in config.matrix.model_fields_set else ()),
                            out=t.path)
              for t in matrix_tests(config)]
    runs = [run for cell in runnable_cells(config) for run, _ in cell.runs]
    aligned = [stage.outs for stage in map(lambda r: align_stage(config, r), runs) if stage is not None]
    sanity = [t.sanity.system for t in config.matrix.tasks.values() if t.sanity and config.runnable(t.sanity.system)]
    deps = tuple(metrics_path(r) for r in runs + sanity) + tuple(f"{run_dir(r)}/train_log.csv" for r in runs) \
        + tuple(f"{run_dir(r)}/{SESSIONS_FILE}" for r in runs) + tuple(s.outs[0] for s in stages) \
        + tuple(path for outs in aligned for path in outs)  # gold-link accuracy: in the CSV beside the metric
    outs = table_outputs(MATRIX_TABLE) + (MATRIX_FIGURE, provenance_dir(MATRIX_TABLE))
    stages.append(Stage(
        name="report_matrix", step="report",
        cmd=shell_command("paragen", "matrix", "--params", PARAMS_FILE,
                          *(("--data", ",".join(config.data)) if config.data else ())),
        deps=tuple(dict.fromkeys(deps)), params=("matrix",), outs=outs, uncached=outs,
        directories=(provenance_dir(MATRIX_TABLE),),
        report=matrix_report_items(config)))
    return stages


def matrix_report_items(config: ParagenConfig) -> tuple[ReportItem, ...]:
    """The matrix's table files and heat map, with their captions, for ``snakemake --report`` and REPORT.md."""
    assert config.matrix is not None
    title, seeds = config.matrix.title, len(config.matrix.seeds)
    category = "Beyond the papers"
    score = (f"mean over seeds {', '.join(map(str, config.matrix.seeds))}" if seeds > 1
             else f"one run, seed {config.matrix.seeds[0]}")
    caption = (f"{title}. Each cell: the task's main metric ({score}), its rank within the task and the paired "
               "bootstrap test against the task's RNNSearch baseline; cells that do not apply say why.")
    items = tuple(ReportItem(path, category, title, f"{caption} {fmt} file.")
                  for path, fmt in zip(table_outputs(MATRIX_TABLE), ("Markdown", "CSV", "LaTeX")))
    return items + (ReportItem(
        MATRIX_FIGURE, category, title,
        f"Rank of each mechanism within each task (1 = best main metric) and the cell's score ({score}); b: better "
        "than the task's baseline, w: worse (the fixed rule of the table), v: the task's verdicts are void (its "
        "baseline does not work); grey cells do not apply or did not run. Ranks compare mechanisms within one task "
        "only: the tasks' metrics differ."),)
