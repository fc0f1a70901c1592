"""``paragen report --table``'s entry points in paragen.report.build: which builder a table kind goes to, the
refusal of an unknown table, the figures' preflight message (at most five missing files named, then a count) and
the example-outputs page (its path and title, a missing output named on it, a rebuild from its data file).
Expected texts are written out by hand from tests/fixtures/tiny_params.yaml and the layout in docs/output.md."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from paragen.config import ConfigError, load_config
from paragen.pipeline.tables import table_plan
from paragen.report import build

from conftest import ROOT, write_lines

TABLE = "copynet_synthetic"


def test_an_unknown_table_is_refused_with_the_tables_there_are(tiny_config):
    with pytest.raises(ConfigError) as raised:
        build.build_table_report(tiny_config, "nope")
    assert str(raised.value) == "unknown table 'nope'; allowed values: ['copynet_synthetic']"


def test_a_parameters_table_goes_to_its_own_builder_and_plans_nothing(monkeypatch):
    """params.yaml's wean_parameters (WEAN Table 5) is of kind parameters: built by build_parameters_table with the
    configuration, its name and its spec; no scores-table plan is made for it."""
    config = load_config(ROOT / "params.yaml")
    calls = []
    monkeypatch.setattr(build, "build_parameters_table", lambda *args: calls.append(args))
    monkeypatch.setattr(build, "table_plan", lambda *args: pytest.fail("a parameters table has no plan"))
    build.build_table_report(config, "wean_parameters", figures=True)
    assert calls == [(config, "wean_parameters", config.tables["wean_parameters"])]


def _refusal(monkeypatch, tmp_path, count: int) -> str:
    """The preflight's message when ``count`` of the figures' inputs (f1 … fN, none written) are missing."""
    from paragen.pipeline import report_stages

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(report_stages, "figure_inputs", lambda config, plan: [f"f{i}" for i in range(1, count + 1)])
    with pytest.raises(ConfigError) as raised:
        build._refuse_missing_inputs(None, SimpleNamespace(name="t"))
    return str(raised.value)


TAIL = ("; nothing was written. Produce them with snakemake (results/tables/t.md), or rebuild the table files alone "
        "from what is kept with --tables-only")


@pytest.mark.parametrize("count, listed", [
    (5, "f1, f2, f3, f4, f5"),  # five: all named, no count
    (6, "f1, f2, f3, f4, f5 and 1 more"),
    (8, "f1, f2, f3, f4, f5 and 3 more"),
])
def test_the_preflight_names_five_missing_files_and_counts_the_rest(monkeypatch, tmp_path, count, listed):
    assert _refusal(monkeypatch, tmp_path, count) == (f"paragen report --table t: {count} file(s) its figures read are "
                                                     f"missing ({listed})" + TAIL)


def _example_data(rows: tuple[str, ...]) -> None:
    """Two test lines of the tiny dataset and each row's two output lines."""
    write_lines(Path("data/prepared/tiny/test.src"), ["a b", "c d"])
    write_lines(Path("data/prepared/tiny/test.tgt"), ["a", "c"])
    for experiment in rows:
        write_lines(Path(f"runs/{experiment}/test.hyp"), [f"{experiment} 1", f"{experiment} 2"])


def test_the_examples_page_is_written_under_the_tables_name_with_its_title(tiny_config, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _example_data(("t_encdec", "t_copynet", "t_wean"))
    build.write_examples(tiny_config, table_plan(tiny_config, TABLE))
    page = Path(f"results/tables/{TABLE}_examples.md").read_text(encoding="utf-8").splitlines()
    assert page[0] == "# tiny test table: example outputs"
    assert "| | WEAN | t_wean 2 |" in page


def test_a_missing_output_is_named_on_the_page_and_the_other_rows_shown(tiny_config, monkeypatch, tmp_path):
    """A row without a test output (an unfinished run) blocks neither the page nor the figures: the page shows the
    rows that have one and names the missing row with its file; the data file holds the same."""
    monkeypatch.chdir(tmp_path)
    _example_data(("t_encdec", "t_copynet"))
    build.write_examples(tiny_config, table_plan(tiny_config, TABLE))
    page = Path(f"results/tables/{TABLE}_examples.md").read_text(encoding="utf-8").splitlines()
    assert ("Not shown: WEAN (its test output runs/t_wean/test.hyp is missing; its decode (or system) stage writes "
            "it).") in page
    assert "| | CopyNet | t_copynet 2 |" in page and not any("t_wean" in line for line in page if line.startswith("|"))
    data = json.loads(Path(f"results/tables/{TABLE}_examples.json").read_text(encoding="utf-8"))
    assert list(data["missing"]) == ["WEAN"]
    assert [[role for role, _, _ in line["texts"]] for line in data["lines"]] == [
        ["source", "reference", "Enc-Dec", "CopyNet"]] * 2


def test_a_rebuild_renders_the_committed_examples_data_again(tiny_config, monkeypatch, tmp_path):
    """Without the runs' outputs (a rebuild from what is kept), the page is rendered from its data file alone."""
    monkeypatch.chdir(tmp_path)
    _example_data(("t_encdec", "t_copynet", "t_wean"))
    plan = table_plan(tiny_config, TABLE)
    build.write_examples(tiny_config, plan)
    page = Path(f"results/tables/{TABLE}_examples.md").read_text(encoding="utf-8")
    for path in Path("runs").rglob("test.hyp"):
        path.unlink()
    Path(f"results/tables/{TABLE}_examples.md").unlink()
    build.write_examples(tiny_config, plan, kept=True)
    assert Path(f"results/tables/{TABLE}_examples.md").read_text(encoding="utf-8") == page
