"""Blind rating sheets out, filled sheets in: WEAN Table 3's bookkeeping."""

import csv
import json

import pytest

from paragen.data.corpus import CorpusError
from paragen.report.human_eval import export_sheet, ingest_sheets

from test_e2e import run

SOURCES = [f"source sentence {i}" for i in range(12)]
SYSTEMS = {"WEAN": [f"wean output {i}" for i in range(12)], "DRESS-LS": [f"dress output {i}" for i in range(12)]}


def fill(sheet, key, out, rating_of):
    """Rate each item with ``rating_of(system, sentence, dimension)`` (the test knows the key; raters do not)."""
    items = json.loads(key.read_text())["items"]
    rows = list(csv.DictReader(open(sheet)))
    for row in rows:
        entry = items[row["item"]]
        for dim in ("fluency", "adequacy", "simplicity"):
            row[dim] = rating_of(entry["system"], entry["sentence"], dim)
    with open(out, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_sheet_is_blind_shuffled_and_reproducible(tmp_path):
    n = export_sheet(SOURCES, SYSTEMS, tmp_path / "sheet.csv", tmp_path / "key.json", seed=3)
    text = (tmp_path / "sheet.csv").read_text()
    assert n == 24 and "WEAN" not in text and "DRESS" not in text
    outputs = [row["output"] for row in csv.DictReader(open(tmp_path / "sheet.csv"))]
    assert sorted(outputs) == sorted(SYSTEMS["WEAN"] + SYSTEMS["DRESS-LS"]) and outputs != sorted(outputs)
    export_sheet(SOURCES, SYSTEMS, tmp_path / "again.csv", tmp_path / "again.json", seed=3)
    assert (tmp_path / "again.csv").read_text() == text
    assert export_sheet(SOURCES, SYSTEMS, tmp_path / "s.csv", tmp_path / "s.json", sample=5) == 10


def test_means_and_paired_t_test(tmp_path):
    export_sheet(SOURCES, SYSTEMS, tmp_path / "sheet.csv", tmp_path / "key.json")
    # Rater 1: WEAN 4 or 5 (alternating), DRESS-LS 3; rater 2 agrees except simplicity, 3 for both.
    fill(tmp_path / "sheet.csv", tmp_path / "key.json", tmp_path / "r1.csv",
         lambda s, i, d: (4 + i % 2) if s == "WEAN" else 3)
    fill(tmp_path / "sheet.csv", tmp_path / "key.json", tmp_path / "r2.csv",
         lambda s, i, d: 3 if d == "simplicity" else ((4 + i % 2) if s == "WEAN" else 3))
    result = ingest_sheets(tmp_path / "key.json", [tmp_path / "r1.csv", tmp_path / "r2.csv"])
    assert result.best == "WEAN" and result.raters == 2
    assert result.means["WEAN"]["fluency"] == pytest.approx(4.5)
    assert result.means["WEAN"]["simplicity"] == pytest.approx((4.5 + 3) / 2)
    assert result.means["DRESS-LS"]["all"] == pytest.approx(3.0)
    assert result.p_values["DRESS-LS"]["fluency"] < 0.001


def test_bad_rating_names_file_and_line(tmp_path):
    export_sheet(SOURCES, SYSTEMS, tmp_path / "sheet.csv", tmp_path / "key.json")
    fill(tmp_path / "sheet.csv", tmp_path / "key.json", tmp_path / "bad.csv",
         lambda s, i, d: "6" if (s, i, d) == ("WEAN", 0, "adequacy") else "3")
    rows = list(csv.DictReader(open(tmp_path / "bad.csv")))
    line = 2 + next(n for n, r in enumerate(rows) if r["adequacy"] == "6")
    with pytest.raises(CorpusError, match=rf"bad.csv:{line}: adequacy must be an integer 1-5, got '6'"):
        ingest_sheets(tmp_path / "key.json", [tmp_path / "bad.csv"])
    with pytest.raises(CorpusError, match="every item needs a rating"):
        (tmp_path / "short.csv").write_text("\n".join((tmp_path / "bad.csv").read_text().splitlines()[:3]) + "\n")
        ingest_sheets(tmp_path / "key.json", [tmp_path / "short.csv"])


def test_cli_round_trip(tmp_path):
    (tmp_path / "src.txt").write_text("\n".join(SOURCES) + "\n")
    for name, lines in SYSTEMS.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n")
    run(["paragen", "human-eval-export", "--src", "src.txt", "--system", "WEAN=WEAN.txt",
         "--system", "DRESS-LS=DRESS-LS.txt", "--sheet", "sheet.csv", "--key", "key.json"], tmp_path)
    fill(tmp_path / "sheet.csv", tmp_path / "key.json", tmp_path / "r1.csv", lambda s, i, d: 5 if s == "WEAN" else 2)
    printed = run(["paragen", "human-eval-ingest", "--key", "key.json", "--sheet", "r1.csv", "--out", "he.md"],
                  tmp_path).stdout
    assert "| WEAN | 5.00 | 5.00 | 5.00 | 5.00 | best |" in printed
    assert (tmp_path / "he.md").read_text() == printed
    bad = run(["paragen", "human-eval-export", "--src", "src.txt", "--system", "WEAN", "--sheet", "s.csv",
               "--key", "k.json"], tmp_path, check=False)
    assert bad.returncode == 2 and "expected NAME=FILE" in bad.stderr
