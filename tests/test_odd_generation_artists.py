"""004 Figure 2's odd-generation bars (:func:`paragen.report.figure_bars.odd_generation_figure`), read from the
drawn artists: bar positions and heights, error bars, each seed's dot, the labels above the bars, the axis limit,
ticks, legend and title.

System A has two seeds (repeats 3 and 5, short 10 and 14), B one (repeats 7, short 2). Worked by hand: two
systems share each group's 0.8 width, so each bar is 0.4 wide, A's centres at x − 0.2 = −0.2, 0.8 and B's at
x + 0.2 = 0.2, 1.2. A's means 4 and 12 with sample sds √2 and √8; each label sits at the mean + sd or the highest
seed, whichever is higher: max(4 + √2, 5) = 5.414, max(12 + √8, 14) = 14.828; B's at its count. The y limit is
1.12 × 14.828 = 16.608."""

from __future__ import annotations

import math

import pytest
from matplotlib.container import BarContainer

from paragen.report.figure_bars import odd_generation_figure

COUNTS = {"A": [{"sentences_with_repeats": 3, "sentences_short": 10},
                {"sentences_with_repeats": 5, "sentences_short": 14}],
          "B": [{"sentences_with_repeats": 7, "sentences_short": 2}]}


@pytest.fixture
def axes(close_figures):
    fig = odd_generation_figure(COUNTS, "Odd generation")
    return fig, fig.axes[0]


def test_bars_sit_side_by_side_with_the_mean_of_each_system(axes):
    _, ax = axes
    bars = [(round(p.get_x() + p.get_width() / 2, 6), round(p.get_width(), 6), p.get_height()) for p in ax.patches]
    assert bars == [(-0.2, 0.4, 4.0), (0.8, 0.4, 12.0), (0.2, 0.4, 7.0), (1.2, 0.4, 2.0)]
    colours = [p.get_facecolor() for p in ax.patches]
    assert colours[0] == colours[1] and colours[2] == colours[3] and colours[0] != colours[2]


def test_only_the_system_with_several_seeds_has_error_bars_of_its_sample_sd(axes):
    _, ax = axes
    a, b = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert b.errorbar is None
    segments = a.errorbar.lines[2][0].get_segments()
    spans = [(round(s[0][0], 6), s[0][1], s[1][1]) for s in segments]
    assert spans == [(-0.2, pytest.approx(4 - math.sqrt(2)), pytest.approx(4 + math.sqrt(2))),
                     (0.8, pytest.approx(12 - math.sqrt(8)), pytest.approx(12 + math.sqrt(8)))]
    assert [cap.get_markersize() for cap in a.errorbar.lines[1]] == [6.0, 6.0]  # capsize 3 points


def test_each_seed_of_a_several_seed_system_is_a_black_dot_on_its_bar(axes):
    _, ax = axes
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert [(list(map(lambda v: round(v, 6), d.get_xdata())), list(d.get_ydata())) for d in dots] == [
        ([-0.2, -0.2], [3, 5]), ([0.8, 0.8], [10, 14])]
    for d in dots:
        assert (d.get_linestyle(), d.get_markersize(), d.get_color(), d.get_alpha()) == ("None", 3, "black", 0.6)


def test_labels_give_one_decimal_for_a_mean_and_none_for_one_seed_above_bar_and_sd(axes):
    _, ax = axes
    labels = [(t.get_text(), round(t.xy[0], 6), round(t.xy[1], 3), t.get_ha(), t.get_va()) for t in ax.texts]
    assert labels == [("4.0", -0.2, 5.414, "center", "bottom"), ("12.0", 0.8, 14.828, "center", "bottom"),
                      ("7", 0.2, 7.0, "center", "bottom"), ("2", 1.2, 2.0, "center", "bottom")]
    assert all(t.xyann == (0, 3) and t.anncoords == "offset points" for t in ax.texts)


def test_axis_room_ticks_label_legend_and_title(axes):
    fig, ax = axes
    assert ax.get_ylim() == pytest.approx((0.0, 1.12 * (12 + math.sqrt(8))))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["repeating phrases", "lack of important\nphrases"]
    assert list(ax.get_xticks()) == [0, 1]
    assert ax.get_ylabel() == "number of sentences"
    assert not any(line.get_visible() for line in ax.get_xgridlines())
    assert all(line.get_visible() for line in ax.get_ygridlines())  # the style's horizontal grid stays
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["A (mean ± sd of 2 seeds)", "B"]
    assert fig.get_suptitle() == "Odd generation"


def test_no_odd_sentence_at_all_still_gives_a_y_axis(close_figures):
    fig = odd_generation_figure({"A": [{"sentences_with_repeats": 0, "sentences_short": 0}]}, "t")
    assert fig.axes[0].get_ylim() == (0.0, 1.0)


def test_the_figure_is_one_panel_of_three_point_six_inches_plus_room_for_title_and_legend(axes):
    fig, _ = axes
    assert fig.get_size_inches()[1] == pytest.approx(3.6 + 0.9)


def test_one_system_takes_the_whole_group_width(close_figures):
    """One system: the bars are 0.8 wide and centred on the groups (x − 0 · 0.8)."""
    fig = odd_generation_figure({"A": [{"sentences_with_repeats": 1, "sentences_short": 2}]}, "t")
    bars = [(round(p.get_x() + p.get_width() / 2, 6), round(p.get_width(), 6)) for p in fig.axes[0].patches]
    assert bars == [(0.0, 0.8), (1.0, 0.8)]


def test_a_seed_above_mean_plus_sd_lifts_the_label_to_it(close_figures):
    """Three seeds 0, 0, 10: mean 3.33, sample sd 5.77, mean + sd 9.10 < 10, so the label sits at the seed's 10
    (with two seeds mean + sd is always above both, so only three can show this)."""
    runs = [{"sentences_with_repeats": r, "sentences_short": 1} for r in (0, 0, 10)]
    fig = odd_generation_figure({"A": runs}, "t")
    first = fig.axes[0].texts[0]
    assert (first.get_text(), first.xy[1]) == ("3.3", 10)
    assert 10 / 3 + math.sqrt(((10 / 3) ** 2 * 2 + (20 / 3) ** 2) / 2) < 10  # the premise, by hand
