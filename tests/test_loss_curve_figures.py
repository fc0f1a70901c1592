"""The loss-curve figure and the validation-curve figure (paragen.report.figure_curves.loss_figure, curves_figure)
read back from their artists: which layout each takes (one panel per loss, or one panel per row when more than two
rows have several seeds), figure sizes, panel titles, the lines' data, the y label, the count of rows not yet run
in the title (one row, two rows) and the legend's columns. Expected values are worked out by hand from the logs
written here and figure_style's sizes (page width 6.5 in; height = rows of panels x panel height + extra)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from paragen.report.figure_curves import curves_figure, loss_figure  # noqa: E402

from conftest import cycle_colour, write_csv  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")

COLUMNS = ["epoch", "train_loss", "valid_loss", "valid_metric"]


def _log(path, rows: list[list[float]]):
    return write_csv(path, COLUMNS, rows)


def _single_seed_rows(tmp_path) -> dict:
    """Rows a, b, c of one seed each (epochs 1 and 2) and row d, not yet run (its log does not exist)."""
    rows = {"a": [[1, 3.0, 3.5, 10], [2, 2.0, 2.5, 20]], "b": [[1, 4.0, 4.5, 15], [2, 3.0, 3.5, 25]],
            "c": [[1, 5.0, 5.5, 30], [2, 4.5, 5.0, 35]]}
    logs = {row: [_log(tmp_path / f"{row}.csv", values)] for row, values in rows.items()}
    return logs | {"d": [tmp_path / "d.csv"]}


def _two_seed_rows(tmp_path) -> dict:
    """Rows a, b, c of two seeds each; seed 2's losses are seed 1's + 0.2 (a) and + 0.4 (b, c)."""
    logs = {}
    for row, base, shift in (("a", 3.0, 0.2), ("b", 4.0, 0.4), ("c", 5.0, 0.4)):
        logs[row] = [_log(tmp_path / f"{row}{seed}.csv", [[1, base + s, base + 0.5 + s, 10], [2, base - 1 + s,
                                                                                            base - 0.5 + s, 20]])
                     for seed, s in ((1, 0.0), (2, shift))]
    return logs


def _ys(ax) -> list[list[float]]:
    return [[float(y) for y in line.get_ydata()] for line in ax.get_lines()]


def test_loss_figure_puts_each_loss_on_its_own_panel_and_counts_the_row_not_run(tmp_path):
    """Three one-seed rows: two panels side by side, 1 x 2.8 in + 0.9 in = 3.7 in tall, no third axis; each panel's
    lines are the rows' own column (training 3, 2 / 4, 3 / 5, 4.5; validation 3.5, 2.5 / ...). Row d has no log:
    "(1 row not yet run)", singular. Three short labels, legend of 2 columns (3 would fit all three on one line)."""
    fig = loss_figure(_single_seed_rows(tmp_path), "Loss per token (t)")
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 3.7)) and len(fig.axes) == 2
    train, valid = fig.axes
    assert [train.get_title(), valid.get_title()] == ["training loss (per token)", "validation loss (per token)"]
    assert _ys(train) == [[3.0, 2.0], [4.0, 3.0], [5.0, 4.5]]
    assert _ys(valid) == [[3.5, 2.5], [4.5, 3.5], [5.5, 5.0]]
    assert fig._suptitle.get_text() == "Loss per token (t) (1 row not yet run)"
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["a", "b", "c"] and legend._ncols == 2


def test_loss_figure_keeps_two_panels_for_two_rows_even_with_seeds(tmp_path):
    """Two rows (more than two are needed for one panel per row), one of them of two seeds: still the two loss
    panels, 3.7 in tall (one panel per row would be 1 x 2.0 + 0.5 = 2.5 in)."""
    logs = _two_seed_rows(tmp_path)
    fig = loss_figure({"a": logs["a"], "b": logs["b"][:1]}, "Loss")
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 3.7))
    assert [ax.get_title() for ax in fig.axes] == ["training loss (per token)", "validation loss (per token)"]


def test_loss_figure_of_three_rows_with_seeds_has_a_panel_per_row_with_validation_dashed(tmp_path):
    """Three rows of two seeds and two rows not yet run: one panel per row, 2 rows x 2.0 in + 0.9 in (the title and
    the legend under the panels) = 4.9 in; the
    left panels labelled "loss per token"; each panel's last line is the row's mean validation loss, dashed (a: seeds
    3.5, 2.5 and 3.7, 2.7: mean 3.6, 2.6; b: 4.5, 3.5 and 4.9, 3.9: 4.7, 3.7); the title counts 2 rows, plural."""
    logs = _two_seed_rows(tmp_path) | {"d": [tmp_path / "d.csv"], "e": [tmp_path / "e.csv"]}
    fig = loss_figure(logs, "Loss")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 4.9)) and len(axes) == 3
    assert [ax.get_ylabel() for ax in axes] == ["loss per token", "", "loss per token"]
    assert [ax.get_title() for ax in axes] == ["a (2 seeds)", "b (2 seeds)", "c (2 seeds)"]
    dashed = [ax.get_lines()[-1] for ax in axes]
    assert [line.get_linestyle() for line in dashed] == ["--", "--", "--"]
    assert [float(y) for y in dashed[0].get_ydata()] == pytest.approx([3.6, 2.6])
    assert [float(y) for y in dashed[1].get_ydata()] == pytest.approx([4.7, 3.7])
    assert fig._suptitle.get_text() == "Loss (2 rows not yet run)"


def test_curves_figure_draws_one_panel_of_all_rows_and_counts_two_rows_not_run(tmp_path):
    """Three one-seed rows: one page-wide panel (a single axis), 1 x 3.4 in + 0.8 in = 4.2 in, y labelled with the
    metric, one line per row (10, 20 / 15, 25 / 30, 35); rows d and e not run: "(2 rows not yet run)"."""
    logs = _single_seed_rows(tmp_path) | {"e": []}
    fig = curves_figure(logs, "BLEU", "Validation BLEU (t)")
    assert tuple(fig.get_size_inches()) == pytest.approx((6.5, 4.2)) and len(fig.axes) == 1
    [ax] = fig.axes
    assert ax.get_ylabel() == "BLEU"
    assert _ys(ax) == [[10.0, 20.0], [15.0, 25.0], [30.0, 35.0]]
    assert fig._suptitle.get_text() == "Validation BLEU (t) (2 rows not yet run)"


def test_curves_figure_keeps_one_panel_for_two_rows_and_splits_three_rows_with_seeds(tmp_path):
    """Two rows, one of two seeds: one panel, 4.2 in. Three rows of two seeds: one panel per row, 4.9 in, the left
    panels labelled with the metric; no row missing, so the title is the title alone."""
    logs = _two_seed_rows(tmp_path)
    two = curves_figure({"a": logs["a"], "b": logs["b"][:1]}, "BLEU", "Two")
    assert tuple(two.get_size_inches()) == pytest.approx((6.5, 4.2)) and len(two.axes) == 1
    three = curves_figure(logs, "BLEU", "Three")
    axes = [ax for ax in three.axes if ax.get_visible()]
    assert tuple(three.get_size_inches()) == pytest.approx((6.5, 4.9))
    assert [ax.get_ylabel() for ax in axes] == ["BLEU", "", "BLEU"]
    assert three._suptitle.get_text() == "Three"


def test_a_row_not_run_before_others_leaves_them_drawn(tmp_path):
    """Row d, without a log, comes first: rows a, b, c after it are still drawn (three lines), and it is counted."""
    logs = _single_seed_rows(tmp_path)
    fig = curves_figure({"d": logs.pop("d")} | logs, "BLEU", "V")
    assert _ys(fig.axes[0]) == [[10.0, 20.0], [15.0, 25.0], [30.0, 35.0]]
    assert fig._suptitle.get_text() == "V (1 row not yet run)"


def test_draw_rows_styles_plain_rows_levels_and_a_diverged_row_of_seeds():
    """Rows r0 (1, 2) and r1 (2, 3) of one seed; r2 of two seeds that diverge (2, 100 and 2, 200; peak 150 of the
    mean > 3 x 3, so it is off scale). The panel is scaled to r0 and r1 and the level 2.5: 1 to 3, padded by 5 % of
    2: 0.9 to 3.1. Plain rows: marker size 4 in the row's colour, marker and dash (o -, s --). r2's seeds: thin
    (0.8) pale (alpha 0.45) lines in r2's colour, clipped at 3.1, each with its clip marker; its mean: width 2.0,
    marker D, dash -., labelled by its name, and one grey entry explaining the triangle. r0's level 2.5: a wide (4) pale (alpha 0.25) line in r0's colour."""
    from paragen import figure_style as style
    from paragen.report.figure_curves import RowCurve, draw_rows

    cycle = [cycle_colour(i) for i in range(3)]
    curves = [RowCurve("r0", "r0", [([1, 2], [1.0, 2.0])], ([1, 2], [1.0, 2.0])),
              RowCurve("r1", "r1", [([1, 2], [2.0, 3.0])], ([1, 2], [2.0, 3.0])),
              RowCurve("r2", "r2 (2 seeds)", [([1, 2], [2.0, 100.0]), ([1, 2], [2.0, 200.0])], ([1, 2], [2.0, 150.0]))]
    fig = style.figure(3.0)
    ax = fig.subplots()
    draw_rows(ax, curves, {0: 2.5})
    assert ax.get_ylim() == pytest.approx((0.9, 3.1))
    lines = ax.get_lines()
    plain = [(ln.get_color(), ln.get_marker(), ln.get_linestyle(), ln.get_markersize()) for ln in lines
             if ln.get_label() in ("r0", "r1")]
    assert plain == [(cycle[0], "o", "-", 4), (cycle[1], "s", "--", 4)]
    seeds = [ln for ln in lines if ln.get_linewidth() == 0.8]
    assert [[float(y) for y in ln.get_ydata()] for ln in seeds] == [[2.0, pytest.approx(3.1)]] * 2
    assert [(ln.get_color(), ln.get_alpha()) for ln in seeds] == [(cycle[2], 0.45)] * 2
    [mean] = [ln for ln in lines if ln.get_label() == "r2 (2 seeds)"]
    [entry] = [ln for ln in lines if ln.get_label() == style.OFF_SCALE_LABEL]
    assert (entry.get_marker(), entry.get_color(), len(entry.get_xdata())) == ("^", "grey", 0)
    assert (mean.get_color(), mean.get_linewidth(), mean.get_marker(), mean.get_linestyle()) == (
        cycle[2], 2.0, "D", "-.")
    [level] = [ln for ln in lines if list(ln.get_ydata()) == [2.5, 2.5]]
    assert (level.get_color(), level.get_linewidth(), level.get_alpha(), level.get_linestyle()) == (
        cycle[0], 4, 0.25, "-")
