"""No stale table: every committed table is rebuilt from the committed metrics and its provenance
(``results/provenance/<table>/``) by the real report code, and must come back byte for byte; a hand-edited cell
is named with its file. Runs ``paragen report --tables-only`` once per committed table (a few seconds each)."""

import shutil
from pathlib import Path

from paragen.report.staleness import check_tables

from conftest import ROOT

KNOWN_STALE: dict[str, str] = {}
"""Committed tables that cannot be rebuilt yet, each with why; every other table must rebuild exactly."""


def _table(path: str) -> str:
    return Path(path).name.split(".")[0].removesuffix("_aligned_pairs")


def test_every_committed_table_rebuilds_from_committed_metrics_and_provenance():
    stale, checked = check_tables(ROOT)
    unexpected = [item.describe() for item in stale if _table(item.path) not in KNOWN_STALE]
    assert not unexpected, "stale or hand-edited tables:\n" + "\n".join(unexpected)
    assert {"copynet_synthetic", "headline_synthetic", "simplification_scoring_variants", "wean_parameters"} \
        <= set(checked)
    for name in KNOWN_STALE:  # a table leaves the list as soon as it rebuilds
        assert any(_table(item.path) == name for item in stale), f"{name} rebuilds now: drop it from KNOWN_STALE"


NOT_REBUILT_HERE: dict[str, str] = {
    "datasets.md": "`paragen datasets-table` counts data/prepared/ of every real dataset: downloads of several GB "
                   "that a clone does not have",
    "datasets.csv": "as datasets.md",
    "published_outputs.md": "`paragen published-outputs` rescores the DRESS release's system outputs from the "
                            "public-data mirror, which a clone does not have",
    "published_outputs.csv": "as published_outputs.md (the simplification table reads it, as a quoted table)",
    "simp_skip_sweep.md": "`paragen skip-sweep` scores 10 seeds at each drop probability against the Turk test "
                          "files (a download)",
    "simp_skip_sweep.csv": "as simp_skip_sweep.md (the simplification table reads it, as a quoted table)",
    "simplification_scoring_variants.csv": "the scores of every setting on the Turk test: rescoring takes about "
                                           "7 min 20 s of CPU and the Turk files (a download); its .md and _cv.csv "
                                           "are rebuilt from it",
    "copynet_synthetic_examples.json": "the examples page's data, written by the report stage from the runs' test "
                                       "outputs (runs/<run>/test.hyp, not committed); check-tables renders the "
                                       "page again from it",
    "copynet_synthetic_adjacent_examples.json": "as copynet_synthetic_examples.json",
    "headline_synthetic_examples.json": "as copynet_synthetic_examples.json",
    "turk_mini_examples.json": "as copynet_synthetic_examples.json",
    "turk_mini_copy_examples.json": "as copynet_synthetic_examples.json",
    "suite_costs.md": "rebuilt by tests/test_suite_costs.py (bench/suite_costs.py --check, from results/rehearsal/ "
                      "and results/train_speed/)",
    "rehearsal.md": "rebuilt by test_the_rehearsal_table_is_what_its_measurements_give below",
}
"""Every committed file of results/tables/ that check-tables does not rebuild, with why."""


def _rebuilt_by_check_tables() -> set[str]:
    """The committed outputs of the tables check-tables rebuilds: those with provenance and the parameters tables."""
    from paragen.config import load_config
    from paragen.report.staleness import rebuilt_outputs

    names = [p.parent.name for p in (ROOT / "results" / "provenance").glob("*/report.json")]
    names += [n for n, spec in load_config(ROOT / "params.yaml").tables.items() if spec.kind == "parameters"]
    return {Path(path).name for name in names for path in rebuilt_outputs(name) if (ROOT / path).exists()}


def test_every_committed_table_is_rebuilt_or_listed_with_why():
    """A new committed table must either be rebuilt by check-tables or be listed above with the reason it is not;
    a listed file that check-tables now rebuilds, or that is gone, leaves the list."""
    committed = {p.name for p in (ROOT / "results" / "tables").iterdir()
                 if p.is_file() and not p.name.startswith(".")}  # .<table>.lock: paragen.locks, not committed
    rebuilt = _rebuilt_by_check_tables()
    assert committed - rebuilt - set(NOT_REBUILT_HERE) == set(), "committed tables neither rebuilt nor listed"
    assert set(NOT_REBUILT_HERE) <= committed, "listed but not committed"
    assert not set(NOT_REBUILT_HERE) & rebuilt, "listed but rebuilt by check-tables"
    assert {"simplification_scoring_variants.md", "simplification_scoring_variants_cv.csv",
            "wean_parameters.csv"} <= rebuilt


def test_the_rehearsal_table_is_what_its_measurements_give():
    import importlib.util

    spec = importlib.util.spec_from_file_location("rehearse_data", ROOT / "bench" / "rehearse_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.table(ROOT / "results" / "rehearsal") == (ROOT / "results" / "tables" / "rehearsal.md").read_text(
        encoding="utf-8"), "results/tables/rehearsal.md is stale: python bench/rehearse_data.py --table"


def test_the_committed_report_index_shows_the_committed_tables(monkeypatch):
    """results/REPORT.md copies each table's body: an index written while a suite was training (or before a table
    was rebuilt) shows numbers and "still training" notes that no committed table holds."""
    from paragen.config import load_config
    from paragen.report.index import render_index

    monkeypatch.chdir(ROOT)
    assert (ROOT / "results" / "REPORT.md").read_text(encoding="utf-8") == render_index(
        load_config(ROOT / "params.yaml")), "results/REPORT.md is stale: run `paragen index`"


def _copy_repository_results(tmp_path: Path, table: str) -> Path:
    root = tmp_path / "repo"
    (root / "results" / "tables").mkdir(parents=True)
    shutil.copyfile(ROOT / "params.yaml", root / "params.yaml")
    shutil.copytree(ROOT / "results" / "metrics", root / "results" / "metrics")
    shutil.copytree(ROOT / "results" / "provenance" / table, root / "results" / "provenance" / table)
    for path in (ROOT / "results" / "tables").glob(f"{table}*"):
        shutil.copyfile(path, root / "results" / "tables" / path.name)
    return root


def test_a_hand_edited_cell_is_named_with_its_file(tmp_path):
    """Change one reproduced number of the committed CopyNet table (Enc-Dec's x → x cell): the check names the
    Markdown file and shows the edited line against its rebuild; the untouched CSV and LaTeX pass."""
    root = _copy_repository_results(tmp_path, "copynet_synthetic")
    md = root / "results" / "tables" / "copynet_synthetic.md"
    lines = md.read_text(encoding="utf-8").splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("| Enc-Dec |"))
    cells = lines[row].split(" | ")
    cells[2] = "3.3 / 99.9 (+96.6)"
    lines[row] = " | ".join(cells)
    md.write_text("".join(lines), encoding="utf-8")
    stale, checked = check_tables(root, ["copynet_synthetic"])
    assert checked == ["copynet_synthetic"]
    assert [item.path for item in stale] == ["results/tables/copynet_synthetic.md"]
    assert "3.3 / 99.9 (+96.6)" in stale[0].detail and "differs from its rebuild" in stale[0].detail


def test_update_replaces_a_stale_file_by_its_rebuild(tmp_path):
    """``paragen check-tables --update``: the hand-edited Markdown is named, then replaced by its rebuild, the deleted
    comparisons CSV written back; a second check finds nothing stale."""
    root = _copy_repository_results(tmp_path, "copynet_synthetic")
    md = root / "results" / "tables" / "copynet_synthetic.md"
    committed = md.read_text(encoding="utf-8")
    md.write_text(committed.replace("| Enc-Dec |", "| Enc-Dec (edited) |"), encoding="utf-8")
    (root / "results" / "tables" / "copynet_synthetic_comparisons.csv").unlink()
    stale, _ = check_tables(root, ["copynet_synthetic"], update=True)
    assert sorted(item.path for item in stale if not item.path.startswith("results/figures/")) == [
        "results/tables/copynet_synthetic.md", "results/tables/copynet_synthetic_comparisons.csv"]
    # the copy holds no figures: each one the rebuild draws is named and written
    assert all((root / item.path).is_file() for item in stale if item.path.startswith("results/figures/"))
    assert md.read_text(encoding="utf-8") == committed
    assert (root / "results" / "tables" / "copynet_synthetic_comparisons.csv").read_text(encoding="utf-8") == (
        ROOT / "results" / "tables" / "copynet_synthetic_comparisons.csv").read_text(encoding="utf-8")
    assert check_tables(root, ["copynet_synthetic"]) == ([], ["copynet_synthetic"])


def test_a_file_the_rebuild_writes_but_nobody_committed_is_named(tmp_path):
    """A table whose comparisons CSV was never committed (or was deleted) is stale: its numbers exist nowhere in
    the repository although the report writes them."""
    root = _copy_repository_results(tmp_path, "copynet_synthetic")
    (root / "results" / "tables" / "copynet_synthetic_comparisons.csv").unlink()
    stale, _ = check_tables(root, ["copynet_synthetic"])
    assert [(item.path, item.detail) for item in stale] == [
        ("results/tables/copynet_synthetic_comparisons.csv", "the rebuild writes it, but it is not committed")]


def test_a_table_committed_without_provenance_is_named(tmp_path):
    root = _copy_repository_results(tmp_path, "copynet_synthetic")
    shutil.rmtree(root / "results" / "provenance" / "copynet_synthetic")
    stale, checked = check_tables(root, ["copynet_synthetic"])
    assert checked == [] and [item.path for item in stale] == ["results/tables/copynet_synthetic.md"]
    assert "committed without results/provenance/" in stale[0].detail


def test_provenance_keeps_what_the_report_read_and_restores_it_in_place(tmp_path, monkeypatch):
    """Tiny config, one seed: the three trained rows' logs and sessions exist, t_wean has no sessions file, the rule
    data's statistics exist; the copy keeps exactly those five run files and the statistics, under their own
    paths, and report.json the settings."""
    import json

    from paragen.artifacts import generation_statistics
    from paragen.config import load_config, parse_config
    from paragen.pipeline.tables import table_plan
    from paragen.report.provenance import publish_provenance, restore

    from conftest import TINY_PARAMS

    monkeypatch.chdir(tmp_path)
    config = parse_config(load_config(TINY_PARAMS).model_dump(exclude_unset=True), "tiny")
    expected = ["runs/t_encdec/train_log.csv", "runs/t_encdec/sessions.json", "runs/t_copynet/train_log.csv",
                "runs/t_copynet/sessions.json", "runs/t_wean/train_log.csv", generation_statistics("tiny")]
    for index, path in enumerate(expected):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(f"content {index}\n")
    Path("runs/t_wean/best.pt").write_text("weights are not kept")
    target = Path(publish_provenance(config, table_plan(config, "copynet_synthetic")))
    kept = sorted(str(p.relative_to(target / "files")) for p in (target / "files").rglob("*") if p.is_file())
    assert kept == sorted(expected)
    other = tmp_path / "elsewhere"
    settings = restore(target, other)
    assert settings == {"table": "copynet_synthetic", "data": [], "seeds": 1}
    assert json.loads((target / "report.json").read_text()) == settings
    assert [(other / p).read_text() for p in expected] == [f"content {i}\n" for i in range(len(expected))]


def test_the_report_stage_declares_its_provenance_to_both_engines():
    """Snakemake gets it as directory() (the stage owns it whole, so a run's file that params.yaml stops asking for
    is gone with the old copy); DVC as an uncached output, like every file under results/."""
    from paragen.config import load_config, parse_config
    from paragen.pipeline.dvc import dvc_document
    from paragen.pipeline.plan import stages

    from conftest import TINY_PARAMS

    all_stages = stages(parse_config(load_config(TINY_PARAMS).model_dump(exclude_unset=True), "tiny"))
    report = next(s for s in all_stages if s.name == "report_copynet_synthetic")
    assert "results/provenance/copynet_synthetic" in report.directories
    outs = dvc_document(all_stages, "params.yaml")["stages"]["report_copynet_synthetic"]["outs"]
    assert {"results/provenance/copynet_synthetic": {"cache": False}} in outs
