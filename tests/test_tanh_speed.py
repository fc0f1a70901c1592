"""bench/probes/tanh_speed.py prints one line per shape with the three kernels' times, then how far the two tanh differ."""

import re
import subprocess
import sys

from conftest import ROOT

SCRIPT = str(ROOT / "bench" / "probes" / "tanh_speed.py")


def test_one_line_per_shape_and_the_largest_difference():
    done = subprocess.run([sys.executable, SCRIPT, "--shapes", "2x3x4", "5x6", "--repeats", "3"], capture_output=True,
                          text=True, check=True)
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and lines[0].endswith("one thread")
    assert re.fullmatch(r"2x3x4: tanh_ -?\d+ us, sigmoid_ -?\d+ us, 2\*sigmoid\(2x\)-1 in place -?\d+ us; "
                        r"tanh_ / in place (-?[\d.]+|n/a \(too small to time\))", lines[1])
    assert lines[2].startswith("5x6: tanh_ ")
    difference = float(lines[3].rsplit(": ", 1)[1])
    assert 0 < difference <= 3e-7  # float32 rounding, never more


def test_a_malformed_shape_is_refused():
    done = subprocess.run([sys.executable, SCRIPT, "--shapes", "2xx3"], capture_output=True, text=True)
    assert done.returncode == 2 and "expected sizes joined by 'x'" in done.stderr
