"""docs/speed.md's operator-count tables are what bench/op_count.py renders from the committed count files: no
figure in them is typed by hand."""

import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.mark.parametrize("before, after", [("cpu_before", "cpu_after"), ("cpu_after", "cpu_fast_path")])
def test_the_speed_docs_show_the_committed_operator_counts(before, after):
    table = subprocess.run([sys.executable, "bench/op_count.py", "--table", f"results/op_count/{before}.json",
                            f"results/op_count/{after}.json"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert table.stdout.count("\n") >= 6
    assert table.stdout in (ROOT / "docs" / "speed.md").read_text(encoding="utf-8"), \
        f"docs/speed.md's operator table for {before} -> {after} differs from bench/op_count.py --table: paste it"
