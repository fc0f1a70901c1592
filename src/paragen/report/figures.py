"""Figures: validation curves of several runs, and CopyNet's copy-mode heat map (Gu et al. Figure 3)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: pipelines run without a display
import matplotlib.pyplot as plt  # noqa: E402

from paragen.atomic import atomic_path  # noqa: E402


def read_log(path: Path) -> list[dict[str, float]]:
    with open(path, encoding="utf-8") as handle:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(handle)]


def _save(fig: plt.Figure, path: str | Path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=130, bbox_inches="tight")
    plt.close(fig)


def plot_curves(logs: dict[str, Path], path: str | Path, metric_label: str, title: str) -> None:
    """Validation metric per epoch, one line per run; runs without a log are listed as missing."""
    fig, ax = plt.subplots(figsize=(6, 4))
    missing = []
    for label, log_path in logs.items():
        if not log_path.exists():
            missing.append(label)
            continue
        rows = read_log(log_path)
        ax.plot([r["epoch"] for r in rows], [r["valid_metric"] for r in rows], marker="o", markersize=3,
                label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel(metric_label)
    ax.set_title(title + (f"\n(not yet run: {', '.join(missing)})" if missing else ""), fontsize=10)
    ax.grid(alpha=0.3)
    if len(missing) < len(logs):
        ax.legend()
    _save(fig, path)


def plot_copy_heatmap(trace: dict[str, Any], path: str | Path, title: str) -> None:
    """Copy-mode probability of each source token (rows) at each decoding step (columns).

    The bottom strip shows the probability mass of the generate mode, so a
    reader sees where the decoder switches between the two modes.
    """
    import numpy as np

    copy = np.array(trace["copy_probs"]).T  # (src_len, steps)
    generate = np.array(trace["generate_mass"])[None, :]
    height = 0.22 * copy.shape[0] + 1.5
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(0.3 * copy.shape[1] + 2.5, height), sharex=True,
                                      gridspec_kw={"height_ratios": [copy.shape[0], 1.2]})
    image = top.imshow(copy, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    top.set_yticks(range(len(trace["source"])), trace["source"], fontsize=7)
    top.set_ylabel("source (copy mode)")
    top.set_title(title, fontsize=10)
    bottom.imshow(generate, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    bottom.set_yticks([0], ["generate"], fontsize=7)
    bottom.set_xticks(range(len(trace["output"])), trace["output"], rotation=90, fontsize=7)
    bottom.set_xlabel("decoded output")
    fig.colorbar(image, ax=[top, bottom], fraction=0.03, label="probability")
    _save(fig, path)


def plot_odd_generation(counts: dict[str, dict[str, int]], path: str | Path, title: str) -> None:
    """Sentences with repeated tokens / with missing length, per system (in the manner of SPM Figure 2)."""
    import numpy as np

    systems = list(counts)
    kinds = (("sentences_with_repeats", "repeating phrases"), ("sentences_short", "lack of important phrases"))
    x = np.arange(len(kinds))
    width = 0.8 / max(len(systems), 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, system in enumerate(systems):
        values = [counts[system][key] for key, _ in kinds]
        bars = ax.bar(x + (i - (len(systems) - 1) / 2) * width, values, width, label=system)
        ax.bar_label(bars, fontsize=8)
    ax.set_xticks(x, [label for _, label in kinds])
    ax.set_ylabel("number of sentences")
    ax.set_title(title, fontsize=10)
    ax.legend()
    _save(fig, path)
