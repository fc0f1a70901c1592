"""Teacher-forced alignments: step t's attention and q_t belong to target token t; </s> is left out."""

from __future__ import annotations

import torch

from paragen.decoding.alignments import teacher_forced_alignments
from paragen.metrics.alignment import position_accuracy, word_accuracy
from paragen.data.vocabulary import SPECIALS, Vocabulary

from scripted import ALIGN_VOCAB as VOCAB
from scripted import ScriptedAligner as ScriptedModel


def test_step_t_aligns_target_token_t_and_the_end_token_is_left_out():
    sources = [["c1", "f1", "c2"], ["f1", "c3"]]
    targets = [["c1", "c2"], ["c3"]]
    # steps 0, 1, 2 (the last predicts </s> for pair 1) attend to positions 1, 2, 0 (pair 1) and 1, 0, 1 (pair 2)
    model = ScriptedModel(["c1", "c2", "f1"])
    result = teacher_forced_alignments(model, sources, targets, VOCAB, batch_size=2)
    assert [r.attention_positions for r in result] == [[1, 2], [1]]
    assert [r.spm_words for r in result] == [["c1", "c2"], ["c1"]]
    assert result[0].attention == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    # q_t of each source token's word: pair 1, step 0 predicts c1 -> 1 at source "c1", 0 at "f1" and "c2"
    assert result[0].spm_source_probabilities == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    gold = [[(0, 0), (2, 1)], [(1, 0)]]
    assert position_accuracy([r.attention_positions for r in result], gold).accuracy == 100 * 2 / 3
    assert word_accuracy([r.spm_words for r in result], sources, gold).accuracy == 100 * 2 / 3


def test_a_vocabulary_without_the_heads_size_is_refused():
    model = ScriptedModel(["c1"])
    small = Vocabulary(list(SPECIALS) + ["c1"])
    try:
        teacher_forced_alignments(model, [["c1"]], [["c1"]], small)
    except ValueError as error:
        assert "pass the model's vocabulary" in str(error)
    else:
        raise AssertionError("a mismatched vocabulary was accepted")


def test_a_real_spm_model_yields_one_alignment_per_target_token():
    """The real SPM model exposes what the extraction reads (attention per step, the feed vector, the head)."""
    from conftest import ROOT
    from paragen.config import load_config
    from paragen.models import build_model, vocabulary_for

    config = load_config(ROOT / "params.yaml").models["encdec_sgate_spm_tiny"]
    vocab = vocabulary_for(config, VOCAB)
    torch.manual_seed(0)
    model = build_model(config, len(vocab))
    result = teacher_forced_alignments(model, [["c1", "f1", "c2"], ["c3"]], [["c1", "c2"], ["c3", "c3"]], vocab)
    assert [len(r.attention_positions) for r in result] == [2, 2]
    assert [len(r.spm_words) for r in result] == [2, 2]
    for r, width in zip(result, (3, 1)):
        assert all(len(row) == width and abs(sum(row) - 1.0) < 1e-5 for row in r.attention)  # a distribution
        assert all(0 <= p <= width - 1 for p in r.attention_positions)
