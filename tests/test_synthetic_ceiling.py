"""The best exact match possible on CopyNet's rule data (paragen.data.synthetic_ceiling), pinned by hand and
against a brute force that fills the pattern with every pair of filler lengths instead of parsing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from paragen.config import SyntheticDataset, load_config
from paragen.data.synthetic import RULE_TYPES, drawn_rules, generate
from paragen.data.synthetic_ceiling import instance_ceiling, type_ceilings

ROOT = Path(__file__).resolve().parents[1]
WIDE = (1, 15)


def test_adjacent_fillers_split_two_ways_so_a_perfect_model_is_right_half_the_time():
    # w1 [a][b c] w2 or w1 [a b][c] w2: x is "a" or "a b"
    assert instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c w2".split(), WIDE) == 0.5


def test_three_splits_give_a_third():
    assert instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c d w2".split(), WIDE) == pytest.approx(1 / 3)


def test_readings_that_write_the_same_output_count_together():
    # copied in the source's order, side by side: every split writes "a b c"
    assert instance_ceiling(("w1", "x", "y", "w2"), ("x", "y"), "w1 a b c w2".split(), WIDE) == 1.0
    # swapped around a symbol: "b c w3 a" and "c w3 a b" differ
    assert instance_ceiling(("w1", "x", "y", "w2"), ("y", "w3", "x"), "w1 a b c w2".split(), WIDE) == 0.5


def test_a_filler_repeating_the_separator_makes_apart_variables_ambiguous_too():
    # x w5 y over "a w5 b w5 c": x is "a" or "a w5 b"
    assert instance_ceiling(("x", "w5", "y"), ("x",), "a w5 b w5 c".split(), WIDE) == 0.5


def test_filler_lengths_outside_the_range_are_impossible_readings():
    assert instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b w2".split(), (1, 1)) == 1.0
    # of the 3 splits of "a b c d" only [a b][c d] has both fillers 2 long
    assert instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c d w2".split(), (2, 2)) == 1.0
    with pytest.raises(ValueError, match="does not fit the rule"):
        instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c w2".split(), (2, 15))


def test_one_variable_rules_always_have_one_reading():
    assert instance_ceiling(("w1", "x", "w2"), ("x", "w3", "x"), "w1 w2 w1 w2".split(), WIDE) == 1.0


def test_the_mean_ceiling_is_the_bayes_accuracy_of_the_generators_own_distribution():
    """Enumerate every filler draw the generator can make (lengths uniform in range, symbols uniform) for a rule
    whose separator can recur inside a filler: the best any rule-knowing model can do is sum over sources of
    max over targets P(source, target); the instance ceiling, averaged with P(source, target), must equal it.
    This checks the premise that every in-range reading is equally probable, independently of the code."""
    import itertools
    from fractions import Fraction

    vocabulary, (low, high) = ("w1", "a"), (1, 3)
    for rule_source, rule_target, decidable in ((("x", "w1", "y"), ("y", "x"), False),
                                                (("w1", "x", "y"), ("x", "w1"), False),
                                                (("x", "y"), ("x", "y"), True)):  # copied side by side: any split
        joint = Counter()
        strings = [list(s) for n in range(low, high + 1) for s in itertools.product(vocabulary, repeat=n)]
        for x, y in itertools.product(strings, repeat=2):
            p = Fraction(1, (high - low + 1) ** 2) * Fraction(1, len(vocabulary) ** (len(x) + len(y)))
            fill = {"x": x, "y": y}
            source = tuple(s for item in rule_source for s in (fill.get(item, [item])))
            target = tuple(s for item in rule_target for s in (fill.get(item, [item])))
            joint[(source, target)] += p
        best = sum(max(p for (s, _), p in joint.items() if s == source) for source in {s for s, _ in joint})
        expected = sum(p * Fraction(instance_ceiling(rule_source, rule_target, list(s), (low, high))).limit_denominator()
                       for (s, _), p in joint.items())
        assert expected == best, rule_source
        assert (best == 1) == decidable  # the first two do have undecidable instances: the check has teeth


def test_a_source_with_more_readings_than_counted_is_refused(monkeypatch):
    import paragen.data.synthetic_ceiling as ceiling

    monkeypatch.setattr(ceiling, "ALL_READINGS", 2)  # "w1 a b c d w2" under "w1 x y w2" has 3
    with pytest.raises(ValueError, match="more than 2 readings"):
        ceiling.instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c d w2".split(), WIDE)


def _brute_force(rule, source, low, high):
    """Fill the rule with every (len x, len y) in range and keep the fillings that reproduce ``source``."""
    outputs = Counter()
    for lx in range(low, high + 1):
        for ly in range(low, high + 1) if "y" in rule.source else [0]:
            at, fillers = 0, {}
            for item in rule.source:
                if item in ("x", "y"):
                    fillers[item] = source[at:at + (lx if item == "x" else ly)]
                    at += lx if item == "x" else ly
                else:
                    fillers.setdefault("ok", []).append(at < len(source) and source[at] == item)
                    at += 1
            if at == len(source) and all(fillers.pop("ok", [True])) and all(len(f) for f in fillers.values()):
                rebuilt = [s for item in rule.source for s in (fillers[item] if item in fillers else [item])]
                if rebuilt == list(source):
                    outputs[tuple(s for item in rule.target for s in (fillers[item] if item in fillers else [item]))] += 1
    return max(outputs.values()) / sum(outputs.values())


def test_type_ceilings_agree_with_a_brute_force_on_the_old_generator():
    # few symbols and short rules: adjacent variables and repeated separators both occur
    spec = SyntheticDataset(kind="synthetic", rules=15, instances_per_rule=10, symbols=4, rule_length=(2, 4),
                            variable_length=(1, 4), separate_variables=False, target_from_source=0.0, seed=3)
    rules = drawn_rules(spec)
    test = generate(spec)["test"]
    got = type_ceilings(spec)
    for rule_type in RULE_TYPES:
        mine = [e for e in test if e.rule_type == rule_type]
        expected = [_brute_force(rules[e.rule], e.source, 1, 4) for e in mine]
        assert got[rule_type]["ceiling"] == pytest.approx(100 * sum(expected) / len(expected), abs=0.006)
        assert got[rule_type]["undecidable_instances"] == sum(v < 1 for v in expected)
        assert got[rule_type]["instances"] == len(mine) == 3 * 5
        adjacent = [r for r in rules if r.rule_type == rule_type
                    and any({a, b} == {"x", "y"} for a, b in zip(r.source, r.source[1:]))]
        assert got[rule_type]["adjacent_rules"] == len(adjacent)
    assert got["xy->x"]["ceiling"] < 100  # the draw does hold undecidable instances, so the check has teeth


def test_the_default_generator_leaves_nothing_undecidable():
    spec = SyntheticDataset(kind="synthetic", rules=15, instances_per_rule=10, symbols=4, rule_length=(2, 4),
                            variable_length=(1, 4), seed=3)
    got = type_ceilings(spec)
    assert all(row["ceiling"] == 100.0 and row["undecidable_instances"] == row["adjacent_rules"] == 0
               for row in got.values())


def test_the_bench_prints_both_generators_and_writes_its_json(tmp_path):
    out = tmp_path / "ceiling.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "synthetic_ceiling.py"), "--dataset", "synthetic_small",
                           "--seeds", "2", "--json", str(out)], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "synthetic_small, params.yaml" in done.stdout and "before 2026-11-24" in done.stdout

    figures = json.loads(out.read_text())
    assert set(figures["settings"]) == {"params.yaml", "before 2026-11-24"}
    assert figures["before 2026-11-24 over seeds"]["xy->xy"]["seeds"] == 2


def test_generate_writes_each_types_test_ceiling(workflow_dir, monkeypatch):
    """`paragen generate` reports the ceiling beside the other statistics: 100 for the default generator (one
    reading per source, by construction); for the old switches, the type_ceilings pinned above."""
    from paragen.cli import main

    monkeypatch.chdir(workflow_dir)
    params = workflow_dir / "params.yaml"
    main(["generate", "--dataset", "tiny"])
    stats = json.loads((workflow_dir / "data/prepared/tiny/generation.json").read_text())["by_type"]
    assert [stats[t]["test_ceiling"] for t in RULE_TYPES] == [100.0] * 5
    params.write_text(params.read_text().replace("    seed: 3\n", "    seed: 3\n    separate_variables: false\n"
                                                 "    target_from_source: 0\n", 1))
    main(["generate", "--dataset", "tiny"])
    stats = json.loads((workflow_dir / "data/prepared/tiny/generation.json").read_text())["by_type"]
    expected = type_ceilings(load_config(params).datasets["tiny"])
    assert [stats[t]["test_ceiling"] for t in RULE_TYPES] == [expected[t]["ceiling"] for t in RULE_TYPES]
    assert min(stats[t]["test_ceiling"] for t in RULE_TYPES) < 100  # this draw has undecidable instances


def test_the_caption_names_the_types_that_cannot_reach_100(tmp_path, monkeypatch):
    from paragen.report.captions import ceiling_text

    stats = tmp_path / "data/prepared/synthetic_paper/generation.json"
    config = load_config(ROOT / "params.yaml")
    monkeypatch.chdir(tmp_path)
    assert ceiling_text(config, ["synp_copynet"]) == ""  # not generated yet: nothing to state
    stats.parent.mkdir(parents=True)
    by_type = {t: {"rules": 40, "test_ceiling": 100.0} for t in RULE_TYPES}
    stats.write_text(json.dumps({"by_type": by_type, "rules": []}))
    assert ceiling_text(config, ["synp_copynet"]) == ""  # every type can reach 100: nothing to say
    by_type["xy->x"]["test_ceiling"], by_type["xy->xy"]["test_ceiling"] = 67.31, 78.11
    stats.write_text(json.dumps({"by_type": by_type, "rules": []}))
    assert ceiling_text(config, ["synp_encdec", "synp_copynet"]) == (
        " Ceiling (best expected exact match of a model that knows every rule; where x and y sit side by side a "
        "test source splits more than one way and is right only by chance): xy → x 67.3, xy → xy 78.1; 100 on "
        "the other types.")


def test_ceilings_of_hand_made_rules_and_instances():
    """Rule 0 (xy->x, "w1 x y w2", adjacent) with two instances of ceiling 1/2 ("w1 a b c w2") and 1/3
    ("w1 a b c d w2"): mean 41.666... % shown 41.67, both undecidable; rule 1 (xy->x, "x w5 y", apart) has no
    instance but counts as a rule; rule 2 (x->x) one instance of one reading: 100.0, and rule 3 (x->x) none;
    rule 4 (xy->xy, target "y x") on "w1 a b a b w2": of its 3 readings two write "b a b a": 2/3, 66.67,
    undecidable though above 1/2; x->0 has no rule and no instance: zeros (a slip dividing by the count would
    fail on it)."""
    from paragen.data.synthetic import Example, Rule
    from paragen.data.synthetic_ceiling import ceilings_of

    rules = [Rule("xy->x", ("w1", "x", "y", "w2"), ("x",)), Rule("xy->x", ("x", "w5", "y"), ("x",)),
             Rule("x->x", ("w3", "x"), ("x",)), Rule("x->x", ("w4", "x"), ("x",)),
             Rule("xy->xy", ("w1", "x", "y", "w2"), ("y", "x"))]
    examples = [Example("w1 a b c w2".split(), ["a"], "xy->x", 0), Example("w1 a b c d w2".split(), ["a"], "xy->x", 0),
                Example(["w3", "e"], ["e"], "x->x", 2), Example("w1 a b a b w2".split(), [], "xy->xy", 4)]
    got = ceilings_of(rules, examples, WIDE)
    assert got["xy->x"] == {"rules": 2, "adjacent_rules": 1, "instances": 2, "undecidable_instances": 2,
                            "ceiling": 41.67}
    assert got["x->x"] == {"rules": 2, "adjacent_rules": 0, "instances": 1, "undecidable_instances": 0,
                           "ceiling": 100.0}
    assert got["xy->xy"] == {"rules": 1, "adjacent_rules": 1, "instances": 1, "undecidable_instances": 1,
                             "ceiling": 66.67}
    assert got["x->0"] == {"rules": 0, "adjacent_rules": 0, "instances": 0, "undecidable_instances": 0,
                           "ceiling": 0.0}
    assert list(got) == list(RULE_TYPES)


def test_the_reading_limit_is_exclusive_and_the_refusals_say_which_source_and_rule(monkeypatch):
    """With the limit at 3, "w1 a b c d w2" (3 readings) is still counted (1/3); at 2 it is refused. A source
    that no in-range reading fits is refused naming source and rule."""
    import paragen.data.synthetic_ceiling as ceiling

    monkeypatch.setattr(ceiling, "ALL_READINGS", 3)
    assert ceiling.instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c d w2".split(), WIDE) == \
        pytest.approx(1 / 3)
    monkeypatch.setattr(ceiling, "ALL_READINGS", 2)
    with pytest.raises(ValueError) as error:
        ceiling.instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c d w2".split(), WIDE)
    assert str(error.value) == "'w1 a b c d w2' has more than 2 readings under 'w1 x y w2'"
    with pytest.raises(ValueError) as error:
        instance_ceiling(("w1", "x", "y", "w2"), ("x",), "w1 a b c w2".split(), (2, 15))
    assert str(error.value) == "'w1 a b c w2' does not fit the rule 'w1 x y w2'"


def test_type_ceilings_read_the_test_split_unless_told():
    """instances_per_rule 10: 5 test instances per rule, 3 rules per type; valid takes a fraction of the train
    half, so its counts differ."""
    spec = SyntheticDataset(kind="synthetic", rules=15, instances_per_rule=10, symbols=4, rule_length=(2, 4),
                            variable_length=(1, 4), seed=3)
    assert {row["instances"] for row in type_ceilings(spec).values()} == {15}
    assert {row["instances"] for row in type_ceilings(spec, "valid").values()} != {15}
