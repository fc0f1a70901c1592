"""The report stages: ``paragen report`` per active table (inputs and outputs from its
:class:`~paragen.pipeline.tables.TablePlan`) and ``paragen index`` (results/REPORT.md)."""

from __future__ import annotations

from paragen.artifacts import (PUBLISHED_OUTPUTS_CSV, REPORT_PATH, SCORING_VARIANTS_TABLE, fetch_marker, provenance_dir,
                               scoring_variants_outputs, attention_heatmap_path, attention_trace_path, aligned_pairs_outputs, aligned_pairs_path,
                               comparisons_csv_path,
                               alignment_matrices_path, comparison_path, copy_trace_path, embeddings_path,
                               examples_data_path, examples_path, experiment_data, heatmap_paths, hyp_path, loss_curves_path, metrics_path, oddgen_figure_path, sweep_outputs,
                               table_outputs, table_page_path, training_panels_path)
from paragen.config import ParagenConfig
from paragen.pipeline.report_items import (ReportItem, aligned_pairs_items, scoring_variants_items,
                                           alignment_heatmap_items, comparisons_item, attention_heatmap_item,
                                           copy_heatmap_item, examples_items, loss_curves_item, oddgen_item,
                                           table_items, training_panels_item,
                                           type_curves_item, valid_curves_item)
from paragen.pipeline.data_stages import fetch_scopes
from paragen.pipeline.stage import PARAMS_FILE, Stage, shell_command
from paragen.pipeline.tables import TablePlan, caption_params, closest_choices, heldout_files


def report_stage(config: ParagenConfig, plan: TablePlan) -> Stage:
    """``paragen report``: reads the metrics and logs of the rows that can run; the others say why not."""
    table, table_name, ran, trained = plan.spec, plan.name, list(plan.ran), list(plan.trained)
    if table.kind == "parameters":
        deps = tuple(dict.fromkeys(experiment_data(config, e).vocab for e in ran))
    else:
        runs = plan.trained_runs()  # every seed of every trained row
        deps = tuple(metrics_path(e) for e in ran) + tuple(r.metrics for r in runs if r.name not in ran) \
            + tuple(r.train_log for r in runs if r.train_log) + tuple(r.alignment for r in runs if r.alignment)
        if plan.rescored:
            deps += (PUBLISHED_OUTPUTS_CSV,)
        deps += tuple(sweep_outputs(e)[1] for e in ran if e in config.systems and config.systems[e].sweep)
        deps += tuple(embeddings_path(e) for e in trained
                      if config.models[config.experiments[e].model].pretrained_embeddings)
        deps += tuple(comparison_path(a, b) for a, b in plan.compared())
        deps += tuple(run.metrics for row in plan.closest_rows() for run in row.runs) + tuple(closest_choices(plan))
        deps += tuple(heldout_files(plan))
        if plan.spec.paper == "simplification_table1" and "turkcorpus" in fetch_scopes(config):
            deps += scoring_variants_outputs()[1:]  # the table links the scoring study: its stage runs with it
        deps += figure_inputs(config, plan) + example_inputs(config, plan)
    first = config.dataset_of(table.experiments()[0])
    return Stage(
        name=f"report_{table_name}", step="report",
        cmd=shell_command("paragen", "report", "--params", PARAMS_FILE, "--table", table_name,
                          *(("--data", ",".join(config.data)) if config.data else ()),
                          *(("--seeds", str(config.seed_count)) if config.seed_count > 1 else ())),
        deps=deps, params=(f"tables.{table_name}", f"datasets.{first}") + caption_params(config, ran),
        outs=plan.outputs, uncached=plan.outputs, report=table_report_items(config, plan),
        directories=(plan.provenance,) if table.kind == "scores" else (),
    )


def figure_inputs(config: ParagenConfig, plan: TablePlan) -> tuple[str, ...]:
    """What the table's figures cannot be drawn without: the copy and attention traces, the alignment matrices and
    pairs. A table shows a missing metric, comparison or alignment score as missing, the curves leave out a
    missing training log and the examples page names a row without a test output, but a missing trace stops the
    report midway, so ``paragen report`` checks these before it writes anything."""
    inputs = tuple(copy_trace_path(e) for e in plan.copy_rows)
    inputs += tuple(attention_trace_path(e) for e in plan.attention_rows)
    inputs += tuple(alignment_matrices_path(e) for e in plan.heatmap_rows)
    return inputs + ((aligned_pairs_path(plan.pairs_experiment),) if plan.pairs_experiment else ())


def example_inputs(config: ParagenConfig, plan: TablePlan) -> tuple[str, ...]:
    """The rows' test outputs the examples page shows (a stage input; a missing one is named on the page, it
    blocks no figure)."""
    return tuple(example_output(config, name) for name in plan.example_rows.values())


def example_output(config: ParagenConfig, row: str) -> str:
    """The output file the examples table shows of a row: on ``test`` where the row decodes it (systems always
    do), else on its first decoded split."""
    splits = config.test_splits(config.dataset_of(row)) if row in config.experiments else ["test"]
    return hyp_path(row, "test" if "test" in splits else splits[0])


def table_report_items(config: ParagenConfig, plan: TablePlan) -> tuple[ReportItem, ...]:
    """The table's files and, when rows were trained, its figures (the paths of ``plan.figures``)."""
    table, table_name, paper = plan.spec, plan.name, plan.paper
    items = table_items(table, table_outputs(table_name) + (table_page_path(table_name),), paper.metric,
                        f"{paper.paper}, {paper.table}")
    if plan.heatmap_rows:
        items += alignment_heatmap_items(table, heatmap_paths(table_name))
    if plan.oddgen:
        items += (oddgen_item(table, oddgen_figure_path(table_name)),)
    if plan.pairs_experiment:
        items += aligned_pairs_items(table, aligned_pairs_outputs(table_name))
    if plan.comparisons:
        items += (comparisons_item(table, comparisons_csv_path(table_name)),)
    trained = list(plan.trained) if table.kind == "scores" else []
    if not trained:
        return items
    row_of = plan.row_of
    figures = plan.figures
    datasets = list(dict.fromkeys(config.experiments[e].dataset for e in trained))
    assert plan.curve is not None
    drawn = list(plan.trained_rows())  # the curves' rows: confirmation blocks included
    seeded = any(len(plan.rows[row].runs) > 1 for row in drawn)  # the several-seed wording only where it applies
    items += (valid_curves_item(table, figures[0], plan.curve[1], drawn, datasets, seeded),)
    if plan.copy_rows:
        items += (copy_heatmap_item(table, figures[1], row_of(plan.copy_rows[0])),)
    if plan.attention_rows:
        items += (attention_heatmap_item(table, attention_heatmap_path(table_name), row_of(plan.attention_rows[0]),
                                         row_of(plan.copy_rows[0])),)
    spm = [row_of(e) for e in trained if config.models[config.experiments[e].model].source_prediction is not None]
    items += (loss_curves_item(table, loss_curves_path(table_name), drawn, spm, seeded),)
    if plan.example_rows:
        items += examples_items(table, (examples_path(table_name), examples_data_path(table_name)),
                                list(plan.example_rows))
    items += tuple(training_panels_item(table, training_panels_path(table_name, e), row_of(e), e)
                   for e in plan.panels)
    return items + ((type_curves_item(table, figures[-1], [row_of(e) for e in trained], seeded),) if plan.by_type
                    else ())


def scoring_variants_stages(config: ParagenConfig, tables: dict[str, TablePlan]) -> list[Stage]:
    """``paragen scoring-variants`` beside the simplification table (which links it) when the Turk test files are
    fetched: every scoring protocol's scores on the Turk test, the ranking and its leave-one-out, with provenance
    (docs/decisions.md P4, P5, P9)."""
    scope = fetch_scopes(config).get("turkcorpus")
    plan = next((p for p in tables.values() if p.spec.paper == "simplification_table1"), None)
    if scope is None or plan is None:
        return []
    outs = scoring_variants_outputs()
    provenance = provenance_dir(SCORING_VARIANTS_TABLE)
    return [Stage(name="scoring_variants", step="score",
                  cmd=shell_command("paragen", "scoring-variants", "--raw", "data/raw/turkcorpus"),
                  deps=(fetch_marker("turkcorpus", scope),), outs=(*outs, provenance), uncached=(*outs, provenance),
                  directories=(provenance,), report=scoring_variants_items(plan.spec, outs))]


def index_stage(config: ParagenConfig, stages: list[Stage]) -> Stage:
    """``paragen index``: results/REPORT.md, linking every table the report stages among ``stages`` write."""
    return Stage(
        name="index", step="index",
        cmd=shell_command("paragen", "index", "--params", PARAMS_FILE, "--suites", ",".join(config.suites),
                          "--scale", config.scale),
        deps=tuple(p for s in stages if s.step == "report" and s.name != "datasets_table" for p in s.outs),
        params=("tables",),
        outs=(REPORT_PATH,), uncached=(REPORT_PATH,),
    )
