"""Per-epoch figures from the runs' train_log.csv: validation curves, loss curves, per-rule-type curves (rule
data) and one run's training panels (003 Figure 1's layout). Style: :mod:`paragen.figure_style`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from paragen import figure_style as style
from paragen.training.train_log import read_log


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


@dataclass(frozen=True)
class RowCurve:
    """One row of a figure: each seed's values per epoch, and the mean over the epochs every seed reached."""

    row: str  # the table's row
    label: str  # its legend entry
    seeds: list[tuple[list[float], list[float]]]  # (epochs, values) per seed run
    mean: tuple[list[float], list[float]]

    @property
    def values(self) -> list[float]:
        return [v for _, ys in self.seeds for v in ys]


def row_curves(logs: dict[str, list[Path]], column: str) -> tuple[list[RowCurve], list[str]]:
    """The rows whose every seed log exists, and the labels of those not yet run."""
    curves, missing = [], []
    for label, paths in logs.items():
        if not paths or not all(p.exists() for p in paths):
            missing.append(label)
            continue
        read = [read_log(p) for p in paths]
        seeds = [([r["epoch"] for r in rows], [r.get(column, float("nan")) for r in rows]) for rows in read]
        band = epoch_band(read, column)
        full = [i for i, runs in enumerate(band.runs) if runs == len(paths)]  # a mean over fewer seeds is not drawn
        name = label if len(paths) == 1 else f"{label} ({len(paths)} seeds)"
        curves.append(RowCurve(label, name, seeds, ([band.epochs[i] for i in full], [band.means[i] for i in full])))
    return curves, missing


def draw_rows(ax: Any, curves: list[RowCurve], marks: dict[int, float] | None = None, first: int = 0,
              styles: dict[str, int] | None = None, log: bool = False) -> None:
    """Every row on one panel, y scaled to the data (a diverged row clipped with a marker), whole-epoch ticks;
    ``marks``: a wide pale reference level per row index, in the row's colour; ``styles``: row -> style index (one
    colour and marker per model in every panel, :func:`paragen.report.build.model_styles`), else ``first`` plus
    the row's place; ``log``: a logarithmic y axis (losses, which crowd near 0 on a linear one)."""
    marks = marks or {}
    low, high = style.panel_limits([c.values for c in curves], list(marks.values()), log=log)
    clipped = {i for i in style.off_scale([c.values for c in curves]) if max(curves[i].values) > high}  # not one
    # that a paper's level lifted the top above
    for index, curve in enumerate(curves):
        look = (styles or {}).get(curve.row, first + index)
        if index in clipped:
            if len(curve.seeds) > 1:  # each seed clipped too, so a diverged seed shows
                for x, y in curve.seeds:
                    style.plot_clipped(ax, x, y, high, None, color=style.colour(look), linewidth=0.8, alpha=0.45)
            style.plot_clipped(ax, *curve.mean, high, curve.label, linewidth=2.0, **style.row_style(look))
        elif len(curve.seeds) > 1:
            style.seed_lines(ax, [x for x, _ in curve.seeds], [y for _, y in curve.seeds], *curve.mean, curve.label,
                             look)
        else:
            ax.plot(*curve.mean, markersize=4, label=curve.label, **style.row_style(look))
        if index in marks:  # a wide pale level, unlike any row's line
            ax.axhline(marks[index], color=style.colour(look), linestyle="-", linewidth=4, alpha=0.25)
    if log:
        ax.set_yscale("log")
    ax.set_ylim(low, high)
    style.integer_epochs(ax)


def _not_run(missing: list[str]) -> str:
    """Rows without a log, counted in the title (the table names them)."""
    return f" ({len(missing)} row{'s' if len(missing) > 1 else ''} not yet run)" if missing else ""


SMALL_MULTIPLES = 2
"""More rows than this, any with several seeds: one panel per row (each seed thin, the mean bold) instead of one
crowded panel."""


def small_multiples(curves: list[RowCurve], metric_label: str, dashed: list[RowCurve] | None = None,
                    styles: dict[str, int] | None = None, log: bool = False) -> tuple[Any, list]:
    """One panel per row, each on its own y-range, one epoch axis for all, and one legend under them: an entry
    per model (a model's confirmation-seed row shares its design row's colour and marker, ``styles``);
    ``dashed``: a second curve per row drawn dashed in the same panel (validation beside training loss)."""
    fig, axes = style.panel_grid(len(curves), panel_height=2.0, extra=0.9)
    last = max(x for c in curves + (dashed or []) for xs, _ in c.seeds for x in xs)
    looks = {c.row: (styles or {}).get(c.row, index) for index, c in enumerate(curves)}
    named: set[int] = set()
    for index, (ax, curve) in enumerate(zip(axes, curves)):
        look = looks[curve.row]
        shown = replace(curve, label=curve.row if look not in named else f"_{curve.row}")  # one entry per model
        named.add(look)
        draw_rows(ax, [shown], styles=looks, log=log)
        if dashed:
            other = dashed[index]
            ax.plot(*other.mean, color=style.colour(look), linestyle="--", linewidth=1.5,
                    label="dashed: validation; solid: training" if index == 0 else None)
            ax.set_ylim(*style.panel_limits([curve.values, other.values], log=log))
        ax.set_xlim(0.5, last + 0.5)
        ax.set_title(style.panel_title(curve.row if "seed" in curve.row else curve.label))
    for ax in axes[::style.max_columns()]:
        ax.set_ylabel(metric_label)
    style.legend_below(fig, axes)
    return fig, axes


def curves_figure(logs: dict[str, list[Path]], metric_label: str, title: str,
                  column: str = "valid_metric", styles: dict[str, int] | None = None) -> Any:
    """A validation metric (``column`` of train_log.csv) per epoch, one line per row; a row with several seeds
    draws each seed thin and their mean bold, and with more than two such rows each row gets its own panel
    (:func:`small_multiples`). Rows without a log are counted in the title."""
    curves, missing = row_curves(logs, column)
    if len(curves) > SMALL_MULTIPLES and any(len(c.seeds) > 1 for c in curves):
        fig, axes = small_multiples(curves, metric_label, styles=styles)
    else:
        fig, axes = style.panel_grid(1, panel_height=3.4, extra=0.8)
        draw_rows(axes[0], curves, styles=styles)
        axes[0].set_ylabel(metric_label)
        style.legend_below(fig, axes)
    fig.suptitle(style.one_line(title + _not_run(missing)))
    return fig


def loss_figure(logs: dict[str, list[Path]], title: str, styles: dict[str, int] | None = None) -> Any:
    """Training and validation loss per token per epoch on a logarithmic axis (losses falling towards 0 stay
    apart), one panel each, one line per row (several seeds: thin lines and a bold mean); with more than two rows
    of several seeds, one panel per row instead: training loss solid (each seed thin, the mean bold), validation
    loss's mean dashed."""
    train, missing = row_curves(logs, "train_loss")
    if len(train) > SMALL_MULTIPLES and any(len(c.seeds) > 1 for c in train):
        fig, _ = small_multiples(train, "loss per token", row_curves(logs, "valid_loss")[0], styles, log=True)
        fig.suptitle(style.one_line(title + _not_run(missing)))
        return fig
    fig, axes = style.panel_grid(2, panel_height=2.8, extra=0.9)
    for ax, (column, label) in zip(axes, (("train_loss", "training loss (per token)"),
                                          ("valid_loss", "validation loss (per token)"))):
        curves, missing = row_curves(logs, column)
        draw_rows(ax, curves, styles=styles, log=True)
        ax.set_title(label)
    fig.suptitle(style.one_line(title + _not_run(missing)))
    style.legend_below(fig, axes, columns=2)
    return fig


def type_curves_figure(logs: dict[str, list[Path]], columns: dict[str, tuple[str, str]],
                       paper: dict[str, dict[str, float]], title: str, styles: dict[str, int] | None = None) -> Any:
    """Per-rule-type validation exact match per epoch: one panel per type (``columns``: key -> (log column, panel
    title)) in a two-column grid, one line per row (each seed thin and the mean bold where it has several), the
    paper's value of the row a wide pale level in its colour. Each panel its own y-range."""
    fig, axes = style.panel_grid(len(columns), panel_height=2.2, extra=1.0)
    labels = list(logs)
    marked = False
    for ax, (key, (column, name)) in zip(axes, columns.items()):
        curves, _ = row_curves(logs, column)
        drawn = {c.row: i for i, c in enumerate(curves)}
        marks = {drawn[r]: paper[r][key] for r in labels if r in drawn and key in paper.get(r, {})}
        draw_rows(ax, curves, marks, styles=styles)
        marked = marked or bool(marks)
        ax.set_title(name)
    for ax in axes[::style.max_columns()]:
        ax.set_ylabel("exact match (%)")
    if marked:  # a legend entry for the levels, in neutral grey
        axes[0].plot([], [], color="grey", linewidth=4, alpha=0.25, label="the paper's test accuracy of the row")
    fig.suptitle(style.one_line(title))
    style.legend_below(fig, axes, columns=2)
    return fig


TRAINING_PANELS = (("valid_sari", "validation SARI"), ("valid_bleu", "validation BLEU"),
                   ("train_accuracy", "training token accuracy (%)"), ("valid_accuracy", "validation token accuracy (%)"),
                   ("train_loss", "training loss (per token)"), ("valid_loss", "validation loss (per token)"))
"""003 Figure 1's six panels, in its order (a)-(f), as train_log.csv columns."""
CRITIC_PANEL = ("train_critic", "critic term (per token)")
"""A seventh panel where the run trains with the critic loss: the column that shows its collapse."""
MIN_SPAN = {"valid_sari": 2.0, "valid_bleu": 2.0, "train_accuracy": 2.0, "valid_accuracy": 2.0}
"""The narrowest y-range of a score panel, in points: a flat score is drawn flat."""


def training_panels_figure(log_path: Path, title: str, label: str = "the run") -> Any:
    """One run's per-epoch log as 003 Figure 1 lays it out (two panels a row), plus the critic term where the run
    has one; each panel scaled to its own values (losses on a logarithmic axis); a panel whose column the log
    lacks says so. The legend under the panels names the run (``label``)."""
    rows = read_log(log_path)
    panels = TRAINING_PANELS + ((CRITIC_PANEL,) if any(r.get(CRITIC_PANEL[0], float("nan")) == r.get(
        CRITIC_PANEL[0]) for r in rows) else ())
    fig, axes = style.panel_grid(len(panels), panel_height=2.0, extra=0.8)
    epochs = [r["epoch"] for r in rows]
    for ax, (column, name) in zip(axes, panels):
        values = [r.get(column, float("nan")) for r in rows]
        logged = [v for v in values if v == v]
        loss = column.endswith("_loss") and bool(logged) and min(logged) > 0
        if all(v != v for v in values):  # NaN everywhere: not logged by this run
            ax.text(0.5, 0.5, f"{column}\nnot in this log", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
        else:
            ax.plot(epochs, values, markersize=4, label=label, **style.row_style(0))
            if loss:
                ax.set_yscale("log")
            ax.set_ylim(*style.panel_limits([values], min_span=MIN_SPAN.get(column, 0.0), log=loss))
            style.integer_epochs(ax)
        ax.set_title(name)
    fig.suptitle(style.one_line(title))
    style.legend_below(fig, axes)
    return fig
