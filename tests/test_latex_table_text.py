"""A table's LaTeX (paragen.report.render.to_latex) written out in full by hand for a small table of your own
data: the float and tabular frame, one centred column per metric, the header row, the escaped labels, the rows,
the caption (caption, cell legend, each comparison as a sentence) and the label; and the legend of a table with
a paper, whose cells read paper / reproduced (difference)."""

from __future__ import annotations

from paragen.config.papers import Column
from paragen.report.render import to_latex
from paragen.report.tables import Cell, ResultTable

COLUMNS = [Column("test/bleu", "test BLEU", "bleu/score"), Column("test/exact", "test exact (%)", "exact/score")]


def test_an_own_table_in_full():
    table = ResultTable("mine", "Mine", "My caption.", COLUMNS, ["WEAN"], own=True,
                        cells={("WEAN", "test/bleu"): Cell(None, 39.0), ("WEAN", "test/exact"): Cell(None, 8.5)})
    table.comparisons = ["WEAN vs Seq2seq: p = 0.010"]
    assert to_latex(table) == "\n".join([
        r"\begin{table}[t]", r"\centering", r"\begin{tabular}{lcc}", r"\hline",
        r"Model & test BLEU & test exact (\%) \\", r"\hline",
        r"WEAN & 39.0 & 8.5 \\",
        r"\hline", r"\end{tabular}",
        r"\caption{My caption. Cells: our runs' scores. WEAN vs Seq2seq: p = 0.010.}",
        r"\label{tab:mine}", r"\end{table}"]) + "\n"


def test_a_table_with_a_paper_says_what_its_cells_hold():
    table = ResultTable("t", "T", "Caption.", COLUMNS[:1], ["WEAN"],
                        cells={("WEAN", "test/bleu"): Cell(40.0, 39.0)})
    assert r"\caption{Caption. Cells: paper / reproduced (difference).}" in to_latex(table).splitlines()


def test_a_seeded_table_adds_the_seeds_legend_to_its_caption():
    """A cell of two seed runs: the caption's cell legend goes on with the seeds' legend, ± written as $\\pm$."""
    table = ResultTable("t", "T", "Caption.", COLUMNS[:1], ["WEAN"],
                        cells={("WEAN", "test/bleu"): Cell(40.0, 39.0, sd=0.5, per_seed=((1, 38.5), (2, 39.5)))})
    assert (r"\caption{Caption. Cells: paper / reproduced (difference). Where a row trained from several seeds: mean "
            r"$\pm$ sample sd over them (per-seed values in the CSV).}") in to_latex(table).splitlines()
