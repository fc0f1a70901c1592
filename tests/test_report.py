import pytest
import json
from pathlib import Path

from paragen.config.papers import PaperTable

from paragen.report.render import to_csv, to_latex, to_markdown

from paragen.report.tables import fill_table
from conftest import write_test_outputs


def _metrics(path: Path, by_tag: dict) -> Path:
    path.write_text(json.dumps({"metric": "exact", "score": 0, "count": 10,
                                "by_tag": {k: {"top1": v} for k, v in by_tag.items()}}))
    return path


def test_copynet_table1_numbers_are_the_papers():
    paper = PaperTable.load("copynet_table1")
    assert [c.key for c in paper.columns] == ["x->0", "x->x", "x->xx", "xy->x", "xy->xy"]
    assert paper.rows["CopyNet"] == {"x->0": 97.3, "x->x": 93.7, "x->xx": 98.3, "xy->x": 68.2, "xy->xy": 77.5}
    assert paper.rows["RNNSearch"]["x->x"] == 69.4
    assert paper.rows["Enc-Dec"]["xy->xy"] == 0.0


def test_cells_show_paper_reproduced_difference_and_reasons(tmp_path):
    paper = PaperTable.load("copynet_table1")
    copynet = _metrics(tmp_path / "c.json", {"x->0": 90.0, "x->x": 95.0, "x->xx": 50.0, "xy->x": 70.0,
                                             "xy->xy": 80.0})
    rows = {"CopyNet": copynet, "RNNSearch": tmp_path / "missing.json", "WEAN": copynet}
    table = fill_table("t", "Title", "Caption.", paper, rows)
    cell = table.cells[("CopyNet", "x->0")]
    assert (cell.paper, cell.reproduced) == (97.3, 90.0) and round(cell.difference, 1) == -7.3
    assert "not yet run" in table.cells[("RNNSearch", "x->x")].note
    assert table.cells[("WEAN", "x->x")].note == "not in paper"
    md = to_markdown(table)
    assert "| CopyNet | 97.3 / 90.0 (-7.3) |" in md
    assert "| RNNSearch | 99.0 / — |" in md
    assert "Caption." in md and "not yet run" in md
    csv_text = to_csv(table)
    assert "t,CopyNet,x->0,,97.3,90.0,-7.3," in csv_text  # the CSV keeps exact values, unrounded
    assert "t,WEAN,x->x,,,95.0,,not in paper" in csv_text
    tex = to_latex(table)
    assert r"x $\rightarrow$ $\emptyset$" in tex and r"\label{tab:t}" in tex


def _log(scores: list[float]) -> list[dict[str, float]]:
    return [{"epoch": float(i), "valid_metric": s} for i, s in enumerate(scores, start=1)]


def _training(max_epochs: int, patience: int, min_epochs: int = 0):
    from paragen.config import TrainingConfig

    return TrainingConfig(max_epochs=max_epochs, patience=patience, min_epochs=min_epochs)


def test_training_outcome_tells_early_stopping_from_the_epoch_cap():
    from paragen.training.stopping import training_outcome

    still_improving = training_outcome(_log([1, 2, 3, 4, 5]), _training(5, 2))
    assert (still_improving.best_epoch, still_improving.epochs_run, still_improving.hit_cap) == (5, 5, True)
    assert still_improving.describe() == ("best epoch 5 of 5 run; hit the 5-epoch cap while still improving: "
                                          "possibly under-trained")
    plateau_at_cap = training_outcome(_log([1, 4, 3, 3, 3]), _training(5, 4))  # 3 epochs without gain < patience 4
    assert (plateau_at_cap.best_epoch, plateau_at_cap.hit_cap) == (2, True)
    assert "3 epoch(s) after its best, before early stopping (patience 4)" in plateau_at_cap.describe()
    early = training_outcome(_log([1, 9, 3, 3, 3, 3, 3, 3]), _training(25, 3))  # ties are not gains
    assert (early.best_epoch, early.epochs_run, early.hit_cap) == (2, 5, False)
    assert early.describe() == "best epoch 2 of 5 run; stopped early (3 epochs without a validation gain)"
    both = training_outcome(_log([1, 9, 3, 3]), _training(4, 2))  # patience runs out on the last allowed epoch
    assert (both.epochs_run, both.hit_cap) == (4, False)


def test_min_epochs_keeps_a_run_whose_metric_is_still_flat_at_zero():
    """The SPM stand-in runs' case: validation ROUGE-2 0, 0, 0, ... then a rise. Patience 3 alone stops at
    epoch 4 (first 0 is the best, three ties after it); min_epochs 6 lets it reach the rise at epoch 6, and
    the rule still stops 3 epochs after the best once past the floor."""
    from paragen.training.stopping import replayed_stop, training_outcome

    flat_then_rise = _log([0, 0, 0, 0, 0, 40, 41, 41, 41, 41, 41, 41])
    assert replayed_stop(flat_then_rise, _training(12, 3)) == 4
    floored = training_outcome(flat_then_rise, _training(12, 3, min_epochs=6))
    assert (floored.best_epoch, floored.epochs_run, floored.hit_cap) == (7, 10, False)
    assert floored.describe() == ("best epoch 7 of 10 run; stopped early (3 epochs without a validation gain; "
                                  "no early stop before epoch 6)")
    late = training_outcome(_log([5, 0, 0, 0, 0, 0, 0]), _training(12, 3, min_epochs=6))  # 5 bad epochs by 6
    assert (late.best_epoch, late.epochs_run) == (1, 6)
    assert late.describe().endswith("stopped early (5 epochs without a validation gain; no early stop before "
                                    "epoch 6)")


def test_tables_state_best_epoch_epochs_run_and_the_cap(tmp_path):
    from paragen.training.stopping import training_outcome

    paper = PaperTable.load("copynet_table1")
    copynet = _metrics(tmp_path / "c.json", {"x->0": 90.0, "x->x": 95.0, "x->xx": 50.0, "xy->x": 70.0,
                                             "xy->xy": 80.0})
    table = fill_table("t", "Title", "Caption.", paper, {"CopyNet": copynet, "Enc-Dec": copynet})
    table.training["CopyNet"] = [(None, training_outcome(_log([1, 2, 3]), _training(3, 2)))]
    table.training["Enc-Dec"] = [(None, training_outcome(_log([5, 1, 1]), _training(9, 2)))]
    md = to_markdown(table)
    assert "- CopyNet: best epoch 3 of 3 run; hit the 3-epoch cap while still improving: possibly under-trained" in md
    assert "- Enc-Dec: best epoch 1 of 3 run; stopped early (2 epochs without a validation gain)" in md
    csv_text = to_csv(table)
    assert csv_text.splitlines()[0].endswith(",best_epoch,epochs_run,hit_epoch_cap")
    assert "t,CopyNet,x->0,,97.3,90.0,-7.3,,3,3,true" in csv_text and "t,Enc-Dec,x->0,,100.0,90.0,-10.0,,1,3,false" in csv_text
    assert "best epoch" not in to_latex(table)  # training lines stay in the Markdown, not the LaTeX caption


def test_report_figures_say_what_they_plot_and_on_which_split(tmp_path, monkeypatch, tiny_config):
    from paragen.report import build

    monkeypatch.chdir(tmp_path)
    Path("results/metrics").mkdir(parents=True)
    for experiment in ("t_encdec", "t_copynet", "t_wean"):
        _metrics(Path(f"results/metrics/{experiment}.json"), {"x->x": 50.0})
        Path(f"runs/{experiment}").mkdir(parents=True)
        Path(f"runs/{experiment}/train_log.csv").write_text("epoch,valid_metric\n1,10.0\n2,20.0\n")
    trace = {"source": ["a"], "output": ["a", "</s>"], "copy_probs": [[0.9], [0.1]], "generate_mass": [0.1, 0.9],
             "reference": ["a"]}
    Path("runs/t_copynet/copy_trace.json").write_text(json.dumps(
        {"x->x": {"correct": {**trace, "line": 3, "correct": True}, "wrong": None}}))
    calls = {}
    monkeypatch.setattr(build, "plot_curves", lambda logs, path, label, title, column, **kw: calls.update(curves=(label, title)))
    monkeypatch.setattr(build, "plot_copy_heatmap", lambda shown, path, title: calls.update(heatmap=(shown, title)))
    write_test_outputs(tiny_config, "copynet_synthetic")
    build.build_table_report(tiny_config, "copynet_synthetic")
    label, title = calls["curves"]
    assert label == "validation exact-match accuracy (%)"
    assert title == "Validation exact-match accuracy (%) after each epoch (copynet_synthetic)"  # one line: the
    shown, title = calls["heatmap"]  # detail is in the caption, below
    assert [s["line"] for s in shown] == [3]  # no wrong output of that rule type: only the correct one is shown
    assert title == "CopyNet copy mode on rule type x->x"
    from paragen.pipeline.report_stages import table_report_items
    from paragen.pipeline.tables import table_plan

    captions = {Path(i.path).name: i.caption for i in table_report_items(tiny_config, table_plan(tiny_config,
                                                                                                  "copynet_synthetic"))}
    assert "on the validation split of tiny" in captions["copynet_synthetic_valid_curves.png"]
    assert "not the table's test scores" in captions["copynet_synthetic_valid_curves.png"]
    assert "first test line of the rule type whose top-1 output equals the reference" in \
        captions["copynet_synthetic_copy_heatmap.png"]
    assert Path("results/figures/copynet_synthetic_loss_curves.png").stat().st_size > 0
    assert "best epoch 2 of 2 run" in Path("results/tables/copynet_synthetic.md").read_text()


def test_runs_logging_the_simplification_metrics_get_003_figure_1_panels(tmp_path, monkeypatch, tiny_config):
    from paragen.pipeline import plan
    from paragen.config import parse_config
    from paragen.report import figure_curves

    monkeypatch.chdir(tmp_path)
    raw = tiny_config.model_dump(exclude_unset=True)
    training = raw["experiments"]["t_copynet"]["training"]
    raw["training"][training] = {**raw["training"][training], "log_metrics": ["bleu"]}
    config = parse_config(raw)
    report = next(s for s in plan.stages(config) if s.name == "report_copynet_synthetic")
    panel_paths = [p for p in report.outs if p.endswith("_training.png")]
    assert panel_paths and all(p.startswith("results/figures/copynet_synthetic_t_") for p in panel_paths)
    # the figure itself: six panels in 003 Figure 1's order; a column the log lacks is said to be missing
    log = Path("train_log.csv")
    log.write_text("epoch,train_loss,valid_loss,valid_metric,train_accuracy,valid_accuracy,valid_bleu\n"
                   "1,3.0,2.5,10,40.0,45.0,10.0\n2,2.0,2.2,20,55.0,50.0,20.0\n")
    fig = figure_curves.training_panels_figure(log, "title")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == [label for _, label in figure_curves.TRAINING_PANELS]  # no critic
    assert [t.get_text() for ax in shown for t in ax.texts] == ["valid_sari\nnot in this log"]
    assert [list(ax.lines[0].get_ydata()) if ax.lines else None for ax in shown][1:] == [
        [10.0, 20.0], [40.0, 55.0], [45.0, 50.0], [3.0, 2.0], [2.5, 2.2]]


def test_curves_never_mix_selection_metrics():
    from paragen.config import load_config, parse_config
    from paragen.pipeline import curves, dvc, plan

    from conftest import ROOT

    raw = load_config(ROOT / "params.yaml").model_dump(exclude_unset=True)
    raw.update(suites=["simplification"], data=["turk", "wikilarge"])
    config = parse_config(raw)
    # NMT selects by validation loss, the Transformers by SARI: both log SARI, so the curves plot SARI
    # (the label names the tokens validation scores: wikilarge's words)
    assert curves.curve_column(config, ["simp_nmt", "simp_transformer"]) == ("valid_sari", "validation SARI on words")
    assert curves.curve_column(config, ["simp_transformer", "simp_dmass"]) == \
        ("valid_metric", "validation SARI on words")
    plots = {k: v for p in dvc.dvc_plots(plan.build_plan(config)) for k, v in p.items()}
    assert set(plots["simplification_valid_curves"]["y"].values()) == {"valid_sari"}
    raw["training"]["nmt_simp"]["log_metrics"] = []
    with pytest.raises(ValueError, match="give every one of these trainings the same log_metrics entry"):
        parse_config(raw)  # refused when params.yaml is read, before any plot is asked for


def test_captions_name_the_hardware_wall_time_and_resumptions(tmp_path):
    from paragen.report.captions import describe_hardware
    one, two, old = tmp_path / "one", tmp_path / "two", tmp_path / "old"
    for run, sessions, walls in ((one, [{"first_epoch": 1, "device": "GPU A"}], [30.0, 90.0]),
                                 (two, [{"first_epoch": 1, "device": "GPU A"}, {"first_epoch": 3, "device": "CPU B"}],
                                  [60.0, 60.0, 60.0]),
                                 (old, None, [10.0])):
        run.mkdir()
        (run / "train_log.csv").write_text("epoch,train_loss,valid_loss,valid_metric,wall_time_s\n" + "".join(
            f"{i + 1},1.0,1.0,5.0,{w}\n" for i, w in enumerate(walls)))
        if sessions is not None:
            (run / "sessions.json").write_text(json.dumps(sessions))
    text = describe_hardware({"Row 1": one, "Row 2": two, "Old": old})
    assert "Trained on CPU B and GPU A;" in text
    # two devices among the rows: each row names its own (Row 2 moved from GPU A to CPU B at epoch 3)
    assert "Row 1 2.0 min (GPU A); Row 2 3.0 min (GPU A, CPU B), resumed at epoch 3." in text
    same = describe_hardware({"Row 1": one})
    assert same.endswith("Trained on GPU A; wall time per row (training and per-epoch validation, summed over "
                         "epochs): Row 1 2.0 min.")  # one device: said once
    assert "Old" not in text  # a run without session records is left out, not guessed
    assert describe_hardware({"Old": old}) == ""
    from paragen.report.captions import hardware_summary

    assert hardware_summary({"Row 1": one, "Row 2": two, "Old": old}) == \
        " Trained on CPU B (Row 2) and GPU A (Row 1, Row 2): 5 min of training over 2 run(s)."  # rows per device


def test_setup_goes_under_the_table_not_into_the_latex_caption(tmp_path):
    from paragen.training.stopping import TrainingOutcome

    paper = PaperTable.load("copynet_table1")
    table = fill_table("t", "Title", "Short caption.", paper, {"CopyNet": tmp_path / "missing.json"})
    table.setup = ["Rows without training: a long provenance paragraph."]
    table.training = {"CopyNet": [(None, TrainingOutcome(best_epoch=3, epochs_run=5, max_epochs=9, patience=2))]}
    md, tex = to_markdown(table), to_latex(table)
    assert "Setup:\n- Rows without training: a long provenance paragraph." in md
    assert "best epoch 3 of 5 run" in md
    assert "provenance" not in tex and "best epoch" not in tex and "Short caption." in tex


def test_a_floor_above_the_cap_is_refused():
    with pytest.raises(ValueError, match=r"min_epochs \(9\) must not exceed max_epochs \(8\)"):
        _training(8, 3, min_epochs=9)


def test_one_run_cells_show_the_rule_interval_as_plus_minus_and_in_the_csv(tmp_path):
    paper = PaperTable.load("copynet_table1")
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"metric": "exact", "score": 0, "count": 10, "by_tag": {
        t: {"top1": 80.0, **({"top1_ci95": [70.0, 86.0]} if t == "xy->xy" else {})}
        for t in ["x->0", "x->x", "x->xx", "xy->x", "xy->xy"]}}))
    table = fill_table("t", "Title", "Caption.", paper, {"CopyNet": path})
    assert table.cells[("CopyNet", "xy->xy")].interval == (70.0, 86.0)
    md = to_markdown(table)
    assert "77.5 / 80.0 ± 8.0 (+2.5)" in md  # (86 - 70) / 2
    assert "| 97.3 / 80.0 (-17.3) |" in md  # no interval in the file: no ±
    assert "95 % interval" in md
    lines = to_csv(table).splitlines()
    assert lines[0].endswith(",ci95_low,ci95_high")
    assert any(line.startswith("t,CopyNet,xy->xy,") and line.endswith(",70.0,86.0") for line in lines)


def test_a_run_is_judged_by_the_stopping_rule_it_trained_under():
    """Issue 24: after raising max_epochs 8 -> 14 in params.yaml, a finished 8-epoch run still ending on its best
    epoch hit *its* cap (8); judged by the new setting it read 'stopped early (0 epochs without a gain)'."""
    from paragen.training.stopping import trained_with, training_outcome

    log = _log([1, 2, 3, 4, 5, 6, 7, 8])
    now = _training(14, 6)
    sessions = [{"first_epoch": 1, "device": "cpu", "stopping": {"max_epochs": 8, "patience": 6, "min_epochs": 0}}]
    outcome = training_outcome(log, trained_with(sessions, now))
    assert (outcome.best_epoch, outcome.epochs_run, outcome.max_epochs, outcome.hit_cap) == (8, 8, 8, True)
    assert outcome.describe().startswith("best epoch 8 of 8 run; hit the 8-epoch cap while still improving")
    assert trained_with([{"first_epoch": 1, "device": "cpu"}], now) is now  # older runs: today's settings


def test_rows_still_training_are_marked(tmp_path):
    from paragen.training.runlock import lock_holder, run_lock

    assert lock_holder(tmp_path / "run") is None
    with run_lock(tmp_path / "run"):
        holder = lock_holder(tmp_path / "run")
        assert holder is not None and holder.split()[0].isdigit()
    assert lock_holder(tmp_path / "run") is None
    paper = PaperTable.load("copynet_table1")
    table = fill_table("t", "Title", "Caption.", paper, {"CopyNet": tmp_path / "missing.json"})
    table.training_notes.append("CopyNet: still training (runs/x is held by process 1)")
    assert "- CopyNet: still training (runs/x is held by process 1)" in to_markdown(table)


def _scores_table(tmp_path: Path, rows: dict, columns: list, published: dict) -> PaperTable:
    from paragen.config.papers import Column

    return PaperTable("P", "T1", "m", [Column(**c) for c in columns], published, decimals=2, study="simplification")


def test_one_published_number_beside_two_scorings_and_a_row_that_is_not_the_papers(tmp_path):
    metrics = tmp_path / "m.json"
    metrics.write_text(json.dumps({"bleu": {"score": 99.0}, "report_protocol": {"bleu": {"score": 61.0}}}))
    columns = [{"key": "bleu", "label": "BLEU", "value": "bleu/score"},
               {"key": "bleu_003", "label": "BLEU (003)", "value": "report_protocol/bleu/score", "paper": "bleu"}]
    paper = _scores_table(tmp_path, {}, columns, {"identity": {"bleu": 61.5}, "phrase": {"bleu": 55.0}})
    table = fill_table("t", "T", "C.", paper, {"identity": metrics, "phrase": metrics},
                       not_comparable={"phrase": "equals identity: no phrasal rule"})
    both = table.cells[("identity", "bleu")], table.cells[("identity", "bleu_003")]
    assert [(c.paper, c.reproduced) for c in both] == [(61.5, 99.0), (61.5, 61.0)]
    assert both[1].difference == pytest.approx(-0.5)
    phrase = table.cells[("phrase", "bleu_003")]
    assert (phrase.paper, phrase.reproduced, phrase.difference) == (55.0, 61.0, None)
    assert phrase.note == "equals identity: no phrasal rule"
    md = to_markdown(table)
    assert "| phrase | 55.00 / 99.00 | 55.00 / 61.00 |" in md  # both numbers, no difference
    assert "phrase (every column): equals identity: no phrasal rule" in md


def test_a_table_without_published_rows_does_not_mark_every_cell(tmp_path):
    metrics = tmp_path / "m.json"
    metrics.write_text(json.dumps({"bleu": {"score": 40.0}}))
    paper = _scores_table(tmp_path, {}, [{"key": "bleu", "label": "BLEU", "value": "bleu/score"}], {})
    table = fill_table("t", "T", "C.", paper, {"ours": metrics})
    assert table.cells[("ours", "bleu")].note == ""
    assert "not in paper" not in to_markdown(table)


def test_latex_escapes_what_latex_would_misread():
    from paragen.report.render import latex_escape

    # OT1 encoding prints < and > as inverted exclamation and question marks; _ & % # $ { } start commands
    assert latex_escape("c<i> -> r<i>") == r"c\textless{}i\textgreater{} -\textgreater{} r\textless{}i\textgreater{}"
    assert latex_escape("a_b & 5% #1 $x {y}") == r"a\_b \& 5\% \#1 \$x \{y\}"
    assert latex_escape("~^\\") == r"\textasciitilde{}\textasciicircum{}\textbackslash{}"
    assert latex_escape("§5.5") == r"\S{}5.5"
    assert latex_escape("p ≤ 0.001") == r"p $\leq$ 0.001"  # a bootstrap p at its resolution (report.comparisons)


def test_a_latex_table_with_special_characters_compiles(tmp_path):
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (Debian: texlive-latex-base); the escaping is pinned above")
    metrics = tmp_path / "m.json"
    metrics.write_text(json.dumps({"bleu": {"score": 40.0}}))
    paper = _scores_table(tmp_path, {}, [{"key": "bleu", "label": "BLEU_1 <c<i>> & 5%", "value": "bleu/score"}],
                          {"row #1 ~ {x} $ ^ \\ §5": {"bleu": 39.0}})
    table = fill_table("t_x", "T", "Caption: c<i> -> r<i> 100% & _.", paper, {"row #1 ~ {x} $ ^ \\ §5": metrics})
    document = tmp_path / "doc.tex"
    document.write_text("\\documentclass{article}\n\\begin{document}\n" + to_latex(table) + "\\end{document}\n")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", document.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]


def test_odd_generation_bars_are_the_mean_over_seeds_with_sd(tmp_path, monkeypatch):
    import matplotlib.axes

    from paragen.report import figures

    bars = []
    real_bar = matplotlib.axes.Axes.bar
    monkeypatch.setattr(matplotlib.axes.Axes, "bar", lambda self, x, heights, width, **kw: bars.append(
        (list(heights), kw.get("yerr"), kw.get("label"))) or real_bar(self, x, heights, width, **kw))
    runs = [{"sentences_with_repeats": 10, "sentences_short": 4, "sentences": 100},
            {"sentences_with_repeats": 14, "sentences_short": 4, "sentences": 100}]
    figures.plot_odd_generation({"EncDec": runs, "SPM": runs[:1]}, tmp_path / "odd.png", "t")
    assert bars[0][0] == [12.0, 4.0] and bars[0][1] == pytest.approx([2 ** 0.5 * 2, 0.0])  # sd of 10, 14 = 2.83
    assert bars[0][2] == "EncDec (mean ± sd of 2 seeds)"
    assert bars[1] == ([10.0, 4.0], None, "SPM")


def test_a_baseline_published_under_another_scoring_shows_no_difference_in_that_column(tmp_path):
    from paragen.config.papers import Baseline, Column

    columns = [Column("bleu", "BLEU", "bleu/score"), Column("bleu_003", "BLEU (003)", "x/score", paper="bleu")]
    baseline = Baseline("SOTA", {"bleu": 73.08}, "T1", [
        {"column": "bleu", "test_set": "turk", "system": "S", "metric": "BLEU"},
        {"column": "bleu_003", "test_set": "turk", "system": "S", "metric": "BLEU (003)"}],
        {"bleu_003": "published under the standard scoring"})
    paper = PaperTable("P", "T1", "m", columns, {}, [baseline], 2, "simplification")
    table = fill_table("t", "T", "C.", paper, {}, rescored={("turk", "S", "BLEU"): 73.08,
                                                            ("turk", "S", "BLEU (003)"): 47.63})
    assert table.cells[("SOTA", "bleu")].difference == pytest.approx(0.0)
    cell = table.cells[("SOTA", "bleu_003")]
    assert (cell.paper, cell.reproduced, cell.difference) == (73.08, 47.63, None)
    assert cell.note.endswith("; published under the standard scoring")


def test_the_in_vocabulary_ceiling_row_says_what_it_writes():
    from paragen.config import load_config
    from paragen.report.captions import describe_systems

    from conftest import ROOT

    config = load_config(ROOT / "params.yaml")
    assert "mini_copy_ceiling: the source with every word outside the output vocabulary written as <unk>" in \
        describe_systems(config, ["mini_copy_ceiling"])
    assert "mini_identity: the source unchanged" in describe_systems(config, ["mini_identity"])
