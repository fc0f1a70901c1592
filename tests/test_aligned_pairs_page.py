"""004 Table 4's page and CSV (paragen.report.aligned_pairs.write_aligned_pairs_table) from a hand-made
``aligned_pairs.json``: every line of the page and every row of the CSV written out by hand, the share of target
tokens per group (the group's counts over all of them: identical (6 + 3 + 1) / 20 = 50.0 %), the top-N cut, "none"
for an empty group, "—" without paper examples, and 0.0 % (not a division by zero) when no token was aligned."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from paragen.report.aligned_pairs import write_aligned_pairs_table

SPEC = SimpleNamespace(title="Headline stand-in", rows={"EncDec+SPM": "giga_spm"},
                       aligned_pairs=SimpleNamespace(row="EncDec+SPM", paper=None, top=2))


def _found(tokens: int, groups: dict) -> None:
    Path("runs/giga_spm").mkdir(parents=True)
    Path("runs/giga_spm/aligned_pairs.json").write_text(json.dumps(
        {"split": "test_ours", "sample": 1000, "seed": 3, "pairs": 1500, "tokens": tokens, "groups": groups}))


CAPTION = ("EncDec+SPM (giga_spm): for each target token y_j of 1,500 test pairs of test_ours (a sample of 1,000 "
           "drawn with seed 3, or all when fewer; {tokens} target tokens), fed with teacher forcing (004 Appendix E), "
           "the pair (y_j, the word q_j ranks first over the vocabulary), both as the model reads them (subword "
           "symbols where the data is BPE-segmented). Each pair falls into the first group whose rule it meets, in "
           "the order shown; a stem misses irregular forms (win/won), and 'shorter' compares characters. Up to 2 "
           "pairs per group, most frequent first. No paper examples: not a paper's setup.")


def test_page_and_csv_by_hand(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _found(20, {"identical": [["police", "police", 6], ["a", "a", 3], ["b", "b", 1]], "inflection": [],
                "shorter": [["quake", "earthquake", 1]], "others": [["dead", "killed", 2]]})
    md_path, csv_path = write_aligned_pairs_table("t", SPEC)
    assert (md_path, csv_path) == ("results/tables/t_aligned_pairs.md", "results/tables/t_aligned_pairs.csv")
    assert Path(md_path).read_text() == "\n".join([
        "# Headline stand-in: aligned pairs (as 004 Table 4)", "",
        "| group | share of target tokens | most frequent pairs (target token, q_j's word) × count "
        "| paper's examples |",
        "| --- | --- | --- | --- |",
        "| identical (target token = q_j's word) | 50.0 % | (police, police) × 6; (a, a) × 3 | — |",
        "| inflection (same Porter stem; 004: verb inflection) | 0.0 % | none | — |",
        "| shorter target token (004: paraphrasing to shorter form) | 5.0 % | (quake, earthquake) × 1 | — |",
        "| others | 10.0 % | (dead, killed) × 2 | — |", "",
        CAPTION.format(tokens="20")]) + "\n"
    assert Path(csv_path).read_bytes() == (
        b"table,row,group,rank,target,aligned,count\n"
        b"t,EncDec+SPM,identical,1,police,police,6\nt,EncDec+SPM,identical,2,a,a,3\nt,EncDec+SPM,identical,3,b,b,1\n"
        b"t,EncDec+SPM,shorter,1,quake,earthquake,1\nt,EncDec+SPM,others,1,dead,killed,2\n")


def test_no_aligned_token_gives_zero_shares(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _found(0, {"identical": [], "inflection": [], "shorter": [], "others": []})
    md_path, csv_path = write_aligned_pairs_table("t", SPEC)
    rows = Path(md_path).read_text().splitlines()[4:8]
    assert [row.split(" | ")[1:3] for row in rows] == [["0.0 %", "none"]] * 4
    assert Path(csv_path).read_text() == "table,row,group,rank,target,aligned,count\n"
