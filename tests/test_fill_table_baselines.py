"""fill_table's baseline rows and extras, word for word: the note of a rescored cell names the released system and
its test set (not the metric), says "not in paper" only where the paper has no number, and a baseline whose outputs
were not rescored keeps its published number; a single-run row reads a column from the extra file given for it.
Expected values written by hand; the key (test set "turk", system "S", metric "BLEU") has three distinct parts so a
swapped index shows."""

from __future__ import annotations

import json

from paragen.config.papers import Baseline, Column, PaperTable
from paragen.report.tables import fill_table

COLUMNS = [Column("bleu", "BLEU", "bleu/score"), Column("sari", "SARI", "sari/score")]
RESCORED = [{"column": "bleu", "test_set": "turk", "system": "S", "metric": "BLEU"},
            {"column": "sari", "test_set": "turk", "system": "S", "metric": "SARI"}]
NOT_RESCORED = "released outputs not rescored (run `paragen published-outputs`)"


def _paper() -> PaperTable:
    """The baseline S is published on BLEU (40.0) only; its SARI is rescored but not in the paper."""
    return PaperTable("P", "T1", "m", COLUMNS, {}, [Baseline("S", {"bleu": 40.0}, "T1", RESCORED)], 2, "simplification")


def test_rescored_cells_name_system_and_test_set_and_mark_what_the_paper_lacks():
    table = fill_table("t", "Title", "C.", _paper(), {}, rescored={("turk", "S", "BLEU"): 40.25,
                                                                   ("turk", "S", "SARI"): 35.5})
    assert table.title == "Title"
    bleu, sari = table.cells[("S", "bleu")], table.cells[("S", "sari")]
    assert (bleu.paper, bleu.reproduced, bleu.note) == (40.0, 40.25, "rescored from the released S outputs (turk test)")
    assert (sari.paper, sari.reproduced, sari.note) == \
        (None, 35.5, "rescored from the released S outputs (turk test); not in paper")


def test_without_rescored_outputs_the_published_number_stays_and_the_note_says_why():
    for rescored in (None, {}, {("other", "S", "BLEU"): 1.0}):
        cell = fill_table("t", "T", "C.", _paper(), {}, rescored=rescored).cells[("S", "bleu")]
        assert (cell.paper, cell.reproduced, cell.note) == (40.0, None, NOT_RESCORED), rescored


def test_a_single_run_row_reads_a_column_from_its_extra_file(tmp_path):
    """Column alignment/attention/accuracy of row "Ours" from the file given as its "alignment" extra (0.75); the
    other row, given no extra, has the column missing."""
    metrics, aligned = tmp_path / "ours.json", tmp_path / "align.json"
    metrics.write_text(json.dumps({"bleu": {"score": 50.0}}))
    aligned.write_text(json.dumps({"attention": {"accuracy": 0.75}}))
    columns = [Column("acc", "Accuracy", "alignment/attention/accuracy")]
    paper = PaperTable("P", "T1", "m", columns, {"Ours": {"acc": 0.5}}, [], 2, "headline")
    table = fill_table("t", "T", "C.", paper, {"Ours": metrics, "Other": metrics},
                       extras={"Ours": {"alignment": aligned}})
    assert table.cells[("Ours", "acc")].reproduced == 0.75
    assert table.cells[("Other", "acc")].reproduced is None
