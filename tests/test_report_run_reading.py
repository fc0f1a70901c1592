"""How the report reads a row's runs and files (paragen.report.build, paragen.report.tables): the seed label of a
row's runs (none for a row's only run, each seed's own with several), the stopping rule a run trained under (its
sessions.json, not params.yaml's current one), the sentence counts of a metrics file, and the refusal of a metrics
file whose metric path ends at a section instead of a number. Expected values written out by hand."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from paragen.config.runs import TrainingConfig
from paragen.report.build import _sentence_count, row_runs, settings_of_run
from paragen.report.tables import SeedRun, read_metrics


def _run(seed: int, alignment: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(seed=seed, metrics=f"results/metrics/r_s{seed}.json", alignment=alignment)


def test_a_rows_only_run_has_no_seed_label():
    assert row_runs(SimpleNamespace(runs=[_run(7)])) == [SeedRun(None, Path("results/metrics/r_s7.json"), {})]


def test_two_runs_carry_their_own_seeds_and_alignment_files():
    row = SimpleNamespace(runs=[_run(1), _run(2, "results/metrics/r_s2.alignment.json")])
    assert row_runs(row) == [SeedRun(1, Path("results/metrics/r_s1.json"), {}),
                             SeedRun(2, Path("results/metrics/r_s2.json"),
                                     {"alignment": Path("results/metrics/r_s2.alignment.json")})]


def test_a_run_is_judged_by_the_stopping_rule_its_last_session_recorded(tmp_path):
    """params.yaml now asks for 30 epochs, patience 5; the run's last session trained with 12 and 3 (min_epochs
    not recorded: the current 0 stays); an earlier session's 40 is not the one that counts."""
    current = TrainingConfig(max_epochs=30, patience=5)
    (tmp_path / "sessions.json").write_text(json.dumps([{"stopping": {"max_epochs": 40, "patience": 9}},
                                                        {"stopping": {"max_epochs": 12, "patience": 3}}]))
    judged = settings_of_run(tmp_path, current)
    assert (judged.max_epochs, judged.patience, judged.min_epochs) == (12, 3, 0)
    assert judged.learning_rate == current.learning_rate


def test_a_run_without_sessions_is_judged_by_the_current_settings(tmp_path):
    current = TrainingConfig(max_epochs=30, patience=5)
    assert settings_of_run(tmp_path, current) is current


def test_sentence_counts_of_one_split_and_of_several():
    assert _sentence_count({"count": 300, "bleu": {"score": 1.0}}) == "300"
    assert _sentence_count({"splits": {"valid": {"count": 120}, "test": {"count": 359}}}) == "valid 120, test 359"


def test_a_metric_path_ending_at_a_section_is_refused_naming_file_and_path(tmp_path):
    """BLEU is read at bleu/score; a file whose bleu/score is itself a section has no number there."""
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"bleu": {"score": {"corpus": 30.0}}}))
    with pytest.raises(ValueError) as raised:
        read_metrics(str(path), ["bleu"])
    assert str(raised.value) == f"{path}: no bleu score at 'bleu/score'; was the run scored with bleu?"
    path.write_text(json.dumps({"bleu": {"score": 30.25}}))
    assert read_metrics(str(path), ["bleu"]) == {"bleu": 30.25}


def test_a_null_on_the_way_or_at_the_end_of_a_path_means_not_applicable():
    """004's SPM accuracy of a model without the SPM head is written as null: at the end of the path or on the way
    there, the measure does not apply; a path that merely stops, or a number at its end, is not such a null."""
    from paragen.report.tables import null_on_path

    assert null_on_path({"spm": {"accuracy": None}}, "spm/accuracy") is True
    assert null_on_path({"spm": None}, "spm/accuracy") is True
    assert null_on_path({"spm": {}}, "spm/accuracy") is False
    assert null_on_path({"spm": {"accuracy": 81.0}}, "spm/accuracy") is False
