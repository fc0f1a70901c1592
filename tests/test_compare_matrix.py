"""bench/compare_matrix.py: which verdicts of two matrix runs count, and how many changed."""

from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from compare_matrix import main  # noqa: E402

HEADER = "task,mechanism,status,reason,experiment,runs,metric,mean,sd,values,rank,verdict,deltas,p_values\n"


def _csv(path, rows: list[str]) -> str:
    path.write_text(HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_only_cells_with_a_verdict_in_both_runs_count(tmp_path, capsys):
    """Five cells: the baseline, a void column's cell and a cell that did not run in the second are left out; of
    the two left, A keeps "worse" and B goes from "better" to "no difference shown": 1 of 2 changed."""
    first = _csv(tmp_path / "a.csv", [
        "t,Base,scored,,e,e,exact,50.0000,,50.0000,2,baseline,,",
        "t,A,scored,,e,e,exact,10.0000,,10.0000,3,worse,-40.0000,1.0000",
        "t,B,scored,,e,e,exact,60.0000,,60.0000,1,better,10.0000,0.0010",
        "t,C,scored,,e,e,exact,55.0000,,55.0000,1,better,5.0000,0.0100",
        "v,A,scored,,e,e,sari,20.0000,,20.0000,1,void,1.0000,0.0000",
    ])
    second = _csv(tmp_path / "b.csv", [
        "t,Base,scored,,e,e,exact,51.0000,,51.0000,2,baseline,,",
        "t,A,scored,,e,e,exact,11.0000,,11.0000,3,worse,-40.0000,1.0000",
        "t,B,scored,,e,e,exact,52.0000,,52.0000,1,no difference shown,1.0000,0.3000",
        "t,C,not run,missing,e,e,exact,,,,,,,",
        "v,A,scored,,e,e,sari,21.0000,,21.0000,1,void,1.0000,0.0000",
    ])
    assert main([first, second, "--labels", "one", "two"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| task | mechanism | one | two | same verdict |"
    assert lines[2:4] == [
        "| t | A | 10.0000 · worse (-40.0000, p = 1.0000) | 11.0000 · worse (-40.0000, p = 1.0000) | yes |",
        "| t | B | 60.0000 · better (10.0000, p = 0.0010) | 52.0000 · no difference shown (1.0000, p = 0.3000) "
        "| no |"]
    assert lines[-1] == "1 of 2 verdicts changed: t B."


def test_a_file_without_the_matrix_columns_is_refused_by_name(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("task,mechanism,mean\nt,A,1\n", encoding="utf-8")
    message = f"{other}: not a matrix CSV, missing column(s) deltas, p_values, verdict"
    with pytest.raises(SystemExit, match=re.escape(message)):
        main([str(other), str(other)])
