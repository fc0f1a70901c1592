"""An own-data table reads a model against the source: the identity row is there by default (an implicit system per
dataset, scored on every split the table shows), any system of params.yaml on the local dataset can be a row, and
rows whose validation curves cannot share an axis are refused at load time in one line."""

from __future__ import annotations

import pytest
import yaml

from conftest import ROOT
from test_local_data import local_params


def _config(tmp_path, edit=None):
    from paragen.config import load_config

    tmp_path = tmp_path / f"clone{len(list(tmp_path.iterdir()))}"
    tmp_path.mkdir()
    (tmp_path / "params.yaml").write_text((ROOT / "tests/fixtures/tiny_params.yaml").read_text())
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    if edit is not None:
        edit(raw)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return load_config(tmp_path / "params.yaml")


def test_an_own_table_starts_with_the_source_row_scored_on_every_split(tmp_path):
    config = _config(tmp_path)
    assert list(config.tables["mine"].rows.items()) == [
        ("source (identity)", "mine_source"), ("Enc-Dec", "m_encdec"), ("WEAN", "m_wean")]
    system = config.systems["mine_source"]
    assert (system.method, system.dataset, system.vocabulary_only) == ("identity", "mine", False)
    assert config.splits_of("mine_source") == ["valid", "test"] == config.splits_of("m_wean")
    assert not config.declared_in_params("mine_source")  # not a key of params.yaml: never a DVC param


def test_the_source_rows_stages_write_and_score_each_split_and_name_no_absent_param(tmp_path):
    from paragen.pipeline.experiment_stages import system_stages

    config = _config(tmp_path)
    compute, evaluate = system_stages(config, "mine_source")
    assert compute.outs == ("runs/mine_source/valid.hyp", "runs/mine_source/test.hyp") and compute.params == ()
    assert {"runs/mine_source/valid.hyp", "runs/mine_source/test.hyp"} <= set(evaluate.deps)
    assert not any(key.startswith("systems.") for key in evaluate.params)


def test_a_declared_identity_row_is_not_doubled_and_source_row_false_leaves_it_out(tmp_path):
    def declared(raw):
        raw["systems"] = {"copy_in": {"dataset": "mine", "method": "identity"}}
        raw["tables"]["mine"]["rows"] = {"copy": "copy_in", "WEAN": "m_wean"}

    config = _config(tmp_path, declared)
    assert list(config.tables["mine"].rows) == ["copy", "WEAN"] and "mine_source" not in config.systems
    assert config.declared_in_params("copy_in") and config.splits_of("copy_in") == ["valid", "test"]
    off = _config(tmp_path, lambda raw: raw["tables"]["mine"].update(source_row=False))
    assert list(off.tables["mine"].rows) == ["Enc-Dec", "WEAN"] and "mine_source" not in off.systems


def test_a_skip_system_on_local_data_is_a_row_scored_on_test(tmp_path):
    def skip(raw):
        raw["systems"] = {"drop_half": {"dataset": "mine", "method": "skip", "probability": 0.5}}
        raw["tables"]["mine"]["rows"]["drop half"] = "drop_half"

    config = _config(tmp_path, skip)
    assert list(config.tables["mine"].rows)[-1] == "drop half" and config.splits_of("drop_half") == ["test"]


def test_the_source_rows_name_taken_by_another_system_is_refused(tmp_path):
    from paragen.config import ConfigError

    def clash(raw):
        raw["systems"] = {"mine_source": {"dataset": "mine", "method": "skip"}}

    with pytest.raises(ConfigError, match="the source row of mine is the system 'mine_source', a name params.yaml "
                       "gives to something else; rename that, or set source_row: false"):
        _config(tmp_path, clash)


def test_rows_selected_by_different_metrics_with_nothing_logged_in_common_are_one_line(tmp_path):
    from paragen.config import ConfigError

    def mixed(raw):
        raw["training"]["tiny_sari"] = {**raw["training"]["tiny"], "valid_metric": "sari"}
        raw["experiments"]["m_wean"]["training"] = "tiny_sari"

    with pytest.raises(ConfigError) as refused:
        _config(tmp_path, mixed)
    where, reason = str(refused.value).splitlines()  # the loader's two lines: the file, then the key and why
    assert where.endswith("params.yaml: invalid configuration")
    assert "tables.mine: its rows select checkpoints by different metrics (training.tiny: exact_match, " \
        "training.tiny_sari: sari)" in reason and "give every one of these trainings the same log_metrics" in reason

    def logged(raw):
        mixed(raw)
        raw["training"]["tiny"]["log_metrics"] = ["sari"]
        raw["training"]["tiny_sari"]["log_metrics"] = ["sari"]

    assert _config(tmp_path, logged).tables["mine"].rows  # a metric both log: one axis, accepted


def test_a_row_scored_on_test_alone_says_so_on_valid_and_keeps_the_split_keys(tmp_path, monkeypatch):
    """A skip system on local data is scored on test alone, under ``splits`` like every row of the dataset (so
    `dvc metrics show` puts its scores in the test columns); its valid cells say why they are empty."""
    import json

    from paragen.report.tables import LoadedRun, SeedRun, _run_value

    path = tmp_path / "skip.json"
    metrics = {"experiment": "drop_half", "dataset": "mine", "splits": {"test": {"bleu": {"score": 12.5}}}}
    path.write_text(json.dumps(metrics))
    loaded = LoadedRun(SeedRun(None, path), metrics, {})
    assert _run_value(loaded, "splits/test/bleu/score") == (12.5, "")
    assert _run_value(loaded, "splits/valid/bleu/score") == (None, f"not scored on valid ({path} holds test alone)")


def test_a_configuration_dumped_and_parsed_again_keeps_one_source_row(tmp_path):
    """An engine's --config makes a command parse the dumped configuration again (paragen.cli.common.load_params):
    the source row it names must resolve, once, to the same implicit system."""
    from paragen.config import parse_config

    config = _config(tmp_path)
    again = parse_config({**config.model_dump(exclude_unset=True), "data": ["mine"]}, "params.yaml with --data")
    assert list(again.tables["mine"].rows.items()) == list(config.tables["mine"].rows.items())
    assert again.systems["mine_source"] == config.systems["mine_source"]
