"""A table's Markdown (paragen.report.render.to_markdown) written out in full by hand: title, header and rule
lines, cells (paper / reproduced ± sd (difference), a column with its own decimals), caption, legends, and each
section (comparisons, training, reading, setup, notes) with its heading and the blank line before it; a row whose
cells all say the same thing noted once; and the per-seed CSV columns. Decimals differ between the table (2) and
one column (0) so a default used in place of either shows."""

from __future__ import annotations

from paragen.config.papers import Column
from paragen.report.render import PAPER_LEGEND, SEEDED_LEGEND, cell_notes, to_csv, to_markdown
from paragen.report.tables import Cell, ResultTable

COLUMNS = [Column("bleu", "BLEU", "bleu/score"), Column("em", "EM", "exact/score", decimals=0)]
MISSING = "not yet run (results/metrics/b.json missing)"


def _table() -> ResultTable:
    seeds = ((1, 40.734), (2, 41.734))
    return ResultTable("t", "Title", "Caption.", COLUMNS, ["A", "B"], decimals=2, cells={
        ("A", "bleu"): Cell(40.0, 41.234, sd=0.5, per_seed=seeds),
        ("A", "em"): Cell(50.0, 52.6, sd=1.2, per_seed=((1, 51.4), (2, 53.8))),
        ("B", "bleu"): Cell(30.0, None, MISSING),
        ("B", "em"): Cell(None, None, MISSING)})


def test_a_table_with_every_section_in_full():
    table = _table()
    table.comparisons = ["A vs B: p = 0.010"]
    table.training_notes = ["B: still training"]
    table.readings, table.reading_rules = ["A works"], "works: above the floor"
    table.setup = ["Rows without training: none."]
    assert to_markdown(table) == "\n".join([
        "# Title", "",
        "| model | BLEU | EM |",
        "| --- | --- | --- |",
        "| A | 40.00 / 41.23 ± 0.50 (+1.23) | 50 / 53 ± 1 (+3) |",
        "| B | 30.00 / — | — / — |", "",
        "Caption.", "",
        "Each cell: paper / reproduced (reproduced − paper); — marks a missing number. Where a row trained from "
        "several seeds: mean ± sample sd over them (per-seed values in the CSV).", "",
        "Paired bootstrap tests (Koehn, 2004) of the paper's comparisons:", "- A vs B: p = 0.010", "",
        "Training (model selection on the validation split):", "- B: still training", "",
        "Reading (works: above the floor):", "- A works", "",
        "Setup:", "- Rows without training: none.", "",
        "Notes (why a number is missing, or where it comes from):", f"- B (every column): {MISSING}"]) + "\n"
    assert PAPER_LEGEND + SEEDED_LEGEND in to_markdown(table)


def test_an_own_table_has_its_own_legend_and_no_empty_sections():
    table = ResultTable("o", "Own", "Mine.", COLUMNS[:1], ["A"], own=True, cells={("A", "bleu"): Cell(None, 39.04)})
    assert to_markdown(table) == "\n".join([
        "# Own", "", "| model | BLEU |", "| --- | --- |", "| A | 39.0 |", "", "Mine.", "",
        "Each cell: the score of the row's run on that split; — marks a missing number."]) + "\n"


def test_one_column_notes_name_the_column_not_every_column():
    table = ResultTable("o", "T", "C.", COLUMNS[:1], ["B"], cells={("B", "bleu"): Cell(30.0, None, MISSING)})
    assert cell_notes(table) == [f"B, BLEU: {MISSING}"]


def test_the_csv_gives_each_seed_run_separated_by_semicolons():
    from paragen.training.stopping import TrainingOutcome

    table = _table()
    table.training = {"A": [(1, TrainingOutcome(best_epoch=3, epochs_run=5, max_epochs=9, patience=2)),
                            (2, TrainingOutcome(best_epoch=8, epochs_run=9, max_epochs=9, patience=2))]}
    lines = to_csv(table).splitlines()
    assert lines[0] == ("table,row,column,unit,paper,reproduced,difference,note,best_epoch,epochs_run,hit_epoch_cap,sd,"
                        "seeds,per_seed")
    assert lines[1] == "t,A,bleu,,40.0,41.234,1.234,,3;8,5;9,false;true,0.5,1;2,40.734;41.734"


def test_the_csv_ends_each_line_with_a_line_feed_alone():
    """The csv module's default line end is \\r\\n; the table's CSV, committed and diffed, has \\n only."""
    text = to_csv(_table())
    assert "\r" not in text and text.endswith("\n") and text.count("\n") == 5  # the header and four cells
