"""What a reader of a multi-panel figure relies on, read back from the drawn artists: a legend under every
multi-panel figure, one colour and marker per model in every panel (a model's confirmation-seed row looks like its
design row), the off-scale entry only where a line really leaves its panel, losses on a logarithmic axis, and the
odd-generation bars of the design and the confirmation seeds in panels of their own. Logs are written here; each
expected value is worked out by hand from them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402

from paragen import figure_style as style  # noqa: E402
from paragen.report.figure_bars import odd_generation_figure  # noqa: E402
from paragen.report.figure_curves import curves_figure, loss_figure, type_curves_figure  # noqa: E402

from conftest import cycle_colour, write_csv  # noqa: E402

pytestmark = pytest.mark.usefixtures("close_figures")

COLUMNS = ["epoch", "train_loss", "valid_loss", "valid_metric", "valid_em_x_to_x"]
DESIGN = ["EncDec", "SPM"]
CONFIRMATION = ["EncDec (confirmation seeds 4–6)", "SPM (confirmation seeds 4–6)"]


def _seed_logs(tmp_path, row: str, level: float) -> list:
    """Two seeds of a row: losses falling from 4 to 0.05 (they crowd near 0 on a linear axis), metric ``level``."""
    return [write_csv(tmp_path / f"{row}{seed}.csv".replace(" ", "_"), COLUMNS,
                      [[1, 4.0, 4.0, level, level], [2, 0.5, 0.6, level + seed, level], [3, 0.05, 0.08, level + 2, 5]])
            for seed in (1, 2)]


@pytest.fixture
def four_rows(tmp_path) -> dict:
    """Design rows EncDec and SPM and their confirmation rows: four rows of two seeds (one panel per row)."""
    return {row: _seed_logs(tmp_path, row, 10.0 * (k + 1)) for k, row in enumerate(DESIGN + CONFIRMATION)}


STYLES = {"EncDec": 0, "SPM": 1, "EncDec (confirmation seeds 4–6)": 0, "SPM (confirmation seeds 4–6)": 1}
"""What paragen.report.build.model_styles gives these rows: one style index per model."""


def _bold(ax):
    """The panel's bold line (a row's mean over seeds)."""
    return max(ax.get_lines(), key=lambda line: line.get_linewidth())


def _legend_texts(fig) -> list[str]:
    assert len(fig.legends) == 1, "a multi-panel figure has one legend, under its panels"
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_a_model_keeps_its_colour_and_marker_in_its_confirmation_panel(four_rows):
    fig = curves_figure(four_rows, "ROUGE-2", "Validation", styles=STYLES)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    looks = [(_bold(ax).get_color(), _bold(ax).get_marker()) for ax in panels]
    assert looks == [(cycle_colour(0), "o"), (cycle_colour(1), "s"), (cycle_colour(0), "o"), (cycle_colour(1), "s")]
    assert _legend_texts(fig) == ["EncDec", "SPM"]  # one entry per model


def test_without_styles_each_row_has_its_own_look_and_entry(four_rows):
    fig = curves_figure(four_rows, "ROUGE-2", "Validation")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [_bold(ax).get_color() for ax in panels] == [cycle_colour(k) for k in range(4)]
    assert _legend_texts(fig) == DESIGN + CONFIRMATION


def test_the_loss_figure_of_one_panel_per_row_has_a_legend_and_a_log_axis(four_rows):
    fig = loss_figure(four_rows, "Loss", STYLES)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_yscale() for ax in panels] == ["log"] * 4
    assert _legend_texts(fig) == ["EncDec", "dashed: validation; solid: training", "SPM"]
    # each panel: its own seeds' training (0.05..4) and validation (0.08..4) losses, padded by a factor
    # (4 / 0.05) ** 0.05 each way on the log axis
    assert panels[0].get_ylim() == pytest.approx((0.05 / 80 ** 0.05, 4.0 * 80 ** 0.05))


def test_the_two_panel_loss_figure_is_logarithmic_with_one_legend(tmp_path):
    logs = {"a": _seed_logs(tmp_path, "a", 1.0)[:1], "b": _seed_logs(tmp_path, "b", 2.0)[:1]}
    fig = loss_figure(logs, "Loss")
    assert [ax.get_yscale() for ax in fig.axes] == ["log", "log"]
    assert _legend_texts(fig) == ["a", "b"]


def test_no_off_scale_entry_when_a_papers_level_keeps_every_line_in_its_panel(tmp_path):
    """CopyNet's peak 32 is more than three times the others' 10, but the paper's 77.5 lifts the panel's top to
    77.5 + 5 % of 77.5: nothing leaves the panel, so no triangle, no entry, and CopyNet drawn as in any panel."""
    columns = ["epoch", "valid_em_xy_to_xy"]
    logs = {"RNNSearch": [write_csv(tmp_path / "r.csv", columns, [[1, 0], [2, 10]])],
            "WEAN": [write_csv(tmp_path / "w.csv", columns, [[1, 0], [2, 8]])],
            "CopyNet": [write_csv(tmp_path / "c.csv", columns, [[1, 2], [2, 32]])]}
    fig = type_curves_figure(logs, {"xy_to_xy": ("valid_em_xy_to_xy", "xy → xy")},
                             {"CopyNet": {"xy_to_xy": 77.5}}, "Per type")
    [ax] = [ax for ax in fig.axes if ax.get_visible()]
    labels = [line.get_label() for line in ax.get_lines()]
    assert style.OFF_SCALE_LABEL not in labels and not [t for t in ax.texts if t.get_text().startswith("peak")]
    assert not [line for line in ax.get_lines() if line.get_marker() == style.CLIP_MARKER]
    [copynet] = [line for line in ax.get_lines() if line.get_label() == "CopyNet"]
    assert (copynet.get_linewidth(), copynet.get_markersize()) == (1.5, 4)  # the rc default width, as the others
    assert ax.get_ylim() == pytest.approx((0 - 3.875, 77.5 + 3.875))
    assert style.OFF_SCALE_LABEL not in _legend_texts(fig)


def test_the_off_scale_entry_appears_once_when_a_line_leaves_its_panel(tmp_path):
    columns = ["epoch", "valid_em_xy_to_xy"]
    logs = {"a": [write_csv(tmp_path / "a.csv", columns, [[1, 1], [2, 2]])],
            "b": [write_csv(tmp_path / "b.csv", columns, [[1, 1], [2, 3]])],
            "c": [write_csv(tmp_path / "c.csv", columns, [[1, 1], [2, 30]])]}
    fig = type_curves_figure(logs, {"k": ("valid_em_xy_to_xy", "k")}, {}, "Per type")
    assert _legend_texts(fig) == ["a", "b", "c", style.OFF_SCALE_LABEL]


def test_odd_generation_shows_design_and_confirmation_seeds_in_panels_of_their_own():
    run = {"sentences_with_repeats": 10, "sentences_short": 4}
    other = {"sentences_with_repeats": 30, "sentences_short": 2}
    fig = odd_generation_figure({"EncDec": [run, run], "SPM": [run, run]}, "Odd",
                                ("design seeds 1–2", "confirmation seeds 4–5"),
                                {"EncDec": [other, other], "SPM": [other, run]})
    design, confirmation = fig.axes
    assert (design.get_title(), confirmation.get_title()) == ("design seeds 1–2", "confirmation seeds 4–5")
    colours = [[bar.get_facecolor() for bar in ax.patches] for ax in (design, confirmation)]
    assert colours[0] == colours[1]  # EncDec's two bars, then SPM's, in the same colours in both panels
    heights = [[bar.get_height() for bar in ax.patches] for ax in (design, confirmation)]
    assert heights == [[10, 4, 10, 4], [30, 2, 20, 3]]  # SPM's confirmation means: (30 + 10) / 2, (2 + 4) / 2
    assert design.get_ylim() == confirmation.get_ylim()
    assert len(fig.legends) == 1
