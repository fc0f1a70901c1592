"""Figures: validation curves of several runs, and CopyNet's copy-mode heat map (Gu et al. Figure 3)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: pipelines run without a display
import matplotlib.pyplot as plt  # noqa: E402

from paragen.atomic import atomic_path  # noqa: E402
from paragen.training.train_log import read_log  # noqa: E402


def _save(fig: plt.Figure, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=130, bbox_inches="tight")
    plt.close(fig)


@dataclass(frozen=True)
class EpochBand:
    """A metric per epoch over a row's seed runs: the mean, the sample sd (NaN where one run reached the epoch)
    and how many runs reached it (early stopping ends runs at different epochs)."""

    epochs: list[float]
    means: list[float]
    sds: list[float]
    runs: list[int]


def epoch_band(logs: list[list[dict[str, float]]], column: str) -> EpochBand:
    """Mean ± sd of ``column`` per epoch over the runs that reached it."""
    from paragen.config.seeds import mean_sd

    by_epoch: dict[float, list[float]] = {}
    for rows in logs:
        for row in rows:
            by_epoch.setdefault(row["epoch"], []).append(row.get(column, float("nan")))  # NaN: not logged
    epochs = sorted(by_epoch)
    stats = [mean_sd(by_epoch[e]) for e in epochs]
    return EpochBand(epochs, [m for m, _ in stats], [float("nan") if sd is None else sd for _, sd in stats],
                     [len(by_epoch[e]) for e in epochs])


def _clip(values: list[float], bounds: tuple[float | None, float | None]) -> list[float]:
    low, high = bounds
    return [min(max(v, low if low is not None else v), high if high is not None else v) for v in values]


def plot_curves(logs: dict[str, Path | list[Path]], path: str | Path, metric_label: str, title: str,
                column: str = "valid_metric", bounds: tuple[float | None, float | None] = (0.0, 100.0)) -> None:
    """A validation metric (``column`` of train_log.csv) per epoch, one line per row; a row trained from several
    seeds is drawn as the mean with a ± sd band clipped to the metric's ``bounds``, and only over the epochs
    every seed reached (early stopping ends runs at different epochs: a mean over fewer runs than the label
    says is not drawn). The legend sits below the axes, where it covers no data. Rows without a log are named
    in the title."""
    fig, ax = plt.subplots(figsize=(6, 4.2), layout="constrained")
    missing = []
    for label, paths in logs.items():
        paths = [paths] if isinstance(paths, Path) else paths
        if not all(p.exists() for p in paths):
            missing.append(label)
            continue
        band = epoch_band([read_log(p) for p in paths], column)
        if len(paths) == 1:
            ax.plot(band.epochs, band.means, marker="o", markersize=3, label=label)
            continue
        full = [i for i, runs in enumerate(band.runs) if runs == len(paths)]
        epochs, means = [band.epochs[i] for i in full], [band.means[i] for i in full]
        shown = f" to epoch {epochs[-1]:.0f}, the last all reached" if full and len(full) < len(band.epochs) else ""
        line, = ax.plot(epochs, means, marker="o", markersize=3,
                        label=f"{label} (mean ± sd of {len(paths)} seeds{shown})")
        lows = _clip([means[k] - band.sds[i] for k, i in enumerate(full)], bounds)
        highs = _clip([means[k] + band.sds[i] for k, i in enumerate(full)], bounds)
        ax.fill_between(epochs, lows, highs, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_xlabel("training epoch")
    ax.set_ylabel(metric_label)
    ax.set_title(title + (f"\n(not yet run: {', '.join(missing)})" if missing else ""), fontsize=10)
    ax.grid(alpha=0.3)
    if len(missing) < len(logs):
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=2 if len(labels) > 2 else len(labels),
                   fontsize=8)
    _save(fig, path)


def plot_type_curves(logs: dict[str, list[Path]], path: str | Path, columns: dict[str, tuple[str, str]],
                     paper: dict[str, dict[str, float]], title: str) -> None:
    """Per-rule-type validation exact match per epoch: one panel per type (``columns``: key -> (log column,
    panel title)), one line per row (the mean over its seeds), the paper's value of the row dashed in its colour."""
    fig, axes = plt.subplots(1, len(columns), figsize=(3.2 * len(columns), 3.4), sharey=True, layout="constrained")
    axes = [axes] if len(columns) == 1 else list(axes)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for index, (label, paths) in enumerate(logs.items()):
        colour = colours[index % len(colours)]
        present = [p for p in paths if p.exists()]
        for ax, (key, (column, _)) in zip(axes, columns.items()):
            if present:
                band = epoch_band([read_log(p) for p in present], column)
                ax.plot(band.epochs, band.means, color=colour, marker="o", markersize=2, linewidth=1.2, label=label)
            if key in paper.get(label, {}):
                ax.axhline(paper[label][key], color=colour, linestyle="--", linewidth=1)
    for ax, (_, (_, name)) in zip(axes, columns.items()):
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("training epoch", fontsize=9)
        ax.set_ylim(-2, 102)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("validation exact match (%)", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=9, loc="outside lower center", ncol=len(labels))  # below: covers no data
    fig.suptitle(title, fontsize=10)
    _save(fig, path)


TRAINING_PANELS = (("valid_sari", "validation SARI"), ("valid_bleu", "validation BLEU"),
                   ("train_accuracy", "training token accuracy (%)"), ("valid_accuracy", "validation token accuracy (%)"),
                   ("train_loss", "training loss (per token)"), ("valid_loss", "validation loss (per token)"))
"""003 Figure 1's six panels, in its order (a)-(f), as train_log.csv columns."""
CRITIC_PANEL = ("train_critic", "critic term (per token)")
"""A seventh panel where the run trains with the critic loss: the column that shows its collapse."""
PERCENT_COLUMNS = ("valid_sari", "valid_bleu", "train_accuracy", "valid_accuracy")


def panel_limits(log_paths: list[Path]) -> dict[str, tuple[float, float]]:
    """One y-range per panel, shared by every run's figure of a table: 0-100 for scores and accuracies, the
    runs' common range for losses and the critic term (no autoscaled noise, and runs compare at a glance)."""
    limits: dict[str, tuple[float, float]] = {c: (0.0, 100.0) for c in PERCENT_COLUMNS}
    for column in ("train_loss", "valid_loss", CRITIC_PANEL[0]):
        values = [r[column] for p in log_paths for r in read_log(p) if r.get(column, float("nan")) == r.get(column)]
        if values:
            low, high = min(min(values), 0.0), max(max(values), 0.0)
            pad = 0.05 * (high - low or 1.0)
            limits[column] = (low - pad, high + pad)
    return limits


def plot_training_panels(log_path: Path, path: str | Path, title: str,
                         limits: dict[str, tuple[float, float]] | None = None) -> None:
    """One run's per-epoch log as 003 Figure 1 lays it out, plus the critic term where the run has one; a panel
    whose column the log lacks says so. ``limits``: the y-range of each panel (:func:`panel_limits`)."""
    rows = read_log(log_path)
    panels = TRAINING_PANELS + ((CRITIC_PANEL,) if any(r.get(CRITIC_PANEL[0], float("nan")) == r.get(
        CRITIC_PANEL[0]) for r in rows) else ())
    columns = 4 if len(panels) > 6 else 3
    fig, axes = plt.subplots(2, columns, figsize=(3.7 * columns, 6), layout="constrained")
    epochs = [r["epoch"] for r in rows]
    for ax, (column, label) in zip(axes.flat, panels):
        values = [r.get(column, float("nan")) for r in rows]
        if all(v != v for v in values):  # NaN everywhere: not logged by this run
            ax.text(0.5, 0.5, f"{column}\nnot in this log", ha="center", va="center", transform=ax.transAxes)
        else:
            ax.plot(epochs, values, marker="o", markersize=3)
            if limits and column in limits:
                ax.set_ylim(*limits[column])
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("training epoch", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    _save(fig, path)


MAX_SOURCE_TOKENS = 30
"""At most this many source rows per heat-map panel: longer sources are cut to a window around the fillers."""
LABEL_PT = 9


def source_window(length: int, spans: dict[str, list[int]] | None, limit: int = MAX_SOURCE_TOKENS) -> range:
    """The source positions a panel shows: all when they fit, else ``limit`` of them, centred on the fillers'
    spans (from the first span's start when the spans alone are longer)."""
    if length <= limit:
        return range(length)
    if not spans:
        return range(limit)
    first, last = min(s for s, _ in spans.values()), max(e for _, e in spans.values())
    start = max(0, min(first - max(0, (limit - (last - first)) // 2), length - limit))
    return range(start, start + limit)


def _copy_panel(subfig: Any, trace: dict[str, Any]) -> Any:
    """One example: copy probability per source token (rows) and decoding step (columns), the generate mode's
    mass in a strip underneath, the fillers' spans bracketed at the left."""
    import numpy as np

    spans = trace.get("spans")
    shown = source_window(len(trace["source"]), spans)
    copy = np.array(trace["copy_probs"]).T[shown.start:shown.stop]  # (shown source tokens, steps)
    generate = np.array(trace["generate_mass"])[None, :]
    top, bottom = subfig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [copy.shape[0], 1.3]})
    image = top.imshow(copy, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    top.set_yticks(range(len(shown)), [trace["source"][i] for i in shown], fontsize=LABEL_PT)
    for variable, (begin, end) in (spans or {}).items():
        begin, end = max(begin, shown.start) - shown.start, min(end, shown.stop) - shown.start
        if begin < end:
            top.annotate("", xy=(-0.012, 1 - begin / len(shown)), xytext=(-0.012, 1 - end / len(shown)),
                         xycoords="axes fraction", arrowprops={"arrowstyle": "-", "color": "tab:red", "lw": 3})
            top.text(1.005, 1 - (begin + end) / 2 / len(shown), f"filler {variable}", color="tab:red",
                     fontsize=LABEL_PT, transform=top.transAxes, va="center")
    cut = "" if len(shown) == len(trace["source"]) else \
        f" (source tokens {shown.start + 1}-{shown.stop} of {len(trace['source'])})"
    top.set_ylabel("source token (copy mode)", fontsize=LABEL_PT)
    verdict = "output = reference" if trace["correct"] else "output ≠ reference"
    top.set_title(f"test line {trace['line']}: {verdict}{cut}", fontsize=LABEL_PT + 1)
    bottom.imshow(generate, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    bottom.set_yticks([0], ["generate"], fontsize=LABEL_PT)
    bottom.set_xticks(range(len(trace["output"])), trace["output"], rotation=90, fontsize=LABEL_PT)
    bottom.set_xlabel("decoded output (beam top-1)" + ("" if trace["correct"] else
                                                       "\nreference: " + _wrapped(trace["reference"], 100)),
                      fontsize=LABEL_PT)
    return image


def _wrapped(tokens: list[str], width: int = 60) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(" ".join(tokens), width))


def copy_heatmap_figure(examples: list[dict[str, Any]], title: str) -> plt.Figure:
    """Copy-mode probability of each source token (rows) at each decoding step (columns), one panel per example,
    stacked so that each is as wide as the page (CopyNet Figure 3).

    Each panel says whether its output equals the reference and, when it does not, prints the reference under
    it; the bottom strip is the generate mode's mass, so a reader sees where the decoder switches modes. Labels
    are 9 pt at the figure's size (8.3 in wide, a page), and a panel shows at most 30 source tokens.
    """
    heights = [0.2 * len(source_window(len(e["source"]), e.get("spans"))) + 2.4 for e in examples]
    fig = plt.figure(figsize=(8.3, sum(heights) + 0.6), layout="constrained")
    panels = fig.subfigures(len(examples), 1, height_ratios=heights, squeeze=False)[:, 0]
    image = None
    for panel, example in zip(panels, examples):
        image = _copy_panel(panel, example)
        panel.colorbar(image, ax=panel.axes, fraction=0.03, label="probability")
    fig.suptitle(_wrapped(title.split(), 95), fontsize=LABEL_PT + 1)
    return fig


def plot_copy_heatmap(examples: list[dict[str, Any]], path: str | Path, title: str) -> None:
    _save(copy_heatmap_figure(examples, title), path)


def plot_odd_generation(counts: dict[str, list[dict[str, int]]], path: str | Path, title: str) -> None:
    """Sentences with repeated tokens / with missing length per system (in the manner of SPM Figure 2): one bar
    per system, the mean over its seed runs with ± sd error bars where it has several; the legend below."""
    import numpy as np

    from paragen.config.seeds import mean_sd

    systems = list(counts)
    kinds = (("sentences_with_repeats", "repeating phrases"), ("sentences_short", "lack of important phrases"))
    x = np.arange(len(kinds))
    width = 0.8 / max(len(systems), 1)
    fig, ax = plt.subplots(figsize=(6.5, 4.4), layout="constrained")
    for i, system in enumerate(systems):
        stats = [mean_sd([float(run[key]) for run in counts[system]]) for key, _ in kinds]
        means = [m for m, _ in stats]
        errors = [sd or 0.0 for _, sd in stats]
        runs = len(counts[system])
        bars = ax.bar(x + (i - (len(systems) - 1) / 2) * width, means, width, yerr=errors if runs > 1 else None,
                      capsize=3, label=system + (f" (mean ± sd of {runs} seeds)" if runs > 1 else ""))
        ax.bar_label(bars, fmt="%.1f" if runs > 1 else "%d", fontsize=7, padding=2)
    ax.set_xticks(x, [label for _, label in kinds])
    ax.set_ylabel("number of sentences")
    ax.set_title(title, fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize=8)
    _save(fig, path)


def _alignment_panel(ax: Any, matrix: list[list[float]], example: dict[str, Any], aligned: list[str],
                     title: str) -> Any:
    """One heat map: rows are target tokens labelled ``token [aligned source token]``, columns source tokens;
    gold links (when known) are ringed."""
    image = ax.imshow(matrix, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(example["source"])), example["source"], rotation=90, fontsize=7)
    ax.set_yticks(range(len(example["target"])), [f"{t} [{a}]" for t, a in zip(example["target"], aligned)],
                  fontsize=7)
    if example.get("gold"):
        ax.scatter([i for i, _ in example["gold"]], [j for _, j in example["gold"]], s=40, facecolors="none",
                   edgecolors="tab:red", linewidths=1.0, label="gold link")
    ax.set_title(title, fontsize=8)
    ax.set_xlabel("source token", fontsize=8)
    return image


def alignment_heatmap_figure(attention: list[dict[str, Any]], prediction: list[dict[str, Any]],
                             names: tuple[str, str], title: str) -> plt.Figure:
    """004 Figure 4 for each sentence: (a) one model's attention over the source positions, (b) another model's
    source-side prediction q_j of each source token's word, per target token (teacher-forced on the gold target).
    In brackets: the source token attention weights most (a), the vocabulary word q_j ranks first (b)."""
    rows = len(attention)
    widths = [max(len(e["source"]) for e in attention)] * 2
    height = sum(0.28 * len(e["target"]) + 1.6 for e in attention) + 0.8
    fig, axes = plt.subplots(rows, 2, figsize=(2 * (0.3 * widths[0] + 2.2), height), squeeze=False,
                             layout="constrained", gridspec_kw={"height_ratios": [len(e["target"]) + 3 for e in attention]})
    image = None
    for n, (att, spm) in enumerate(zip(attention, prediction)):
        if att["line"] != spm["line"] or att["source"] != spm["source"]:
            raise ValueError(f"heat maps: the two models' matrices are of different sentences (lines {att['line']} "
                             f"and {spm['line']})")
        _alignment_panel(axes[n][0], att["attention"], att, [att["source"][i] for i in att["attention_argmax"]],
                         f"(a) attention of {names[0]}, line {att['line']}")
        image = _alignment_panel(axes[n][1], spm["source_prediction"], spm, spm["spm_words"],
                                 f"(b) source-side prediction q_j of {names[1]}, line {spm['line']}")
    axes[0][0].set_ylabel("target token [aligned source token]", fontsize=8)
    if any(e.get("gold") for e in attention):  # below the panels: a legend inside would hide cells
        handles, labels = axes[0][1].get_legend_handles_labels()
        fig.legend(handles[:1], labels[:1], fontsize=7, loc="outside lower center")
    fig.colorbar(image, ax=axes[:, 1].tolist(), fraction=0.04, label="weight / probability")
    fig.suptitle(_wrapped(title.split(), 110), fontsize=9)
    return fig


def plot_alignment_heatmaps(attention: list[dict[str, Any]], prediction: list[dict[str, Any]],
                            names: tuple[str, str], path: str | Path, title: str) -> None:
    _save(alignment_heatmap_figure(attention, prediction, names, title), path)
