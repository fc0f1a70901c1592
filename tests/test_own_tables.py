"""Tables of your own data (``paper: own``): our numbers alone, once per split the rows decode, and exact match where
the data is scored with it. Built here from metrics files written by hand (the values below are those files'), so
the table's text is checked without training anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, write_test_outputs
from test_local_data import local_params

TABLE_MD, TABLE_CSV, TABLE_TEX = (f"results/tables/mine.{suffix}" for suffix in ("md", "csv", "tex"))


def own_config(tmp_path: Path, monkeypatch, **mine):
    """The tiny configuration with test_local_data's dataset ``mine`` (its keys updated by ``mine``), its table of
    your own with one WEAN row, and an identity row (a system; its metrics below are written for test alone); cwd:
    tmp_path."""
    from paragen.config import load_config

    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    raw["datasets"]["mine"].update(mine)
    raw["systems"] = {"m_identity": {"dataset": "mine", "method": "identity"}}
    raw["tables"]["mine"]["rows"] = {"WEAN": "m_wean", "identity": "m_identity"}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    return load_config("params.yaml")


def scores(bleu: float, sari: float, exact: float | None = None) -> dict:
    """One split's metrics as `paragen evaluate` writes them (the parts a table reads)."""
    split = {"count": 12, "references": 2, "bleu": {"score": bleu}, "sari": {"score": sari}}
    return split if exact is None else {**split, "exact": {"score": exact}}


def build(config, monkeypatch, metrics: dict[str, dict]) -> tuple[str, str, str]:
    """The table ``mine`` built from these metrics files (and a two-epoch training log for WEAN); its three files."""
    from paragen.report import build as report_build

    Path("results/metrics").mkdir(parents=True)
    for run, content in metrics.items():
        Path(f"results/metrics/{run}.json").write_text(json.dumps(content))
    Path("runs/m_wean").mkdir(parents=True)
    Path("runs/m_wean/train_log.csv").write_text("epoch,valid_metric\n1,10.0\n2,20.0\n")
    monkeypatch.setattr(report_build, "plot_curves", lambda *args, **kwargs: None)
    write_test_outputs(config, "mine")
    report_build.build_table_report(config, "mine")
    return tuple(Path(path).read_text(encoding="utf-8") for path in (TABLE_MD, TABLE_CSV, TABLE_TEX))


def test_an_own_table_shows_our_numbers_on_each_split_and_no_paper(tmp_path, monkeypatch):
    config = own_config(tmp_path, monkeypatch)
    assert config.test_splits("mine") == ["valid", "test"]  # every split but train, by default
    md, csv_text, tex = build(config, monkeypatch, {
        "m_wean": {"experiment": "m_wean", "dataset": "mine",
                   "splits": {"valid": scores(41.0, 35.5), "test": scores(39.0, 33.25)}},
        "m_identity": {"experiment": "m_identity", "dataset": "mine", **scores(20.0, 18.0)}})
    lines = md.splitlines()
    assert "| model | valid BLEU | valid SARI | test BLEU | test SARI |" in lines
    assert "| WEAN | 41.0 | 35.5 | 39.0 | 33.3 |" in lines  # 33.25 -> 33.3: half up (paragen.rounding)
    assert "| identity | — | — | 20.0 | 18.0 |" in lines  # a system scores test alone
    assert "identity, valid BLEU: not scored on valid (results/metrics/m_identity.json holds the test split alone)" \
        in md
    for paper_text in ("paper / reproduced", "reproduced − paper", "Published numbers", "— / ", "not in paper"):
        assert paper_text not in md and paper_text not in tex, paper_text
    assert "Each cell: the score of the row's run on that split; — marks a missing number." in lines
    assert md.count("no paper reports numbers for these rows") == 1
    assert "on each split decoded: valid, test" in md and "valid scores flatter it" in md
    assert "Exact match" not in md  # no exact-match column, so the caption does not define it
    assert "Sentences: valid 12, test 12." in md
    header, *rows = csv_text.splitlines()
    assert header == "table,row,column,unit,reproduced,note,best_epoch,epochs_run,hit_epoch_cap"
    bleu = "BLEU 0-100, corpus level, on lowercased sacrebleu 13a tokens, zh for CJK text (auto) of the outputs, against " \
        "every reference"  # the scores here record no tokenizer: the dataset's evaluation settings say it
    sari = "SARI 0-100 on lowercased whitespace tokens of the outputs, against the source and every reference"
    assert rows[0] == f'mine,WEAN,valid/bleu,"{bleu}",41.0,,2,2,true'
    assert rows[3] == f'mine,WEAN,test/sari,"{sari}",33.25,,2,2,true'
    assert r"WEAN & 41.0 & 35.5 & 39.0 & 33.3 \\" in tex and "Cells: our runs' scores." in tex


def test_exact_match_is_a_column_where_the_data_is_scored_with_it(tmp_path, monkeypatch):
    config = own_config(tmp_path, monkeypatch, evaluation={"metrics": ["bleu", "sari", "exact"]})
    md, csv_text, _ = build(config, monkeypatch, {
        "m_wean": {"experiment": "m_wean", "dataset": "mine",
                   "splits": {"valid": scores(41.0, 35.5, 25.0), "test": scores(39.0, 33.0, 8.5)}},
        "m_identity": {"experiment": "m_identity", "dataset": "mine", **scores(20.0, 18.0, 0.0)}})
    lines = md.splitlines()
    assert ("| model | valid BLEU | valid SARI | valid exact match | test BLEU | test SARI | test exact match |"
            in lines)  # columns: [bleu, sari] as given; exact added because the data asks for it
    assert "| WEAN | 41.0 | 35.5 | 25.0 | 39.0 | 33.0 | 8.5 |" in lines
    assert "| identity | — | — | — | 20.0 | 18.0 | 0.0 |" in lines
    # the caption's units sentence defines it once; the CSV gives each cell its column's unit
    assert "exact match: % of outputs equal to the first reference, token for token (BPE undone)" in md
    assert md.count("% of outputs equal to the first reference") == 1
    assert 'mine,WEAN,test/exact,"exact match: % of outputs equal to the first reference, token for token (BPE undone)",8.5,' \
        in csv_text


def test_exact_match_is_scored_by_paragen_evaluate_against_the_first_reference(tmp_path):
    """Two of three outputs equal their first reference (the third equals only the second reference): 66.67 %."""
    from paragen.config.local_data import LocalEvaluation
    from paragen.scoring.evaluation import evaluate_output

    for name, lines in {"test.src": ["a b", "c d", "e f"], "test.ref.0": ["a", "c", "e"],
                        "test.ref.1": ["b", "d", "f x"], "out.hyp": ["a", "c", "f x"]}.items():
        (tmp_path / name).write_text("".join(line + "\n" for line in lines))
    result = evaluate_output(LocalEvaluation(metrics=["exact"]), str(tmp_path), str(tmp_path / "out.hyp"))
    assert round(result["exact"]["score"], 2) == 66.67 and result["references"] == 2


def test_a_column_the_data_is_not_scored_with_is_refused(tmp_path, monkeypatch):
    from paragen.config import ConfigError
    from paragen.pipeline.tables import table_plan

    config = own_config(tmp_path, monkeypatch, evaluation={"metrics": ["bleu"]})
    with pytest.raises(ConfigError, match=r"tables\.mine\.columns: 'sari' reads sari scores, which "
                                          r"datasets\.mine\.evaluation\.metrics does not list \(\['bleu'\]\)"):
        table_plan(config, "mine")


def test_a_dataset_scored_on_test_alone_gives_one_column_per_metric(tmp_path, monkeypatch):
    config = own_config(tmp_path, monkeypatch, test_splits=["test"])
    md, _, _ = build(config, monkeypatch, {
        "m_wean": {"experiment": "m_wean", "dataset": "mine", **scores(39.0, 33.0)},
        "m_identity": {"experiment": "m_identity", "dataset": "mine", **scores(20.0, 18.0)}})
    lines = md.splitlines()
    assert "| model | BLEU | SARI |" in lines and "| WEAN | 39.0 | 33.0 |" in lines
    assert "on the test split." in md and "flatter" not in md


def test_every_split_but_train_gets_its_decode_stage_in_both_engines(tmp_path, monkeypatch):
    """A further test split (``extra``) is decoded like valid and test: one stage each, in the plan both engines
    read, and one evaluate stage scoring them all."""
    from paragen.pipeline.plan import build_plan

    config = own_config(tmp_path, monkeypatch, files={
        **{split: {"source": f"mydata/{split}.src", "target": f"mydata/{split}.tgt"} for split in ("train", "valid")},
        "test": {"source": "mydata/test.src", "target": "mydata/test.tgt"},
        "extra": {"source": "mydata/valid.src", "target": "mydata/valid.tgt"}})
    assert config.test_splits("mine") == ["valid", "test", "extra"]
    stages = {stage.name: stage for stage in build_plan(config).stages}
    assert {"decode_m_wean_valid", "decode_m_wean_test", "decode_m_wean_extra"} <= set(stages)
    assert "runs/m_wean/extra.hyp" in stages["evaluate_m_wean"].deps


def test_the_snakemake_report_caption_of_an_own_table_names_no_paper():
    """`snakemake --report`'s caption of a `paper: own` table said "Published numbers … the paper's number"."""
    from paragen.config import TableConfig
    from paragen.pipeline.report_items import table_items

    own = TableConfig(suite="my_suite", paper="own", title="Mine", columns=["bleu"], rows={"A": "a"})
    caption = table_items(own, ("results/tables/mine.md",), "BLEU", "none")[0].caption
    assert "Your own data: no paper reports these rows" in caption
    assert "Published" not in caption and "paper's number" not in caption
