"""docs/speed.md's operator-count table is what bench/op_count.py renders from the committed before/after files:
no figure in it is typed by hand."""

import subprocess
import sys

from conftest import ROOT


def test_the_speed_docs_show_the_committed_operator_counts():
    table = subprocess.run([sys.executable, "bench/op_count.py", "--table", "results/op_count/cpu_before.json",
                            "results/op_count/cpu_after.json"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert table.stdout.count("\n") >= 6
    assert table.stdout in (ROOT / "docs" / "speed.md").read_text(encoding="utf-8"), \
        "docs/speed.md's operator table differs from bench/op_count.py --table: paste its output"
