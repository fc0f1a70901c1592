"""Compare the verdicts of two runs of the mechanism × task matrix, cell by cell (a replication check).

Usage:
    python bench/compare_matrix.py FIRST.csv SECOND.csv [--labels "first" "second"]

Both files are ``results/tables/matrix.csv`` as ``paragen report-matrix`` writes it. A verdict counts when it is
``better``, ``worse`` or ``no difference shown`` in both runs (a baseline, a void column, a cell that does not
apply or did not run is left out). Prints a markdown table of those cells (mean, verdict, difference and p of
each run) and the count of verdicts that changed.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

VERDICTS = ("better", "worse", "no difference shown")


def read_cells(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """(task, mechanism) -> the row, for a matrix CSV; refuses a file without the matrix's columns."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"task", "mechanism", "mean", "verdict", "deltas", "p_values"} - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path}: not a matrix CSV, missing column(s) {', '.join(sorted(missing))}")
        return {(row["task"], row["mechanism"]): row for row in reader}


def compared(first: dict[tuple[str, str], dict[str, str]],
             second: dict[tuple[str, str], dict[str, str]]) -> list[tuple[tuple[str, str], dict, dict]]:
    """The cells with a counted verdict in both runs, in the first file's order."""
    return [(key, row, second[key]) for key, row in first.items()
            if key in second and row["verdict"] in VERDICTS and second[key]["verdict"] in VERDICTS]


def _cell(row: dict[str, str]) -> str:
    """Mean, verdict, difference and p as the CSV holds them (4 decimals: no second rounding here)."""
    return f"{row['mean']} · {row['verdict']} ({row['deltas']}, p = {row['p_values']})"


def report(first: dict, second: dict, labels: tuple[str, str]) -> str:
    cells = compared(first, second)
    changed = [key for key, a, b in cells if a["verdict"] != b["verdict"]]
    lines = [f"| task | mechanism | {labels[0]} | {labels[1]} | same verdict |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {key[0]} | {key[1]} | {_cell(a)} | {_cell(b)} | {'yes' if key not in changed else 'no'} |"
              for key, a, b in cells]
    lines += ["", f"{len(changed)} of {len(cells)} verdicts changed"
              + (": " + ", ".join(f"{task} {mechanism}" for task, mechanism in changed) if changed else "") + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--labels", nargs=2, default=("first", "second"))
    args = parser.parse_args(argv)
    sys.stdout.write(report(read_cells(args.first), read_cells(args.second), tuple(args.labels)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
