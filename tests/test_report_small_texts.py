"""Small report helpers, each pinned on a case where a plausible slip gives other text: the paired-test CSV record,
the own-data caption, the sweep's trend sentence, the split counts, the trace reader's error, the matrix cell
text, Table 5's refusal of other output layers, the traced examples, the attention heat map's inputs and the
rescored-outputs reader. Expected values are written by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from paragen.config import ModelConfig
from paragen.report.build import _split_counts, read_trace, traced_examples
from paragen.report.captions import describe_own
from paragen.report.comparisons import _record
from paragen.report.index import _sweep_trend
from paragen.report.matrix_render import _rank, _score
from paragen.report.parameters import output_layer_parameters
from paragen.report.tables import read_rescored
from paragen.simplification.skip_sweep import TREND_HEADING


def test_record_keeps_each_bound_and_defaults_groups_and_lines_to_empty():
    """A one-sided interval (low 0.25, no high) keeps its low bound; without groups/lines the cells are empty,
    with them their values. Exact decimals: 31.5 - 30.25 = 1.25."""
    test = {"score_a": 30.25, "score_b": 31.5, "delta_ci95": [0.25, None], "p_value": 0.004, "samples": 1000}
    record = _record({"table": "t"}, 2, "test", "line", "all", test)
    assert record == {"table": "t", "seed": 2, "split": "test", "unit": "line", "scope": "all", "score_row": "31.5",
                      "score_baseline": "30.25", "difference": "1.25", "ci95_low": "0.25", "ci95_high": "",
                      "p_value": "0.004", "samples": 1000, "groups": "", "lines": ""}
    with_counts = _record({}, 1, "test", "rule", "x->x", {**test, "delta_ci95": None, "groups": 4, "lines": 300})
    assert (with_counts["ci95_low"], with_counts["ci95_high"], with_counts["groups"], with_counts["lines"]) == \
        ("", "", 4, 300)


def test_own_data_caption_word_for_word():
    assert describe_own(["test"]) == ("Your own data: no paper reports numbers for these rows; every cell is "
                                      "a score of our runs, on the test split. ")
    assert describe_own(["valid", "test"]) == (
        "Your own data: no paper reports numbers for these rows; every cell is a score of our runs, on each split "
        "decoded: valid, test. Training selected each model on valid, so its valid scores flatter it; the other "
        "splits are unseen. ")


def test_sweep_trend_is_the_tables_trend_line_or_nothing(tmp_path):
    table = tmp_path / "sweep.md"
    table.write_text(f"# sweep\n\n| p | SARI |\n\n{TREND_HEADING} scores fall as p rises.\n", encoding="utf-8")
    assert _sweep_trend(str(table)) == f"{TREND_HEADING} scores fall as p rises."
    table.write_text("# sweep\n\n| p | SARI |\n", encoding="utf-8")
    assert _sweep_trend(str(table)) == ""


def test_split_counts_in_order_with_differing_counts_and_unlisted_splits():
    """Two runs scored test on 100 and 120 lines ("test 100 / 120"); a split the table does not list (extra) still
    counted after the listed ones; a listed split nobody scored (valid) left out; a file without splits is test."""
    scored = [{"splits": {"test": {"count": 120}, "extra": {"count": 7}}}, {"count": 100}]
    assert _split_counts(scored, ["valid", "test"]) == ["test 100 / 120", "extra 7"]


def test_a_missing_trace_names_the_stage_that_writes_it(tmp_path):
    path = tmp_path / "attention_trace.json"
    with pytest.raises(FileNotFoundError, match=r"attention_trace.json: the attention trace is missing; the stage "
                                                r"decode_syn_rnnsearch writes it"):
        read_trace(path, "attention", "syn_rnnsearch")


def test_traced_examples_correct_then_wrong_those_that_exist():
    traces = {"x->x": {"correct": {"id": 1}, "wrong": {"id": 2}}, "x->xx": {"wrong": {"id": 3}}}
    assert traced_examples(traces, "x->x") == [{"id": 1}, {"id": 2}]
    assert traced_examples(traces, "x->xx") == [{"id": 3}]
    assert traced_examples(traces, "x->∅") == []


def test_matrix_cell_text_pieces():
    assert (_rank(None), _rank(2.0), _rank(2.5)) == ("—", "2", "2.5")
    assert _score(SimpleNamespace(mean=78.25, sd=None)) == "78.3"
    assert _score(SimpleNamespace(mean=78.25, sd=1.05)) == "78.3 ± 1.1"


def test_table5_refuses_other_output_layers_by_name():
    config = ModelConfig(architecture="copynet", embedding_size=4, hidden_size=4)
    with pytest.raises(ValueError, match="Table 5 compares Seq2seq and WEAN output layers, not CopyOutput"):
        output_layer_parameters(config, 10)


def test_read_rescored_keys_each_score_by_test_set_system_and_metric(tmp_path):
    """Our score of each (test set, system, metric) as a float, whatever other columns the file has; no file: no
    scores (the DRESS rescoring has not run)."""
    path = tmp_path / "published.csv"
    path.write_text("test_set,system,metric,published,ours,difference\n"
                    "newsela,DRESS-LS,sari,27.37,26.99,-0.38\n"
                    "wikilarge,Hybrid,bleu,59.0,58.25,-0.75\n", encoding="utf-8")
    assert read_rescored(path) == {("newsela", "DRESS-LS", "sari"): 26.99, ("wikilarge", "Hybrid", "bleu"): 58.25}
    assert read_rescored(tmp_path / "missing.csv") == {}


def test_plot_attention_trace_draws_the_first_attention_rows_examples_of_the_rule_type(tmp_path, monkeypatch):
    """The first attention row's trace (runs/<experiment>/attention_trace.json), its examples of the asked rule
    type in the order correct, wrong, drawn to the table's attention heat map with a title naming the row; a rule
    type without a traced line is refused, naming the trace file."""
    import json

    from paragen.report import build

    monkeypatch.chdir(tmp_path)
    trace = tmp_path / "runs" / "r_att" / "attention_trace.json"
    trace.parent.mkdir(parents=True)
    trace.write_text(json.dumps({"x->x": {"correct": {"id": 1}, "wrong": {"id": 2}}, "x->xx": {"wrong": {"id": 3}}}))
    drawn = []
    monkeypatch.setattr(build, "plot_attention_heatmap", lambda *args: drawn.append(args))
    plan = SimpleNamespace(attention_rows=["r_att", "r_other"], name="tab", row_of={"r_att": "RNNSearch"}.get)
    build.plot_attention_trace(plan, "x->x")
    assert drawn == [([{"id": 1}, {"id": 2}], "results/figures/tab_attention_heatmap.png",
                      "RNNSearch attention on rule type x->x")]
    with pytest.raises(ValueError, match=r"runs/r_att/attention_trace\.json: no traced test line of rule type x->0, "
                                         "which the copy-mode map shows"):
        build.plot_attention_trace(plan, "x->0")
    trace.unlink()
    with pytest.raises(FileNotFoundError, match=r"^runs/r_att/attention_trace\.json: the attention trace is missing; "
                                                r"the stage decode_r_att writes it"):
        build.plot_attention_trace(plan, "x->x")
