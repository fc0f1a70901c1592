"""004 Figure 4 as a whole figure (paragen.report.figure_heatmaps.alignment_figure), read from its artists: one
full-width panel per example, each as tall as its target is long (0.2 in a target token + 1.9 in; the figure 0.7 in
more for the title and the legend), target rows labelled with the source token attention weights most (attention)
or q_j's first word (prediction), one colour bar beside all panels labelled by kind, the gold-link legend whenever
any example has gold links, and the title naming the row and its seed. Expected values are worked out by hand."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from paragen.report.figure_heatmaps import alignment_figure  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")

NO_GOLD = {"line": 4, "source": ["a", "b", "c"], "target": ["x", "y", "z"],
           "attention": [[0.1, 0.2, 0.7], [0.8, 0.1, 0.1], [0.2, 0.5, 0.3]], "attention_argmax": [2, 0, 1],
           "source_prediction": [[0.3, 0.3, 0.4], [0.5, 0.4, 0.1], [0.2, 0.2, 0.6]], "spm_words": ["u", "v", "w"]}
WITH_GOLD = {"line": 9, "source": ["d", "e"], "target": ["p", "q", "r", "s", "t"],
             "attention": [[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.7, 0.3], [0.6, 0.4]],
             "attention_argmax": [0, 1, 1, 0, 0],
             "source_prediction": [[0.5, 0.5]] * 5, "spm_words": ["k", "l", "m", "n", "o"], "gold": [[0, 1], [1, 3]]}


def _panels_and_bar(fig):
    *panels, bar = fig.axes
    return panels, bar


def test_attention_figure_sizes_each_panel_by_its_target_and_labels_rows_with_the_attended_token():
    """Targets of 3 and 5 tokens: panel heights 0.2 x 3 + 1.9 = 2.5 and 0.2 x 5 + 1.9 = 2.9 in, figure 2.5 + 2.9 +
    0.7 = 6.1 in tall; rows of line 4 read x [c], y [a], z [b] (argmax 2, 0, 1); the bar, labelled "weight", is
    made at 4 % of both panels (not the last panel alone)."""
    fig = alignment_figure([NO_GOLD, WITH_GOLD], "attention", "EncDec", 2)
    panels, bar = _panels_and_bar(fig)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 6.1)) and len(panels) == 2
    assert list(panels[0].get_subplotspec().get_gridspec().get_height_ratios()) == pytest.approx([2.5, 2.9])
    assert [ax.get_title() for ax in panels] == ["test line 4", "test line 9"]
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["x [c]", "y [a]", "z [b]"]
    assert bar.get_ylabel() == "weight"
    assert bar._colorbar_info["fraction"] == 0.04 and list(bar._colorbar_info["parents"]) == panels
    assert fig._suptitle.get_text() == "attention of EncDec (seed 2)"


def test_the_gold_legend_appears_when_only_a_later_example_has_gold_links():
    """Line 4 has no gold links, line 9 has two: the figure's legend names them (one entry)."""
    fig = alignment_figure([NO_GOLD, WITH_GOLD], "attention", "EncDec", 2)
    assert [[t.get_text() for t in legend.get_texts()] for legend in fig.legends] == [["gold link"]]


def test_no_legend_without_gold_links():
    assert alignment_figure([NO_GOLD], "attention", "EncDec", 1).legends == []


def test_prediction_figure_labels_rows_with_q_j_words_and_its_bar_probability():
    """One example of 5 target tokens: 2.9 + 0.7 = 3.6 in; rows p [k] ... t [o]; bar "probability"."""
    fig = alignment_figure([WITH_GOLD], "prediction", "EncDec+SPM", 1)
    panels, bar = _panels_and_bar(fig)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 3.6))
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["p [k]", "q [l]", "r [m]", "s [n]", "t [o]"]
    assert bar.get_ylabel() == "probability"
    assert fig._suptitle.get_text() == "source-side prediction q_j of EncDec+SPM (seed 1)"
