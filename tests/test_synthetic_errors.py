"""bench/probes/synthetic_errors.py on a hand-made dataset: every figure counted by hand."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

BENCH = ROOT / "bench" / "probes" / "synthetic_errors.py"

RULES = [{"type": "xy->x", "source": "w1 x w2 y", "target": "x w3", "adjacent_variables": False},
         {"type": "x->x", "source": "x w5", "target": "w6 x", "adjacent_variables": False},
         {"type": "xy->xy", "source": "w1 x y", "target": "x y w2", "adjacent_variables": True},
         {"type": "xy->xy", "source": "x w7 y", "target": "y x", "adjacent_variables": False},
         {"type": "xy->x", "source": "w1 x y", "target": "x", "adjacent_variables": True}]
#        rule  source            target          output         why
LINES = [(0, "w1 a b w2 c", "a b w3", "a b w3"),          # right
         (0, "w1 d w2 e f", "d w3", "d e w3"),            # fits "x w3" with x = "d e": a filler error
         (1, "g w5", "w6 g", "w6"),                        # no x at all: a shape error
         (1, "h i w5", "w6 h i", "w6 h i"),                # right
         (2, "w1 " + " ".join(f"s{i}" for i in range(12)), " ".join(f"s{i}" for i in range(12)) + " w2",
          "s0 w2"),                                        # x y adjacent, 12 filler symbols; "s0" cannot be x y
         (3, "a w7 b", "b a", "b a"),                      # right, x and y apart
         (2, "w1 p q r", "p q r w2", "p q r w2"),          # adjacent but copied side by side: right either way
         (4, "w1 p q r", "p", "p q")]                      # x = "p q", y = "r" is the other reading: a split guess


def _dataset(tmp_path):
    (tmp_path / "generation.json").write_text(json.dumps({"by_type": {}, "rules": RULES}))
    for suffix, column in (("rule", 0), ("src", 1), ("tgt", 2)):
        (tmp_path / f"test.{suffix}").write_text("".join(f"{line[column]}\n" for line in LINES))
    (tmp_path / "out.hyp").write_text("".join(f"{line[3]}\n" for line in LINES))
    return tmp_path


def test_exact_match_rule_spread_lengths_and_error_kinds_by_hand(tmp_path):
    data = _dataset(tmp_path)
    subprocess.run([sys.executable, str(BENCH), str(data), str(data / "out.hyp"), "--json", str(data / "e.json")],
                   check=True, capture_output=True, text=True)
    figures = json.loads((data / "e.json").read_text())[str(data / "out.hyp")]
    assert figures["xy->x"]["exact_match"] == 33.33  # lines 0, 1, 7: one right
    assert figures["xy->x"]["errors"] == {"filler": 1, "split": 1}
    assert figures["xy->x"]["by_filler_length"] == {"1-10": {"lines": 3, "exact_match": 33.3}}
    assert (figures["xy->x"]["rules"], figures["xy->x"]["rules_all_right"], figures["xy->x"]["rules_at_least_90"],
            figures["xy->x"]["rules_below_50"]) == (2, 0, 0, 1)
    assert figures["xy->x"]["by_variables"] == {"apart": {"lines": 2, "exact_match": 50.0},
                                                "adjacent": {"lines": 1, "exact_match": 0.0}}
    assert figures["x->x"]["errors"] == {"shape": 1} and figures["x->x"]["exact_match"] == 50.0
    assert figures["xy->xy"]["exact_match"] == 66.67  # lines 4, 5, 6: two right
    assert figures["xy->xy"]["errors"] == {"shape": 1}  # "s0 w2" is no reading's output and misses a filler
    assert (figures["xy->xy"]["rules_all_right"], figures["xy->xy"]["rules_below_50"]) == (1, 0)
    assert figures["xy->xy"]["by_filler_length"] == {"1-10": {"lines": 2, "exact_match": 100.0},
                                                     "11-20": {"lines": 1, "exact_match": 0.0}}
    assert figures["xy->xy"]["worst_rules"] == [{"rule": 2, "exact_match": 50.0, "pattern": "w1 x y -> x y w2"},
                                                {"rule": 3, "exact_match": 100.0, "pattern": "x w7 y -> y x"}]
    assert figures["xy->xy"]["by_variables"] == {"apart": {"lines": 1, "exact_match": 100.0},
                                                 "adjacent": {"lines": 2, "exact_match": 50.0}}
    assert figures["x->0"]["rules"] == 0 and figures["x->0"]["errors"] == {}


def test_an_output_file_of_another_length_is_refused_naming_both_files(tmp_path):
    data = _dataset(tmp_path)
    (data / "out.hyp").write_text("a b w3\n")
    done = subprocess.run([sys.executable, str(BENCH), str(data), str(data / "out.hyp")], capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "test.src has 8 lines but" in done.stderr and "out.hyp has 1: files must be aligned" in done.stderr
