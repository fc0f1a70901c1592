"""bench/decode_ab.py reads a decoding A/B by the rule fixed before the GPU calls (docs/measurements.md): faster
only with a higher median in every pass, undecided when a pass lacks a median, claimed across calls only when every
call agrees. Summaries written by hand here; the committed reading is what the script prints from the committed
summaries."""

import subprocess
import sys

from conftest import ROOT, write_lines

SCRIPT = str(ROOT / "bench" / "decode_ab.py")
NO_MEDIAN = "rounds differ by more than 20 %: the machine was busy, no median"


def line(pass_, run, version, median):
    tail = f"median: {median} sentences/s" if median is not None else NO_MEDIAN
    return f"pass {pass_}  {run}  {version}  rounds 1.0 2.0 3.0 | n-best equal on 3 of 3 sentences {tail}"


def read(*paths):
    done = subprocess.run([sys.executable, SCRIPT, *map(str, paths)], capture_output=True, text=True, check=True)
    rows = [row.split() for row in done.stdout.splitlines() if "->" in row]
    return {(row[0], row[1], row[3]): " ".join(row[row.index("->") + 1:]) for row in rows}


def test_faster_needs_a_higher_median_in_every_pass(tmp_path):
    summary = tmp_path / "summary.txt"
    write_lines(summary, ["NVIDIA H200, 143771 MiB",
                          line(1, "r", "a", 200.0), line(1, "r", "b", 190.0), line(1, "r", "c", 210.0),
                          line(2, "r", "c", 150.0), line(2, "r", "b", 205.0), line(2, "r", "a", 210.0),
                          line(1, "s", "a", 100.0), line(1, "s", "b", None),
                          line(2, "s", "b", 90.0), line(2, "s", "a", 120.0),
                          line(1, "t", "a", 100.0), line(1, "t", "b", 120.0),
                          line(2, "t", "b", 130.0), line(2, "t", "a", 100.0)])
    reading = read(summary)
    counts = subprocess.run([sys.executable, SCRIPT, str(summary)], capture_output=True, text=True).stdout
    assert counts.splitlines()[0].endswith(": 1 of 14 decodes without a median")
    assert reading[("r", "a", "b")] == "a faster"  # 200 > 190 and 210 > 205
    assert reading[("r", "b", "c")] == "no claim"  # b vs c: 190 < 210, then 205 > 150
    assert reading[("s", "a", "b")] == "no claim"  # b has no median in pass 1
    assert reading[("t", "a", "b")] == "b faster"  # the second of a pair, 120 > 100 and 130 > 100


def test_a_claim_across_calls_needs_every_call_to_agree(tmp_path):
    first, second, third = tmp_path / "1.txt", tmp_path / "2.txt", tmp_path / "3.txt"
    write_lines(first, [line(1, "r", "x+host-checks", 120.0), line(1, "r", "y", 100.0)])
    write_lines(second, [line(1, "r", "x-host-checks", 130.0), line(1, "r", "y", 110.0)])
    write_lines(third, [line(1, "r", "x-host-checks", None), line(1, "r", "y", 110.0)])
    assert read(first, second)[("r", "x-host-checks", "y")] == "x-host-checks faster"  # '+' and '-' the same version
    assert read(first, second, third)[("r", "x-host-checks", "y")] == "no claim"
    write_lines(third, [line(1, "r", "x-host-checks", 90.0), line(1, "r", "y", 110.0)])
    assert read(first, third)[("r", "x-host-checks", "y")] == "no claim"  # the calls disagree


def test_the_committed_reading_is_the_scripts():
    calls = ROOT / "results" / "decode_speed" / "h200_2026-11-27_evening"
    done = subprocess.run([sys.executable, SCRIPT, str(calls / "call1" / "summary.txt"),
                           str(calls / "call2" / "summary.txt")], capture_output=True, text=True, check=True)
    assert done.stdout == (calls / "reading.txt").read_text(encoding="utf-8")
