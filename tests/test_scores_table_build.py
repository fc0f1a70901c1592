"""What :func:`paragen.report.build.build_scores_table` hands on, read before it is rendered: the table it writes
(captured at ``build._write``), each figure call with its arguments (the plotters replaced by recorders) and its
log lines. The configuration is tests/fixtures/tiny_params.yaml's copynet_synthetic table with the changes each
test names; every expected value is written out by hand from it (paths from the layout in docs/output.md)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml

from paragen.config import ParagenConfig, parse_config
from paragen.report import build

from conftest import TINY_PARAMS, write_lines, write_trained_run

TABLE = "copynet_synthetic"
TABLE_FILES = ", ".join(f"results/tables/{TABLE}.{ext}" for ext in ("md", "csv", "tex"))
"""The table's three files as its log lines name them."""
PLOTTERS = ("plot_curves", "plot_copy_heatmap", "plot_loss_curves", "plot_type_curves", "plot_training_panels",
            "write_examples", "plot_attention_trace")


def _raw() -> dict:
    return yaml.safe_load(TINY_PARAMS.read_text(encoding="utf-8"))


def _config(seeds: int | None = None, **table):
    raw = _raw()
    raw["tables"][TABLE].update(table)
    if seeds is not None:
        raw["seeds"] = seeds
    return parse_config(raw)


@pytest.fixture
def written(monkeypatch, tmp_path):
    """Run in tmp_path; the tables handed to ``_write`` (the files are written too)."""
    monkeypatch.chdir(tmp_path)
    tables = []
    real = build._write
    monkeypatch.setattr(build, "_write", lambda table: tables.append(table) or real(table))
    return tables


def _trained(run: str, walls: list[float]) -> None:
    write_trained_run(Path(f"runs/{run}"), walls, [{"first_epoch": 1, "device": "CPU A"}])


def test_the_note_ends_the_caption_and_the_setup_opens_with_the_tables_setup(written):
    build.build_table_report(_config(note="A note.", setup="  Setup text.  "), TABLE, figures=False)
    [table] = written
    assert table.caption.endswith(" beam 3. A note.")
    assert table.setup == ["Setup text."]  # stripped; no systems, no embeddings, no hardware: nothing else
    assert Path(f"results/tables/{TABLE}_comparisons.csv").is_file()  # its comparison's CSV, under its own name


def test_one_seed_rows_carry_no_seed_and_a_held_run_is_noted(written, monkeypatch):
    """Enc-Dec and CopyNet trained (2 epochs of 60 s each: 2.0 min); CopyNet's run folder is held by a process.
    Training outcomes keyed by seed None; the note names the folder and its holder; setup names each row's time."""
    _trained("t_encdec", [60.0, 60.0])
    _trained("t_copynet", [60.0, 60.0])
    monkeypatch.setattr(build, "lock_holder", lambda run_dir: "4321 (paragen train)" if "copynet" in str(run_dir)
                        else None)
    build.build_table_report(_config(), TABLE, figures=False)
    [table] = written
    assert table.training_notes == ["CopyNet: still training (runs/t_copynet is held by process 4321 (paragen "
                                    "train)); its cells are from an earlier run or empty"]
    assert sorted(table.training) == ["CopyNet", "Enc-Dec"]
    assert [seed for seed, _ in table.training["Enc-Dec"]] == [None]
    assert table.setup == ["Trained on CPU A; wall time per row (training and per-epoch validation, summed over "
                           "epochs): Enc-Dec 2.0 min; CopyNet 2.0 min."]
    assert table.caption.endswith(" Trained on CPU A: 4 min of training over 2 run(s). One training run a row (seed "
                                  "1): a reading of it is a hypothesis until another seed repeats it.")


def test_two_seeds_label_each_run_by_its_seed(written, monkeypatch):
    """seeds: 2 gives each row runs of seed 1 and 2 (t_encdec and t_encdec_seed2); the held run's note, the
    training outcomes and the hardware lines say which seed."""
    for run in ("t_encdec", "t_encdec_seed2"):
        _trained(run, [30.0])
    monkeypatch.setattr(build, "lock_holder", lambda run_dir: "9 (x)" if str(run_dir) == "runs/t_encdec_seed2"
                        else None)
    build.build_table_report(_config(seeds=2), TABLE, figures=False)
    [table] = written
    assert table.training_notes == ["Enc-Dec (seed 2): still training (runs/t_encdec_seed2 is held by process 9 "
                                    "(x)); its cells are from an earlier run or empty"]
    assert [seed for seed, _ in table.training["Enc-Dec"]] == [1, 2]
    assert table.setup == ["Trained on CPU A; wall time per row (training and per-epoch validation, summed over "
                           "epochs): Enc-Dec seed 1 0.5 min; Enc-Dec seed 2 0.5 min."]


@pytest.fixture
def plotted(monkeypatch) -> dict[str, list[tuple]]:
    """Each plotter (and the copy trace's reader) replaced by a recorder: {name: [args of each call]}. The trace
    holds one traced rule type, xy → x; its examples are a string naming the type."""
    calls: dict[str, list[tuple]] = {}
    for name in PLOTTERS:
        monkeypatch.setattr(build, name, lambda *args, name=name, **styles: calls.setdefault(name, []).append(args))
    monkeypatch.setattr(build, "read_trace", lambda *args: calls.setdefault("read_trace", []).append(args)
                        or {"xy->x": ["trace"]})
    monkeypatch.setattr(build, "traced_examples", lambda traces, rule_type: f"examples of {rule_type}")
    return calls


def test_each_figure_is_drawn_with_its_own_logs_path_and_title(written, plotted, caplog):
    """Figures on: the validation curves (figures[0], the plan's curve column), CopyNet's copy map on the first
    traced rule type (figures[1]), the loss curves, the per-type curves (figures[-1]) and, with log_metrics on,
    one panel figure per row from its first run's log; then the example outputs; one log line counting the four
    figures of the plan (panels are extra)."""
    for path in ("runs/t_copynet/copy_trace.json", "runs/t_encdec/test.hyp", "runs/t_copynet/test.hyp",
                 "runs/t_wean/test.hyp", "runs/t_encdec/train_log.csv", "runs/t_copynet/train_log.csv",
                 "runs/t_wean/train_log.csv"):  # what the figures read (read by the recorders: never)
        write_lines(Path(path), ["x"])
    raw_config = _config()
    training = raw_config.training["tiny"].model_copy(update={"log_metrics": ["exact_match"]})
    config = raw_config.model_copy(update={"training": {"tiny": training}})
    with caplog.at_level(logging.INFO, logger="paragen"):
        build.build_table_report(config, TABLE, figures=True)
    logs = {row: [Path(f"runs/{e}/train_log.csv")] for row, e in
            (("Enc-Dec", "t_encdec"), ("CopyNet", "t_copynet"), ("WEAN", "t_wean"))}
    figures = f"results/figures/{TABLE}"
    assert plotted["plot_curves"] == [(logs, f"{figures}_valid_curves.png", "validation exact-match accuracy (%)",
                                       f"Validation exact-match accuracy (%) after each epoch ({TABLE})",
                                       "valid_metric")]
    assert plotted["read_trace"] == [(Path("runs/t_copynet/copy_trace.json"), "copy-mode", "t_copynet")]
    assert plotted["plot_copy_heatmap"] == [("examples of xy->x", f"{figures}_copy_heatmap.png",
                                             "CopyNet copy mode on rule type xy->x")]
    assert "plot_attention_trace" not in plotted  # no RNNSearch row
    assert plotted["plot_loss_curves"] == [(logs, f"{figures}_loss_curves.png",
                                            f"Loss per token after each epoch ({TABLE})")]
    [(type_logs, type_path, columns, paper_rows, type_title)] = plotted["plot_type_curves"]
    assert (type_logs, type_path, type_title) == (logs, f"{figures}_type_curves.png",
                                                  f"Validation exact match per rule type ({TABLE})")
    assert plotted["plot_training_panels"] == [
        (Path(f"runs/{e}/train_log.csv"), f"{figures}_{e}_training.png", f"{row} ({e}): training log per epoch")
        for row, e in (("Enc-Dec", "t_encdec"), ("CopyNet", "t_copynet"), ("WEAN", "t_wean"))]
    assert len(plotted["write_examples"]) == 1
    assert [r.getMessage() for r in caplog.records if r.name == build.log.name] == [
        f"wrote {TABLE_FILES} and {4 + 3} figure(s)"]


def _with_paper(monkeypatch, **paper):
    """build_table_report's plan with its paper's fields replaced (e.g. a paper that reports no row)."""
    import dataclasses

    real = build.table_plan
    monkeypatch.setattr(build, "table_plan", lambda config, name: (lambda plan: dataclasses.replace(
        plan, paper=dataclasses.replace(plan.paper, **paper)))(real(config, name)))


NO_PAPER_ROWS = " No paper reports numbers for these rows: every reproduced cell is ours."


def test_a_paper_that_reports_no_row_is_said_to_in_the_caption(written, monkeypatch):
    _with_paper(monkeypatch, rows={})
    build.build_table_report(_config(), TABLE, figures=False)
    assert written[0].caption.endswith(" beam 3." + NO_PAPER_ROWS)


def test_no_such_sentence_for_a_paper_named_none_or_one_with_rows(written, monkeypatch):
    build.build_table_report(_config(), TABLE, figures=False)  # copynet_table1 reports rows
    _with_paper(monkeypatch, rows={}, paper="none (not a paper's setup)")
    build.build_table_report(_config(), TABLE, figures=False)
    assert [t.caption.endswith(" beam 3.") for t in written] == [True, True]


def test_the_reading_reads_each_finished_run_against_the_floor_and_states_its_rules(written, monkeypatch):
    """Reading x → x against Enc-Dec. Enc-Dec and CopyNet trained; CopyNet's run is held, so only Enc-Dec's run is
    read (one line, naming its row). The rules name the column's label and the floor."""
    _trained("t_encdec", [60.0, 60.0])
    _trained("t_copynet", [60.0, 60.0])
    monkeypatch.setattr(build, "lock_holder", lambda run_dir: "1 (x)" if "copynet" in str(run_dir) else None)
    build.build_table_report(_config(reading={"floor": "Enc-Dec", "metric": "x->x"}), TABLE, figures=False)
    [table] = written
    assert [line.split(":")[0] for line in table.readings] == ["Enc-Dec"]
    assert table.reading_rules.startswith("docs/decisions.md M6's rules, fixed before the runs, as M8 reads them: a "
                                          "run whose test x → x is above Enc-Dec's works;")


def test_an_rnnsearch_row_on_rule_data_gets_its_attention_drawn_on_the_copy_maps_rule_type(written, plotted):
    """Add RNNSearch (t_rnnsearch) to the table: after CopyNet's copy map on xy → x (the first traced type here),
    its attention is drawn on the same type, for this table's plan."""
    raw = _raw()
    raw["models"]["rnnsearch"] = {"architecture": "rnnsearch", "embedding_size": 8, "hidden_size": 16}
    raw["experiments"]["t_rnnsearch"] = {"dataset": "tiny", "model": "rnnsearch", "training": "tiny",
                                         "decoding": "beam3"}
    raw["tables"][TABLE]["rows"]["RNNSearch"] = "t_rnnsearch"
    for path in ("runs/t_copynet/copy_trace.json", "runs/t_rnnsearch/attention_trace.json",
                 *(f"runs/{e}/test.hyp" for e in ("t_encdec", "t_copynet", "t_wean", "t_rnnsearch"))):
        write_lines(Path(path), ["x"])
    build.build_table_report(parse_config(raw), TABLE, figures=True)
    [(plan, rule_type)] = plotted["plot_attention_trace"]
    assert (plan.name, plan.attention_rows, rule_type) == (TABLE, ("t_rnnsearch",), "xy->x")


def test_title_rule_ceiling_and_a_row_that_is_not_the_papers_system(written):
    """The table keeps its title; generation statistics with a ceiling below 100 add the ceiling sentence to the
    caption (xy->x at 60.0); WEAN scored 50.0 on x → x but marked not comparable shows no difference and says why,
    while CopyNet's cell keeps its difference from the paper."""
    statistics = {"by_type": {"xy->x": {"test_ceiling": 60.0}}}
    write_lines(Path("data/prepared/tiny/generation.json"), [json.dumps(statistics)])
    for experiment in ("t_copynet", "t_wean"):
        write_lines(Path(f"results/metrics/{experiment}.json"), [json.dumps(
            {"metric": "exact", "score": 0, "count": 12, "by_tag": {"x->x": {"top1": 50.0}}})])
    build.build_table_report(_config(not_comparable={"WEAN": "another vocabulary"}), TABLE, figures=False)
    [table] = written
    assert table.title == "tiny test table"
    assert " Ceiling (best expected exact match" in table.caption and "xy → x 60.0; 100 on the other" in table.caption
    wean, copynet = table.cells[("WEAN", "x->x")], table.cells[("CopyNet", "x->x")]
    assert (wean.reproduced, wean.difference) == (50.0, None) and "another vocabulary" in wean.note
    assert copynet.difference is not None


def test_each_seeds_run_is_read_on_its_own(written):
    """seeds: 2, both of Enc-Dec's runs finished: the reading has a line for each (keyed by seed, not overwritten)."""
    for run in ("t_encdec", "t_encdec_seed2"):
        _trained(run, [30.0, 30.0])
    build.build_table_report(_config(seeds=2, reading={"floor": "Enc-Dec", "metric": "x->x"}), TABLE, figures=False)
    [table] = written
    assert len(table.readings) == 2 and all(line.startswith("Enc-Dec") for line in table.readings)


def _with_identity(rows: dict[str, str]):
    """The tiny configuration plus an identity system on a local dataset (a system row needs a real dataset with a
    test split; nothing is read from it here) and the table's rows replaced."""
    raw = _raw()
    raw["datasets"]["mine"] = {"kind": "local", "files": {s: {"source": f"d/{s}.src", "target": f"d/{s}.tgt"}
                                                          for s in ("train", "valid", "test")}}
    raw["systems"] = {"ident": {"dataset": "mine", "method": "identity"}}
    raw["tables"][TABLE].update(rows=rows, comparisons=[])
    return parse_config(raw)


def test_a_system_row_is_described_in_the_setup(written):
    build.build_table_report(_with_identity({"Enc-Dec": "t_encdec", "Identity": "ident"}), TABLE, figures=False)
    assert written[0].setup == ["Rows without training: ident: the source unchanged."]  # named by its system key


def test_a_table_of_system_rows_only_has_no_scale_in_its_caption_and_draws_nothing(written, caplog):
    """No experiment row: the caption is the metric and the published source alone (no scale, ceiling or overlap
    sentence, nothing in their place); with figures asked for, the log says no trained row can run."""
    with caplog.at_level(logging.INFO, logger="paragen"):
        build.build_table_report(_with_identity({"Identity": "ident"}), TABLE, figures=True)
    assert written[0].caption == ("Exact-match test accuracy (%). Published numbers: Gu et al. (2016), CopyNet, "
                                  "Table 1. Units: exact match: % of test sentences whose top-1 output equals the "
                                  "target, symbol for symbol. ")
    assert [r.getMessage() for r in caplog.records if r.name == build.log.name] == [
        f"wrote {TABLE_FILES} (no trained row can run: no figures)"]


# The kinds of table the tiny configuration does not have by itself: released outputs rescored beside the rows
# (003's and the stand-ins' baseline rows), 004 Table 4's aligned pairs and Figure 4's heat maps, confirmation seeds.

RESCORED = "results/tables/published_outputs.csv"  # paragen published-outputs' table (docs/output.md)


def test_released_outputs_rescored_fill_their_baseline_rows_cells(written):
    """The table quotes turk_mini's paper file, whose three baselines (PBMT-R, EncDecA, DRESS-LS) are rescored from
    their released outputs. The rescoring table has PBMT-R on the Turk test (BLEU 81.25, legacy SARI 38.5) and
    EncDecA on another test set only: PBMT-R's cells hold those two numbers (no published number: "not in paper"),
    EncDecA's none (its Turk outputs were not rescored)."""
    write_lines(Path(RESCORED), ["test_set,system,metric,ours", "turk,PBMT-R,BLEU,81.25",
                                 "turk,PBMT-R,SARI (legacy),38.5", "newsela,EncDecA,BLEU,12.0"])
    build.build_table_report(_config(paper="turk_mini"), TABLE, figures=False)
    [table] = written
    bleu, sari = table.cells[("PBMT-R (released outputs)", "bleu")], table.cells[("PBMT-R (released outputs)", "sari")]
    assert (bleu.paper, bleu.reproduced, sari.reproduced) == (None, 81.25, 38.5)
    assert bleu.note == "rescored from the released PBMT-R outputs (turk test); not in paper"
    encdeca = table.cells[("EncDecA (released outputs)", "bleu")]
    assert (encdeca.reproduced, encdeca.note) == (None, "released outputs not rescored (run `paragen "
                                                        "published-outputs`)")


def test_a_table_without_rescored_baselines_never_reads_the_rescoring_table(written):
    """copynet_table1's baselines quote published numbers only: a broken rescoring table (no "ours" column) beside
    it is not read, so the table builds (reading it would fail on the missing column)."""
    write_lines(Path(RESCORED), ["test_set,system,metric", "turk,PBMT-R,BLEU"])
    build.build_table_report(_config(), TABLE, figures=False)
    assert [t.name for t in written] == [TABLE]


def _with_spm(**table) -> ParagenConfig:
    """The tiny configuration plus an SPM row (t_spm: RNNSearch with attentional input feeding and a source-side
    prediction head, 004's EncDec+SPM) and the table's changes."""
    raw = _raw()
    raw["models"]["spm"] = {"architecture": "rnnsearch", "input_feeding": "attentional", "embedding_size": 8,
                            "hidden_size": 16, "source_prediction": {}}
    raw["experiments"]["t_spm"] = {"dataset": "tiny", "model": "spm", "training": "tiny", "decoding": "beam3"}
    raw["tables"][TABLE]["rows"]["SPM"] = "t_spm"
    raw["tables"][TABLE].update(table)
    return parse_config(raw)


PAIRS_FILES = [f"results/tables/{TABLE}_aligned_pairs.md", f"results/tables/{TABLE}_aligned_pairs.csv"]


@pytest.fixture
def paired(monkeypatch) -> list[tuple[str, str]]:
    """004 Table 4's writer replaced by a recorder of (table, title) that returns the page and CSV it would write."""
    from paragen.report import aligned_pairs

    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(aligned_pairs, "write_aligned_pairs_table",
                        lambda name, spec: calls.append((name, spec.title)) or PAIRS_FILES)
    return calls


def test_a_tables_only_rebuild_writes_the_aligned_pairs_only_where_they_were_kept(written, paired, caplog):
    """Tables only: without runs/t_spm/aligned_pairs.json nothing is written for 004 Table 4 (one log line); with
    it, the pairs' page and CSV are written and logged before the tables' line."""
    with caplog.at_level(logging.INFO, logger="paragen"):
        build.build_table_report(_with_spm(aligned_pairs={"row": "SPM"}), TABLE, figures=False)
        assert paired == []
        write_lines(Path("runs/t_spm/aligned_pairs.json"), ["{}"])
        build.build_table_report(_with_spm(aligned_pairs={"row": "SPM"}), TABLE, figures=False)
    assert paired == [(TABLE, "tiny test table")]
    assert [r.getMessage() for r in caplog.records if r.name == build.log.name] == [
        f"wrote {TABLE_FILES} (tables only: no figures)",
        f"wrote {PAIRS_FILES[0]}, {PAIRS_FILES[1]}", f"wrote {TABLE_FILES} (tables only: no figures)"]


def test_with_figures_the_aligned_pairs_are_written_and_the_heat_maps_counted(written, plotted, paired, caplog,
                                                                             monkeypatch):
    """Figures on, no aligned pairs kept yet (the pipeline writes them in this step): 004 Table 4 is written; the
    alignment figure (Enc-Dec's attention beside SPM's q_j) is drawn once and its two heat maps are counted with
    the plan's five figures in the last log line: 5 + 2 = 7 (five less two would be 3). The five: validation
    curves, CopyNet's copy map, SPM's attention on the same rule type (SPM is an RNNSearch), loss curves and
    per-type curves."""
    heatmaps = []
    monkeypatch.setattr(build, "plot_heatmaps", lambda config, name, spec: heatmaps.append(name))
    config = _with_spm(aligned_pairs={"row": "SPM"},
                       alignment_figure={"attention": "Enc-Dec", "source_prediction": "SPM", "sentences": [1]})
    from paragen.pipeline.report_stages import figure_inputs
    from paragen.pipeline.tables import table_plan

    for path in figure_inputs(config, table_plan(config, TABLE)):  # what the figures' preflight asks for (read by
        write_lines(Path(path), ["x"])                              # the recorders: never)
    with caplog.at_level(logging.INFO, logger="paragen"):
        build.build_table_report(config, TABLE, figures=True)
    assert paired == [(TABLE, "tiny test table")] and heatmaps == [TABLE]
    assert len(plotted["plot_attention_trace"]) == 1
    assert [r.getMessage() for r in caplog.records if r.name == build.log.name] == [
        f"wrote {PAIRS_FILES[0]}, {PAIRS_FILES[1]}", f"wrote {TABLE_FILES} and {5 + 2} figure(s)"]


def test_confirmation_seeds_label_the_design_rows_runs_by_seed_too(written, monkeypatch):
    """One design seed (seeds: 1) and confirmation seeds 4-5: the table has runs of several seeds, so the design
    row's training outcome, its held run's note and its hardware line name seed 1, and the confirmation block's
    row keeps seeds 4 and 5 apart."""
    for run in ("t_encdec", "t_encdec_seed4", "t_encdec_seed5"):
        _trained(run, [30.0])
    monkeypatch.setattr(build, "lock_holder", lambda run_dir: "7 (x)" if str(run_dir) == "runs/t_encdec" else None)
    build.build_table_report(_config(confirmation={"seeds": [4, 5], "required": 2}), TABLE, figures=False)
    [table] = written
    assert table.training_notes == ["Enc-Dec (seed 1): still training (runs/t_encdec is held by process 7 (x)); its "
                                    "cells are from an earlier run or empty"]
    assert [seed for seed, _ in table.training["Enc-Dec"]] == [1]
    assert [seed for seed, _ in table.training["Enc-Dec (confirmation seeds 4–5)"]] == [4, 5]
    assert table.setup == ["Trained on CPU A; wall time per row (training and per-epoch validation, summed over "
                           "epochs): Enc-Dec seed 1 0.5 min; Enc-Dec (confirmation seeds 4–5) seed 4 0.5 min; "
                           "Enc-Dec (confirmation seeds 4–5) seed 5 0.5 min."]
