"""The figure style's rules, checked on every figure builder with small synthetic logs: page width, fonts of at
least 9 pt, whole-epoch ticks, each panel scaled to its own data (a diverged run clipped, not squashing the others),
panels at least 2.5 in wide, one-line titles, each seed drawn thin beside a bold mean."""

from __future__ import annotations

from pathlib import Path

import matplotlib.text
import pytest

from paragen import figure_style as style
from paragen.report import figure_bars, figure_curves, figure_heatmaps


def _log(path: Path, rows: list[dict[str, float]]) -> Path:
    columns = list(rows[0])
    path.write_text(",".join(columns) + "\n" + "".join(",".join(str(r[c]) for c in columns) + "\n" for r in rows))
    return path


def _loss_log(path: Path, losses: list[float], metric: list[float]) -> Path:
    return _log(path, [{"epoch": e, "train_loss": loss, "valid_loss": loss * 0.9, "valid_metric": m,
                        "valid_em_x_to_0": m, "valid_em_x_to_x": 100 - m}
                       for e, (loss, m) in enumerate(zip(losses, metric), start=1)])


def _rendered(fig):
    fig.canvas.draw()  # constrained layout places the axes only when drawn
    return fig


def _check_common_rules(fig) -> None:
    """Page width, every visible text at least 9 pt, a one-line title, every visible panel at least 2.5 in."""
    assert fig.get_size_inches()[0] == pytest.approx(style.PAGE_WIDTH_IN)
    hidden = set()  # tick labels of ticks outside the axis' view: matplotlib keeps them but does not draw them
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            hidden |= {id(label) for tick in axis.get_major_ticks() if not low - 1e-9 <= tick.get_loc() <= high + 1e-9
                       for label in (tick.label1, tick.label2)}
    texts = [t for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and id(t) not in hidden]
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < style.MIN_FONT_PT]
    assert not small, f"text under {style.MIN_FONT_PT} pt: {small}"
    renderer = fig.canvas.get_renderer()
    page = fig.bbox.width
    outside = [t.get_text() for t in texts if t.get_window_extent(renderer).x0 < -1
               or t.get_window_extent(renderer).x1 > page + 1]
    assert not outside, f"text running off the page: {outside}"
    title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    assert "\n" not in title
    for ax in fig.axes:
        if ax.get_visible() and ax.get_label() != "<colorbar>":
            assert ax.get_position().width * style.PAGE_WIDTH_IN >= style.MIN_PANEL_IN - 1e-6, ax.get_title()
            width = ax.title.get_window_extent(renderer).width  # a panel title stays over its own panel
            assert width <= ax.get_window_extent(renderer).width * 1.1, ax.get_title()


def _legend_below_the_panels(fig) -> None:
    """The figure's legend lies under every panel: it covers no data."""
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    lowest = min(ax.get_window_extent(renderer).y0 for ax in fig.axes if ax.get_visible())
    assert legend.get_window_extent(renderer).y1 <= lowest


def _integer_epoch_ticks(ax) -> None:
    low, high = ax.get_xlim()
    shown = [t for t in ax.get_xticks() if low <= t <= high]
    assert shown and all(float(t).is_integer() for t in shown), shown


def test_panel_limits_are_the_data_padded_by_five_percent_leaving_out_an_off_scale_line():
    # three lines peaking at 5, 6 and 220: 220 > 3 x 6, so the range is that of the first two, 2..6 padded by 0.2
    series = [[5.0, 3.0], [6.0, 2.0], [220.0, 4.0]]
    assert style.off_scale(series) == {2}
    assert style.panel_limits(series) == pytest.approx((1.8, 6.2))
    # 17 < 3 x 6: nothing off scale, the range is 2..17 padded by 0.75
    assert style.off_scale([[5.0, 3.0], [6.0, 2.0], [17.0, 4.0]]) == set()
    assert style.panel_limits([[5.0, 3.0], [6.0, 2.0], [17.0, 4.0]]) == pytest.approx((1.25, 17.75))
    # with two lines nobody can say which is the odd one: both shown
    assert style.off_scale([[1.0], [100.0]]) == set()
    assert style.panel_limits([[1.0]], marks=[3.0]) == pytest.approx((0.9, 3.1))  # a paper's mark is in range
    # a score moving from 17.820 to 17.824 is drawn on 2 points (16.822..18.822, padded by 0.1), not magnified
    assert style.panel_limits([[17.820, 17.824]], min_span=2.0) == pytest.approx((16.722, 18.922))
    # BLEU 0.022..0.030 never goes below 0: the 2-point range starts at 0 (padded by 0.1)
    assert style.panel_limits([[0.022, 0.030]], min_span=2.0) == pytest.approx((-0.1, 2.1))


def test_grid_keeps_two_panels_a_row_at_page_width():
    fig, axes = style.panel_grid(5)
    _rendered(fig)
    assert style.max_columns() == 2 and len(axes) == 5
    assert len({round(ax.get_position().y0, 3) for ax in axes}) == 3  # 3 rows: 2 + 2 + 1
    _check_common_rules(fig)


def test_a_title_longer_than_a_line_is_refused():
    with pytest.raises(ValueError, match="one line"):
        style.one_line("a\nb")
    with pytest.raises(ValueError, match="caption"):
        style.one_line("x" * (style.TITLE_CHARACTERS + 1))


def test_curves_draw_each_seed_thin_the_mean_bold_and_a_collapsed_seed_stays_visible(tmp_path):
    # seed 3 collapses to 13; the mean of (40, 42, 13) at epoch 2 is 31.67
    logs = [_loss_log(tmp_path / f"s{k}.csv", [3.0, 2.0], [30.0, v]) for k, v in ((1, 40.0), (2, 42.0), (3, 13.0))]
    fig = _rendered(figure_curves.curves_figure({"SPM": logs}, "ROUGE-2", "ROUGE-2 after each epoch"))
    _check_common_rules(fig)
    ax = fig.axes[0]
    widths = sorted(line.get_linewidth() for line in ax.lines)
    assert widths[:3] == [0.8, 0.8, 0.8] and widths[3] > 2  # three seeds thin, one bold mean
    bold = max(ax.lines, key=lambda line: line.get_linewidth())
    assert list(bold.get_ydata()) == pytest.approx([30.0, 95 / 3])
    low, high = ax.get_ylim()
    assert low < 13.0 and high > 42.0  # the collapsed seed is inside the panel
    _integer_epoch_ticks(ax)
    _legend_below_the_panels(fig)


def test_a_diverged_row_with_seeds_is_clipped_seed_by_seed(tmp_path):
    logs = {"a": [_loss_log(tmp_path / "a.csv", [5.0, 4.0], [1, 2])],
            "b": [_loss_log(tmp_path / "b.csv", [6.0, 3.0], [1, 2])],
            "c": [_loss_log(tmp_path / f"c{k}.csv", [8.0, peak], [1, 2]) for k, peak in ((1, 100.0), (2, 200.0))]}
    curves, _ = figure_curves.row_curves(logs, "train_loss")  # drawn on one panel, as type curves draw rows
    fig, (train,) = style.panel_grid(1)
    figure_curves.draw_rows(train, curves)
    assert train.get_ylim() == pytest.approx((3.0 - 0.15, 6.0 + 0.15))
    thin = [line for line in train.lines if line.get_linewidth() == 0.8]
    assert [list(line.get_ydata()) for line in thin] == [[6.15, 6.15], [6.15, 6.15]]  # both seeds, clipped at the top
    assert [t.get_text() for t in train.texts] == ["peak 150"]  # the mean's peak, written once


def test_a_saved_figure_is_exactly_the_page_width(tmp_path):
    import struct

    fig, _ = style.panel_grid(2)
    fig.legend([], [])
    style.save(fig, tmp_path / "f.png")
    header = (tmp_path / "f.png").read_bytes()[:24]
    assert struct.unpack(">II", header[16:24])[0] == style.PAGE_WIDTH_IN * style.DPI  # 1,300 px: no cropping


def test_more_than_two_seeded_rows_get_a_panel_each_on_its_own_range(tmp_path):
    logs = {name: [_loss_log(tmp_path / f"{name[0]}{k}.csv", [3.0, 2.0], [10.0 * k, v]) for k in (1, 2)]
            for name, v in (("A", 20.0), ("B", 60.0), ("C", 5.0),
                            ("EncDec+sGate+SPM (confirmation seeds 4–6)", 5.0))}
    fig = _rendered(figure_curves.curves_figure(logs, "ROUGE-2", "ROUGE-2 after each epoch"))
    _check_common_rules(fig)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["A (2 seeds)", "B (2 seeds)", "C (2 seeds)",
                                                 "EncDec+sGate+SPM (confirmation\nseeds 4–6)"]  # wrapped, not overrun
    # each row's own seeds: A 10..20 (pad 0.5), B 10..60 (pad 2.5), C 5..20 (pad 0.75)
    assert [ax.get_ylim() for ax in panels[:3]] == [pytest.approx((9.5, 20.5)), pytest.approx((7.5, 62.5)),
                                                    pytest.approx((4.25, 20.75))]
    bold = [max(ax.lines, key=lambda line: line.get_linewidth()) for ax in panels]
    assert [b.get_color() for b in bold] == [style.colour(k) for k in range(4)]


def test_loss_curves_clip_a_diverged_run_with_a_marker_instead_of_squashing_the_others(tmp_path):
    logs = {"nmt": [_loss_log(tmp_path / "a.csv", [5.0, 4.0, 3.5, 3.2], [1, 2, 3, 4])],
            "transformer": [_loss_log(tmp_path / "b.csv", [6.0, 4.5, 4.0, 3.0], [1, 2, 3, 4])],
            "critic sum": [_loss_log(tmp_path / "c.csv", [8.0, 50.0, 220.0, 210.0], [1, 2, 3, 4])]}
    fig = _rendered(figure_curves.loss_figure(logs, "Loss per token"))
    _check_common_rules(fig)
    train = fig.axes[0]
    assert train.get_yscale() == "log"  # losses near 0 stay apart
    # 3..6 of the two others, padded by 5 % of the decades shown: a factor (6 / 3) ** 0.05 each way
    assert train.get_ylim() == pytest.approx((3.0 / 2 ** 0.05, 6.0 * 2 ** 0.05))
    labels = [line.get_label() for line in train.lines]
    assert "critic sum" in labels and style.OFF_SCALE_LABEL in labels  # the row by name, the triangle explained once
    assert [t.get_text() for t in train.texts] == ["peak 220"]
    _legend_below_the_panels(fig)
    markers = [line for line in train.lines if line.get_marker() == "^" and line.get_linestyle() == "None"]
    assert [len(m.get_xdata()) for m in markers] == [4, 0]  # 8, 50, 220, 210 all above the top 6.21; the entry
    _integer_epoch_ticks(train)


def test_type_curves_give_each_rule_type_its_own_range_and_the_papers_value(tmp_path):
    logs = {"CopyNet": [_loss_log(tmp_path / "c.csv", [3.0, 2.0], [10.0, 20.0])]}
    columns = {"x_to_0": ("valid_em_x_to_0", "x → ∅"), "x_to_x": ("valid_em_x_to_x", "x → x")}
    fig = _rendered(figure_curves.type_curves_figure(logs, columns, {"CopyNet": {"x_to_0": 50.0}}, "Per type"))
    _check_common_rules(fig)
    first, second = [ax for ax in fig.axes if ax.get_visible()][:2]
    assert first.get_ylim() == pytest.approx((10 - 2.0, 50 + 2.0))  # 10..50 (the paper's dashed 50), padded
    assert second.get_ylim() == pytest.approx((80 - 0.5, 90 + 0.5))  # 100 - m: 90, 80; 5 % of 10
    _integer_epoch_ticks(first)


def test_training_panels_scale_each_panel_to_its_own_values(tmp_path):
    log = _log(tmp_path / "t.csv", [{"epoch": 1, "train_loss": 8.0, "valid_loss": 7.0, "valid_sari": 18.0,
                                     "valid_bleu": 0.5, "train_accuracy": 8.0, "valid_accuracy": 10.0,
                                     "train_critic": -188.0},
                                    {"epoch": 2, "train_loss": 4.0, "valid_loss": 5.0, "valid_sari": 30.0,
                                     "valid_bleu": 2.5, "train_accuracy": 20.0, "valid_accuracy": 22.0,
                                     "train_critic": -10.0}])
    fig = _rendered(figure_curves.training_panels_figure(log, "nmt: training log per epoch"))
    _check_common_rules(fig)
    limits = {ax.get_title(): ax.get_ylim() for ax in fig.axes if ax.get_visible()}
    assert limits["validation SARI"] == pytest.approx((17.4, 30.6))  # 18..30, not 0..100
    assert limits["validation BLEU"] == pytest.approx((0.4, 2.6))  # 0.5..2.5: a 2-point span already
    assert limits["critic term (per token)"] == pytest.approx((-196.9, -1.1))
    for ax in fig.axes:
        if ax.get_visible():
            _integer_epoch_ticks(ax)


def test_odd_generation_bars_show_each_seed_as_a_dot(tmp_path):
    runs = [{"sentences_with_repeats": 10, "sentences_short": 4}, {"sentences_with_repeats": 14, "sentences_short": 4},
            {"sentences_with_repeats": 40, "sentences_short": 5}]
    fig = _rendered(figure_bars.odd_generation_figure({"EncDec": runs, "SPM": runs[:1]}, "Odd generation"))
    _check_common_rules(fig)
    dots = [line for line in fig.axes[0].lines if line.get_marker() == "o"]
    assert sorted(y for d in dots for y in d.get_ydata()) == [4, 4, 5, 10, 14, 40]  # EncDec's three seeds, twice
    # labels: EncDec's mean 21.3 (10, 14, 40) above its highest seed (40 > 21.3 + sd 16.6), SPM's 10 above its bar
    labels = {t.get_text(): t.xy[1] for t in fig.axes[0].texts}
    assert labels["21.3"] == 40 and labels["10"] == 10
    _legend_below_the_panels(fig)


def _alignment_example(line: int) -> dict:
    return {"line": line, "source": ["c1", "f1", "c2"], "target": ["c1", "c2"], "gold": [[0, 0], [2, 1]],
            "attention": [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]], "attention_argmax": [0, 2],
            "source_prediction": [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]], "spm_words": ["c1", "c2"]}


def test_alignment_heat_maps_are_one_figure_per_model_naming_its_seed_and_lines():
    examples = [_alignment_example(1), _alignment_example(2)]
    fig = _rendered(figure_heatmaps.alignment_figure(examples, "attention", "EncDec", 1))
    _check_common_rules(fig)
    assert fig._suptitle.get_text() == "attention of EncDec (seed 1)"
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["test line 1", "test line 2"]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["c1 [c1]", "c2 [c2]"]  # argmax 0 -> c1, 2 -> c2
    other = figure_heatmaps.alignment_figure(examples, "prediction", "EncDec+SPM", 4)
    assert other._suptitle.get_text() == "source-side prediction q_j of EncDec+SPM (seed 4)"


def test_copy_heat_map_labels_each_fillers_tokens_with_their_variable():
    trace = {"source": ["a", "b", "k1", "k2", "c"], "output": ["k1", "k2", "</s>"], "line": 7, "correct": True,
             "reference": ["k1", "k2"], "copy_probs": [[0, 0, 0.9, 0.05, 0], [0, 0, 0.1, 0.8, 0], [0, 0, 0, 0, 0]],
             "generate_mass": [0.05, 0.1, 1.0], "spans": {"x": [2, 4]}}
    fig = _rendered(figure_heatmaps.copy_heatmap_figure([trace], "CopyNet copy mode on rule type x->x"))
    _check_common_rules(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["a", "b", "x | k1", "x | k2", "c"]


def test_a_looping_output_shows_its_first_32_steps_and_says_how_many_it_had():
    trace = {"source": ["a", "b"], "output": ["a"] * 90 + ["</s>"], "line": 2, "correct": False,
             "reference": ["a", "b"], "copy_probs": [[0.5, 0.5]] * 91, "generate_mass": [0.0] * 91}
    fig = _rendered(figure_heatmaps.copy_heatmap_figure([trace], "CopyNet copy mode on rule type x->x"))
    _check_common_rules(fig)
    top, bottom = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"][:2]
    assert top.get_title() == "test line 2: output ≠ reference (steps 1-32 of 91)"
    assert len(bottom.get_xticklabels()) == 32 and top.images[0].get_array().shape == (2, 32)


def test_an_attention_map_has_no_generate_strip_and_its_reference_stays_on_the_page():
    reference = [f"w{k}" for k in range(24)]  # 24 tokens: about 95 characters, wrapped under the map
    trace = {"source": ["a", "b", "c"], "output": ["a", "c", "</s>"], "line": 401, "correct": False,
             "reference": reference, "attention": [[0.8, 0.1, 0.1], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]}
    fig = _rendered(figure_heatmaps.trace_heatmap_figure([trace], "RNNSearch attention on rule type x->x",
                                                         "attention"))
    _check_common_rules(fig)
    maps = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert len(maps) == 1 and maps[0].get_ylabel() == "source token"  # no generate strip
    assert maps[0].images[0].get_array().tolist() == [[0.8, 0.1, 0.3], [0.1, 0.1, 0.3], [0.1, 0.8, 0.4]]
