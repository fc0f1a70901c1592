"""WEAN Table 5 as paragen writes it: each cell's count at the paper's vocabulary and at the one actually built,
the notes that say which, and the caption. Expected values worked by hand from params.yaml's models (hidden k = 256
for PWKP and EWSEW, 512 for LCSTS; the paper's V = 50,000 and 4,000, plus the 4 specials):

    Seq2seq  k x V:  256 x 50,004 = 12,801,024 -> 12.80;   512 x 4,004 = 2,050,048 -> 2.05
    WEAN     k^2:    256^2 = 65,536 -> 0.07;               512^2 = 262,144 -> 0.26
    concat   2k^2+k: 131,328 -> 0.13;                      524,800 -> 0.52
    built vocabulary of 1,000 words + 4 specials: Seq2seq 256 x 1,004 = 257,024 -> 0.26 (WEAN's: as above)
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from paragen.config import load_config
from paragen.data.vocabulary import SPECIALS
from paragen.report.build import build_parameters_table
from paragen.report.parameters import ParameterCount, count_cell

from conftest import ROOT, write_lines

ABSENT = "— / not run: dataset absent"
LCSTS_VOCAB = "data/vocab/lcsts_wean.char/vocab.txt"


@pytest.fixture(scope="module")
def config():
    return load_config(ROOT / "params.yaml")  # seconds to validate: once for the module


def _vocab(path: Path, words: int) -> Path:
    write_lines(path, [*SPECIALS, *(f"w{i}" for i in range(words))])
    return path


def test_each_cell_counts_at_the_papers_vocabulary_and_at_the_built_one(tmp_path, config):
    seq2seq, wean, concat, lcsts = (config.models[config.experiments[e].model]
                                    for e in ("pwkp_seq2seq", "pwkp_wean", "pwkp_wean_concat", "lcsts_seq2seq"))
    vocab = _vocab(tmp_path / "vocab.txt", 1000)
    assert count_cell(seq2seq, 50_000, vocab) == ParameterCount(50_000, 12_801_024, 1000, 257_024)
    assert count_cell(seq2seq, 50_000, None) == ParameterCount(50_000, 12_801_024, None, None)
    assert count_cell(seq2seq, 50_000, tmp_path / "missing.txt") == ParameterCount(50_000, 12_801_024, None, None)
    assert count_cell(wean, 50_000, vocab) == ParameterCount(50_000, 65_536, 1000, 65_536)
    assert count_cell(concat, 50_000, None).at_paper_vocab == 131_328
    assert count_cell(lcsts, 4_000, None).at_paper_vocab == 2_050_048


def test_the_table_word_for_word_with_one_vocabulary_built(tmp_path, monkeypatch, config, caplog):
    """PWKP switched on and its vocabulary built, LCSTS off although a vocabulary of it exists; a note in the
    table's settings ends the caption; one log line names the table's files."""
    monkeypatch.chdir(tmp_path)
    _vocab(tmp_path / "data/vocab/pwkp.word/vocab.txt", 1000)
    _vocab(tmp_path / LCSTS_VOCAB, 50)  # left by an earlier run: LCSTS is not switched on now, so it is not read
    config = config.model_copy(update={"data": ["pwkp"]})
    table = config.tables["wean_parameters"]
    grid = {**table.grid, "Mine": table.grid["Seq2seq"]}  # a row the paper does not have: no published number
    spec = table.model_copy(update={"note": "A note.", "grid": grid})
    with caplog.at_level(logging.INFO, logger="paragen"):
        build_parameters_table(config, "wean_parameters", spec)
    text = (tmp_path / "results/tables/wean_parameters.md").read_text(encoding="utf-8")
    assert text.startswith("# WEAN Table 5: output-layer parameters (millions)\n")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == ("| model | PWKP (paper V) | EWSEW (paper V) | LCSTS (paper V) | PWKP (built V) | "
                       "EWSEW (built V) | LCSTS (built V) |")
    assert rows[2:] == [
        f"| Seq2seq | 12.80 / 12.80 (+0.00) | 12.80 / 12.80 (+0.00) | 2.05 / 2.05 (+0.00) | — / 0.26 | {ABSENT} | "
        f"{ABSENT} |",
        f"| WEAN | 0.13 / 0.07 (-0.06) | 0.13 / 0.07 (-0.06) | 0.52 / 0.26 (-0.26) | — / 0.07 | {ABSENT} | {ABSENT} |",
        f"| WEAN (concat) | 0.13 / 0.13 (+0.00) | 0.13 / 0.13 (+0.00) | 0.52 / 0.52 (+0.00) | — / 0.13 | {ABSENT} | "
        f"{ABSENT} |",
        f"| Mine | — / 12.80 | — / 12.80 | — / 2.05 | — / 0.26 | {ABSENT} | {ABSENT} |"]
    assert ("Output-layer parameters (millions), Ma et al. (2018), WEAN Table 5 reproduced by instantiating each "
            "experiment's model. Seq2seq: the k x V projection W (Eq. 3, bias excluded); WEAN: the parameters of its "
            "score function f(q, e) (Eq. 5) as configured. The paper reports the concat score's 2k^2 + k ('at most') "
            "although it trains with general (k^2), hence the WEAN (concat) row. A note.\n") in text
    assert [r.getMessage() for r in caplog.records if r.name == "paragen.report.build"] == [
        "wrote results/tables/wean_parameters.md, results/tables/wean_parameters.csv, "
        "results/tables/wean_parameters.tex"]
    build_parameters_table(config, "wean_parameters", config.tables["wean_parameters"])  # no note: nothing after
    assert "hence the WEAN (concat) row.\n" in (tmp_path / "results/tables/wean_parameters.md").read_text()
    assert "- Seq2seq, PWKP (built V): built vocabulary: 1,000 tokens + 4 specials\n" in text
    csv_text = (tmp_path / "results/tables/wean_parameters.csv").read_text(encoding="utf-8")
    unit = '"output-layer parameters, millions (counted on the instantiated model)"'
    assert f"wean_parameters,Seq2seq,PWKP,{unit},12.8,12.801024,0.001024," in csv_text  # the exact count in millions
    assert f"wean_parameters,Seq2seq,LCSTS,{unit},2.05,2.050048,0.000048," in csv_text
    assert f"wean_parameters,Seq2seq,PWKP_built,{unit},,0.257024,," in csv_text
    assert "- WEAN, LCSTS (paper V): counted at V = 4,000 + 4 specials\n" in text
    assert ("- Seq2seq, LCSTS (built V): not run: dataset absent (lcsts_wean is not switched on; fetch it, then run "
            "with `--config data='[lcsts_wean]'`)\n") in text
