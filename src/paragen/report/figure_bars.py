"""Bar charts: 004 Figure 2's odd-generation counts per system. Style: :mod:`paragen.figure_style`."""

from __future__ import annotations

from typing import Any

from paragen import figure_style as style

ODD_KINDS = (("sentences_with_repeats", "repeating phrases"), ("sentences_short", "lack of important\nphrases"))
"""The two counts of ``paragen oddgen`` and their names in 004 Figure 2."""


def odd_generation_figure(counts: dict[str, list[dict[str, int]]], title: str,
                          blocks: tuple[str, str] | None = None,
                          confirmation: dict[str, list[dict[str, int]]] | None = None) -> Any:
    """Sentences with repeated tokens / with missing length per system (in the manner of SPM Figure 2): one bar
    per system, the mean over its seed runs with ± sd error bars where it has several, and each seed's count
    as a dot on its bar (a seed unlike the others shows); the legend below. ``confirmation``: the same systems'
    confirmation-seed runs, drawn in a second panel beside the design seeds' (``blocks``: the two panels'
    titles) on the same y-range, each system in the same colour in both."""
    panels = [(blocks[0] if blocks else "", counts)] + ([(blocks[1] if blocks else "", confirmation)]
                                                         if confirmation else [])
    fig, axes = style.panel_grid(len(panels), panel_height=3.6, extra=0.9, sharey=True)
    colours = {system: i for i, system in enumerate(dict.fromkeys([*counts, *(confirmation or {})]))}
    upright = len(colours) > 2  # more than two bars a group: their labels upright, so neighbours do not overlap
    highest = max(_bars(ax, block, colours, upright) for ax, (_, block) in zip(axes, panels))
    for ax, (name, _) in zip(axes, panels):
        ax.set_ylim(0, highest * (1.25 if upright else 1.12) or 1.0)  # room for the labels above the highest bar
        if name:
            ax.set_title(style.panel_title(name))
    axes[0].set_ylabel("number of sentences")
    fig.suptitle(style.one_line(title))
    style.legend_below(fig, axes)
    return fig


def _bars(ax: Any, counts: dict[str, list[dict[str, int]]], colours: dict[str, int], upright: bool = False) -> float:
    """One panel's bars, seed dots and labels; returns the height its labels sit on."""
    import numpy as np

    from paragen.config.seeds import mean_sd

    systems = list(counts)
    x = np.arange(len(ODD_KINDS))
    width = 0.8 / max(len(systems), 1)
    highest = 0.0
    for i, system in enumerate(systems):
        stats = [mean_sd([float(run[key]) for run in counts[system]]) for key, _ in ODD_KINDS]
        runs = len(counts[system])
        centre = x + (i - (len(systems) - 1) / 2) * width
        ax.bar(centre, [m for m, _ in stats], width, yerr=[sd or 0.0 for _, sd in stats] if runs > 1 else None,
               capsize=3, color=style.colour(colours[system]),
               label=system + (f" (mean ± sd of {runs} seeds)" if runs > 1 else ""))
        for k, (key, _) in enumerate(ODD_KINDS):
            seeds = [run[key] for run in counts[system]]
            if runs > 1:
                ax.plot([centre[k]] * runs, seeds, linestyle="none", marker="o", markersize=3, color="black",
                        alpha=0.6)
            top = max([stats[k][0] + (stats[k][1] or 0.0), *seeds])  # above the error bar and every seed's dot
            highest = max(highest, top)
            ax.annotate(f"{stats[k][0]:.1f}" if runs > 1 else f"{stats[k][0]:.0f}", (centre[k], top),
                        xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                        rotation=90 if upright else 0)
    ax.set_xticks(x, [label for _, label in ODD_KINDS])
    ax.grid(axis="x", visible=False)
    return highest
