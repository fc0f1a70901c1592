import json
from pathlib import Path

from paragen.report.tables import PaperTable, fill_table, to_csv, to_latex, to_markdown


def _metrics(path: Path, by_tag: dict) -> Path:
    path.write_text(json.dumps({"metric": "exact", "score": 0, "count": 10,
                                "by_tag": {k: {"top1": v} for k, v in by_tag.items()}}))
    return path


def test_copynet_table1_numbers_are_the_papers():
    paper = PaperTable.load("copynet_table1")
    assert [c.key for c in paper.columns] == ["x->0", "x->x", "x->xx", "xy->x", "xy->xy"]
    assert paper.rows["CopyNet"] == {"x->0": 97.3, "x->x": 93.7, "x->xx": 98.3, "xy->x": 68.2, "xy->xy": 77.5}
    assert paper.rows["RNNSearch"]["x->x"] == 69.4
    assert paper.rows["Enc-Dec"]["xy->xy"] == 0.0


def test_cells_show_paper_reproduced_difference_and_reasons(tmp_path):
    paper = PaperTable.load("copynet_table1")
    copynet = _metrics(tmp_path / "c.json", {"x->0": 90.0, "x->x": 95.0, "x->xx": 50.0, "xy->x": 70.0,
                                             "xy->xy": 80.0})
    rows = {"CopyNet": copynet, "RNNSearch": tmp_path / "missing.json", "WEAN": copynet}
    table = fill_table("t", "Title", "Caption.", paper, rows)
    cell = table.cells[("CopyNet", "x->0")]
    assert (cell.paper, cell.reproduced) == (97.3, 90.0) and round(cell.difference, 1) == -7.3
    assert "not yet run" in table.cells[("RNNSearch", "x->x")].note
    assert table.cells[("WEAN", "x->x")].note == "not in paper"
    md = to_markdown(table)
    assert "| CopyNet | 97.3 / 90.0 (-7.3) |" in md
    assert "| RNNSearch | 99.0 / — |" in md
    assert "Caption." in md and "not yet run" in md
    csv_text = to_csv(table)
    assert "t,CopyNet,x->0,97.30,90.00,-7.30," in csv_text
    assert "t,WEAN,x->x,,95.00,,not in paper" in csv_text
    tex = to_latex(table)
    assert r"x $\rightarrow$ $\emptyset$" in tex and r"\label{tab:t}" in tex
