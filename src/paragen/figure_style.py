"""One figure style for every figure paragen draws, so that each reads at a printed page's width.

The rules (checked on small synthetic logs by tests/test_figure_style.py):

* every figure is :data:`PAGE_WIDTH_IN` wide and saved at that size (no tight cropping that would rescale it), so
  a font of :data:`MIN_FONT_PT` in the file is that size on a 6.5-inch text column;
* multi-panel figures use a grid of at most :func:`max_columns` columns, keeping each panel at least
  :data:`MIN_PANEL_IN` wide;
* epoch axes tick at whole epochs only (:func:`integer_epochs`);
* each panel's y-range is its own data's (:func:`panel_limits`), and a run that diverges far above the others
  is clipped at the top, each clipped point marked with a triangle and the peak written beside them, never
  squashing the other lines;
* several seeds of one row: each seed thin, the mean bold (:func:`seed_lines`), so one collapsed seed shows;
* titles are one line (:func:`one_line`); the detail goes to the caption of the report (REPORT.md and
  ``snakemake --report``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")  # files only: pipelines run without a display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from paragen.atomic import atomic_path  # noqa: E402

PAGE_WIDTH_IN = 6.5
"""A printed text column (US letter with 1-inch margins): the width every figure is drawn at."""
MIN_FONT_PT = 9
MIN_PANEL_IN = 2.5
DPI = 200
"""6.5 in x 200 dpi = 1,300 pixels: sharp on screen and in print, small in git."""
LEGEND_COLUMN_CHARACTERS = 38
"""A legend label longer than this takes the whole width: two such columns would run off the page."""
TITLE_CHARACTERS = 90
"""About what one line of a 10-point title holds across 6.5 inches."""
OFF_SCALE_FACTOR = 3.0
"""A line is off scale when its peak exceeds this many times the highest peak of every other line of its panel."""

RC = {"font.size": MIN_FONT_PT, "axes.titlesize": MIN_FONT_PT + 1, "axes.labelsize": MIN_FONT_PT,
      "xtick.labelsize": MIN_FONT_PT, "ytick.labelsize": MIN_FONT_PT, "legend.fontsize": MIN_FONT_PT,
      "figure.titlesize": MIN_FONT_PT + 1, "axes.grid": True, "grid.alpha": 0.3, "legend.frameon": False}
MARKERS = ("o", "s", "D", "v", "P", "X", "*", "h")
CLIP_MARKER = "^"
"""Marks a point drawn at the top edge because its value lies above the panel; no row uses it."""
LINESTYLES = ("-", "--", "-.", ":")
"""Rows differ in marker and dash as well as colour, so that lines lying on one another stay distinguishable."""


def colour(index: int) -> str:
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return colours[index % len(colours)]


def row_style(index: int) -> dict[str, Any]:
    """Colour, marker and dash of the ``index``-th row of a figure."""
    return {"color": colour(index), "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def max_columns() -> int:
    """How many panels fit side by side at page width: 2 (6.5 / 2.5)."""
    return int(PAGE_WIDTH_IN // MIN_PANEL_IN)


def one_line(title: str) -> str:
    """``title`` if it is one line that fits the page width; a clear error otherwise (the detail belongs in the
    caption)."""
    if "\n" in title or len(title) > TITLE_CHARACTERS:
        raise ValueError(f"figure title {title!r}: a title is one line of at most {TITLE_CHARACTERS} characters; "
                         "put the detail in the report caption")
    return title


PANEL_TITLE_CHARACTERS = 34
"""About what one line of a 10-point panel title holds across a half-page panel."""


def panel_title(text: str) -> str:
    """A panel's title, wrapped onto a second line where it would overrun its half-page panel."""
    import textwrap

    return "\n".join(textwrap.wrap(text, PANEL_TITLE_CHARACTERS))


def figure(height: float) -> plt.Figure:
    """An empty page-wide figure ``height`` inches tall, in the project's style."""
    plt.rcParams.update(RC)
    return plt.figure(figsize=(PAGE_WIDTH_IN, height), layout="constrained")


def panel_grid(panels: int, panel_height: float = 2.3, extra: float = 0.9,
               sharey: bool = False) -> tuple[plt.Figure, list[Any]]:
    """A figure with ``panels`` axes in rows of at most :func:`max_columns`; unused cells are hidden.
    ``extra``: inches for the title and a legend below the grid."""
    columns = min(panels, max_columns())
    rows = math.ceil(panels / columns)
    fig = figure(rows * panel_height + extra)
    axes = fig.subplots(rows, columns, squeeze=False, sharey=sharey).flatten().tolist()
    for ax in axes[panels:]:
        ax.set_visible(False)
    return fig, axes[:panels]


def integer_epochs(ax: Any, label: str = "training epoch") -> None:
    """Whole-epoch ticks on the x axis."""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(label)


def _finite(values: Sequence[float]) -> list[float]:
    return [v for v in values if v == v and not math.isinf(v)]


def off_scale(series: Sequence[Sequence[float]]) -> set[int]:
    """The lines of a panel (indices into ``series``) whose peak is more than :data:`OFF_SCALE_FACTOR` times the
    highest peak of all the other lines: one diverged run among well-behaved ones. Needs three lines or more
    (with two, which one is 'the others' is a guess)."""
    peaks = [max(_finite(s), default=float("nan")) for s in series]
    if sum(p == p for p in peaks) < 3:
        return set()
    found = set()
    for i, peak in enumerate(peaks):
        others = _finite([p for j, p in enumerate(peaks) if j != i])
        if peak == peak and others and max(others) > 0 and peak > OFF_SCALE_FACTOR * max(others):
            found.add(i)
    return found


def panel_limits(series: Sequence[Sequence[float]], marks: Sequence[float] = (),
                 min_span: float = 0.0, log: bool = False) -> tuple[float, float]:
    """The y-range of one panel: every line's values and the reference ``marks`` (a paper's number, say), with 5 %
    padding, leaving out the lines :func:`off_scale` finds. ``min_span``: the narrowest range shown (a score that
    moves by 0.004 is drawn flat, not magnified into a zigzag); it starts at 0 for data that never go below.
    ``log``: a logarithmic axis (positive values only, padded by 5 % of the decades shown)."""
    skip = off_scale(series)
    if log:
        positive = [v for v in _finite([v for i, s in enumerate(series) if i not in skip for v in s] + list(marks))
                    if v > 0]
        if not positive:
            return 0.1, 1.0
        low, high = min(positive), max(positive)
        pad = (high / low) ** 0.05 if high > low else 1.1
        return low / pad, high * pad
    values = _finite([v for i, s in enumerate(series) if i not in skip for v in s] + list(marks))
    if not values:
        return 0.0, 1.0
    low, high = min(values), max(values)
    if high - low < min_span:
        centre = (low + high) / 2
        floor = 0.0 if low >= 0 else -math.inf
        low = max(centre - min_span / 2, floor)
        high = low + min_span
    pad = 0.05 * (high - low) if high > low else max(abs(high) * 0.05, 0.5)
    return low - pad, high + pad


OFF_SCALE_LABEL = "▲ above the panel's top (peak written beside)"
"""The legend entry, in neutral grey, of a figure where some line leaves its panel."""


def plot_clipped(ax: Any, x: Sequence[float], y: Sequence[float], top: float, label: str | None,
                 **style: Any) -> bool:
    """A line that may run off the top of its panel: drawn up to ``top``, each clipped point marked with a
    triangle at the edge and its peak written beside the first one; the figure's legend then has one neutral
    entry saying what the triangle means (:data:`OFF_SCALE_LABEL`), the line keeps its plain label. A line with
    no point above ``top`` (a paper's level can lift a panel's top above it) is drawn whole, with no triangle
    and no entry. Returns whether any point was clipped."""
    peak = max(_finite(y))
    over = [(a, top) for a, v in zip(x, y) if v > top]
    ax.plot(x, [min(v, top) for v in y], label=label, **style)
    if over:
        ax.plot([a for a, _ in over], [b for _, b in over], linestyle="none", marker=CLIP_MARKER, markersize=7,
                color=style.get("color"), clip_on=False)
        if OFF_SCALE_LABEL not in [line.get_label() for line in ax.get_lines()]:  # one entry per panel
            ax.plot([], [], linestyle="none", marker=CLIP_MARKER, markersize=7, color="grey", label=OFF_SCALE_LABEL)
        if label is not None:  # once per row (its seeds' thin lines are clipped silently beside it)
            ax.annotate(f"peak {peak:.3g}", (over[0][0], top), xytext=(4, -4), textcoords="offset points",
                        ha="left", va="top", color=style.get("color"))
    return bool(over)


def seed_lines(ax: Any, x_per_seed: Sequence[Sequence[float]], y_per_seed: Sequence[Sequence[float]],
               mean_x: Sequence[float], mean_y: Sequence[float], label: str, index: int) -> None:
    """Several seeds of one row: each seed's line thin and pale, the mean over seeds bold, one colour."""
    style = row_style(index)
    for x, y in zip(x_per_seed, y_per_seed):
        ax.plot(x, y, color=style["color"], linewidth=0.8, alpha=0.45, linestyle="-")
    ax.plot(mean_x, mean_y, linewidth=2.2, markersize=4, label=label, **style)


def legend_below(fig: plt.Figure, axes: Sequence[Any], columns: int = 2) -> None:
    """One legend for the figure, under the panels (where it covers no data); nothing when no line is labelled."""
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if labels:
        wide = max(len(label) for label in labels) > LEGEND_COLUMN_CHARACTERS
        fig.legend(handles, labels, loc="outside lower center", ncol=1 if wide else min(columns, len(labels)))


def save(fig: plt.Figure, path: str | Path) -> None:
    """Write ``fig`` as PNG atomically at its own size (no cropping: the page width stays the page width)."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=DPI)
    plt.close(fig)
