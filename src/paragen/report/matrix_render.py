"""``paragen matrix``: the matrix's Markdown, CSV and LaTeX tables, its generated paragraph and its heat map of
ranks, from :func:`paragen.report.matrix.matrix_results` (docs/matrix.md says how to read them)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from paragen.artifacts import MATRIX_FIGURE, MATRIX_TABLE, run_dir, table_outputs
from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.config import ParagenConfig
from paragen.config.matrix import METRIC_LABELS, declared_by_matrix
from paragen.report.captions import hardware_summary
from paragen.report.comparisons import p_text
from paragen.report.provenance import keep
from paragen.report.matrix import ALPHA, CellResult, TaskResult, by_cell, chance_rate, matrix_results
from paragen.report.render import latex_escape
from paragen.report.rounding import shown


def _rank(rank: float | None) -> str:
    return "—" if rank is None else (f"{rank:.0f}" if rank == int(rank) else f"{rank:.1f}")


def _score(cell: CellResult) -> str:
    assert cell.mean is not None
    return shown(cell.mean, 1) + (f" ± {shown(cell.sd, 1)}" if cell.sd is not None else "")


def cell_text(cell: CellResult, void: bool) -> str:
    """"78.2 · rank 2 · better", "does not apply (a)", "not run"."""
    if cell.status != "scored":
        return cell.status
    verdict = "void" if void and cell.tests else cell.verdict
    return " · ".join(filter(None, (_score(cell), f"rank {_rank(cell.rank)}", verdict)))


def _tests_text(cell: CellResult, samples: int) -> str:
    return ", ".join(f"seed {t['seed']}: {t['delta']:+.1f}, {p_text(t['p_value'], samples)}" for t in cell.tests)


def _counts(results: list[TaskResult]) -> tuple[int, dict[str, int]]:
    tested = [c for task in results if not task.void for c in task.cells if c.tests]
    return len(tested), {v: sum(c.verdict == v for c in tested) for v in ("better", "worse")}


def paragraph(config: ParagenConfig, results: list[TaskResult]) -> str:
    """The generated reading: per task which mechanisms differ from the baseline under the fixed rule, which do not,
    and how many verdicts chance alone would give."""
    matrix = config.matrix
    assert matrix is not None
    seeds, required = len(matrix.seeds), matrix.required()
    sentences = []
    for task in results:
        scored = [c for c in task.cells if c.status == "scored"]
        if not scored:
            sentences.append(f"{task.label}: no cell has run.")
            continue
        best = [c.mechanism for c in scored if c.rank == min(x.rank for x in scored if x.rank is not None)]
        text = f"{task.label}: best {' and '.join(best)}."
        if task.void:
            text += f" Its verdicts are {task.void}."
        else:
            for name in ("better", "worse"):
                cells = [c.mechanism for c in task.cells if c.verdict == name]
                if cells:
                    text += f" {name.capitalize()} than {task.baseline}: {', '.join(cells)}."
            same = [c.mechanism for c in task.cells if c.verdict == "no difference shown"]
            if same:
                text += f" No difference shown from {task.baseline}: {', '.join(same)}."
        missing = [c.mechanism for c in task.cells if c.status == "not run"]
        if missing:
            text += f" Not run: {', '.join(missing)}."
        sentences.append(text)
    tested, counts = _counts(results)
    rate = chance_rate(seeds, required)
    sentences.append(
        f"{tested} cell(s) tested against their task's baseline ({seeds} seed{'s' if seeds > 1 else ''}; a verdict "
        f"needs p < {ALPHA} or > {1 - ALPHA:.2f} in {required} of {seeds}): {counts['better']} better, "
        f"{counts['worse']} worse; with no true difference anywhere about {tested * rate:.1f} verdict(s) would "
        f"come by chance ({rate:.3f} a cell).")
    if seeds == 1:
        sentences.append("With one seed a verdict is one training run's: run-to-run variation alone can give it "
                         "(matrix.seeds: [1, 2, 3] repeats every cell).")
    return " ".join(sentences)


def to_markdown(config: ParagenConfig, results: list[TaskResult], hardware: str) -> str:
    matrix = config.matrix
    assert matrix is not None
    mechanisms = list(matrix.mechanisms)
    cells = by_cell(results)
    lines = [f"# {matrix.title}", "", "| mechanism | " + " | ".join(t.label for t in results) + " |",
             "|" + " --- |" * (len(results) + 1)]
    for mechanism in mechanisms:
        lines.append(f"| {mechanism} | " + " | ".join(cell_text(cells[(t.name, mechanism)], bool(t.void))
                                                       for t in results) + " |")
    seeds = len(matrix.seeds)
    metrics = ", ".join(f"{t.label.split(' (')[0]}: {METRIC_LABELS[t.metric]}" for t in results)
    over = (f"mean ± sd over seeds {', '.join(map(str, matrix.seeds))}" if seeds > 1 else f"seed {matrix.seeds[0]}")
    lines += ["", f"Each cell: the task's main metric on its test set ({metrics}), {over}; its rank within the task "
              "(1 = best); and the paired bootstrap test against the task's baseline (better / worse / no difference "
              f"shown, by a rule fixed in advance: docs/decisions.md X3, X6, X12).{hardware}",
              "", "## Reading", "", paragraph(config, results), "", "## Paired tests", ""]
    for task in results:
        for cell in task.cells:
            if cell.tests:
                lines.append(f"- {task.label}, {cell.mechanism} vs {task.baseline}: {_tests_text(cell, matrix.samples)}")
    lines += ["", "## Cells that do not apply or did not run", ""]
    lines += [f"- {c.mechanism} on {t.label}: {c.status}: {c.reason}" for t in results for c in t.cells
              if c.status != "scored"] or ["- none"]
    reused = sorted({(c.experiment, c.mechanism, t.label) for t in results for c in t.cells if c.experiment
                     and not declared_by_matrix(config, c.experiment)})
    lines += ["", "## Runs shared with the suites' tables", "",
              "These cells are the suites' own experiments (identical dataset, model, training and decoding), trained "
              "once; their test results were seen before the matrix was designed (docs/decisions.md X5):", ""]
    lines += [f"- {mechanism} on {label}: `{experiment}`" for experiment, mechanism, label in reused] or ["- none"]
    return "\n".join(lines) + "\n"


def to_csv(config: ParagenConfig, results: list[TaskResult]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["task", "mechanism", "status", "reason", "experiment", "runs", "metric", "mean", "sd", "values",
                     "rank", "verdict", "deltas", "p_values", "also", "attention_alignment"])
    for task in results:
        for c in task.cells:
            writer.writerow([task.name, c.mechanism, c.status, c.reason, c.experiment or "", " ".join(c.runs),
                             task.metric, "" if c.mean is None else f"{c.mean:.4f}",
                             "" if c.sd is None else f"{c.sd:.4f}", " ".join(f"{v:.4f}" for v in c.values),
                             _rank(c.rank) if c.rank is not None else "",
                             "void" if task.void and c.tests else c.verdict,
                             " ".join(f"{t['delta']:.4f}" for t in c.tests),
                             " ".join(f"{t['p_value']:.4f}" for t in c.tests),
                             " ".join(f"{m}={sum(v) / len(v):.4f}" for m, v in c.also.items() if v),
                             " ".join(f"{v:.4f}" for v in c.alignment)])
    return out.getvalue()


def to_latex(config: ParagenConfig, results: list[TaskResult]) -> str:
    matrix = config.matrix
    assert matrix is not None
    cells = by_cell(results)
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "l" * len(results) + "}", r"\hline",
             "Mechanism & " + " & ".join(latex_escape(t.label) for t in results) + r" \\", r"\hline"]
    for mechanism in matrix.mechanisms:
        lines.append(latex_escape(mechanism) + " & " + " & ".join(
            latex_escape(cell_text(cells[(t.name, mechanism)], bool(t.void))) for t in results) + r" \\")
    lines += [r"\hline", r"\end{tabular}", r"\caption{" + latex_escape(
        f"{matrix.title}. Main metric per task, rank within the task, and the paired test against the task's "
        "baseline (docs/matrix.md).") + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def write_matrix(config: ParagenConfig, figures: bool = True) -> list[str]:
    """Write the matrix's tables (and its heat map) and keep what they read outside results/ (the runs' training
    logs and sessions: the caption's hardware and time) in results/provenance/matrix/, so `paragen check-tables`
    can rebuild them; returns the paths written."""
    results = matrix_results(config)
    runs = {run: Path(run_dir(run)) for task in results for c in task.cells if c.status == "scored" for run in c.runs}
    keep(MATRIX_TABLE, [str(d / name) for d in runs.values() for name in ("train_log.csv", "sessions.json")
                        if (d / name).is_file()], {"table": MATRIX_TABLE, "data": list(config.data), "seeds": 1})
    md, csv_path, tex = table_outputs(MATRIX_TABLE)
    write_markdown(md, to_markdown(config, results, hardware_summary(runs)))
    write_text(csv_path, to_csv(config, results))
    write_text(tex, to_latex(config, results))
    written = [md, csv_path, tex]
    if figures:
        from paragen.report.figure_matrix import rank_heatmap

        rank_heatmap(results, list(config.matrix.mechanisms), config.matrix.title, MATRIX_FIGURE)  # type: ignore[union-attr]
        written.append(MATRIX_FIGURE)
    return written
