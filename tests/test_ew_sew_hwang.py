"""EW-SEW from Hwang et al.'s own scored release (WEAN 000 §3.1.1): fetch with a size but no published digest,
the three-column format, the class and threshold filter, and clear errors."""

from __future__ import annotations

import hashlib
import json

import pytest
import yaml

from paragen.config import ConfigError, parse_config
from paragen.data import registry
from paragen.data.corpus import CorpusError
from paragen.data.fetch import FetchError, SizeMismatch
from paragen.data.prepare import prepare_dataset
from paragen.data.registry import DatasetSource, fetch_dataset

from conftest import ROOT
from loopback import Server

# The release's true layout: English <TAB> Simple English <TAB> score, tokenised, PTB's escaped slash.
GOOD = ("the team won the 1990 \\/ 91 title .\tthe team won the 1990 \\/ 91 title .\t0.9813\n"
        "he was born in paris , france .\the was born in paris .\t0.7012\n")
GOOD_PARTIAL = ("it is a town in the district of lorraine .\tit is a town in lorraine .\t0.6120\n"
                "the river flows north .\tthe river goes north .\t0.5301\n")
REMAINING = ("the band was formed in 1975 .\tthe band started in 1975 .\t0.4600\n"
             "a b c .\ta b .\t0.4500\n"
             "x y z .\tq r .\t0.4400\n")
FILES = {"aligned-good-0.67.txt": GOOD, "aligned-good_partial-0.53.txt": GOOD_PARTIAL,
         "aligned-remaining-0.45.txt": REMAINING}


@pytest.fixture
def served(monkeypatch):
    """The three files on a loopback server, registered like the real entry: sizes, no digest."""
    server = Server()
    files = []
    for name, text in FILES.items():
        server.files["/simplification/" + name] = text.encode()
        files.append({"path": name, "urls": [f"{server.url}/simplification/{name}"], "size": len(text.encode()),
                      "split": "train"})
    source = DatasetSource.model_validate({"title": "t", "citation": "c", "licence": "l", "homepage": "h",
                                           "expected": {"good_and_good_partial": 4}, "files": files})
    monkeypatch.setattr(registry, "load_registry", lambda: {"ew_sew_hwang": source})
    yield server
    server.close()


def test_fetch_checks_the_size_and_records_the_digest(served, tmp_path, caplog):
    with caplog.at_level("WARNING"):
        fetch_dataset("ew_sew_hwang", [], "all", tmp_path, progress=False)
    recorded = json.loads((tmp_path / "ew_sew_hwang" / ".recorded-digests.json").read_text())
    assert recorded["aligned-good-0.67.txt"] == {"sha256": hashlib.sha256(GOOD.encode()).hexdigest(),
                                                 "size": len(GOOD.encode())}
    assert "no sha256 is published for this file; its size matched" in caplog.text
    # a later fetch checks the file on disk against the recorded digest: a changed file is fetched again
    (tmp_path / "ew_sew_hwang" / "aligned-good-0.67.txt").write_text(GOOD.replace("paris", "lyons"))  # same size, other bytes
    caplog.clear()
    with caplog.at_level("WARNING"):
        fetch_dataset("ew_sew_hwang", [], "all", tmp_path, progress=False)
    assert "present but sha256 mismatch" in caplog.text and ".recorded-digests.json" in caplog.text
    assert (tmp_path / "ew_sew_hwang" / "aligned-good-0.67.txt").read_text() == GOOD


def test_a_file_of_the_wrong_size_is_refused(served, tmp_path):
    served.files["/simplification/aligned-good-0.67.txt"] = (GOOD + "extra\tline\t0.9\n").encode()
    with pytest.raises(FetchError, match=f"size mismatch: expected {len(GOOD.encode()):,} bytes, got "
                       f"{len(GOOD.encode()) + 15:,}"):
        fetch_dataset("ew_sew_hwang", [], "all", tmp_path, progress=False)
    assert not (tmp_path / "ew_sew_hwang" / "aligned-good-0.67.txt.part").exists()  # not kept to resume from
    assert issubclass(SizeMismatch, FetchError)


def _prepare(tmp_path, options, served=None):
    fetch_dataset("ew_sew_hwang", [], "all", tmp_path / "raw", progress=False)
    return prepare_dataset("ew_sew_hwang", ["train"], tmp_path / "raw", tmp_path / "out", options, check_counts=False)


def test_default_keeps_good_and_good_partial_above_the_threshold(served, tmp_path):
    summary = _prepare(tmp_path, {"classes": ["good", "good_partial"], "min_score": 0.45})
    notes = summary["train"]["notes"]
    assert "good: 2 pairs, 2 with a score above 0.45" in notes
    assert "good_partial: 2 pairs, 2 with a score above 0.45" in notes
    assert summary["train"]["pairs"] == 4
    assert any("Nisioi" in note and "284,677" in note for note in notes)
    source = (tmp_path / "out/ew_sew_hwang/train.src").read_text().splitlines()
    assert source[0] == "the team won the 1990 / 91 title ."  # \/ restored, as the Turk files write it


def test_the_threshold_is_strict_and_classes_are_chosen(served, tmp_path):
    summary = _prepare(tmp_path, {"classes": ["remaining"], "min_score": 0.45})
    # 0.46 kept; 0.45 is not greater than 0.45 (WEAN: "greater than 0.45"); 0.44 dropped
    assert "remaining: 3 pairs, 1 with a score above 0.45" in summary["train"]["notes"]
    assert (tmp_path / "out/ew_sew_hwang/train.tgt").read_text() == "the band started in 1975 .\n"


def test_identical_pairs_and_duplicates_are_removed_only_when_asked(served, tmp_path):
    summary = _prepare(tmp_path, {"classes": ["good"], "min_score": 0.45, "drop_identical": True})
    assert summary["train"]["pairs"] == 1
    assert "1 pairs whose two sides are identical removed" in summary["train"]["notes"]


@pytest.mark.parametrize("line, message", [
    ("only two\tfields\n", ":2: expected 3 tab-separated fields"),
    ("a .\tb .\thigh\n", ":2: the similarity score 'high' is not a number"),
])
def test_malformed_lines_name_file_and_line(served, tmp_path, line, message):
    body = GOOD.splitlines(keepends=True)[0] + line
    served.files["/simplification/aligned-good-0.67.txt"] = body.encode()
    source = registry.load_registry()["ew_sew_hwang"]
    files = [f.model_copy(update={"size": len(body.encode())}) if f.path == "aligned-good-0.67.txt" else f
             for f in source.files]
    patched = source.model_copy(update={"files": files})
    registry.load_registry = lambda: {"ew_sew_hwang": patched}  # monkeypatch (fixture) restores it
    with pytest.raises(CorpusError, match="aligned-good-0.67.txt" + message):
        _prepare(tmp_path, {"classes": ["good"], "min_score": 0.45})


def test_the_filter_belongs_to_its_recipe():
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["datasets"]["pwkp"]["alignment_filter"] = {"classes": ["good"]}
    with pytest.raises(ConfigError, match="only recipe ew_sew_hwang filters aligned pairs, not 'pwkp'"):
        parse_config(raw)
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    del raw["datasets"]["ew_sew_hwang"]["alignment_filter"]
    with pytest.raises(ConfigError, match="recipe ew_sew_hwang needs one"):
        parse_config(raw)
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["datasets"]["ew_sew_hwang"]["alignment_filter"]["classes"] = ["bad"]
    with pytest.raises(ConfigError, match="alignment_filter.classes"):
        parse_config(raw)
    raw["datasets"]["ew_sew_hwang"]["alignment_filter"]["classes"] = ["good", "good"]
    with pytest.raises(ConfigError, match="listed more than once"):
        parse_config(raw)


def test_the_dag_passes_the_filter_from_params_to_prepare():
    from paragen.pipeline import plan

    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["data"] = ["ew_sew_hwang"]
    raw["datasets"]["ew_sew_hwang"]["alignment_filter"].update(min_score=0.5, drop_identical=True)
    stage = {s.name: s for s in plan.stages(parse_config(raw))}["prepare_ew_sew_hwang"]
    assert stage.cmd == ("paragen prepare ew_sew_hwang --split train --split valid --split test --classes "
                         "good,good_partial --min-score 0.5 --drop-identical --max-line-chars 4000")
    assert "datasets.ew_sew_hwang.alignment_filter" in stage.params


def test_a_recording_for_another_size_is_ignored_and_a_placed_file_gets_recorded(served, tmp_path):
    directory = tmp_path / "ew_sew_hwang"
    directory.mkdir()
    # a recording from an older release (other size): ignored, the file is fetched and recorded afresh
    (directory / ".recorded-digests.json").write_text(json.dumps(
        {"aligned-good-0.67.txt": {"sha256": "0" * 64, "size": 5}}))
    # a file placed by hand with the right size: kept, and its digest recorded
    (directory / "aligned-remaining-0.45.txt").write_text(REMAINING)
    fetch_dataset("ew_sew_hwang", [], "all", tmp_path, progress=False)
    recorded = json.loads((directory / ".recorded-digests.json").read_text())
    assert recorded["aligned-good-0.67.txt"]["sha256"] == hashlib.sha256(GOOD.encode()).hexdigest()
    assert recorded["aligned-remaining-0.45.txt"]["sha256"] == hashlib.sha256(REMAINING.encode()).hexdigest()
    (directory / ".recorded-digests.json").write_text("{broken")
    with pytest.raises(FetchError, match=r"\.recorded-digests\.json:1: not valid JSON"):
        fetch_dataset("ew_sew_hwang", [], "all", tmp_path, progress=False)
