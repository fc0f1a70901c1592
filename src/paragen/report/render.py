"""Markdown, CSV and LaTeX renderings of a :class:`paragen.report.tables.ResultTable`.

Markdown carries everything (caption, legends, comparisons, training lines, setup, notes); the CSV one line per
cell with its provenance columns; LaTeX the table with a short caption (escaped so it compiles).
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from paragen.pipeline.tables import ABSENT
from paragen.report.heldout import HEADING as HELDOUT_HEADING
from paragen.rounding import exact, exact_difference, exact_text, shown, shown_difference

if TYPE_CHECKING:
    from paragen.report.tables import Cell, Column, ResultTable


def _num(value: float | None, decimals: int) -> str:
    return "—" if value is None else shown(value, decimals)


def cell_text(cell: Cell, decimals: int, own: bool) -> str:
    """"paper / reproduced (difference)"; in a table of your own data (``own``) the reproduced number alone. Every
    number is rounded half up, and the difference is that of the two numbers shown (:mod:`paragen.rounding`);
    an interval's half width is taken exactly from its bounds before rounding."""
    ours = ABSENT if cell.reproduced is None and ABSENT in cell.note else _num(cell.reproduced, decimals)
    if cell.sd is not None:
        ours += f" ± {_num(cell.sd, decimals)}"
    elif cell.interval is not None:
        ours += f" ± {shown((exact(cell.interval[1]) - exact(cell.interval[0])) / 2, decimals)}"
    if own:
        return ours
    text = f"{_num(cell.paper, decimals)} / {ours}"
    if cell.difference is not None:
        text += f" ({shown_difference(cell.reproduced, cell.paper, decimals)})"
    return text


def _decimals(table: ResultTable, column: Column) -> int:
    return table.decimals if column.decimals is None else column.decimals


def to_markdown(table: ResultTable) -> str:
    header = "| model | " + " | ".join(c.label for c in table.columns) + " |"
    lines = [f"# {table.title}", "", header, "|" + " --- |" * (len(table.columns) + 1)]
    for row in table.rows:
        cells = (cell_text(table.cells[(row, c.key)], _decimals(table, c), table.own) for c in table.columns)
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    notes = cell_notes(table)
    lines += ["", table.caption, "", (OWN_LEGEND if table.own else PAPER_LEGEND)
              + (SEEDED_LEGEND if table.seeded else "") + (INTERVAL_LEGEND if table.intervals else "")]
    if table.findings:
        lines += ["", FINDINGS_HEADING] + [f"- {f}" for f in table.findings]
    if table.comparisons:
        lines += ["", table.comparisons_heading] \
            + [f"- {c}" for c in table.comparisons]
    if table.predictions:
        lines += ["", HELDOUT_HEADING] + [f"- {p}" for p in table.predictions]
    if table.training or table.training_notes:
        lines += ["", "Training (model selection on the validation split):"] + [
            f"- {t}" for t in table.training_notes + table.training_lines()]
    if table.readings:
        lines += ["", f"Reading ({table.reading_rules}):"] + [f"- {r}" for r in table.readings]
    if table.setup:
        lines += ["", "Setup:"] + [f"- {text}" for text in table.setup]
    if notes:
        lines += ["", "Notes (why a number is missing, or where it comes from):"] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def cell_notes(table: ResultTable) -> list[str]:
    """One line per row whose cells all say the same thing, else one per cell that says something; sorted."""
    lines = set()
    for row in table.rows:
        notes = [table.cells[(row, c.key)].note for c in table.columns]
        if len(table.columns) > 1 and notes[0] and all(n == notes[0] for n in notes):
            lines.add(f"{row} (every column): {notes[0]}")
        else:
            lines.update(f"{row}, {c.label}: {n}" for c, n in zip(table.columns, notes) if n)
    return sorted(lines)


FINDINGS_HEADING = "Findings (the verdicts of the tests and readings below):"
"""Opens a table's findings; REPORT.md's summary lifts the lines under it (:mod:`paragen.report.findings`)."""
PAPER_LEGEND = "Each cell: paper / reproduced (reproduced − paper); — marks a missing number."
OWN_LEGEND = "Each cell: the score of the row's run on that split; — marks a missing number."
INTERVAL_LEGEND = (" Where a row has one run and its score resamples rules: ± half the width of the 95 % interval "
                   "of the cell from resampling the test rules of its type (bounds in the CSV: ci95_low, ci95_high).")
SEEDED_LEGEND = " Where a row trained from several seeds: mean ± sample sd over them (per-seed values in the CSV)."


def to_csv(table: ResultTable) -> str:
    """One line per cell, with the unit of its column's metric. A table with several seeds per row adds ``sd``, ``seeds`` and ``per_seed`` columns
    (``;``-separated, in seed order) and gives ``best_epoch``/``epochs_run``/``hit_epoch_cap`` per seed the same
    way; ``reproduced`` is then the mean. A table of your own data has no ``paper`` and ``difference`` columns.
    Numbers are exact, not rounded (the metrics file's value; ``difference``: reproduced − paper as decimals), so a
    program reading the CSV can round them as the tables do (:mod:`paragen.rounding`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    seeded = table.seeded
    compared = [] if table.own else ["paper"]
    writer.writerow(["table", "row", "column", "unit", *compared, "reproduced", *(["difference"] if compared else []),
                     "note", "best_epoch", "epochs_run", "hit_epoch_cap"]
                    + (["sd", "seeds", "per_seed"] if seeded else []) + (["ci95_low", "ci95_high"] if table.intervals
                                                                           else []))
    fmt = lambda v: "" if v is None else exact_text(v)  # noqa: E731
    for row in table.rows:
        outcomes = [outcome for _, outcome in table.training.get(row, [])]
        run = [";".join(str(v) for v in values) for values in (
            [o.best_epoch for o in outcomes], [o.epochs_run for o in outcomes],
            [str(o.hit_cap).lower() for o in outcomes])]
        for c in table.columns:
            cell = table.cells[(row, c.key)]
            line = [table.name, row, c.key, table.units.get(c.key, ""), *([fmt(cell.paper)] if compared else []),
                    fmt(cell.reproduced),
                    *([_csv_difference(cell)] if compared else []), cell.note, *run]
            if seeded:
                line += [fmt(cell.sd), ";".join(str(s) for s, _ in cell.per_seed),
                         ";".join(fmt(v) for _, v in cell.per_seed)]
            if table.intervals:
                line += [fmt(cell.interval[0]), fmt(cell.interval[1])] if cell.interval else ["", ""]
            writer.writerow(line)
    return buffer.getvalue()


def _csv_difference(cell: Cell) -> str:
    return "" if cell.difference is None else exact_difference(cell.reproduced, cell.paper)


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "_": r"\_", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}", "→": r"$\rightarrow$", "∅": r"$\emptyset$", "−": "-",
                  "×": r"$\times$", "—": "--", "±": r"$\pm$", "§": r"\S{}", "–": "--",
                  "≤": r"$\leq$"}
"""Characters LaTeX would read as commands or print as other glyphs (OT1 prints < and > as ¡ and ¿)."""


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def to_latex(table: ResultTable) -> str:
    lines = [r"\begin{table}[t]", r"\centering", r"\begin{tabular}{l" + "c" * len(table.columns) + "}",
             r"\hline", "Model & " + " & ".join(latex_escape(c.label) for c in table.columns) + r" \\", r"\hline"]
    for row in table.rows:
        cells = [latex_escape(cell_text(table.cells[(row, c.key)], _decimals(table, c), table.own))
                 for c in table.columns]
        lines.append(latex_escape(row) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}",
              r"\caption{" + latex_escape(" ".join([table.caption, ("Cells: our runs' scores." if table.own else
                                                                     "Cells: paper / reproduced (difference).")
                                                     + (SEEDED_LEGEND if table.seeded else ""),
                                                     *(f"{c}." for c in table.comparisons)])) + "}",
              r"\label{tab:" + table.name + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"
