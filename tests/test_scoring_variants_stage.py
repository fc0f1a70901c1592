"""The scoring-variants table as a pipeline stage with provenance (issue 67): the ranking and its leave-one-out are
drawn from the scores file as written, so `paragen check-tables` redraws them from the committed scores and names a
hand-edited table; the stage runs beside the simplification table when the Turk test files are fetched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from paragen.artifacts import SCORING_VARIANTS_TABLE, scoring_variants_outputs
from paragen.config import load_config, parse_config
from paragen.report.staleness import check_tables

from conftest import ROOT


def _copy(tmp_path: Path) -> Path:
    """The committed scores, table, leave-one-out and provenance of the scoring variants in a repository of their
    own (with params.yaml and the metrics every rebuild copies)."""
    root = tmp_path / "repo"
    (root / "results" / "tables").mkdir(parents=True)
    shutil.copyfile(ROOT / "params.yaml", root / "params.yaml")
    shutil.copytree(ROOT / "results" / "metrics", root / "results" / "metrics")
    shutil.copytree(ROOT / "results" / "provenance" / SCORING_VARIANTS_TABLE,
                    root / "results" / "provenance" / SCORING_VARIANTS_TABLE)
    for path in scoring_variants_outputs():
        shutil.copyfile(ROOT / path, root / path)
    return root


def test_the_committed_table_is_redrawn_from_its_scores_and_a_hand_edit_is_named(tmp_path):
    """Unedited: nothing stale. Then the in-sample protocol's rank in the Markdown is changed by hand (as a reader
    might "fix" a number): the check names the Markdown and shows the edited line; the leave-one-out CSV, untouched,
    passes."""
    root = _copy(tmp_path)
    assert check_tables(root, [SCORING_VARIANTS_TABLE]) == ([], [SCORING_VARIANTS_TABLE])
    md = root / scoring_variants_outputs()[1]
    text = md.read_text(encoding="utf-8")
    assert "Rank 1 of 864" in text
    md.write_text(text.replace("Rank 1 of 864", "Rank 1 of 12"), encoding="utf-8")
    stale, _ = check_tables(root, [SCORING_VARIANTS_TABLE])
    assert [item.path for item in stale] == [scoring_variants_outputs()[1]]
    assert "Rank 1 of 12" in stale[0].detail and "differs from its rebuild" in stale[0].detail


def test_an_edited_leave_one_out_number_is_named_too(tmp_path):
    root = _copy(tmp_path)
    cv = root / scoring_variants_outputs()[2]
    lines = cv.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace("True", "False", 1)
    cv.write_text("".join(lines), encoding="utf-8")
    stale, _ = check_tables(root, [SCORING_VARIANTS_TABLE])
    assert [item.path for item in stale] == [scoring_variants_outputs()[2]]


def test_the_provenance_names_the_command_and_each_turk_files_digest():
    settings = json.loads((ROOT / "results" / "provenance" / SCORING_VARIANTS_TABLE / "report.json").read_text())
    assert settings["table"] == SCORING_VARIANTS_TABLE and settings["command"].startswith("paragen scoring-variants")
    assert sorted(Path(p).name for p in settings["inputs"]) == sorted(
        ["test.8turkers.tok.norm", "test.8turkers.tok.simp", *(f"test.8turkers.tok.turk.{k}" for k in range(8))])
    assert all(len(digest) == 64 for digest in settings["inputs"].values())


def test_the_stage_runs_beside_the_simplification_table_when_the_turk_files_are_fetched():
    from paragen.pipeline.plan import stages

    raw = load_config(ROOT / "params.yaml").model_dump(exclude_unset=True)
    raw["suites"], raw["data"] = ["simplification"], ["turk"]
    stage = next(s for s in stages(parse_config(raw, "with turk")) if s.name == "scoring_variants")
    assert stage.cmd == "paragen scoring-variants --raw data/raw/turkcorpus"
    assert stage.deps == ("data/raw/turkcorpus/.complete-eval.json",)
    assert set(stage.outs) == {*scoring_variants_outputs(), f"results/provenance/{SCORING_VARIANTS_TABLE}"}
    report = next(s for s in stages(parse_config(raw, "with turk")) if s.name == "report_simplification")
    assert set(scoring_variants_outputs()[1:]) <= set(report.deps)  # it runs with the table that links it
    raw["data"] = []  # no Turk files: no stage (and the default suite has none)
    assert not [s for s in stages(parse_config(raw, "without")) if s.name == "scoring_variants"]
