"""``paragen matrix``: the matrix's Markdown, CSV and LaTeX tables, its generated paragraph and its heat map of
ranks, from :func:`paragen.report.matrix.matrix_results` (docs/matrix.md says how to read them).

Every difference shown is the shown cell minus the shown baseline (:mod:`paragen.rounding`); the CSV keeps
exact values."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from paragen.artifacts import MATRIX_FIGURE, MATRIX_TABLE, run_dir, table_outputs
from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.config import ParagenConfig, RealDataset
from paragen.config.matrix import METRIC_LABELS, declared_by_matrix
from paragen.report.units import metric_unit
from paragen.report.captions import hardware_summary
from paragen.report.comparisons import p_text
from paragen.metrics.randomization import EXHAUSTIVE_MAX_RULES, MONTE_CARLO_DRAWS
from paragen.report.matrix_seeds import OtherSeeds, disagreements, other_seeds
from paragen.report.provenance import keep
from paragen.report.matrix import ALPHA, CellResult, TaskResult, by_cell, chance_rate, matrix_results
from paragen.report.render import latex_escape
from paragen.rounding import exact_difference, exact_text, shown, versus_text
from paragen.report.rule_tests import NO_EXACT_TEST, favour_text, p_with_floor


def _rank(rank: float | None) -> str:
    return "—" if rank is None else (f"{rank:.0f}" if rank == int(rank) else f"{rank:.1f}")


def _score(cell: CellResult) -> str:
    assert cell.mean is not None
    return shown(cell.mean, 1) + (f" ± {shown(cell.sd, 1)}" if cell.sd is not None else "")


UNDER_TRAINED = "possibly under-trained"


def cell_text(cell: CellResult, void: bool) -> str:
    """"78.2 · rank 2 · better", "76.2 · rank 4 · possibly under-trained", "17.6 · void" (a void column has no
    ranks), "does not apply (a)", "not run"."""
    if cell.status != "scored":
        return cell.status
    verdict = "void" if void and cell.tests else cell.verdict
    flag = UNDER_TRAINED if cell.under_trained and verdict != UNDER_TRAINED else ""
    rank = "" if cell.rank is None else f"rank {_rank(cell.rank)}"
    return " · ".join(filter(None, (_score(cell), rank, verdict, flag)))


def _test_text(test: dict, samples: int, mechanism: str, baseline: str) -> str:
    """"seed 1: 95.0 vs 78.2 (+16.8), 17 of 20 rules favour CopyNet, p = 1.0e-05 (…)"; a test of lines:
    "seed 1: 79.4 vs 79.2 (+0.2), p = 0.318"."""
    head = f"seed {test['seed']}: {versus_text(test['value'], test['baseline_value'])}"
    if test["p_value"] is None:
        return f"{head}, {NO_EXACT_TEST}"
    if "rules" in test:
        return f"{head}, {favour_text(test['rules'], mechanism, baseline)}, {p_with_floor(test['rules'])}"
    return f"{head}, {p_text(test['p_value'], samples)}"


def _tests_text(cell: CellResult, samples: int, baseline: str) -> str:
    return "; ".join(_test_text(t, samples, cell.mechanism, baseline) for t in cell.tests)


def _counts(results: list[TaskResult]) -> tuple[int, dict[str, int]]:
    tested = [c for task in results if not task.void for c in task.cells if c.tests and c.verdict != "no exact test"]
    return len(tested), {v: sum(c.verdict == v for c in tested) for v in ("better", "worse")}


def _task_sentence(task: TaskResult, found: list[OtherSeeds]) -> str:
    """One column's reading: best cell (not in a void column), verdicts, cells possibly under-trained, what the
    suite's other seeds contradict, cells not run."""
    scored = [c for c in task.cells if c.status == "scored"]
    if not scored:
        return f"{task.label}: no cell has run."
    if task.void:
        text = f"{task.label}: not ranked, and its verdicts are {task.void}."
    else:
        best = [c.mechanism for c in scored if c.rank == min(x.rank for x in scored if x.rank is not None)]
        text = f"{task.label}: best {' and '.join(best)}."
        for name in ("better", "worse"):
            cells = [c.mechanism for c in task.cells if c.verdict == name]
            if cells:
                text += f" {name.capitalize()} than {task.baseline}: {', '.join(cells)}."
        same = [c.mechanism for c in task.cells if c.verdict == "no difference shown"]
        if same:
            text += f" No difference shown from {task.baseline}: {', '.join(same)}."
        held = [c.mechanism for c in task.cells if c.verdict == UNDER_TRAINED]
        if held:
            text += (f" Below {task.baseline} but possibly under-trained (a run hit its epoch cap while still "
                     f"improving), so no verdict against it: {', '.join(held)}.")
        untested = [c.mechanism for c in task.cells if c.verdict == "no exact test"]
        if untested:
            text += f" No verdict, the comparison predating the exact test over rules: {', '.join(untested)}."
        baseline = next(c for c in task.cells if c.mechanism == task.baseline)
        if baseline.under_trained:
            text += (f" The baseline {task.baseline} itself hit its epoch cap while still improving (possibly "
                     "under-trained), so a cell better than it may not be better than a fully trained one.")
        contradicted = disagreements(task, found)
        if contradicted:
            text += f" The suite's own other seeds disagree: {'; '.join(contradicted)}."
    missing = [c.mechanism for c in task.cells if c.status == "not run"]
    if missing:
        text += f" Not run: {', '.join(missing)}."
    return text


def paragraph(config: ParagenConfig, results: list[TaskResult], found: list[OtherSeeds] | None = None) -> str:
    """The generated reading: per task which mechanisms differ from the baseline under the fixed rule, which do not
    or cannot be judged, what the suites' other seeds contradict (``found``), and how many verdicts chance alone
    would give."""
    matrix = config.matrix
    assert matrix is not None
    seeds, required = len(matrix.seeds), matrix.required()
    sentences = [_task_sentence(task, found or []) for task in results]
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


def to_markdown(config: ParagenConfig, results: list[TaskResult], hardware: str,
                found: list[OtherSeeds] | None = None) -> str:
    matrix = config.matrix
    assert matrix is not None
    found = other_seeds(config, results) if found is None else found
    mechanisms = list(matrix.mechanisms)
    cells = by_cell(results)
    lines = [f"# {matrix.title}", "", "| mechanism | " + " | ".join(t.label for t in results) + " |",
             "|" + " --- |" * (len(results) + 1)]
    for mechanism in mechanisms:
        lines.append(f"| {mechanism} | " + " | ".join(cell_text(cells[(t.name, mechanism)], bool(t.void))
                                                       for t in results) + " |")
    seeds = len(matrix.seeds)
    metrics = ", ".join(f"{t.label.split(' (')[0]}: {METRIC_LABELS[t.metric]}" for t in results)
    units = "; ".join(f"{t.label.split(' (')[0]}: {task_unit(config, t)}" for t in results)
    over = (f"mean ± sd over seeds {', '.join(map(str, matrix.seeds))}" if seeds > 1 else f"seed {matrix.seeds[0]}")
    lines += ["", f"Each cell: the task's main metric on its test set ({metrics}), {over}; its rank within the task "
              "(1 = best; a void column is not ranked); and the paired test against the task's baseline (on rule data "
              f"the sign-flip test over rules, exact up to {EXHAUSTIVE_MAX_RULES} rules and {MONTE_CARLO_DRAWS:,} "
              "seeded draws beyond, elsewhere the paired bootstrap): better / worse / no difference shown, by a rule "
              "fixed in advance (docs/decisions.md X3, X6, X12); a cell whose run hit its epoch cap "
              f"while still improving is possibly under-trained and gets no verdict against it (X15). Units: {units}."
              f"{hardware}",
              "", "## Reading", "", paragraph(config, results, found), "", "## Paired tests", "",
              "Each difference is the cell's shown score minus the baseline's.", ""]
    for task in results:
        for cell in task.cells:
            if cell.tests:
                lines.append(f"- {task.label}, {cell.mechanism} vs {task.baseline}: "
                             f"{_tests_text(cell, matrix.samples, task.baseline)}")
    lines += ["", "## Training (model selection on the validation split)", ""]
    lines += [f"- {t.label}, {c.mechanism} (seed {seed}, `{run}`): {outcome.describe()}" for t in results
              for c in t.cells for seed, run, outcome in c.outcomes] or ["- no training log here"]
    if found:
        lines += ["", "## The suites' other seeds", "",
                  "Cells that are a suite's runs, against their baseline on the seeds that suite trained beyond the "
                  "matrix's (shown cell minus shown baseline; not part of the verdicts):", ""]
        lines += [f"- {task_label(results, o.task)}, {o.mechanism} vs {baseline_of(results, o.task)} (`{o.experiment}` "
                  f"vs `{o.baseline}`): {o.differences()}; above on {o.higher} of {len(o.seeds)}" for o in found]
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


def task_label(results: list[TaskResult], name: str) -> str:
    return next(t.label for t in results if t.name == name)


def baseline_of(results: list[TaskResult], name: str) -> str:
    return next(t.baseline for t in results if t.name == name)


CSV_FIELDS = ("task", "mechanism", "status", "reason", "experiment", "runs", "metric", "unit", "mean", "sd", "values",
              "rank",
              "verdict", "deltas", "p_values", "also", "attention_alignment", "seeds", "baseline_values",
              "p_values_lower", "p_floors", "best_epochs", "epochs_run", "hit_epoch_cap")
"""Per seed, space-separated in seed order: ``values``, ``baseline_values``, ``deltas`` (exact: value − baseline
value), ``p_values`` (the cell better; empty where a rule-data file has no exact test), ``p_values_lower`` (the cell
worse), ``p_floors`` (the smallest p the rule count allows; rule data only), ``best_epochs``, ``epochs_run``,
``hit_epoch_cap`` (of the cell's runs whose log is kept)."""


def task_unit(config: ParagenConfig, task: TaskResult) -> str:
    """What a column's main metric counts (paragen.report.units): scale, tokens and references."""
    assert config.matrix is not None
    dataset = config.datasets[config.matrix.tasks[task.name].dataset]
    metric = {"exact": "by_tag"}.get(task.metric, task.metric)
    text = metric_unit(metric, None, getattr(dataset, "evaluation", None),
                       isinstance(dataset, RealDataset) and dataset.segmentation == "bpe")
    return text.replace("F1 0-100", "ROUGE-2 F1 0-100") if task.metric == "rouge" else text


def _joined(values: list, text=lambda v: f"{v:.4f}") -> str:
    return " ".join("" if v is None else text(v) for v in values)


def to_csv(config: ParagenConfig, results: list[TaskResult]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for task in results:
        for c in task.cells:
            ended = [outcome for _, _, outcome in c.outcomes]
            writer.writerow([task.name, c.mechanism, c.status, c.reason, c.experiment or "", " ".join(c.runs),
                             task.metric, task_unit(config, task), "" if c.mean is None else f"{c.mean:.4f}",
                             "" if c.sd is None else f"{c.sd:.4f}", _joined(c.values),
                             _rank(c.rank) if c.rank is not None else "",
                             "void" if task.void and c.tests else c.verdict,
                             " ".join(exact_difference(t["value"], t["baseline_value"]) for t in c.tests),
                             _joined([t["p_value"] for t in c.tests], exact_text),
                             " ".join(f"{m}={sum(v) / len(v):.4f}" for m, v in c.also.items() if v),
                             _joined(c.alignment), " ".join(str(t["seed"]) for t in c.tests),
                             _joined([t["baseline_value"] for t in c.tests]),
                             _joined([t["p_value_lower"] for t in c.tests], exact_text),
                             _joined([t["rules"]["p_floor"] if "rules" in t else None for t in c.tests], exact_text),
                             " ".join(str(o.best_epoch) for o in ended), " ".join(str(o.epochs_run) for o in ended),
                             " ".join(str(o.hit_cap).lower() for o in ended)])
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
