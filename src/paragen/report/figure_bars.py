"""Bar charts: 004 Figure 2's odd-generation counts per system. Style: :mod:`paragen.figure_style`."""

from __future__ import annotations

from typing import Any

from paragen import figure_style as style

ODD_KINDS = (("sentences_with_repeats", "repeating phrases"), ("sentences_short", "lack of important phrases"))
"""The two counts of ``paragen oddgen`` and their names in 004 Figure 2."""


def odd_generation_figure(counts: dict[str, list[dict[str, int]]], title: str) -> Any:
    """Sentences with repeated tokens / with missing length per system (in the manner of SPM Figure 2): one bar
    per system, the mean over its seed runs with ± sd error bars where it has several, and each seed's count
    as a dot on its bar (a seed unlike the others shows); the legend below."""
    import numpy as np

    from paragen.config.seeds import mean_sd

    systems = list(counts)
    x = np.arange(len(ODD_KINDS))
    width = 0.8 / max(len(systems), 1)
    fig, (ax,) = style.panel_grid(1, panel_height=3.6, extra=0.9)
    highest = 0.0
    for i, system in enumerate(systems):
        stats = [mean_sd([float(run[key]) for run in counts[system]]) for key, _ in ODD_KINDS]
        runs = len(counts[system])
        centre = x + (i - (len(systems) - 1) / 2) * width
        ax.bar(centre, [m for m, _ in stats], width, yerr=[sd or 0.0 for _, sd in stats] if runs > 1 else None,
                      capsize=3, color=style.colour(i), label=system + (f" (mean ± sd of {runs} seeds)" if runs > 1 else ""))
        for k, (key, _) in enumerate(ODD_KINDS):
            seeds = [run[key] for run in counts[system]]
            if runs > 1:
                ax.plot([centre[k]] * runs, seeds, linestyle="none", marker="o", markersize=3, color="black",
                        alpha=0.6)
            top = max([stats[k][0] + (stats[k][1] or 0.0), *seeds])  # above the error bar and every seed's dot
            highest = max(highest, top)
            ax.annotate(f"{stats[k][0]:.1f}" if runs > 1 else f"{stats[k][0]:.0f}", (centre[k], top),
                        xytext=(0, 3), textcoords="offset points", ha="center", va="bottom")
    ax.set_ylim(0, highest * 1.12 or 1.0)  # room for the labels above the highest bar
    ax.set_xticks(x, [label for _, label in ODD_KINDS])
    ax.set_ylabel("number of sentences")
    ax.grid(axis="x", visible=False)
    fig.suptitle(style.one_line(title))
    style.legend_below(fig, [ax])
    return fig
