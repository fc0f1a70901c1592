"""Changing how a dataset is evaluated rescores it without retraining: a train stage depends on the evaluation keys
validation reads (lowercase for BLEU/SARI, rouge_unit for ROUGE-2), and only where params.yaml sets them."""

from __future__ import annotations

import yaml

from conftest import ROOT
from test_local_data import local_params


def _stages(tmp_path, evaluation, **training):
    from paragen.config import load_config
    from paragen.pipeline.plan import build_plan

    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "params.yaml").write_text((ROOT / "tests/fixtures/tiny_params.yaml").read_text())
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    raw["datasets"]["mine"]["evaluation"] = evaluation
    raw["training"]["tiny"].update(training)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return {stage.name: stage for stage in build_plan(load_config(tmp_path / "params.yaml")).stages}


def test_training_depends_on_lowercase_when_it_selects_by_bleu_and_never_on_the_metrics_list(tmp_path):
    stages = _stages(tmp_path, {"metrics": ["bleu", "sari", "rouge"], "lowercase": False}, valid_metric="bleu")
    train, evaluate = stages["train_m_wean"], stages["evaluate_m_wean"]
    assert [p for p in train.params if p.startswith("datasets.")] == ["datasets.mine.evaluation.lowercase"]
    assert "datasets.mine.evaluation" in evaluate.params  # the evaluate stage reads all of it


def test_training_by_rouge2_depends_on_the_unit_set_and_by_exact_match_on_nothing(tmp_path):
    rouge = _stages(tmp_path / "a", {"metrics": ["bleu", "sari", "rouge"], "rouge_unit": "word"},
                    valid_metric="rouge2")
    assert [p for p in rouge["train_m_wean"].params if p.startswith("datasets.")] == \
        ["datasets.mine.evaluation.rouge_unit"]
    auto = _stages(tmp_path / "b", {"metrics": ["bleu", "sari", "rouge"]}, valid_metric="rouge2")  # auto: unset
    assert not [p for p in auto["train_m_wean"].params if p.startswith("datasets.")]
    exact = _stages(tmp_path / "c", {"metrics": ["bleu", "sari"], "lowercase": False})  # tiny: exact match
    assert not [p for p in exact["train_m_wean"].params if p.startswith("datasets.")]
