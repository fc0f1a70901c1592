"""One panel of 004 Figure 4 (paragen.report.figure_heatmaps._alignment_panel) read from its drawn artists: the
matrix on a fixed grey 0-1 scale, no grid over it, source tokens as vertical column labels, target rows labelled
``token [aligned source token]``, gold links ringed in red (unfilled circles of area 40, line width 1) and named
in the legend, and the axis captions. A default that would differ is noted beside its check (matplotlib's scatter
area is lines.markersize² = 36; its ring width, patch.linewidth, is 1.0 like the one asked for, so that check
guards the value, not the argument)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib import colors

from paragen import figure_style as style
from paragen.report.figure_heatmaps import _alignment_panel

EXAMPLE = {"line": 4, "source": ["a", "b", "c"], "target": ["x", "y"], "gold": [[0, 1], [2, 0]]}
MATRIX = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]  # (target, source), largest 0.6 < 1: an autoscale would differ

pytestmark = pytest.mark.usefixtures("close_figures")


def _panel(example):
    fig = style.figure(3.0)
    ax = fig.subplots()
    image = _alignment_panel(ax, MATRIX, example, ["c", "a"], "test line 4")
    return ax, image


def test_the_matrix_on_a_fixed_grey_scale_without_grid():
    ax, image = _panel(EXAMPLE)
    assert image is ax.images[0]
    assert np.allclose(image.get_array(), np.array(MATRIX))
    assert image.get_clim() == (0.0, 1.0) and image.get_cmap().name == "Greys" and ax.get_aspect() == "auto"
    assert not any(line.get_visible() for line in ax.xaxis.get_gridlines() + ax.yaxis.get_gridlines())


def test_labels_titles_and_captions():
    ax, _ = _panel(EXAMPLE)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert [t.get_rotation() for t in ax.get_xticklabels()] == [90, 90, 90]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x [c]", "y [a]"]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("test line 4", "source token",
                                                                 "target token [aligned]")


def test_gold_links_are_red_rings_in_the_legend():
    ax, _ = _panel(EXAMPLE)
    rings = ax.collections[0]
    assert rings.get_offsets().tolist() == [[0, 1], [2, 0]]
    assert rings.get_sizes().tolist() == [40]  # default 36
    assert len(rings.get_facecolor()) == 0  # unfilled
    assert [tuple(c) for c in rings.get_edgecolor()] == [colors.to_rgba("tab:red")]
    assert rings.get_linewidths().tolist() == [1.0]
    assert ax.get_legend_handles_labels()[1] == ["gold link"]


def test_no_gold_no_rings():
    ax, _ = _panel({**EXAMPLE, "gold": []})
    assert list(ax.collections) == [] and ax.get_legend_handles_labels()[1] == []
