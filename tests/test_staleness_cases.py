"""``paragen check-tables`` in pieces (:mod:`paragen.report.staleness`): the diff it shows, what the scratch
folder gets, the rebuild command and its failure message, and each way a committed file can be stale.

The rebuild itself is replaced by a recorder (the real one runs ``paragen report`` in a subprocess, which
``tests/test_committed_tables.py`` drives on the committed tables); every expected string is written out by hand
from the few lines each test sets up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from paragen.report import staleness
from paragen.report.staleness import Stale, _diff, check_tables, rebuild_table

from conftest import TINY_PARAMS, file_tree, write_lines


def _pair(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    committed, rebuilt = tmp_path / "committed.md", tmp_path / "rebuilt.md"
    committed.write_text(old, encoding="utf-8")
    rebuilt.write_text(new, encoding="utf-8")
    return committed, rebuilt


def test_equal_lines_are_not_a_difference_even_without_the_last_newline(tmp_path):
    assert _diff(*_pair(tmp_path, "a\nb\n", "a\nb"), "t.md") is None


def test_one_changed_line_is_shown_as_a_zero_context_unified_diff(tmp_path):
    """Line 2 of three changed: the header names both sides, the hunk has no context line (n=0)."""
    detail = _diff(*_pair(tmp_path, "a\nb\nc\n", "a\nB\nc\n"), "t.md")
    assert detail == ("differs from its rebuild:\n"
                      "    --- committed t.md\n"
                      "    +++ rebuilt t.md\n"
                      "    @@ -2 +2 @@\n"
                      "    -b\n"
                      "    +B")


def test_a_line_over_300_characters_is_cut_at_300_and_marked(tmp_path):
    """The removed line is "-" + 301 x's (302 characters): it shows as its first 300 and " …"; the added line is
    "+" + 299 y's (exactly 300), shown whole."""
    detail = _diff(*_pair(tmp_path, "x" * 301 + "\n", "y" * 299 + "\n"), "t.md")
    shown = detail.split("\n    ")
    assert shown[-2] == "-" + "x" * 299 + " …"
    assert shown[-1] == "+" + "y" * 299


def test_a_line_of_301_characters_is_cut_too(tmp_path):
    """"-" + 300 x's is 301 characters, one over: its first 300 and " …"."""
    detail = _diff(*_pair(tmp_path, "x" * 300 + "\n", "y\n"), "t.md")
    assert detail.split("\n    ")[-2] == "-" + "x" * 299 + " …"


def test_twelve_diff_lines_are_shown_whole_and_a_thirteenth_is_marked(tmp_path):
    """Five lines against four others: 3 header lines + 5 removed + 4 added = 12, all shown, no mark. Five
    against five: 13 lines, the first 12 shown (the last "+E" not) and a line "…" after them."""
    old = "a\nb\nc\nd\ne\n"
    whole = _diff(*_pair(tmp_path, old, "A\nB\nC\nD\n"), "t.md")
    assert whole.split("\n    ")[1:] == ["--- committed t.md", "+++ rebuilt t.md", "@@ -1,5 +1,4 @@",
                                          "-a", "-b", "-c", "-d", "-e", "+A", "+B", "+C", "+D"]
    cut = _diff(*_pair(tmp_path, old, "A\nB\nC\nD\nE\n"), "t.md")
    assert cut.split("\n    ")[1:] == ["--- committed t.md", "+++ rebuilt t.md", "@@ -1,5 +1,5 @@",
                                        "-a", "-b", "-c", "-d", "-e", "+A", "+B", "+C", "+D", "…"]


def test_a_stale_file_describes_itself_as_path_colon_detail():
    assert Stale("results/tables/t.md", "why").describe() == "results/tables/t.md: why"


class Recorder:
    """Stands in for ``subprocess.run``: records the command, its folder and keyword arguments, and answers with
    ``returncode`` and ``stderr``."""

    def __init__(self, returncode: int = 0, stderr: str = ""):
        self.returncode, self.stderr, self.calls = returncode, stderr, []

    def __call__(self, command, **kwargs):
        self.calls.append((command, kwargs))
        return subprocess.CompletedProcess(command, self.returncode, "", self.stderr)


def _repository(tmp_path: Path, matrix: bool = True) -> Path:
    """A repository holding params.yaml, one metrics file, the matrix's tests, the quoted published rescoring,
    a sweep table and a table the rebuild does not read."""
    root = tmp_path / "repo"
    for path, text in (("params.yaml", "params"), ("results/metrics/m.json", "{}"), ("results/matrix/p.json", "[]"),
                       ("results/tables/published_outputs.csv", "published"),
                       ("results/tables/simp_sweep.csv", "sweep"), ("results/tables/other.md", "other")):
        if path.startswith("results/matrix") and not matrix:
            continue
        write_lines(root / path, [text])
    return root


def _provenance(tmp_path: Path, settings: dict) -> Path:
    provenance = tmp_path / "provenance" / settings["table"]
    write_lines(provenance / "files" / "runs" / "r1" / "train_log.csv", ["log"])
    write_lines(provenance / "report.json", [json.dumps(settings)])
    return provenance


@pytest.fixture
def scratch(tmp_path) -> Path:
    folder = tmp_path / "scratch"
    folder.mkdir()
    return folder


def test_the_scratch_gets_params_metrics_matrix_quoted_tables_and_the_kept_files(tmp_path, monkeypatch, scratch):
    recorder = Recorder()
    monkeypatch.setattr(staleness.subprocess, "run", recorder)
    provenance = _provenance(tmp_path, {"table": "tt", "data": ["a", "b"], "seeds": 3})
    assert rebuild_table(_repository(tmp_path), provenance, scratch) == ("tt", None)
    assert file_tree(scratch) == {"params.yaml": "params\n", "results/metrics/m.json": "{}\n",
                                  "results/matrix/p.json": "[]\n",
                                  "results/tables/published_outputs.csv": "published\n",
                                  "results/tables/simp_sweep.csv": "sweep\n", "runs/r1/train_log.csv": "log\n"}
    [(command, kwargs)] = recorder.calls
    assert command == [sys.executable, "-m", "paragen.cli", "report", "--params", "params.yaml", "--table", "tt",
                       "--tables-only", "--seeds", "3", "--data", "a,b"]
    assert kwargs == {"cwd": scratch, "capture_output": True, "text": True}


def test_a_repository_without_matrix_tests_rebuilds_without_them(tmp_path, monkeypatch, scratch):
    monkeypatch.setattr(staleness.subprocess, "run", Recorder())
    provenance = _provenance(tmp_path, {"table": "tt", "data": [], "seeds": 1})
    rebuild_table(_repository(tmp_path, matrix=False), provenance, scratch)
    assert not (scratch / "results" / "matrix").exists()
    assert (scratch / "results" / "metrics" / "m.json").is_file()


def test_the_matrix_is_rebuilt_by_paragen_matrix_with_its_own_seeds(tmp_path, monkeypatch, scratch):
    """report.json's seeds (2) are not passed: the matrix takes its seeds from params.yaml's matrix.seeds; no
    --data when the settings list none."""
    recorder = Recorder()
    monkeypatch.setattr(staleness.subprocess, "run", recorder)
    provenance = _provenance(tmp_path, {"table": "matrix", "data": [], "seeds": 2})
    assert rebuild_table(_repository(tmp_path), provenance, scratch) == ("matrix", None)
    assert recorder.calls[0][0] == [sys.executable, "-m", "paragen.cli", "matrix", "--params", "params.yaml",
                                    "--tables-only", "--suites", "matrix"]


def test_a_failed_rebuild_names_its_command_and_the_last_line_of_its_error(tmp_path, monkeypatch, scratch):
    monkeypatch.setattr(staleness.subprocess, "run", Recorder(2, "Traceback ...\nerror: no table tt\n"))
    provenance = _provenance(tmp_path, {"table": "tt", "data": ["a"], "seeds": 1})
    assert rebuild_table(_repository(tmp_path), provenance, scratch) == (
        "tt", "could not be rebuilt (report --params params.yaml --table tt --tables-only --seeds 1 --data a): "
              "error: no table tt")


def test_a_failed_rebuild_that_printed_nothing_says_so(tmp_path, monkeypatch, scratch):
    monkeypatch.setattr(staleness.subprocess, "run", Recorder(1, "  \n"))
    provenance = _provenance(tmp_path, {"table": "tt", "data": [], "seeds": 1})
    assert rebuild_table(_repository(tmp_path), provenance, scratch) == (
        "tt", "could not be rebuilt (report --params params.yaml --table tt --tables-only --seeds 1): no message")


TABLE = "copynet_synthetic"
"""A scores table of the test configuration (check_tables loads it to find tables without provenance)."""


def _params() -> str:
    """The tiny test configuration with a second scores table (``second``) and a parameters table."""
    raw = yaml.safe_load(TINY_PARAMS.read_text(encoding="utf-8"))
    raw["tables"]["second"] = {**raw["tables"][TABLE], "comparisons": []}
    raw["tables"]["tiny_parameters"] = {"suite": "synthetic", "kind": "parameters", "paper": "wean_table5",
                                        "title": "t", "grid": {"WEAN": {"PWKP": "t_wean"}}}
    return yaml.safe_dump(raw)


def _checked_repository(tmp_path: Path, tables: dict[str, dict[str, str]]) -> Path:
    """The configuration above, and for each table its provenance and the committed files given."""
    root = tmp_path / "repo"
    write_lines(root / "params.yaml", [_params()], ending="")
    for table, committed in tables.items():
        write_lines(root / "results" / "provenance" / table / "report.json",
                    [json.dumps({"table": table, "data": [], "seeds": 1})])
        for path, text in committed.items():
            write_lines(root / path, [text], ending="")
    return root


def _fake_rebuild(monkeypatch, writes: dict[str, dict[str, str]], failures: dict[str, str] | None = None,
                  redraws: dict[str, bool] | None = None):
    """Replace rebuild_table: for each table write ``writes[table]`` into the scratch (or fail with
    ``failures[table]``); returns the scratch folders used, by table."""
    scratches: dict[str, Path] = {}
    redraws = {} if redraws is None else redraws  # table -> whether its rebuild drew figures

    def rebuild(root, provenance, scratch, redraw=False):
        table = json.loads((provenance / "report.json").read_text())["table"]
        redraws[table] = redraw
        scratches[table] = scratch
        if failures and table in failures:
            return table, failures[table]
        for path, text in writes.get(table, {}).items():
            write_lines(scratch / path, [text], ending="")
        return table, None

    def parameters(root, name, scratch, redraw=False):
        (scratch / "report.json").write_text(json.dumps({"table": name}))
        return rebuild(root, scratch, scratch, redraw)

    monkeypatch.setattr(staleness, "rebuild_table", rebuild)
    monkeypatch.setattr(staleness, "rebuild_parameters", parameters)
    return scratches


def test_each_way_a_file_can_be_stale_is_named_in_the_order_of_the_outputs(tmp_path, monkeypatch):
    """md equal; csv edited; tex committed but not rebuilt; the comparisons CSV rebuilt but not committed;
    aligned pairs Markdown in neither (not named). Order: md, csv, tex, comparisons, aligned pairs."""
    t = "results/tables/" + TABLE
    root = _checked_repository(tmp_path, {TABLE: {f"{t}.md": "same\n", f"{t}.csv": "a,1\n", f"{t}.tex": "x\n"}})
    scratches = _fake_rebuild(monkeypatch, {TABLE: {f"{t}.md": "same\n", f"{t}.csv": "a,2\n",
                                                    f"{t}_comparisons.csv": "c\n"}})
    stale, checked = check_tables(root)
    assert checked == [TABLE]
    assert [s.path for s in stale] == [f"{t}.csv", f"{t}.tex", f"{t}_comparisons.csv"]
    assert stale[0].detail == (f"differs from its rebuild:\n    --- committed {t}.csv\n    +++ rebuilt {t}.csv\n"
                               "    @@ -1 +1 @@\n    -a,1\n    +a,2")
    assert stale[1].detail == "committed, but the rebuild does not write it"
    assert stale[2].detail == "the rebuild writes it, but it is not committed"
    assert scratches[TABLE].name.startswith(f"check-{TABLE}-") and not scratches[TABLE].exists()


def test_aligned_pairs_files_are_compared_too(tmp_path, monkeypatch):
    t = "results/tables/" + TABLE
    committed = {f"{t}.md": "m\n", f"{t}.csv": "c\n", f"{t}.tex": "t\n", f"{t}_aligned_pairs.md": "old\n",
                 f"{t}_aligned_pairs.csv": "p\n"}
    root = _checked_repository(tmp_path, {TABLE: committed})
    _fake_rebuild(monkeypatch, {TABLE: {**committed, f"{t}_aligned_pairs.md": "new\n"}})
    stale, _ = check_tables(root)
    assert [s.path for s in stale] == [f"{t}_aligned_pairs.md"]


def test_a_failed_rebuild_is_one_stale_markdown_and_nothing_else_is_compared(tmp_path, monkeypatch):
    t = "results/tables/" + TABLE
    root = _checked_repository(tmp_path, {TABLE: {f"{t}.csv": "a\n"}})
    _fake_rebuild(monkeypatch, {}, {TABLE: "could not be rebuilt (...): boom"})
    stale, checked = check_tables(root)
    assert checked == [TABLE]
    assert stale == [Stale(f"{t}.md", "could not be rebuilt (...): boom")]


def test_names_choose_which_tables_are_rebuilt_and_the_rest_are_sorted(tmp_path, monkeypatch):
    """Provenance of three tables (created in unsorted order); names pick two; the tables checked come back in
    sorted order."""
    tables = {"zeta": {}, "alpha": {}, "mid": {}}
    root = _checked_repository(tmp_path, tables)
    scratches = _fake_rebuild(monkeypatch, {})
    assert check_tables(root, ["zeta", "alpha"]) == ([], ["alpha", "zeta"])
    assert sorted(scratches) == ["alpha", "zeta"]
    assert check_tables(root) == ([], ["alpha", "mid", "zeta"])


def test_a_scores_table_committed_without_provenance_is_named_unless_not_asked_for(tmp_path, monkeypatch):
    """copynet_synthetic.md committed, no provenance: named (its Markdown path, the fixed sentence); with names
    that leave it out, not named. tiny_parameters (kind parameters) committed without provenance is never named as
    such: it keeps none, and is rebuilt from params.yaml instead (here its rebuild gives the committed text back). A
    scores table with no committed Markdown (second) is not named either."""
    root = _checked_repository(tmp_path, {})
    for table in (TABLE, "tiny_parameters"):
        write_lines(root / "results" / "tables" / f"{table}.md", ["x"])
    write_lines(root / "results" / "tables" / "second.csv", ["only a csv"])
    _fake_rebuild(monkeypatch, {"tiny_parameters": {"results/tables/tiny_parameters.md": "x\n"}})
    sentence = ("committed without results/provenance/ (what it was built from): it cannot be rebuilt; regenerate "
                "it with the pipeline")
    assert check_tables(root) == ([Stale(f"results/tables/{TABLE}.md", sentence)], ["tiny_parameters"])
    assert check_tables(root, [TABLE]) == ([Stale(f"results/tables/{TABLE}.md", sentence)], [])
    assert check_tables(root, ["tiny_parameters", "second"]) == ([], ["tiny_parameters"])


def test_a_committed_parameters_table_is_rebuilt_and_an_edit_named(tmp_path, monkeypatch):
    """Its rebuild gives other text than the committed Markdown: named with the diff."""
    root = _checked_repository(tmp_path, {})
    write_lines(root / "results" / "tables" / "tiny_parameters.md", ["edited"])
    _fake_rebuild(monkeypatch, {"tiny_parameters": {"results/tables/tiny_parameters.md": "counted\n"}})
    stale, checked = check_tables(root, ["tiny_parameters"])
    assert checked == ["tiny_parameters"] and [s.path for s in stale] == ["results/tables/tiny_parameters.md"]
    assert "-edited" in stale[0].detail and "+counted" in stale[0].detail


def test_a_folder_without_settings_is_not_a_provenance(tmp_path, monkeypatch):
    """Only folders holding report.json count: a stray folder under results/provenance/ is not rebuilt."""
    root = _checked_repository(tmp_path, {"kept": {}})
    (root / "results" / "provenance" / "stray" / "files").mkdir(parents=True)
    _fake_rebuild(monkeypatch, {})
    assert check_tables(root) == ([], ["kept"])


def test_a_failed_rebuild_does_not_stop_the_tables_after_it(tmp_path, monkeypatch):
    """alpha (first in sorted order) cannot be rebuilt; beta rebuilds with a file nobody committed: both named."""
    root = _checked_repository(tmp_path, {"alpha": {}, "beta": {}})
    _fake_rebuild(monkeypatch, {"beta": {"results/tables/beta.md": "b\n"}}, {"alpha": "could not be rebuilt (x): y"})
    assert check_tables(root) == ([Stale("results/tables/alpha.md", "could not be rebuilt (x): y"),
                                   Stale("results/tables/beta.md", "the rebuild writes it, but it is not committed")],
                                  ["alpha", "beta"])


def test_update_writes_back_what_differs_and_the_figures_the_rebuild_drew(tmp_path, monkeypatch):
    """--update: the rebuild draws figures (redraw); the edited CSV, the examples page the committed tree lacks and
    the figure are written over the committed tree and named; the equal Markdown is left alone and not listed; a
    committed file the rebuild no longer writes is named and removed (the committed tree becomes the rebuild)."""
    t = "results/tables/" + TABLE
    figure = f"results/figures/{TABLE}_valid_curves.png"
    root = _checked_repository(tmp_path, {TABLE: {f"{t}.md": "same\n", f"{t}.csv": "a,1\n", f"{t}.tex": "x\n"}})
    redraws: dict[str, bool] = {}
    _fake_rebuild(monkeypatch, {TABLE: {f"{t}.md": "same\n", f"{t}.csv": "a,2\n", f"{t}_examples.md": "e\n",
                                        figure: "png"}}, redraws=redraws)
    stale, _ = check_tables(root, update=True)
    assert redraws == {TABLE: True}
    assert [s.path for s in stale] == [f"{t}.csv", f"{t}.tex", f"{t}_examples.md", figure]
    assert (root / f"{t}.csv").read_text() == "a,2\n" and (root / f"{t}_examples.md").read_text() == "e\n"
    assert (root / figure).read_text() == "png" and not (root / f"{t}.tex").exists()
    assert (root / f"{t}.md").read_text() == "same\n"
