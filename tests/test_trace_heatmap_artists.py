"""The copy-mode / attention heat maps (paragen.report.figure_heatmaps.trace_heatmap_figure) read from the drawn
artists on a long example: the window of 30 source rows around the fillers, the first 32 steps, the values shown,
row and column labels, the red brackets beside each filler, the title's cuts, the generate strip and the captions
of axes and colour bars. Expected values worked out by hand in the comments."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib import colors

from paragen import figure_style as style
from paragen.report.figure_heatmaps import trace_heatmap_figure

SOURCE = [f"s{i}" for i in range(40)]
OUTPUT = [f"o{t}" for t in range(35)]
PROBS = [[(t * 40 + i) / 2000 for i in range(40)] for t in range(35)]  # (steps, source): distinct values

pytestmark = pytest.mark.usefixtures("close_figures")


def _long_copy_trace():
    return {"line": 7, "source": SOURCE, "output": OUTPUT, "reference": ["r1", "r2"], "correct": False,
            "copy_probs": PROBS, "generate_mass": [0.1 + t / 100 for t in range(35)],
            "spans": {"x": [20, 23], "y": [25, 26]}}


def test_a_long_wrong_copy_example():
    """Fillers span 20..25: the window starts at max(0, min(20 - (30 - 6) // 2, 40 - 30)) = 8, rows 8..37 (shown as
    tokens 9-38 of 40); 32 of 35 steps. Brackets: x rows 12..15 of 30, y rows 17..18, in axes fractions 1 - row/30."""
    fig = trace_heatmap_figure([_long_copy_trace()], "CopyNet copy mode")
    top, bottom = fig.axes[0], fig.axes[1]
    shown = top.images[0]
    assert np.allclose(shown.get_array(), np.array(PROBS).T[8:38, :32])
    assert shown.get_clim() == (0.0, 1.0) and shown.get_cmap().name == "Greys"
    assert [t.get_text() for t in top.get_yticklabels()] == (
        [f"s{i}" for i in range(8, 20)] + ["x | s20", "x | s21", "x | s22", "s23", "s24", "y | s25"]
        + [f"s{i}" for i in range(26, 38)])
    assert top.get_title() == "test line 7: output ≠ reference (source tokens 9-38 of 40; steps 1-32 of 35)"
    assert top.get_ylabel() == "source token (copy mode)"
    brackets = sorted((a.xy, a.xyann) for a in top.texts)
    assert brackets == [((-0.01, pytest.approx(1 - 17 / 30)), (-0.01, pytest.approx(1 - 18 / 30))),  # y, lower
                        ((-0.01, pytest.approx(1 - 12 / 30)), (-0.01, pytest.approx(1 - 15 / 30)))]  # x
    red = (*colors.to_rgb("tab:red"), 1.0)
    assert all(tuple(a.arrow_patch.get_edgecolor()) == pytest.approx(red) and a.arrow_patch.get_linewidth() == 3
               for a in top.texts)
    assert top.get_shared_x_axes().joined(top, bottom)  # the strip's steps line up with the map's
    fig.canvas.draw()  # rows 30 : 1.3 between the map and the strip
    assert top.get_position().height / bottom.get_position().height == pytest.approx(30 / 1.3, rel=0.05)
    strip = bottom.images[0]
    assert np.allclose(strip.get_array(), [[0.1 + t / 100 for t in range(32)]])
    assert strip.get_clim() == (0.0, 1.0) and strip.get_cmap().name == "Greys"  # the map's scale, not the data's
    assert [t.get_text() for t in bottom.get_yticklabels()] == ["generate"] and list(bottom.get_yticks()) == [0]
    assert not any(line.get_visible() for axes in (top, bottom)
                   for line in axes.get_xgridlines() + axes.get_ygridlines())
    assert [t.get_text() for t in bottom.get_xticklabels()] == OUTPUT[:32]
    assert all(t.get_rotation() == 90 for t in bottom.get_xticklabels())
    assert bottom.get_xlabel() == "decoded output (beam top-1)\nreference: r1 r2"
    assert [a.get_ylabel() for a in fig.axes[2:]] == ["probability"]
    assert fig._suptitle.get_text() == "CopyNet copy mode"
    # one panel of 0.17 x 30 + 2.2 = 7.3 in, plus 0.5 for the title
    assert tuple(fig.get_size_inches()) == pytest.approx((style.PAGE_WIDTH_IN, 7.8))


def test_a_short_right_attention_example():
    """An attention trace (no generate strip) that fits: one axes, no cuts, no reference line, a "weight" bar;
    0.17 x 3 + 1.9 + 0.5 = 2.91 in tall."""
    trace = {"line": 3, "source": ["a", "b", "c"], "output": ["a", "c"], "reference": ["a", "c"], "correct": True,
             "attention": [[0.5, 0.25, 0.25], [0.125, 0.125, 0.75]]}
    fig = trace_heatmap_figure([trace], "RNNSearch attention", matrix="attention")
    axes = fig.axes[0]
    assert np.allclose(axes.images[0].get_array(), [[0.5, 0.125], [0.25, 0.125], [0.25, 0.75]])
    assert axes.get_title() == "test line 3: output = reference"
    assert axes.get_ylabel() == "source token" and axes.get_xlabel() == "decoded output (beam top-1)"
    assert [t.get_text() for t in axes.get_yticklabels()] == ["a", "b", "c"]
    assert [a.get_ylabel() for a in fig.axes[1:]] == ["weight"]
    assert tuple(fig.get_size_inches()) == pytest.approx((style.PAGE_WIDTH_IN, 2.91))


def test_the_source_window_at_its_edges():
    """All rows when the source fits exactly (30 of 30); a window pinned at 0 when the fillers start near it
    (2 - 14 < 0); fillers longer than the window start it at the first one (5), not one before."""
    from paragen.report.figure_heatmaps import source_window

    assert source_window(30, {"x": [20, 23]}) == range(30)
    assert source_window(40, {"x": [2, 4]}) == range(0, 30)
    assert source_window(50, {"x": [5, 40]}) == range(5, 35)


def test_brackets_only_for_fillers_inside_the_window_and_panels_sized_by_rows():
    """Fillers at 0-2 and 30-35 of 60 tokens: the window is 0..29, so only the first gets a bracket (the second
    starts where the window ends); brackets are empty-text annotations in axes fractions. Two panels, 30 and 3
    rows: heights 0.17 x 30 + 2.2 = 7.3 and 0.17 x 3 + 2.2 = 2.71 in, in that ratio; colour bars 0.03 of a panel."""
    long = {"line": 1, "source": [f"s{i}" for i in range(60)], "output": ["o"], "reference": ["o"],
            "correct": True, "copy_probs": [[0.5] * 60], "generate_mass": [0.5], "spans": {"a": [0, 2], "b": [30, 35]}}
    short = {"line": 2, "source": ["p", "q", "r"], "output": ["o"], "reference": ["o"], "correct": True,
             "copy_probs": [[0.5] * 3], "generate_mass": [0.5]}
    fig = trace_heatmap_figure([long, short], "two panels")
    top = fig.axes[0]
    assert [(a.get_text(), a.xycoords) for a in top.texts] == [("", "axes fraction")]
    fig.canvas.draw()
    first, second = fig.subfigs
    assert first.bbox.height / second.bbox.height == pytest.approx(7.3 / 2.71, rel=0.01)
    bars = [axes for axes in fig.axes if axes.get_ylabel() == "probability"]
    assert len(bars) == 2 and all(bar.get_position().width < 0.05 for bar in bars)


def test_the_colour_bar_spans_the_map_and_the_generate_strip():
    """The panel's colour bar is made beside both of its axes (the map and the strip), at 3 % of them; made for the
    image's own axes alone it would stand beside the map only."""
    fig = trace_heatmap_figure([_long_copy_trace()], "CopyNet copy mode")
    top, bottom, bar = fig.axes
    assert list(bar._colorbar_info["parents"]) == [top, bottom] and bar._colorbar_info["fraction"] == 0.03
