"""Every table and figure of the DAG is a Snakemake report item, under its paper, with a caption naming it."""

import jinja2
import pytest
import yaml
from docutils.core import publish_parts

from paragen.config import parse_config
from paragen.pipeline.stage import Stage
from paragen.pipeline.plan import stages
from paragen.pipeline.report_items import ReportItem
from paragen.pipeline.snakemake_report import rst_text, write_captions

from conftest import ROOT

PAPER_OF_TABLE = {  # from ../shared/papers/README.md: which paper each table of params.yaml reproduces
    "copynet_synthetic": "CopyNet", "copynet_synthetic_paper_scale": "CopyNet", "copynet_lcsts": "CopyNet",
    "copynet_synthetic_adjacent": "CopyNet",  # the default table on the other rule-data generator
    "wean_pwkp": "WEAN", "wean_ewsew": "WEAN", "wean_lcsts": "WEAN", "wean_parameters": "WEAN",
    "turk_mini": "WEAN", "turk_mini_copy": "WEAN",  # Seq2seq vs WEAN on the turk-mini stand-in, and as a copy task
    "simplification": "simplification", "simplification_turk_mini": "simplification",
    "spm_gigaword": "SPM", "headline_synthetic": "SPM",  # 004's measures, on Gigaword and on the stand-in
}


def everything_on(scale: str) -> tuple[dict, list[Stage]]:
    """The project's params.yaml with every suite and every real dataset switched on."""
    raw = yaml.safe_load((ROOT / "params.yaml").read_text())
    raw["suites"] = sorted({t["suite"] for t in raw["tables"].values()})
    raw["data"] = [name for name, spec in raw["datasets"].items() if spec.get("kind") == "real"]
    raw["scale"] = scale
    return raw, stages(parse_config(raw, "params.yaml"))


@pytest.mark.parametrize("scale", ["default", "paper"])
def test_every_table_and_figure_is_a_report_item_under_its_paper(scale):
    raw, all_stages = everything_on(scale)
    assert set(PAPER_OF_TABLE) == set(raw["tables"]), "a new table: say which paper it belongs to here"
    seen = set()
    for stage in all_stages:
        items = {item.path: item for item in stage.report}
        shown = [p for p in stage.outs if p.startswith(("results/tables/", "results/figures/"))]
        assert sorted(items) == sorted(shown), stage.name
        for path, item in items.items():
            assert item.caption.strip(), path
            if stage.name == "datasets_table":
                assert item.category == "Datasets (all papers)"
                continue
            table = stage.name.removeprefix("report_") if stage.step == "report" else "simplification"  # a sweep
            title = raw["tables"][table]["title"]
            assert PAPER_OF_TABLE[table] in item.category, (path, item.category)
            assert item.subcategory == title and item.caption.startswith(title), path
            seen.add(table)
    assert seen == {t for t, spec in raw["tables"].items() if spec.get("scale") in (None, scale)}


def test_figure_captions_say_what_they_show(tiny_config):
    (report,) = [s for s in stages(tiny_config) if s.name == "report_copynet_synthetic"]
    captions = {item.path: item.caption for item in report.report}
    curves = captions["results/figures/copynet_synthetic_valid_curves.png"]
    assert "validation exact-match accuracy" in curves and "(Enc-Dec, CopyNet, WEAN)" in curves
    assert "Copy-mode heat map of CopyNet" in captions["results/figures/copynet_synthetic_copy_heatmap.png"]
    assert "Markdown file" in captions["results/tables/copynet_synthetic.md"]
    assert "LaTeX file" in captions["results/tables/copynet_synthetic.tex"]


def test_a_report_item_must_be_an_output_of_its_stage():
    with pytest.raises(ValueError, match=r"stage s: report items \['b.md'\] are not among its outputs"):
        Stage(name="s", step="report", cmd="true", deps=(), outs=("a.md",),
              report=(ReportItem("b.md", "P", "T", "caption"),))


@pytest.mark.parametrize("text", [
    "A. *bold* `code` |sub| _target [1]_ x->0 :role:`z` 1) ± §5.5 back\\slash",
    "{{ snakemake.output }} {% if x %} {# comment #}",
    "#. enumerated? -- no; a title\n=======",
])
def test_captions_render_exactly_as_written(text):
    """Snakemake renders a caption file as Jinja, then RST to HTML: the text must survive both unchanged."""
    rendered = jinja2.Environment().from_string(rst_text(text)).render()
    body = publish_parts(rendered, writer="html")["body"]  # a docutils warning would show in the body
    expected = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert body == f"<p>{expected}</p>\n"


def test_caption_files_are_written_once_and_braces_are_refused(tmp_path):
    item = ReportItem("results/tables/t.md", "P", "T", "a caption")
    (path,) = write_captions([item], tmp_path).values()
    assert path.startswith(str(tmp_path)) and path.endswith(".rst")
    before = (tmp_path / "results__tables__t.md.rst").stat().st_mtime_ns
    write_captions([item], tmp_path)
    assert (tmp_path / "results__tables__t.md.rst").stat().st_mtime_ns == before
    with pytest.raises(ValueError, match=r"report subcategory 'T \{x\}' of results/tables/t.md: braces"):
        write_captions([ReportItem("results/tables/t.md", "P", "T {x}", "c")], tmp_path)
