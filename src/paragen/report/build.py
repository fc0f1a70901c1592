"""``paragen report --table NAME``: one reproduced table plus its figures."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from paragen import artifacts
from paragen.atomic import write_json, write_text
from paragen.markdown_text import html_page, write_markdown
from paragen.config import ConfigError, ParagenConfig, RealDataset, TableConfig
from paragen.data.synthetic import rules_per_type, tag_column
from paragen.metrics.randomization import INTERVAL_MIN_RULES
from paragen.training.train_log import read_log
from paragen.report.figures import (plot_alignment_heatmaps, plot_attention_heatmap, plot_copy_heatmap, plot_curves,
                                    plot_loss_curves, plot_odd_generation, plot_training_panels, plot_type_curves)
from paragen.report.parameters import count_cell
from paragen.training.runlock import lock_holder
from paragen.training.stopping import settings_of_run, training_outcome
from paragen.report.captions import (ceiling_text, describe_embeddings, describe_hardware, describe_own, one_seed_text,
                                     describe_scale, describe_systems, hardware_summary, overlap_text)
from paragen.report.heldout import heldout_lines
from paragen.report.comparisons import comparison_lines, comparison_records, comparisons_csv, compared_by_rule
from paragen.report.provenance import publish_provenance
from paragen.report.reading import metric_label, read_runs, reading_summary, rule_text
from paragen.report.closest_captions import closest_epoch_text, closest_rows_text
from paragen.report.render import to_csv, to_latex, to_markdown
from paragen.report.units import column_units, units_sentence
from paragen.report.degenerate_notes import mark_degenerate
from paragen.report.tables import (RULE_TESTS_HEADING, Cell, Column, PaperTable, ResultTable, RowSource, SeedRun,
                                   drop_short_intervals, fill_table, read_rescored)
from paragen.pipeline.tables import RowPlan, TablePlan, absent_reason, own_splits, table_plan

log = logging.getLogger(__name__)

TRACE_PREFERENCE = ("xy->xy", "x->xx", "x->x", "xy->x", "x->0")
"""Which rule type's example the heat map shows: the richest copying pattern available."""


def _write(table: ResultTable) -> None:
    md, csv_path, tex = artifacts.table_outputs(table.name)
    write_markdown(md, to_markdown(table))
    write_text(artifacts.table_page_path(table.name), html_page(table.title, to_markdown(table)))
    write_text(csv_path, to_csv(table))
    write_text(tex, to_latex(table))


def build_scores_table(config: ParagenConfig, plan: TablePlan, figures: bool, redraw: bool = False) -> None:
    """The table's files from its plan's rows and runs and what it read kept beside them
    (:mod:`paragen.report.provenance`), then the figures the plan says it draws (``figures``: False for a rebuild
    of the tables alone, ``paragen report --tables-only``; ``redraw``: the figures drawn from training logs and
    metrics alone, ``paragen report --redraw``, see :func:`draw_figures`)."""
    table_name, spec, paper = plan.name, plan.spec, plan.paper
    experiments = [e for e in spec.rows.values() if e in config.experiments]
    systems = [s for s in spec.rows.values() if s in config.systems]
    sources: dict[str, RowSource] = {label: row_runs(row) if row.runnable else (row.absent or "")
                                     for label, row in plan.rows.items()}
    scored = [json.loads(run.metrics.read_text(encoding="utf-8")) for runs in sources.values()
              if not isinstance(runs, str) for run in runs if run.metrics.exists()]
    counts = _split_counts(scored, own_splits(config, spec)) if plan.own else \
        sorted({_sentence_count(metrics) for metrics in scored})
    published = f"{paper.metric[0].upper()}{paper.metric[1:]}. Published numbers: {paper.paper}, {paper.table}. "
    own = describe_own(own_splits(config, spec)) if plan.own else ""
    units = column_units(config, paper.columns, experiments + systems, scored)
    caption = ((own or published) + units_sentence(paper.columns, units).lstrip() + " "
               + (describe_scale(config, experiments) if experiments else "")
               + (f" {'Sentences' if plan.own else 'Test sentences'}: {', '.join(counts)}." if counts else "")
               + (ceiling_text(config, experiments) + overlap_text(config, experiments) if experiments else "")
               + (f" {spec.note}" if spec.note else "")
               + ("" if paper.rows or paper.paper.startswith("none") or plan.own else
                  " No paper reports numbers for these rows: every reproduced cell is ours."))
    rescored = read_rescored(artifacts.PUBLISHED_OUTPUTS_CSV) if plan.rescored else None
    table = fill_table(table_name, spec.title, caption, paper, sources, rescored, not_comparable=spec.not_comparable)
    table.units = units
    mark_degenerate(table, sources)
    if plan.by_type and experiments:
        table.caption += short_interval_text(config, experiments, table)
    table.setup = [text.strip() for text in (spec.setup, describe_systems(config, systems) if systems else "",
                                             describe_embeddings(config, spec.rows)) if text.strip()]
    ran = plan.trained_rows()
    seeded = config.seed_count > 1 or bool(spec.confirmation)
    logs: dict[tuple[str, int | None], list[dict[str, float]]] = {}  # finished runs' logs, for the reading
    for row in ran:
        for run in plan.rows[row].runs:
            seed, run_dir = run.seed, Path(artifacts.run_dir(run.name))
            holder = lock_holder(run_dir)
            if holder is not None:
                table.training_notes.append(f"{row}{f' (seed {seed})' if seeded else ''}: still training ({run_dir} "
                                            f"is held by process {holder}); its cells are from an earlier run or empty")
            if (run_dir / "train_log.csv").exists():
                run_log = read_log(run_dir / "train_log.csv")
                if holder is None:
                    logs[(row, seed if seeded else None)] = run_log
                outcome = training_outcome(run_log, settings_of_run(run_dir, config.training_of(run.name)))
                table.training.setdefault(row, []).append((seed if seeded else None, outcome))
    table.comparisons = comparison_lines(config, plan)
    if compared_by_rule(plan):
        table.comparisons_heading = RULE_TESTS_HEADING
    table.findings = comparison_lines(config, plan, short=True)
    if spec.reading is not None:
        read = read_runs(spec.reading, table, logs)
        table.readings = [f"{run}: {text}" for run, text in read]
        table.findings += [f"{run}: {reading_summary(text)}" for run, text in read]
        table.reading_rules = rule_text(spec.reading, metric_label(spec.reading, table))
    by_type = plan.by_type  # rule data: per-type curves and closest epochs
    if by_type:
        table.caption += closest_epoch_text(plan, table.training) + closest_rows_text(plan)
        table.predictions, validated = heldout_lines(plan, {c.key: c.label for c in paper.columns})
        table.findings += validated
    run_dirs = {(f"{row} seed {run.seed}" if seeded else row): Path(artifacts.run_dir(run.name))
                for row in ran for run in plan.rows[row].runs}
    table.caption += hardware_summary(run_dirs) + ("" if seeded else one_seed_text(plan, ran))
    hardware = describe_hardware(run_dirs)
    if hardware:
        table.setup.append(hardware.strip())
    _write(table)
    if plan.comparisons:
        write_text(artifacts.comparisons_csv_path(table_name), comparisons_csv(comparison_records(config, plan)))
    publish_provenance(config, plan)
    # 004 Table 4 is a table, written with the others; a rebuild from provenance has its pairs only where they were kept
    if plan.pairs_experiment and (figures or Path(artifacts.aligned_pairs_path(plan.pairs_experiment)).exists()):
        from paragen.report.aligned_pairs import write_aligned_pairs_table

        log.info("wrote %s", ", ".join(write_aligned_pairs_table(table_name, spec)))
    kept = not figures or redraw  # the examples from their committed data file, not from the runs' outputs
    if plan.example_rows and (not kept or Path(artifacts.examples_data_path(table_name)).exists()):
        write_examples(config, plan, kept=kept)
    if not figures:
        log.info("wrote %s (tables only: no figures)", ", ".join(plan.tables))
        return
    if not ran:
        log.info("wrote %s (no trained row can run: no figures)", ", ".join(plan.tables))
        return
    drawn = draw_figures(config, plan, redraw)
    log.info("wrote %s and %d figure(s)", ", ".join(plan.tables), drawn)


def draw_figures(config: ParagenConfig, plan: TablePlan, redraw: bool = False) -> int:
    """The table's figures; how many were drawn. ``redraw``: only those drawn from training logs and metrics (a
    rebuild from ``results/provenance/``); the heat maps, which need a decode's traces, are left as they are.
    A row without a training log is left out of the curves (their titles count it) and gets no training panels."""
    table_name, spec, paper, ran = plan.name, plan.spec, plan.paper, plan.trained_rows()
    copying, drawn = plan.copy_rows, plan.figures
    logs = {row: [Path(run.train_log or "") for run in plan.rows[row].runs] for row in ran}
    if redraw and not any(path.exists() for paths in logs.values() for path in paths):
        log.info("%s: no training log is kept, so its figures are left as they are", table_name)
        return 0
    styles = model_styles(plan)
    assert plan.curve is not None
    column, label = plan.curve
    plot_curves(logs, drawn[0], label, f"{label[0].upper()}{label[1:]} after each epoch ({table_name})", column,
                styles=styles)
    count = 1
    if copying and not redraw:
        row = next(r for r, e in ran.items() if e == copying[0])
        traces = read_trace(Path(artifacts.copy_trace_path(copying[0])), "copy-mode", copying[0])
        rule_type = next(t for t in TRACE_PREFERENCE if t in traces)
        plot_copy_heatmap(traced_examples(traces, rule_type), drawn[1], f"{row} copy mode on rule type {rule_type}")
        count += 1
        if plan.attention_rows:  # beside it, RNNSearch's attention on the same rule type
            plot_attention_trace(plan, rule_type)
            count += 1
    plot_loss_curves(logs, artifacts.loss_curves_path(table_name), f"Loss per token after each epoch ({table_name})",
                     styles=styles)
    count += 1
    if plan.by_type:
        plot_type_curves(logs, drawn[-1], {c.key: (tag_column(c.key), c.label) for c in paper.columns},
                         paper.rows, f"Validation exact match per rule type ({table_name})", styles=styles)
        count += 1
    for row, exp in plan.design_rows().items():  # one panel per experiment, not again for its confirmation block
        if exp in plan.panels and logs[row][0].exists():
            plot_training_panels(logs[row][0], artifacts.training_panels_path(table_name, exp),
                                 f"{row} ({exp}): training log per epoch", label=row)
            count += 1
    if plan.heatmap_rows and not redraw:
        plot_heatmaps(config, table_name, spec)
        count += 2
    if plan.oddgen:
        plot_oddgen(plan)
        count += 1
    return count


def model_styles(plan: TablePlan) -> dict[str, int]:
    """Row label -> style index: one colour and marker per model (experiment), so a model's confirmation-seed row
    looks like its design row in every panel and every figure of the table."""
    models = list(dict.fromkeys(plan.trained_rows().values()))
    return {row: models.index(experiment) for row, experiment in plan.trained_rows().items()}


def short_interval_text(config: ParagenConfig, experiments: list[str], table: ResultTable) -> str:
    """Rule data: cells of a type with too few rules lose their rule-resampling interval; the caption says so."""
    data = config.datasets[config.experiments[experiments[0]].dataset]
    counts = rules_per_type(data.rules)  # type: ignore[union-attr]
    labels = drop_short_intervals(table, counts, INTERVAL_MIN_RULES)
    if not labels:
        return ""
    short = sorted(n for n in counts.values() if n < INTERVAL_MIN_RULES)
    rules = f"{short[0]} rule{'s' if short[0] != 1 else ''}" if short[0] == short[-1] else \
        f"{short[0]}–{short[-1]} rules"
    which = "No cell shows" if len(labels) == len(table.columns) else f"Cells of {', '.join(labels)} show"
    return (f" {which} an interval from resampling rules: {rules} a type, fewer than "
            f"the {INTERVAL_MIN_RULES} at which such an interval comes near 95 % coverage (docs/scoring.md).")


def row_runs(row: RowPlan) -> RowSource:
    """A row's metrics file, or with several seeds each seed run's (with its alignment accuracy where the dataset
    has gold links)."""
    return [SeedRun(run.seed if len(row.runs) > 1 else None, Path(run.metrics),
                    {"alignment": Path(run.alignment)} if run.alignment else {})
            for run in row.runs]


def _split_counts(scored: list[dict], splits: list[str]) -> list[str]:
    """"split N" per split the runs scored, in the order of ``splits`` (a metrics file without splits scored test
    alone): a table of your own names each split it shows, whatever form its rows' metrics files take."""
    counts: dict[str, set[int]] = {split: set() for split in splits}
    for metrics in scored:
        for split, result in (metrics["splits"] if "splits" in metrics else {"test": metrics}).items():
            counts.setdefault(split, set()).add(result["count"])
    return [f"{split} {' / '.join(map(str, sorted(found)))}" for split, found in counts.items() if found]


def _sentence_count(metrics: dict) -> str:
    """"N" for one test split, "split N, ..." for several."""
    if "splits" in metrics:
        return ", ".join(f"{split} {scored['count']}" for split, scored in metrics["splits"].items())
    return str(metrics["count"])


def read_trace(path: Path, kind: str, experiment: str) -> dict:
    """A decode stage's heat-map trace (rule type -> its first correct and first wrong example), or a clear error
    naming the stage that writes it."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: the {kind} trace is missing; the stage decode_{experiment} writes it "
                                f"(`snakemake {path}`)")
    return json.loads(path.read_text(encoding="utf-8"))


def traced_examples(traces: dict, rule_type: str) -> list[dict]:
    """The examples a heat map of ``rule_type`` shows: the correct one, then the wrong one, those that exist."""
    chosen = traces.get(rule_type, {})
    return [chosen[k] for k in ("correct", "wrong") if chosen.get(k)]


def plot_attention_trace(plan: TablePlan, rule_type: str) -> None:
    """RNNSearch's attention along its first correct and first wrong output of ``rule_type`` (its decode's trace)."""
    experiment = plan.attention_rows[0]
    trace_path = Path(artifacts.attention_trace_path(experiment))
    shown = traced_examples(read_trace(trace_path, "attention", experiment), rule_type)
    if not shown:
        raise ValueError(f"{trace_path}: no traced test line of rule type {rule_type}, which the copy-mode map shows")
    plot_attention_heatmap(shown, artifacts.attention_heatmap_path(plan.name),
                           f"{plan.row_of(experiment)} attention on rule type {rule_type}")


def write_examples(config: ParagenConfig, plan: TablePlan, kept: bool = False) -> None:
    """The examples page and its data: each row's test output on the lines :mod:`paragen.report.examples` chooses.
    A row without a test output is named on the page, the others are shown. ``kept``: render the committed data
    file again (a rebuild without the runs' outputs, ``--tables-only``)."""
    from paragen.pipeline.report_stages import example_output
    from paragen.data.corpus import read_lines
    from paragen.report.examples import example_records, read_example_source, render_examples

    data_path = Path(artifacts.examples_data_path(plan.name))
    if kept:
        records = json.loads(data_path.read_text(encoding="utf-8"))
    else:
        paths = {label: Path(example_output(config, name)) for label, name in plan.example_rows.items()}
        outputs = {label: read_lines(path) for label, path in paths.items() if path.exists()}
        missing = {label: f"its test output {path} is missing; its decode (or system) stage writes it"
                   for label, path in paths.items() if not path.exists()}
        first_label, first = next(iter(plan.example_rows.items()))
        data = read_example_source(artifacts.experiment_data(config, first).directory,
                                   paths[first_label].stem)  # the split whose sources the outputs follow
        records = example_records(data, outputs, missing)
        write_json(data_path, records)
    write_markdown(artifacts.examples_path(plan.name), render_examples(plan.spec.title, records))


def plot_heatmaps(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    """004 Figure 4 from ``paragen align``'s matrices: one row's attention and another's q_j, same sentences, as
    two figures, each naming the seed of the run it shows (the row's first run)."""
    figure = spec.alignment_figure
    assert figure is not None
    names = (figure.attention, figure.source_prediction)
    matrices = [json.loads(Path(artifacts.alignment_matrices_path(spec.rows[n])).read_text(encoding="utf-8"))
                for n in names]
    chosen = [{e["line"]: e for e in m["sentences"]} for m in matrices]
    examples = [[c[line] for line in figure.sentences] for c in chosen]
    seeds = tuple(config.training_of(spec.rows[n]).seed for n in names)
    plot_alignment_heatmaps(examples[0], examples[1], names, seeds, artifacts.heatmap_paths(table_name))


def plot_oddgen(plan: TablePlan) -> None:
    """004 Figure 2 from the rows' metrics: sentences with repeats and sentences shorter than the gold; with
    confirmation seeds, their runs in a panel beside the design seeds' (the claim is judged on them)."""
    from paragen.config.tables import seed_span

    table_name, spec = plan.name, plan.spec
    figure = spec.oddgen_figure
    assert figure is not None

    def counted(rows: dict[str, str]) -> dict[str, list[dict[str, int]]]:  # shown label -> each seed run's counts
        counts: dict[str, list[dict[str, int]]] = {}
        for shown, row in rows.items():
            for run in plan.rows[row].runs:  # a run not yet scored is left out (its row, if none is)
                if not Path(run.metrics).exists():
                    continue
                metrics = json.loads(Path(run.metrics).read_text(encoding="utf-8"))
                scored = metrics["splits"][figure.split] if "splits" in metrics else metrics
                counts.setdefault(shown, []).append(scored["oddgen"]["score"])
        return counts

    counts = counted({row: row for row in figure.rows})
    block = spec.confirmation
    confirmation = counted({row: block.label(row) for row in figure.rows if block.label(row) in plan.rows}) \
        if block else None
    design = sorted({run.seed for row in figure.rows for run in plan.rows[row].runs if run.seed is not None})
    blocks = (f"design {seed_span(design)}" if design else "design seeds",
              f"confirmation {seed_span(block.seeds)}") if block else None
    sentences = next(iter(counts.values()))[0]["sentences"]
    plot_odd_generation(counts, artifacts.oddgen_figure_path(table_name),
                        f"Odd generation on {figure.split} ({sentences:,} sentences; fewer is better)", blocks,
                        confirmation or None)


def build_parameters_table(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    """Table 5: paper vs counted at the paper's vocabulary, plus the count at the vocabulary actually built."""
    paper = PaperTable.load(spec.paper)
    columns = [Column(c.key, f"{c.label} (paper V)", c.key) for c in paper.columns]
    columns += [Column(f"{c.key}_built", f"{c.label} (built V)", c.key) for c in paper.columns]
    table = ResultTable(table_name, spec.title, "", columns, list(spec.grid), decimals=paper.decimals)
    table.units = {column.key: "output-layer parameters, millions (counted on the instantiated model)"
                   for column in columns}
    for row, cells in spec.grid.items():
        for column in paper.columns:
            experiment = cells[column.key]
            dataset = config.datasets[config.experiments[experiment].dataset]
            assert isinstance(dataset, RealDataset), "Table 5 cells are real-data experiments"
            vocab = artifacts.experiment_data(config, experiment).vocab if config.runnable(experiment) else None
            count = count_cell(config.models[config.experiments[experiment].model], dataset.vocab_size or 0, vocab)
            published = paper.rows.get(row, {}).get(column.key)
            table.cells[(row, column.key)] = Cell(published, count.at_paper_vocab / 1e6,
                                                  f"counted at V = {count.paper_vocab:,} + 4 specials")
            if count.at_built_vocab is None:
                table.cells[(row, f"{column.key}_built")] = Cell(None, None, absent_reason(config, experiment))
            else:
                table.cells[(row, f"{column.key}_built")] = Cell(
                    None, count.at_built_vocab / 1e6, f"built vocabulary: {count.built_vocab:,} tokens + 4 specials")
    table.caption = (f"{paper.metric[0].upper()}{paper.metric[1:]}, {paper.paper} {paper.table} reproduced by "
                     "instantiating each experiment's model. Seq2seq: the k x V projection W (Eq. 3, bias "
                     "excluded); WEAN: the parameters of its score function f(q, e) (Eq. 5) as configured. "
                     "The paper reports the concat score's 2k^2 + k ('at most') although it trains with "
                     "general (k^2), hence the WEAN (concat) row." + (f" {spec.note}" if spec.note else ""))
    _write(table)
    log.info("wrote %s", ", ".join(artifacts.table_outputs(table_name)))


def build_table_report(config: ParagenConfig, table_name: str, figures: bool = True, redraw: bool = False) -> None:
    if table_name not in config.tables:
        raise ConfigError(f"unknown table {table_name!r}; allowed values: {sorted(config.tables)}")
    spec = config.tables[table_name]
    if spec.kind == "parameters":
        build_parameters_table(config, table_name, spec)
    else:
        plan = table_plan(config, table_name)
        if figures and not redraw:
            _refuse_missing_inputs(config, plan)
        build_scores_table(config, plan, figures, redraw)


def _refuse_missing_inputs(config: ParagenConfig, plan: TablePlan) -> None:
    """Refuse before writing anything when a file the figures read is missing: a report that wrote the table and
    then stopped at a figure would leave new tables beside old figures and provenance. (Missing metrics and
    comparisons are not refused: the table shows them as missing.)"""
    from paragen.pipeline.report_stages import figure_inputs

    missing = list(dict.fromkeys(path for path in figure_inputs(config, plan) if not Path(path).exists()))
    if missing:
        listed = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ConfigError(f"paragen report --table {plan.name}: {len(missing)} file(s) its figures read are missing "
                          f"({listed}); nothing was written. Produce them with snakemake (results/tables/"
                          f"{plan.name}.md), or rebuild the table files alone from what is kept with --tables-only")
