"""The copy-mode heat map: examples picked by a stated rule, traced along the output that was scored."""

from __future__ import annotations

import matplotlib.text
import pytest
import torch

from paragen.decoding.decode import copy_examples, trace_copy_modes
from paragen.report.figure_heatmaps import copy_heatmap_figure
from paragen.data.vocabulary import SPECIALS, Vocabulary

from conftest import tiny_model

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c"])
CPU = torch.device("cpu")


def test_trace_follows_the_given_output_and_its_modes_share_one_normaliser():
    model = tiny_model("copynet", len(VOCAB))
    source = ["a", "kappa", "b"]
    trace = trace_copy_modes(model, source, ["kappa", "c", "a"], VOCAB, CPU)
    assert trace["output"] == ["kappa", "c", "a", "</s>"]  # the given output, not the model's greedy choice
    assert len(trace["copy_probs"]) == len(trace["generate_mass"]) == 4
    for copy_row, generate in zip(trace["copy_probs"], trace["generate_mass"]):
        assert len(copy_row) == len(source)
        assert generate + sum(copy_row) == pytest.approx(1.0, abs=1e-5)  # CopyNet Eq. 4: one softmax
    other = trace_copy_modes(model, source, ["b", "c", "a"], VOCAB, CPU)
    assert other["copy_probs"][0] == trace["copy_probs"][0]  # same first step: nothing fed yet
    assert other["copy_probs"][1] != trace["copy_probs"][1]  # the fed token changes the next step


def test_examples_are_the_first_correct_and_first_wrong_line_of_each_rule_type():
    model = tiny_model("copynet", len(VOCAB))
    sources = [["a"], ["b"], ["c"], ["a", "b"], ["b", "c"]]
    references = [["a"], ["b"], ["c"], ["a", "b"], ["b", "c"]]
    outputs = [["b"], ["b"], ["c"], ["a", "b"], ["c"]]
    tags = ["x->x", "x->x", "x->x", "xy->xy", "xy->xy"]
    examples = copy_examples(model, sources, outputs, references, tags, VOCAB, CPU)
    assert (examples["x->x"]["correct"]["line"], examples["x->x"]["wrong"]["line"]) == (2, 1)
    assert examples["x->x"]["wrong"]["reference"] == ["a"] and examples["x->x"]["wrong"]["output"] == ["b", "</s>"]
    assert examples["x->x"]["correct"]["correct"] and not examples["x->x"]["wrong"]["correct"]
    assert examples["xy->xy"]["correct"]["line"] == 4 and examples["xy->xy"]["wrong"]["line"] == 5


def test_heat_map_says_which_output_is_wrong_and_shows_its_reference():
    model = tiny_model("copynet", len(VOCAB))
    right = {**trace_copy_modes(model, ["a", "b"], ["a", "b"], VOCAB, CPU), "line": 4, "reference": ["a", "b"],
             "correct": True}
    wrong = {**trace_copy_modes(model, ["b", "c"], ["c"], VOCAB, CPU), "line": 5, "reference": ["b", "c"],
             "correct": False}
    figure = copy_heatmap_figure([right, wrong], "CopyNet on rule type xy->xy")
    texts = " | ".join(t.get_text() for t in figure.findobj(matplotlib.text.Text))
    assert "test line 4: output = reference" in texts and "test line 5: output ≠ reference" in texts
    assert "reference: b c" in texts and "CopyNet on rule type xy->xy" in texts


def test_attention_trace_follows_the_given_output_and_each_step_sums_to_one():
    from paragen.decoding.decode import trace_attention

    model = tiny_model("rnnsearch", len(VOCAB))
    trace = trace_attention(model, ["a", "b", "c"], ["c", "a"], VOCAB, CPU)
    assert trace["output"] == ["c", "a", "</s>"] and len(trace["attention"]) == 3
    for row in trace["attention"]:
        assert len(row) == 3 and sum(row) == pytest.approx(1.0, abs=1e-5)  # a softmax over the source positions
    other = trace_attention(model, ["a", "b", "c"], ["b", "a"], VOCAB, CPU)
    assert other["attention"][0] == trace["attention"][0] and other["attention"][1] != trace["attention"][1]
    with pytest.raises(ValueError, match="only for attentional models"):
        trace_attention(tiny_model("encdec", len(VOCAB)), ["a"], ["a"], VOCAB, CPU)


def test_rnnsearch_on_rule_data_traces_its_attention_for_the_map_beside_copynets():
    from paragen.config import load_config
    from paragen.pipeline.plan import stages

    from conftest import ROOT

    config = load_config(ROOT / "params.yaml")
    planned = {s.name: s for s in stages(config)}
    assert "runs/syn_rnnsearch/attention_trace.json" in planned["decode_syn_rnnsearch"].outs
    assert not any("trace" in p for p in planned["decode_syn_encdec"].outs)  # Enc-Dec has no attention
    report = planned["report_copynet_synthetic"]
    assert "runs/syn_rnnsearch/attention_trace.json" in report.deps
    assert "results/figures/copynet_synthetic_attention_heatmap.png" in report.outs
    caption = {i.path: i.caption for i in report.report}["results/figures/copynet_synthetic_attention_heatmap.png"]
    assert "Attention heat map of RNNSearch, to read beside CopyNet's copy-mode map" in caption
