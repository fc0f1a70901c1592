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

from paragen import artifacts
from paragen.artifacts import sweep_outputs
from paragen.atomic import atomic_path, write_text
from paragen.progress import progress_bar
from paragen.config import ConfigError, ParagenConfig, RealDataset
from paragen.scoring.evaluation import restores_bpe, skip_runs
from paragen.scoring.files import headline

METRIC_LABELS = {"sari": "SARI", "bleu": "BLEU", "rouge": "ROUGE"}


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
    runs = skip_runs(dataset.evaluation, directory, progress_bar(points, enabled=not quiet, desc=f"{name} sweep", unit="output"),
                     restores_bpe(dataset))
    for (p, _), run in zip(points, runs):
        scores = headline(run)
        for metric in dataset.evaluation.metrics:  # ROUGE's several scores each get their own column
            value = scores[metric]
            for part, number in (value.items() if isinstance(value, dict) else [(metric, value)]):
                column = part if part == metric else f"{metric}_{part}"
                results.setdefault(p, {}).setdefault(column, []).append(float(number))
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
        writer.writerow([p, len(scores[metrics[0]]), *stats, *(" ".join(f"{v:.4f}" for v in scores[m]) for m in metrics)])
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
        cells = [f"{_mean_sd(scores[m])[0]:.2f} ± {_mean_sd(scores[m])[1]:.2f}" for m in metrics]
        lines.append("| " + " | ".join([f"{p:g}", *cells]) + " |")
    return "\n".join(lines) + "\n"


def plot_sweep(name: str, results: dict[float, dict[str, list[float]]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probabilities = list(results)
    metrics = list(results[probabilities[0]])
    figure, axis = plt.subplots(figsize=(6, 4))
    for metric in metrics:
        means, sds = zip(*(_mean_sd(results[p][metric]) for p in probabilities))
        axis.errorbar(probabilities, means, yerr=sds, marker="o", capsize=3, label=METRIC_LABELS.get(metric, metric))
    axis.set_xlabel("drop probability p (each word dropped independently)")
    axis.set_ylabel("score on the test set")
    axis.set_title(f"Skip baseline ({name}): mean ± sd over {len(results[probabilities[0]][metrics[0]])} seeds")
    axis.legend()
    axis.grid(alpha=0.3)
    figure.tight_layout()
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120)
    plt.close(figure)


def write_sweep(config: ParagenConfig, name: str, quiet: bool = False) -> dict[float, dict[str, list[float]]]:
    results = run_sweep(config, name, quiet)
    md, csv_path, png = sweep_outputs(name)
    write_text(md, to_markdown(name, results, config.systems[name].seed))
    write_text(csv_path, to_csv(results))
    plot_sweep(name, results, png)
    return results
