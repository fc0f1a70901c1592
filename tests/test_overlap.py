"""Train/valid/test overlap measured at prepare, refused above ``max_overlap`` (paragen.data.overlap)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from paragen.data.corpus import CorpusError
from paragen.data.overlap import allowed_overlap, check_overlap, measure_overlap
from paragen.data.prepare import Split
from test_local_data import LOCAL, local_params, paragen


def split(*pairs: str) -> Split:
    """``"a>A"`` pairs: source a, target A."""
    return Split([p.split(">")[0] for p in pairs], [[p.split(">")[1] for p in pairs]])


def test_counts_identical_sources_and_pairs_of_each_later_split_in_each_earlier_one():
    # Given test first, as a user's params.yaml may: the counts are still of the split evaluated on.
    splits = {"test": split("a>X", "b>B", "e>E"), "valid": split("b>B", "d>D"), "train": split("a>A", "b>B", "c>C")}
    # By hand: valid's b is in train (same target: 1 pair); test's a and b are in train, only b>B as a pair; test's
    # b>B is also valid's.
    assert measure_overlap(splits) == {
        "train/valid": {"sources": 1, "pairs": 1, "guarded": True},
        "train/test": {"sources": 2, "pairs": 1, "guarded": True},
        "valid/test": {"sources": 1, "pairs": 1, "guarded": True},
    }


def test_two_test_sets_may_share_sentences_and_reference_only_lines_are_never_counted():
    splits = {"test_rush": split("a>A", ">R"), "test_zhou": split("a>A", ">R")}
    assert measure_overlap(splits) == {"test_rush/test_zhou": {"sources": 1, "pairs": 1, "guarded": False}}
    assert check_overlap("giga", splits, 0, "--max-overlap")  # counted, not refused


def test_refused_above_the_threshold_with_the_counts_and_the_switch():
    splits = {"train": split("a>A", "b>B", "c>C"), "test": split("a>A", "b>X", "z>Z")}
    with pytest.raises(CorpusError) as refused:
        check_overlap("mine", splits, 1, "datasets.mine.max_overlap")
    assert str(refused.value) == (
        "mine: 2 of the 3 test lines have a source sentence that is also in train (1 identical pairs); a score on "
        "such lines measures memory, not generation. Make the splits disjoint, or allow it with "
        "datasets.mine.max_overlap: 2 (tables then state the overlap)")
    allowed = check_overlap("mine", splits, 2, "datasets.mine.max_overlap")
    assert allowed_overlap(allowed) == ["2 test lines share a source sentence with train (1 identical pairs)"]


def test_prepare_local_refuses_a_test_split_that_is_the_training_split(workflow_dir):
    """The user's trial: train and test pointed at the same files was accepted without a word."""
    local_params(workflow_dir)
    for side in ("src", "tgt"):
        shutil.copy(LOCAL / f"train.{side}", workflow_dir / f"mydata/test.{side}")
    raw = yaml.safe_load((workflow_dir / "params.yaml").read_text())
    raw["datasets"]["mine"]["files"]["test"] = {"source": "mydata/test.src", "target": "mydata/test.tgt"}
    (workflow_dir / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    result = paragen(["prepare-local", "--dataset", "mine"], workflow_dir)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "80 of the 80 test lines have a source sentence that is also in train (80 identical pairs)" in result.stderr
    assert "datasets.mine.max_overlap: 80" in result.stderr
    assert not (workflow_dir / "data/prepared/mine").exists()

    raw["datasets"]["mine"]["max_overlap"] = 80
    (workflow_dir / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    result = paragen(["prepare-local", "--dataset", "mine"], workflow_dir)
    assert result.returncode == 0, result.stderr
    recorded = json.loads((workflow_dir / "data/prepared/mine/prepare.json").read_text())["overlap"]
    assert recorded["train/test"] == {"sources": 80, "pairs": 80, "guarded": True}


def test_a_tables_caption_states_the_overlap_that_max_overlap_allowed(tiny_config, tmp_path, monkeypatch):
    from paragen.config import parse_config
    from paragen.report.captions import overlap_text

    monkeypatch.chdir(tmp_path)
    raw = tiny_config.model_dump(exclude_unset=True)
    files = {s: {"source": f"d/{s}.src", "target": f"d/{s}.tgt"} for s in ("train", "valid", "test")}
    raw["datasets"]["mine"] = {"kind": "local", "files": files, "max_overlap": 5}
    raw["experiments"]["m"] = {"dataset": "mine", "model": "encdec", "training": "tiny", "decoding": "beam3"}
    config = parse_config(raw)
    assert overlap_text(config, ["m"]) == ""  # not prepared here: nothing to state
    record = tmp_path / "data/prepared/mine/prepare.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"overlap": {"train/valid": {"sources": 0, "pairs": 0, "guarded": True},
                                              "train/test": {"sources": 3, "pairs": 2, "guarded": True}}}))
    assert overlap_text(config, ["m"]) == (" Overlap between splits: mine: 3 test lines share a source sentence with "
                                           "train (2 identical pairs) (allowed by datasets.mine.max_overlap).")
