"""Faults of ``kind: local`` datasets that the other tests left green (issue 41): ``dedup`` reaching the evaluation
splits, pairs with an empty side kept, and a prepare stage that does not depend on every file of the dataset.

Every expected value below is worked out by hand from the few lines each test writes; nothing is obtained from
the code under test. The preparation runs in-process (:func:`paragen.data.local.prepare_local`, what
``paragen prepare-local`` calls), a fraction of a second each.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TINY_PARAMS


def write_files(directory: Path, files: dict[str, list[str]]) -> None:
    """``name -> lines`` written one line each (an empty string is an empty line)."""
    for name, lines in files.items():
        (directory / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def local_config(directory: Path, dedup: bool, with_experiment: bool = False):
    """The tiny configuration with a local dataset ``mine`` over ``<directory>/{train,valid,test}.*`` (valid and
    test with one further reference, ``.ref1``), switched on in ``data``."""
    import yaml

    from paragen.config import parse_config

    raw = yaml.safe_load(TINY_PARAMS.read_text())
    d = directory.as_posix()
    raw["datasets"]["mine"] = {
        "kind": "local", "dedup": dedup,
        "files": {"train": {"source": f"{d}/train.src", "target": f"{d}/train.tgt"},
                  "valid": {"source": f"{d}/valid.src", "target": f"{d}/valid.tgt", "references": [f"{d}/valid.ref1"]},
                  "test": {"source": f"{d}/test.src", "target": f"{d}/test.tgt", "references": [f"{d}/test.ref1"]}}}
    raw["data"] = ["mine"]
    return parse_config(raw)


def prepared(directory: Path, config) -> tuple[Path, dict]:
    """Prepare ``mine`` into ``<directory>/prepared/mine``; its directory and prepare.json."""
    from paragen.data.local import prepare_local

    prepare_local("mine", config.datasets["mine"], directory / "prepared")
    out = directory / "prepared" / "mine"
    return out, json.loads((out / "prepare.json").read_text())


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


# --- fault 1: dedup on the training split only -----------------------------------------------------------------

def test_dedup_removes_repeated_training_pairs_and_leaves_valid_and_test_whole(tmp_path):
    """``dedup: true`` with a repeated pair in each split. By hand:

    - train (5 lines): line 3 repeats line 1 exactly and goes; line 5 has line 2's source with another target, so
      it is not a repeated *pair* and stays -> 4 pairs: ``a b c``, ``d e f``, ``g h i``, ``d e f``;
    - valid (3 lines) and test (3 lines), each with line 3 repeating line 1 (source, target and reference): the
      evaluation sets are never deduplicated -> 3 and 3 pairs, the repeat included.

    Correct: train 4, valid 3, test 3. Faulty (dedup on every split): train 4, valid 2, test 2. (A dedup on the
    source alone would give train 3.)"""
    write_files(tmp_path, {
        "train.src": ["a b c", "d e f", "a b c", "g h i", "d e f"],
        "train.tgt": ["a c", "d f", "a c", "g i", "d e"],
        "valid.src": ["j k l", "m n o", "j k l"],
        "valid.tgt": ["j l", "m o", "j l"],
        "valid.ref1": ["j k", "m n", "j k"],
        "test.src": ["p q r", "s t u", "p q r"],
        "test.tgt": ["p r", "s u", "p r"],
        "test.ref1": ["p q", "s t", "p q"],
    })
    out, record = prepared(tmp_path, local_config(tmp_path, dedup=True))

    assert lines(out / "train.src") == ["a b c", "d e f", "g h i", "d e f"]
    assert lines(out / "train.tgt") == ["a c", "d f", "g i", "d e"]
    assert lines(out / "valid.src") == ["j k l", "m n o", "j k l"]
    assert lines(out / "valid.ref.1") == ["j k", "m n", "j k"]
    assert lines(out / "test.src") == ["p q r", "s t u", "p q r"]
    assert lines(out / "test.ref.0") == ["p r", "s u", "p r"]
    assert {split: counts["pairs"] for split, counts in record["splits"].items()} == {"train": 4, "valid": 3,
                                                                                       "test": 3}
    assert any(note.startswith("1 duplicate pair") for note in record["splits"]["train"]["notes"])
    assert not any("duplicate" in note for split in ("valid", "test") for note in record["splits"][split]["notes"])


# --- fault 2: pairs with an empty side dropped ------------------------------------------------------------------

def test_pairs_with_an_empty_source_target_or_further_reference_are_dropped_and_counted(tmp_path):
    """Empty lines on each side, ``dedup: false``. By hand:

    - train (5 lines): 2 has an empty source, 3 an empty target, 4 a target of blanks only -> 1 and 5 kept
      (``a b``, ``f g``), note "3 pairs with an empty side dropped";
    - valid (3 lines): 2's further reference (valid.ref1) is empty -> 1 and 3 kept, note "1 pairs ...";
    - test (4 lines): 2 has an empty target, 3 an empty source -> 1 and 4 kept, note "2 pairs ...".

    Correct: train 2, valid 2, test 2 pairs, no empty line in any prepared file. Faulty (empty sides kept):
    train 5, valid 3, test 4; faulty for further references only (the target alone checked): valid 3."""
    write_files(tmp_path, {
        "train.src": ["a b", "", "d e", "h i", "f g"],
        "train.tgt": ["a", "c", "", "   ", "f"],
        "valid.src": ["j k", "l m", "n o"],
        "valid.tgt": ["j", "l", "n"],
        "valid.ref1": ["k", "", "o"],
        "test.src": ["p q", "r s", "", "u v"],
        "test.tgt": ["p", "", "t", "u"],
        "test.ref1": ["q", "s", "t", "v"],
    })
    out, record = prepared(tmp_path, local_config(tmp_path, dedup=False))

    assert (lines(out / "train.src"), lines(out / "train.tgt")) == (["a b", "f g"], ["a", "f"])
    assert (lines(out / "valid.src"), lines(out / "valid.ref.0"), lines(out / "valid.ref.1")) == (
        ["j k", "n o"], ["j", "n"], ["k", "o"])
    assert (lines(out / "test.src"), lines(out / "test.ref.0"), lines(out / "test.ref.1")) == (
        ["p q", "u v"], ["p", "u"], ["q", "v"])
    assert {split: counts["pairs"] for split, counts in record["splits"].items()} == {"train": 2, "valid": 2,
                                                                                       "test": 2}
    assert {split: counts["notes"] for split, counts in record["splits"].items()} == {
        "train": ["3 pairs with an empty side dropped"], "valid": ["1 pairs with an empty side dropped"],
        "test": ["2 pairs with an empty side dropped"]}


# --- fault 3: the prepare stage depends on every file -----------------------------------------------------------

def test_the_prepare_stage_depends_on_every_source_target_and_reference_file(tmp_path):
    """Plan level, no engine run: the ``prepare_mine`` stage's deps are exactly the dataset's eight files, listed
    by hand: train.src, train.tgt, valid.src, valid.tgt, valid.ref1, test.src, test.tgt, test.ref1 (so an edited
    target or reference re-prepares the data instead of leaving it stale). The dvc.yaml entry lists the same.

    Correct: those 8 files. Faulty (sources only): 3 files, the targets and references missing; faulty (no
    further references): 6 files, valid.ref1 and test.ref1 missing."""
    from paragen.pipeline.dvc import dvc_document
    from paragen.pipeline.plan import stages

    all_stages = stages(local_config(tmp_path, dedup=False))
    prepare = next(s for s in all_stages if s.name == "prepare_mine")
    d = tmp_path.as_posix()
    expected = {f"{d}/train.src", f"{d}/train.tgt", f"{d}/valid.src", f"{d}/valid.tgt", f"{d}/valid.ref1",
                f"{d}/test.src", f"{d}/test.tgt", f"{d}/test.ref1"}
    assert set(prepare.deps) == expected, sorted(expected - set(prepare.deps))
    assert len(prepare.deps) == 8  # each once
    entry = dvc_document(all_stages)["stages"]["prepare_mine"]
    assert set(entry["deps"]) >= expected, sorted(expected - set(entry["deps"]))

