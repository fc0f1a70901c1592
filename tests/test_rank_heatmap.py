"""The matrix's heat map of ranks (paragen.report.figure_matrix.rank_heatmap), read from the drawn artists: the
colour scale (rank 1 darkest end of viridis_r's 0.15-0.95 slice, grey for cells without a rank), each cell's text
and its text colour, the axis labels, the colour bar's label and the title. Expected values written by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from matplotlib import colors

from paragen import figure_style as style
from paragen.report import figure_matrix
from paragen.report.matrix import TaskResult

from conftest import matrix_cell


pytestmark = pytest.mark.usefixtures("close_figures")


def _draw(monkeypatch, results, mechanisms, title="Ranks"):
    drawn = {}
    monkeypatch.setattr(figure_matrix.style, "save", lambda fig, path: drawn.update(fig=fig, path=path))
    figure_matrix.rank_heatmap(results, mechanisms, title, "unused.png")
    fig = drawn["fig"]
    return fig, fig.axes[0], fig.axes[1]


RESULTS = [
    TaskResult("copy", "Copy task with a label long enough to wrap onto two lines", "accuracy", "A", [
        matrix_cell("copy", "A", rank=1, values=[80.0], verdict="baseline"),
        matrix_cell("copy", "B", rank=2.5, values=[70.25], verdict="better", tested=True),
        matrix_cell("copy", "C", rank=4, values=[60.0], verdict="worse", tested=True),
        matrix_cell("copy", "D", status="does not apply"),
    ]),
    TaskResult("sum", "Sum", "BLEU", "A", [
        matrix_cell("sum", "A", rank=2, values=[10.0], verdict="baseline"),
        matrix_cell("sum", "B", rank=1, values=[12.0], verdict="better", tested=True),
        matrix_cell("sum", "C", status="not run"),
        matrix_cell("sum", "D", rank=3, values=[5.0], verdict="no difference shown", tested=True),
    ], void="void"),
]


def test_cells_text_colours_and_scale(monkeypatch):
    """Top rank 4, so the scale runs 1..4 and a text is white above rank (1 + 4) / 2 = 2.5 only (rank 4).
    Copy: "1 · 80.0", "2.5 · 70.3 b" (70.25 rounds half up), "4 · 60.0 w", "n/a"; Sum (void: tested cells marked
    v): "2 · 10.0", "1 · 12.0 v", "not run", "3 · 5.0 v"."""
    fig, ax, bar = _draw(monkeypatch, RESULTS, ["A", "B", "C", "D"])
    texts = {(round(t.get_position()[0]), round(t.get_position()[1])): (t.get_text(), t.get_color()) for t in ax.texts}
    assert texts == {
        (0, 0): ("1 · 80.0", "black"), (0, 1): ("2.5 · 70.3 b", "black"), (0, 2): ("4 · 60.0 w", "white"),
        (0, 3): ("n/a", "black"),
        (1, 0): ("2 · 10.0", "black"), (1, 1): ("1 · 12.0 v", "black"), (1, 2): ("not run", "black"),
        (1, 3): ("3 · 5.0 v", "white")}
    assert all(t.get_ha() == "center" and t.get_va() == "center" for t in ax.texts)
    image = ax.images[0]
    data = image.get_array()
    assert data.mask.tolist() == [[False, False], [False, False], [False, True], [True, False]]
    assert data.data[:3, 0].tolist() == [1.0, 2.5, 4.0] and data.data[[0, 1, 3], 1].tolist() == [2.0, 1.0, 3.0]
    assert image.get_clim() == (1.0, 4.0) and ax.get_aspect() == "auto"  # cells stretch to the page
    cmap = image.get_cmap()
    assert colors.to_hex(cmap.get_bad()) == "#dddddd"
    viridis_r = style.plt.get_cmap("viridis_r")
    assert np.allclose(cmap(0.0), viridis_r(0.15)) and np.allclose(cmap(1.0), viridis_r(0.95))
    assert cmap.N == 256
    assert bar.get_ylabel() == "rank within the task (1 = best)"


def test_labels_title_and_size(monkeypatch):
    """Two columns: labels wrapped at max(12, 60 // 2) = 30 characters; rows named by mechanism; no tick marks;
    a figure 0.42 x 4 + 1.4 = 3.08 in tall and a page wide; a title longer than the limit replaced."""
    fig, ax, _ = _draw(monkeypatch, RESULTS, ["A", "B", "C", "D"])
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "Copy task with a label long\nenough to wrap onto two lines", "Sum"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A", "B", "C", "D"]
    assert ax.xaxis.get_major_ticks()[0].tick1line.get_markersize() == 0
    assert not any(line.get_visible() for line in ax.get_xgridlines() + ax.get_ygridlines())
    assert tuple(fig.get_size_inches()) == pytest.approx((style.PAGE_WIDTH_IN, 3.08))
    assert fig._suptitle.get_text() == "Ranks"
    long_title = "x" * (style.TITLE_CHARACTERS + 1)
    fig, _, _ = _draw(monkeypatch, RESULTS, ["A", "B", "C", "D"], long_title)
    assert fig._suptitle.get_text() == "Mechanism x task matrix: ranks"
    fig, _, _ = _draw(monkeypatch, RESULTS, ["A", "B", "C", "D"], "y" * style.TITLE_CHARACTERS)
    assert fig._suptitle.get_text() == "y" * style.TITLE_CHARACTERS


def test_a_top_rank_below_two_still_spans_one_to_two(monkeypatch):
    """One mechanism ranked 1 everywhere: the scale still spans 1..2 (rank 1 in black, not white)."""
    results = [TaskResult("t", "T", "accuracy", "A", [matrix_cell("t", "A", rank=1, values=[50.0])])]
    _, ax, _ = _draw(monkeypatch, results, ["A"])
    assert ax.images[0].get_clim() == (1.0, 2.0)
    assert [(t.get_text(), t.get_color()) for t in ax.texts] == [("1 · 50.0", "black")]
    nothing = [TaskResult("t", "T", "accuracy", "A", [matrix_cell("t", "A", status="not run")])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no rank at all: the scale is set without numpy's all-NaN warning
        _, ax, _ = _draw(monkeypatch, nothing, ["A"])
    assert ax.images[0].get_clim() == (1.0, 2.0)


def test_label_width_follows_the_column_count_and_the_bar_is_shrunk(monkeypatch):
    """One column: labels wrap at 60 characters (a 61-character label takes two lines, its last word alone); five
    columns: at max(12, 60 // 5) = 12 (a 13-character word is split after 12). The colour bar is 0.8 of the map's
    height once laid out."""
    label = "a" * 50 + " " + "b" * 10  # 61 characters
    one = [TaskResult("t", label, "accuracy", "A", [matrix_cell("t", "A", rank=1, values=[50.0])])]
    fig, ax, bar = _draw(monkeypatch, one, ["A"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a" * 50 + "\n" + "b" * 10]
    fig.canvas.draw()
    assert bar.get_position().height / ax.get_position().height == pytest.approx(0.8, abs=0.02)
    five = [TaskResult(f"t{k}", "abcdefghijklm", "accuracy", "A", [matrix_cell(f"t{k}", "A", rank=1, values=[50.0])])
            for k in range(5)]
    _, ax, _ = _draw(monkeypatch, five, ["A"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["abcdefghijkl\nm"] * 5
