"""Every figure ``paragen report`` draws, written atomically as PNG at page width: each ``plot_*`` saves the
figure its ``*_figure`` builder returns (tests inspect the builders). Style rules: :mod:`paragen.figure_style`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paragen.figure_style import save
from paragen.report.figure_bars import odd_generation_figure
from paragen.report.figure_curves import curves_figure, loss_figure, training_panels_figure, type_curves_figure
from paragen.report.figure_heatmaps import (alignment_figure, check_same_sentences, copy_heatmap_figure,
                                            trace_heatmap_figure)


def plot_curves(logs: dict[str, list[Path]], path: str | Path, metric_label: str, title: str, column: str,
                styles: dict[str, int] | None = None) -> None:
    save(curves_figure(logs, metric_label, title, column, styles), path)


def plot_loss_curves(logs: dict[str, list[Path]], path: str | Path, title: str,
                     styles: dict[str, int] | None = None) -> None:
    save(loss_figure(logs, title, styles), path)


def plot_type_curves(logs: dict[str, list[Path]], path: str | Path, columns: dict[str, tuple[str, str]],
                     paper: dict[str, dict[str, float]], title: str, styles: dict[str, int] | None = None) -> None:
    save(type_curves_figure(logs, columns, paper, title, styles), path)


def plot_training_panels(log_path: Path, path: str | Path, title: str, label: str = "the run") -> None:
    save(training_panels_figure(log_path, title, label), path)


def plot_copy_heatmap(examples: list[dict[str, Any]], path: str | Path, title: str) -> None:
    save(copy_heatmap_figure(examples, title), path)


def plot_attention_heatmap(examples: list[dict[str, Any]], path: str | Path, title: str) -> None:
    save(trace_heatmap_figure(examples, title, "attention"), path)


def plot_alignment_heatmaps(attention: list[dict[str, Any]], prediction: list[dict[str, Any]],
                            rows: tuple[str, str], seeds: tuple[int, int], paths: tuple[str, str]) -> None:
    """004 Figure 4 as two figures: ``rows[0]``'s attention, ``rows[1]``'s source-side prediction, same lines."""
    check_same_sentences(attention, prediction)
    save(alignment_figure(attention, "attention", rows[0], seeds[0]), paths[0])
    save(alignment_figure(prediction, "prediction", rows[1], seeds[1]), paths[1])


def plot_odd_generation(counts: dict[str, list[dict[str, int]]], path: str | Path, title: str,
                        blocks: tuple[str, str] | None = None,
                        confirmation: dict[str, list[dict[str, int]]] | None = None) -> None:
    save(odd_generation_figure(counts, title, blocks, confirmation), path)
