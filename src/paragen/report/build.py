"""``paragen report --table NAME``: one reproduced table plus its figures."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from paragen import pipeline
from paragen.atomic import write_text
from paragen.config import ConfigError, ParagenConfig
from paragen.report.figures import plot_copy_heatmap, plot_curves
from paragen.report.tables import PaperTable, fill_table, to_csv, to_latex, to_markdown

log = logging.getLogger(__name__)

TRACE_PREFERENCE = ("xy->xy", "x->xx", "x->x", "xy->x", "x->0")
"""Which rule type's example the heat map shows: the richest copying pattern available."""


def describe_scale(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text naming the data scale, model sizes and decoding of the rows."""
    first = config.experiments[experiments[0]]
    data = config.datasets[first.dataset]
    sizes = sorted({(config.models[config.experiments[e].model].hidden_size,
                     config.models[config.experiments[e].model].embedding_size) for e in experiments})
    beams = sorted({config.decoding[config.experiments[e].decoding].beam_size for e in experiments})
    size_text = ", ".join(f"hidden {h} / embedding {e}" for h, e in sizes)
    return (f"Scale: {data.rules} rules × {data.instances_per_rule} instances "
            f"(paper: 200 × 200), {data.symbols} symbols, seed {data.seed}; "
            f"bi-{config.models[first.model].cell.upper()} encoder, {size_text}; beam {', '.join(map(str, beams))}.")


def build_table_report(config: ParagenConfig, table_name: str) -> None:
    if table_name not in config.tables:
        raise ConfigError(f"unknown table {table_name!r}; allowed values: {sorted(config.tables)}")
    spec = config.tables[table_name]
    paper = PaperTable.load(spec.paper)
    experiments = list(spec.rows.values())
    metrics_files = {row: Path(pipeline.metrics_path(exp)) for row, exp in spec.rows.items()}
    counts = {json.loads(p.read_text())["count"] for p in metrics_files.values() if p.exists()}
    caption = (f"{paper.metric.capitalize()}, {paper.paper} {paper.table} reproduced. "
               + describe_scale(config, experiments)
               + (f" Test sentences: {', '.join(map(str, sorted(counts)))}." if counts else ""))
    table = fill_table(table_name, spec.title, caption, paper, metrics_files)
    md, csv_path, tex = pipeline.table_outputs(table_name)
    write_text(md, to_markdown(table))
    write_text(csv_path, to_csv(table))
    write_text(tex, to_latex(table))

    copying = pipeline.copying_experiments(config, experiments)
    figures = pipeline.figure_paths(table_name, bool(copying))
    logs = {row: Path(pipeline.run_dir(exp)) / "train_log.csv" for row, exp in spec.rows.items()}
    plot_curves(logs, figures[0], "validation exact-match accuracy (%)", f"{spec.title}: validation accuracy")
    if copying:
        row = next(r for r, e in spec.rows.items() if e == copying[0])
        traces = json.loads(Path(pipeline.copy_trace_path(copying[0])).read_text(encoding="utf-8"))
        rule_type = next(t for t in TRACE_PREFERENCE if t in traces)
        plot_copy_heatmap(traces[rule_type], figures[1], f"{row} copy mode, first test example of rule {rule_type}")
    log.info("wrote %s and %d figure(s)", ", ".join(pipeline.table_outputs(table_name)), len(figures))
