"""What the training-curve figures draw (paragen.report.figure_curves), read back from their artists: figure
sizes, each panel's lines (data, colour, dash, width, marker size), y- and x-ranges, labels, titles, the
"not in this log" note and the legend. Expected values are worked out by hand in each test; the style helpers'
palette is read from matplotlib's own colour cycle."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from paragen.report.figure_curves import (RowCurve, small_multiples, training_panels_figure,  # noqa: E402
                                          type_curves_figure)

from conftest import cycle_colour, write_csv  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")


def _two_seed_row(name: str, low: float) -> RowCurve:
    return RowCurve(name, f"{name} (2 seeds)", [([1, 2, 3], [low, low + 1, low + 2]), ([1, 2, 3], [low, low + 1,
                                                                                               low + 3])],
                    ([1, 2, 3], [low, low + 1, low + 2.5]))


def test_small_multiples_draw_the_dashed_curve_in_the_row_colour_on_a_shared_epoch_range():
    """Three rows of two seeds (one panel each, two columns: 2 rows x 2.0 in + 0.9 in for the title and legend = 4.9
    in tall); each panel's
    dashed curve is the last line, in the row's colour. Row b's dashed curve reaches epoch 4, so every panel runs
    0.5 to 4.5. Row a's values 5..8 and its dashed 9, 9.5, 10: y from 5 - 0.25 to 10 + 0.25 (5 % of 5)."""
    curves = [_two_seed_row("a", 5), _two_seed_row("b", 20), _two_seed_row("c", 40)]
    dashed = [RowCurve("a", "a", [([1, 2, 3], [9, 9.5, 10])], ([1, 2, 3], [9, 9.5, 10])),
              RowCurve("b", "b", [([1, 2, 3, 4], [1, 1, 1, 1])], ([1, 2, 3, 4], [1, 1, 1, 1])),
              RowCurve("c", "c", [([1, 2], [41, 42])], ([1, 2], [41, 42]))]
    fig, axes = small_multiples(curves, "loss (per token)", dashed)
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 4.9))
    for index, (ax, other) in enumerate(zip(axes, dashed)):
        line = ax.get_lines()[-1]
        assert list(line.get_xdata()) == other.mean[0] and list(line.get_ydata()) == other.mean[1]
        assert (line.get_color(), line.get_linestyle(), line.get_linewidth()) == (cycle_colour(index), "--", 1.5)
        assert ax.get_xlim() == pytest.approx((0.5, 4.5))
    assert axes[0].get_ylim() == pytest.approx((4.75, 10.25))
    assert [ax.get_ylabel() for ax in axes] == ["loss (per token)", "", "loss (per token)"]
    assert [ax.get_title() for ax in axes] == ["a (2 seeds)", "b (2 seeds)", "c (2 seeds)"]


def test_training_panels_scale_each_panel_note_a_missing_column_and_add_the_critic(tmp_path):
    """Seven panels (the six of 003 Figure 1 and the critic's): 4 rows x 2.0 in + 0.8 in (title and legend) = 8.8 in. validation
    accuracy is not in the log: its panel says so, centred in axes coordinates. A flat validation SARI of 30 is
    shown over at least 2 points: 29 to 31, padded by 5 % of 2 (28.9, 31.1); a flat training loss of 2 has no
    minimum span and, as a loss, a logarithmic axis: a flat line padded by a factor 1.1 each way (2 / 1.1, 2.2)."""
    log = write_csv(tmp_path / "train_log.csv",
               ["epoch", "valid_sari", "valid_bleu", "train_accuracy", "train_loss", "valid_loss", "train_critic"],
               [[1, 30, 10, 50, 2.0, 3.0, 0.5], [2, 30, 12, 55, 2.0, 2.5, 0.25], [3, 30, 14, 60, 2.0, 2.4, 0.1]])
    fig = training_panels_figure(log, "critic run")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 8.8))
    assert [ax.get_title() for ax in axes] == [
        "validation SARI", "validation BLEU", "training token accuracy (%)", "validation token accuracy (%)",
        "training loss (per token)", "validation loss (per token)", "critic term (per token)"]
    assert fig._suptitle.get_text() == "critic run"
    note = axes[3].texts[0]
    assert note.get_text() == "valid_accuracy\nnot in this log" and note.get_position() == (0.5, 0.5)
    assert (note.get_horizontalalignment(), note.get_verticalalignment()) == ("center", "center")
    assert note.get_transform() == axes[3].transAxes and axes[3].get_lines() == []
    sari = axes[0].get_lines()[0]
    assert list(sari.get_xdata()) == [1, 2, 3] and list(sari.get_ydata()) == [30, 30, 30]
    assert (sari.get_color(), sari.get_marker(), sari.get_linestyle(), sari.get_markersize()) == (
        cycle_colour(0), "o", "-", 4)
    assert axes[0].get_ylim() == pytest.approx((28.9, 31.1))
    assert axes[4].get_ylim() == pytest.approx((2 / 1.1, 2.2)) and axes[4].get_yscale() == "log"
    assert list(axes[6].get_lines()[0].get_ydata()) == [0.5, 0.25, 0.1]


def test_training_panels_leave_out_the_critic_panel_when_the_run_has_none(tmp_path):
    """Six panels: 3 rows x 2.0 in + 0.8 in = 6.8 in; a critic column that is empty on every row is no critic."""
    log = write_csv(tmp_path / "train_log.csv", ["epoch", "train_loss", "train_critic"], [[1, 2.5, ""], [2, 2.0, ""]])
    fig = training_panels_figure(log, "plain run")
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 6.8))
    assert sum(ax.get_visible() for ax in fig.axes) == 6


def _type_logs(tmp_path) -> dict:
    logs = {}
    for row, base in (("r1", 10), ("r2", 20), ("r3", 30)):
        logs[row] = [write_csv(tmp_path / f"{row}.csv", ["epoch", "type_a", "type_b", "type_c"],
                          [[1, base, base + 1, base + 2], [2, base + 5, base + 6, base + 7]])]
    return logs


COLUMNS = {"a": ("type_a", "copy"), "b": ("type_b", "swap"), "c": ("type_c", "drop")}


def test_type_curves_without_paper_values_have_no_paper_entry(tmp_path):
    """Three panels (2 rows x 2.2 in + 1.0 in = 5.4 in), titled by type, the left column labelled; three short
    row labels: a legend of 2 columns."""
    fig = type_curves_figure(_type_logs(tmp_path), COLUMNS, {}, "per type")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 5.4))
    assert [ax.get_title() for ax in axes] == ["copy", "swap", "drop"]
    assert [ax.get_ylabel() for ax in axes] == ["exact match (%)", "", "exact match (%)"]
    assert fig._suptitle.get_text() == "per type"
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["r1", "r2", "r3"] and legend._ncols == 2


def test_type_curves_with_a_paper_value_add_one_grey_entry_on_the_first_panel(tmp_path):
    """r2's paper value on type b only: a pale level on the swap panel, and one legend entry for all levels, an
    empty grey line of width 4 and alpha 0.25 on the first panel."""
    fig = type_curves_figure(_type_logs(tmp_path), COLUMNS, {"r2": {"b": 40.0}}, "per type")
    first = [ax for ax in fig.axes if ax.get_visible()][0]
    entry = [line for line in first.get_lines() if line.get_label() == "the paper's test accuracy of the row"]
    assert len(entry) == 1
    line = entry[0]
    assert list(line.get_xdata()) == [] and list(line.get_ydata()) == []
    assert (line.get_color(), line.get_linewidth(), line.get_alpha()) == ("grey", 4, 0.25)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["r1", "r2", "r3", "the paper's test accuracy of the row"]
    swap = [ax for ax in fig.axes if ax.get_visible()][1]
    levels = [line for line in swap.get_lines() if list(line.get_ydata()) == [40.0, 40.0]]
    assert [(line.get_color(), line.get_linewidth()) for line in levels] == [(cycle_colour(1), 4)]
