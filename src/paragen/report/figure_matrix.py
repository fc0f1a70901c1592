"""The matrix's heat map: each mechanism's rank within each task (X10), its mean score written in the cell.
Style: :mod:`paragen.figure_style`."""

from __future__ import annotations

import textwrap

from paragen import figure_style as style
from paragen.report.matrix import TaskResult, by_cell
from paragen.rounding import shown


def rank_heatmap(results: list[TaskResult], mechanisms: list[str], title: str, path: str) -> None:
    """Rows: mechanisms; columns: tasks. Colour: rank (1 darkest); grey cells did not apply or did not run, or are in
    a void column (not ranked); a cell shows "rank · score" and, where the paired test gave a verdict, its first
    letter (b/w; v for a void column, which shows the score alone)."""
    import numpy as np
    from matplotlib.colors import ListedColormap

    cells = by_cell(results)
    ranks = np.full((len(mechanisms), len(results)), np.nan)
    for j, task in enumerate(results):
        for i, mechanism in enumerate(mechanisms):
            rank = cells[(task.name, mechanism)].rank
            if rank is not None:
                ranks[i, j] = rank
    fig = style.figure(0.42 * len(mechanisms) + 1.4)
    ax = fig.add_subplot()
    top = max(2.0, float(np.nanmax(ranks)) if not np.all(np.isnan(ranks)) else 2.0)
    cmap = ListedColormap(style.plt.get_cmap("viridis_r")(np.linspace(0.15, 0.95, 256))).with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(ranks), cmap=cmap, vmin=1, vmax=top, aspect="auto")
    for j, task in enumerate(results):
        for i, mechanism in enumerate(mechanisms):
            cell = cells[(task.name, mechanism)]
            if cell.mean is None:
                text = "n/a" if cell.status == "does not apply" else "not run"
            else:
                mark = {"better": " b", "worse": " w"}.get(cell.verdict, "")
                rank = "" if cell.rank is None else f"{cell.rank:g} · "  # a void column is not ranked
                text = f"{rank}{shown(cell.mean, 1)}" + (" v" if task.void and cell.tests else mark)
            dark = cell.rank is not None and cell.rank > (1 + top) / 2  # viridis_r: high ranks are dark
            ax.text(j, i, text, ha="center", va="center", color="white" if dark else "black")
    width = max(12, int(60 / max(len(results), 1)))  # characters a column label may take on one line
    ax.set_xticks(range(len(results)), ["\n".join(textwrap.wrap(t.label, width)) for t in results])
    ax.set_yticks(range(len(mechanisms)), mechanisms)
    ax.tick_params(length=0)
    ax.grid(False)
    fig.colorbar(image, ax=ax, label="rank within the task (1 = best)", shrink=0.8)
    fig.suptitle(style.one_line(title if len(title) <= style.TITLE_CHARACTERS else "Mechanism x task matrix: ranks"))
    style.save(fig, path)
