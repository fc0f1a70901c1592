"""``paragen skip-sweep --name SYSTEM``: the skip baseline's metrics against its drop probability (003 §4.3.1).

The report only says in words that SARI and BLEU rise as the skip probability falls. For each p in
the system's ``sweep`` and each of ``seeds`` seeds, the skip output is computed and scored exactly as
``paragen evaluate`` scores the table's rows; the table gives mean ± sd per p, the figure plots them.
"""

from __future__ import annotations

import csv
import io
import statistics
from pathlib import Path
from typing import Any

from paragen import artifacts
from paragen.artifacts import sweep_outputs
from paragen.atomic import write_text
from paragen.markdown_text import write_markdown
from paragen.progress import progress_bar
from paragen.rounding import shown
from paragen.config import ConfigError, ParagenConfig, RealDataset
from paragen.scoring.evaluation import restores_bpe, skip_runs
from paragen.scoring.files import headline

METRIC_LABELS = {"sari": "SARI", "bleu": "BLEU", "rouge": "ROUGE", "sari_003": "SARI (003's protocol)",
                 "bleu_003": "BLEU (003's protocol)"}
PROTOCOL_SUFFIX = "_003"
"""Columns scored under 003's protocol (:mod:`paragen.simplification.report_protocol`) end with this."""


def run_sweep(config: ParagenConfig, name: str, quiet: bool = False) -> dict[float, dict[str, list[float]]]:
    """p -> metric -> one score per seed."""
    if name not in config.systems or config.systems[name].method != "skip" or not config.systems[name].sweep:
        choices = sorted(n for n, s in config.systems.items() if s.method == "skip" and s.sweep)
        raise ConfigError(f"{name!r} is not a skip system with a sweep; allowed values: {choices}")
    spec = config.systems[name]
    dataset = config.datasets[spec.dataset]
    assert isinstance(dataset, RealDataset)
    directory = artifacts.experiment_data(config, name).directory
    results: dict[float, dict[str, list[float]]] = {}
    points = [(p, spec.seed + k) for p in spec.sweep for k in range(spec.seeds)]
    protocol = None
    if dataset.evaluation.report_protocol:  # the Turk files as distributed, read once for every output
        from paragen.simplification.report_protocol import read_turk_test

        protocol = read_turk_test()
    bar = progress_bar(points, enabled=not quiet, desc=f"{name} sweep", unit="output")
    runs = skip_runs(dataset.evaluation, directory, bar, restores_bpe(dataset), protocol)
    for (p, _), run in zip(points, runs, strict=True):  # strict: runs to its end, so the bar logs 100 %
        scores = headline(run)
        for metric in dataset.evaluation.metrics:  # ROUGE's several scores each get their own column
            value = scores[metric]
            for part, number in (value.items() if isinstance(value, dict) else [(metric, value)]):
                column = part if part == metric else f"{metric}_{part}"
                results.setdefault(p, {}).setdefault(column, []).append(float(number))
        for metric in ("sari", "bleu") if protocol is not None else ():
            results[p].setdefault(metric + PROTOCOL_SUFFIX, []).append(float(run["report_protocol"][metric]["score"]))
    return results


def _mean_sd(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def to_csv(results: dict[float, dict[str, list[float]]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    metrics = list(next(iter(results.values())))
    writer.writerow(["probability", "seeds", *(f"{m}_{s}" for m in metrics for s in ("mean", "sd")),
                     *(f"{m}_per_seed" for m in metrics)])
    for p, scores in results.items():
        stats = [f"{v:.4f}" for m in metrics for v in _mean_sd(scores[m])]
        values = (" ".join(f"{v:.4f}" for v in scores[m]) for m in metrics)
        writer.writerow([p, len(scores[metrics[0]]), *stats, *values])
    return buffer.getvalue()


def summary_at(path: str | Path, probability: float) -> tuple[int, dict[str, tuple[float, float]]] | None:
    """(seeds, metric -> (mean, sd)) of one drop probability in a sweep CSV written by :func:`to_csv`; None when the
    sweep did not score that probability."""
    with open(path, encoding="utf-8", newline="") as handle:
        row = next((r for r in csv.DictReader(handle) if float(r["probability"]) == probability), None)
    if row is None:
        return None
    metrics = [key[: -len("_mean")] for key in row if key.endswith("_mean")]
    return int(row["seeds"]), {m: (float(row[f"{m}_mean"]), float(row[f"{m}_sd"])) for m in metrics}


def to_markdown(name: str, results: dict[float, dict[str, list[float]]], first_seed: int) -> str:
    metrics = list(next(iter(results.values())))
    seeds = len(next(iter(results.values()))[metrics[0]])
    header = ["drop probability p", *(f"{METRIC_LABELS.get(m, m)} mean ± sd" for m in metrics)]
    lines = [f"# Skip baseline ({name}): metrics against the drop probability", "",
             f"Each word of the test source dropped independently with probability p; {seeds} seeds per p "
             f"({first_seed}..{first_seed + seeds - 1}), scored as the table's rows. 003 §4.3.1 states the trend "
             "in words only (scores rise as p falls; p = 0 is the identity).", "",
             "| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for p, scores in results.items():
        cells = [f"{shown(_mean_sd(scores[m])[0], 2)} ± {shown(_mean_sd(scores[m])[1], 2)}" for m in metrics]
        lines.append("| " + " | ".join([f"{p:g}", *cells]) + " |")
    lines += ["", TREND_HEADING + " " + trend_text(results)]
    return "\n".join(lines) + "\n"


TREND_HEADING = "Against 003 §4.3.1 (\"scores increase as p decreases\"):"
"""Starts the generated sentence of the sweep's markdown that the report index quotes under its figure."""


def trend(results: dict[float, dict[str, list[float]]], metric: str) -> str:
    """Whether ``metric``'s mean rises at every step as p falls (003 §4.3.1's statement), or where it stops."""
    ordered = sorted(results, reverse=True)  # highest p first: the direction the statement reads
    means = [_mean_sd(results[p][metric])[0] for p in ordered]
    label = METRIC_LABELS.get(metric, metric)
    if all(later > earlier for earlier, later in zip(means, means[1:])):
        return f"{label} rises at every step as p falls from {ordered[0]:g} to {ordered[-1]:g} (agrees)"
    peak = max(range(len(means)), key=means.__getitem__)
    if peak == len(means) - 1:
        return f"{label} is highest at the lowest p ({ordered[-1]:g}) but does not rise at every step (agrees overall)"
    return (f"{label} peaks at p = {ordered[peak]:g} ({shown(means[peak], 2)}) and falls below it, to {shown(means[-1], 2)} at "
            f"p = {ordered[-1]:g} (disagrees for p < {ordered[peak]:g})")


def trend_text(results: dict[float, dict[str, list[float]]]) -> str:
    """One sentence per metric column, generated from the sweep (never typed)."""
    return "; ".join(trend(results, metric) for metric in next(iter(results.values()))) + "."


def paper_point(config: ParagenConfig, name: str) -> tuple[float, dict[str, float]] | None:
    """(p, metric -> published number) of the skip row as a table of params.yaml shows it (003 Table 1's skip at
    p = 0.5), or None when no table publishes a number for it."""
    from paragen.config.papers import PaperTable

    for table in config.tables.values():
        label = next((k for k, v in table.rows.items() if v == name), None)
        if label is not None and table.kind == "scores":
            published = PaperTable.load(table.paper).rows.get(label)
            if published:
                return config.systems[name].probability, published
    return None


def sweep_figure(name: str, results: dict[float, dict[str, list[float]]],
                 published: tuple[float, dict[str, float]] | None) -> Any:
    """SARI and BLEU on their own panels, mean ± sd over seeds per p, the standard scoring solid and 003's protocol
    dashed where the sweep has it; the published number of the row marked with a star at its p."""
    from paragen import figure_style as style

    probabilities = list(results)
    columns = list(results[probabilities[0]])
    bases = [m for m in columns if not m.endswith(PROTOCOL_SUFFIX)]
    fig, axes = style.panel_grid(len(bases), panel_height=2.8, extra=0.9)
    for ax, metric in zip(axes, bases):
        shown = []
        for index, column in enumerate(c for c in (metric, metric + PROTOCOL_SUFFIX) if c in columns):
            means, sds = zip(*(_mean_sd(results[p][column]) for p in probabilities))
            shown += [m + s for m, s in zip(means, sds)] + [m - s for m, s in zip(means, sds)]
            ax.errorbar(probabilities, means, yerr=sds, capsize=3, markersize=4,
                        label="standard scoring" if column == metric else "003's protocol", **style.row_style(index))
        if published and metric in published[1]:
            value = published[1][metric]
            shown.append(value)
            ax.plot([published[0]], [value], linestyle="none", marker="*", markersize=12, color="black",
                    label=f"003 Table 1 (p = {published[0]:g})")
        ax.set_ylim(*style.panel_limits([shown]))
        ax.set_title(METRIC_LABELS.get(metric, metric))
        ax.set_xlabel("drop probability p")
    axes[0].set_ylabel("score on the test set")
    seeds = len(results[probabilities[0]][columns[0]])
    fig.suptitle(style.one_line(f"Skip baseline ({name}): mean ± sd over {seeds} seeds per p"))
    style.legend_below(fig, axes, columns=3)
    return fig


def plot_sweep(name: str, results: dict[float, dict[str, list[float]]], path: str,
               published: tuple[float, dict[str, float]] | None = None) -> None:
    from paragen.figure_style import save

    save(sweep_figure(name, results, published), path)


def write_sweep(config: ParagenConfig, name: str, quiet: bool = False) -> dict[float, dict[str, list[float]]]:
    results = run_sweep(config, name, quiet)
    md, csv_path, png = sweep_outputs(name)
    write_markdown(md, to_markdown(name, results, config.systems[name].seed))
    write_text(csv_path, to_csv(results))
    plot_sweep(name, results, png, paper_point(config, name))
    return results
