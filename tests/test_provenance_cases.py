"""What a table keeps beside it (:mod:`paragen.report.provenance`), file by file: the kept copies replace the old
ones whole, report.json's exact text, a restore without kept files, and which run and data files are read.
Expected values are the few files each test writes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from paragen.report.provenance import keep, read_files, restore

from conftest import file_tree, write_lines


def test_keep_replaces_the_old_copy_whole_and_writes_the_settings_as_indented_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_lines(Path("runs/a/train_log.csv"), ["log a"])
    write_lines(Path("data/x/prepare.json"), ["{}"])
    first = keep("t", ["runs/a/train_log.csv", "data/x/prepare.json"], {"table": "t", "data": [], "seeds": 2})
    assert first == "results/provenance/t"
    assert file_tree(Path(first)) == {"files/data/x/prepare.json": "{}\n", "files/runs/a/train_log.csv": "log a\n",
                                      "report.json": '{\n "table": "t",\n "data": [],\n "seeds": 2\n}\n'}
    keep("t", [], {"table": "t", "data": ["d1"], "seeds": 1})  # nothing read now: the old copies are gone
    assert file_tree(Path(first)) == {"report.json": '{\n "table": "t",\n "data": [\n  "d1"\n ],\n "seeds": 1\n}\n'}


def test_restore_puts_each_copy_at_its_own_path_and_returns_the_settings(tmp_path):
    kept = tmp_path / "kept"
    write_lines(kept / "files" / "runs" / "r" / "sessions.json", ["[]"])
    write_lines(kept / "files" / "top.txt", ["top"])
    (kept / "files" / "empty_folder").mkdir()
    (kept / "report.json").write_text('{"table": "t", "data": ["a"], "seeds": 3}', encoding="utf-8")
    root = tmp_path / "root"
    assert restore(kept, root) == {"table": "t", "data": ["a"], "seeds": 3}
    assert file_tree(root) == {"runs/r/sessions.json": "[]\n", "top.txt": "top\n"}
    assert not (root / "empty_folder").exists()  # folders are made for files only


def test_restore_without_kept_files_returns_the_settings_and_writes_nothing(tmp_path):
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "report.json").write_text('{"table": "t", "data": [], "seeds": 1}', encoding="utf-8")
    root = tmp_path / "root"
    assert restore(kept, root) == {"table": "t", "data": [], "seeds": 1}
    assert not root.exists()


def test_read_files_lists_each_trained_runs_four_files_that_exist_then_the_captions_data(tmp_path, monkeypatch):
    """Runs r1 and r2: r1 has a log and aligned pairs, r2 embeddings and sessions; r1's model weights are not
    read. Rows: e1 on rule data "rules" (its generation statistics exist), "gone" not an experiment of the
    configuration (skipped, as the caption skips it). Order: r1's files in RUN_FILES order, r2's, then data."""
    from paragen.config import SyntheticDataset

    monkeypatch.chdir(tmp_path)
    for path in ("runs/r1/train_log.csv", "runs/r1/aligned_pairs.json", "runs/r1/best.pt",
                 "runs/r2/embeddings.json", "runs/r2/sessions.json", "data/prepared/rules/generation.json"):
        write_lines(Path(path), ["x"])
    config = SimpleNamespace(experiments={"e1": SimpleNamespace(dataset="rules")},
                             datasets={"rules": SyntheticDataset.model_construct()})
    plan = SimpleNamespace(trained_runs=lambda: [SimpleNamespace(name="r1"), SimpleNamespace(name="r2")],
                           spec=SimpleNamespace(rows={"Row": "e1", "Gone": "gone"}))
    assert read_files(config, plan) == ["runs/r1/train_log.csv", "runs/r1/aligned_pairs.json",
                                        "runs/r2/sessions.json", "runs/r2/embeddings.json",
                                        "data/prepared/rules/generation.json"]


def test_publish_keeps_under_the_tables_name_with_its_data_and_seed_count(tmp_path, monkeypatch):
    from paragen.report.provenance import publish_provenance

    monkeypatch.chdir(tmp_path)
    config = SimpleNamespace(data=["d1", "d2"], seed_count=3, experiments={})
    plan = SimpleNamespace(name="tname", trained_runs=lambda: [], spec=SimpleNamespace(rows={}))
    assert publish_provenance(config, plan) == "results/provenance/tname"
    assert file_tree(Path("results/provenance/tname")) == {
        "report.json": '{\n "table": "tname",\n "data": [\n  "d1",\n  "d2"\n ],\n "seeds": 3\n}\n'}
