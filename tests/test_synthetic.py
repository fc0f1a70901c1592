import random

import pytest

from paragen.config import SyntheticDataset
from paragen.data.synthetic import RULE_TYPES, generate, make_rule, write_splits
from paragen.data.corpus import read_split

SPEC = SyntheticDataset(kind="synthetic", rules=10, instances_per_rule=20, symbols=50, seed=7)


@pytest.mark.parametrize("rule_type", RULE_TYPES)
def test_rule_types_have_the_right_variables(rule_type):
    rng = random.Random(0)
    for _ in range(50):
        rule = make_rule(rng, rule_type, SPEC)
        source_vars = [s for s in rule.source if s in ("x", "y")]
        target_vars = [s for s in rule.target if s in ("x", "y")]
        expected_source = {"x"} if rule_type.startswith("x-") else {"x", "y"}
        assert sorted(source_vars) == sorted(expected_source)
        expected_target = {"x->0": [], "x->x": ["x"], "x->xx": ["x", "x"], "xy->x": ["x"], "xy->xy": ["x", "y"]}
        assert sorted(target_vars) == expected_target[rule_type]
        regular = [s for s in rule.source + rule.target if s not in ("x", "y")]
        assert SPEC.rule_length[0] <= len(regular) <= SPEC.rule_length[1]
        assert all(s.startswith("w") and int(s[1:]) < SPEC.symbols for s in regular)
        assert any(s not in ("x", "y") for s in rule.source) and any(s not in ("x", "y") for s in rule.target)


def test_instances_copy_their_fillers():
    rule = make_rule(random.Random(1), "x->xx", SPEC)
    x = ["w1", "w2", "w3"]
    source, target = rule.apply({"x": x, "y": ["w9"]})
    assert len(target) == len([s for s in rule.target if s != "x"]) + 2 * len(x)
    assert " ".join(x) in " ".join(source)
    assert " ".join(target).count(" ".join(x)) >= 2


def test_split_sizes_types_and_determinism():
    splits = generate(SPEC)
    assert len(splits["test"]) == SPEC.rules * SPEC.instances_per_rule // 2
    assert len(splits["train"]) + len(splits["valid"]) == len(splits["test"])
    assert len(splits["valid"]) == SPEC.rules * 1  # 10% of 10 train instances per rule
    for split in splits.values():
        counts = {t: sum(e.rule_type == t for e in split) for t in RULE_TYPES}
        assert len(set(counts.values())) == 1, counts  # equal share of each rule type
    assert generate(SPEC) == splits
    assert generate(SPEC.model_copy(update={"seed": 8})) != splits


def test_variable_lengths_respected():
    for example in generate(SPEC)["train"]:
        assert len(example.source) <= SPEC.rule_length[1] + 2 * SPEC.variable_length[1]


def test_written_splits_read_back(tmp_path):
    splits = generate(SPEC)
    write_splits(splits, tmp_path)
    corpus = read_split(tmp_path, "test")
    assert corpus.sources == [e.source for e in splits["test"]]
    assert corpus.tags == [e.rule_type for e in splits["test"]]


# --- issue 25: rules as §5.1's examples draw them -------------------------------------------------------------

def _splits_by_hand(pattern, source):
    """Every way to read ``source`` as ``pattern`` (regular symbols literally, each variable a non-empty run):
    an independent brute force over the cut points, written for this test."""
    import itertools

    cuts = [i for i, item in enumerate(pattern) if item in ("x", "y")]
    readings = []
    # each variable's (start, end); the literal symbols between must match exactly
    for bounds in itertools.product(range(len(source) + 1), repeat=2 * len(cuts)):
        position, fillers, ok = 0, {}, True
        b = iter(bounds)
        for item in pattern:
            if item in ("x", "y"):
                start, end = next(b), next(b)
                if start != position or end <= start:
                    ok = False
                    break
                fillers[item] = source[start:end]
                position = end
            elif position < len(source) and source[position] == item:
                position += 1
            else:
                ok = False
                break
        if ok and position == len(source):
            readings.append(fillers)
    return readings


NEW = SyntheticDataset(kind="synthetic", rules=40, instances_per_rule=20, symbols=30, variable_length=(1, 6), seed=3)


def test_no_xy_rule_has_adjacent_variables_and_every_instance_parses_one_way():
    from paragen.data.synthetic import make_rules, variables_adjacent

    rules = make_rules(NEW, random.Random(NEW.seed))
    xy = [r for r in rules if r.rule_type.startswith("xy")]
    assert len(xy) == 16
    for rule in xy:
        positions = [i for i, s in enumerate(rule.source) if s in ("x", "y")]
        assert abs(positions[0] - positions[1]) >= 2, rule.source  # a regular symbol between x and y
        assert not variables_adjacent(rule)
    splits = generate(NEW)
    checked = 0
    for example in (e for split in splits.values() for e in split if e.rule_type.startswith("xy")):
        rule = rules[example.rule]
        readings = _splits_by_hand(list(rule.source), example.source)
        assert readings == [{"x": example.fillers["x"], "y": example.fillers["y"]}], (rule.source, example.source)
        checked += 1
    assert checked == 16 * 20


def test_old_generator_is_one_switch_away_and_makes_ambiguous_rules():
    """With both switches off, rules at paper-like density put x and y side by side (the pre-issue-25 data)."""
    from paragen.data.synthetic import make_rules, variables_adjacent

    old = NEW.model_copy(update={"separate_variables": False, "target_from_source": 0.0})
    adjacent = [r for r in make_rules(old, random.Random(old.seed)) if variables_adjacent(r)]
    assert adjacent, "the old placement should produce some adjacent x y at this density"
    # an adjacent pattern splits many ways: 'a x y b' over 'a p q r b' reads as x=p|y=q r or x=p q|y=r
    assert len(_splits_by_hand(["a", "x", "y", "b"], ["a", "p", "q", "r", "b"])) == 2


def test_the_old_switches_give_the_old_generators_adjacent_rules():
    """Counted with the generator before the switches existed (issue 25's text): at paper scale, seed 1, x and y
    side by side in 15 of 40 xy -> x and 11 of 40 xy -> xy rules; at the default scale of then (20 rules; the
    default has 40 since S18) in 3 of 4 xy -> xy."""
    from paragen.config import load_config
    from paragen.data.synthetic import drawn_rules, variables_adjacent

    datasets = load_config("params.yaml").datasets
    for name, expected in (("synthetic_paper", {"xy->x": 15, "xy->xy": 11}), ("synthetic_small", {"xy->xy": 3})):
        old = datasets[name].model_copy(update={"separate_variables": False, "target_from_source": 0.0})
        if name == "synthetic_small":
            old = old.model_copy(update={"rules": 20, "instances_per_rule": 200})
        rules = drawn_rules(old)
        for rule_type, count in expected.items():
            assert sum(r.rule_type == rule_type and variables_adjacent(r) for r in rules) == count, (name, rule_type)


def test_parses_counts_readings_like_the_brute_force():
    from paragen.data.synthetic import parses

    cases = [(["a", "x", "b", "y", "c"], ["a", "p", "b", "q", "b", "r", "c"]),  # the b in the filler: 2 readings
             (["a", "x", "b", "y", "c"], ["a", "p", "q", "b", "r", "c"]),       # 1 reading
             (["x", "b", "y"], ["b", "b", "b"]),                                 # x=b, y=b: 1
             (["x", "b", "y"], ["p", "b", "b", "b", "q"]),                       # cut at the 1st, 2nd or 3rd b: 3
             (["a", "x"], ["b", "p"])]                                           # no reading
    for pattern, source in cases:
        assert parses(pattern, source, limit=10) == len(_splits_by_hand(pattern, source))
    assert [parses(p, s, limit=10) for p, s in cases] == [2, 1, 1, 3, 0]


def test_targets_reuse_source_symbols_at_the_configured_share():
    from paragen.data.synthetic import make_rules

    def share(spec):
        reused = total = 0
        for rule in make_rules(spec, random.Random(0)):
            source = {s for s in rule.source if s not in ("x", "y")}
            for s in rule.target:
                if s not in ("x", "y"):
                    total, reused = total + 1, reused + (s in source)
        return reused / total

    big = SyntheticDataset(kind="synthetic", rules=500, instances_per_rule=2, symbols=100000)
    # with 100,000 symbols a fresh draw almost never hits the rule's ~6 source symbols: the share is the setting
    assert abs(share(big) - 0.5) < 0.04
    assert share(big.model_copy(update={"target_from_source": 0.0})) < 0.01
    assert share(big.model_copy(update={"target_from_source": 1.0})) == 1.0


def test_statistics_counted_by_hand():
    from paragen.data.synthetic import drawn_rules, statistics

    spec = SyntheticDataset(kind="synthetic", rules=5, instances_per_rule=2, symbols=50, seed=11)
    splits = generate(spec)
    stats = statistics(drawn_rules(spec), splits)
    assert [stats[t]["rules"] for t in RULE_TYPES] == [1] * 5
    assert [stats[t]["instances"] for t in RULE_TYPES] == [2] * 5
    assert all(stats[t]["ambiguous_rules"] == 0 for t in RULE_TYPES)
    # mean filler length of x -> x by hand: x's fillers of its two instances
    own = [e for s in splits.values() for e in s if e.rule_type == "x->x"]
    assert stats["x->x"]["mean_filler_length"] == round(sum(len(e.fillers["x"]) for e in own) / 2, 3)
    both = [e for s in splits.values() for e in s if e.rule_type == "xy->xy"]
    lengths = [len(e.fillers[v]) for e in both for v in "xy"]
    assert stats["xy->xy"]["mean_filler_length"] == round(sum(lengths) / 4, 3)


def test_written_rule_ids_and_statistics_file(tmp_path):
    from paragen.data.synthetic import write_splits

    splits = generate(NEW)
    write_splits(splits, tmp_path)
    ids = (tmp_path / "test.rule").read_text().split()
    assert ids == [str(e.rule) for e in splits["test"]]
    assert ids[:10] == ["0"] * 10 and ids[10:20] == ["1"] * 10  # 20 instances: 10 per rule go to test, in order


def test_filler_spans_by_hand():
    from paragen.data.synthetic import filler_spans

    # a x b y c over a p q b r c: x = p q at [1, 3), y = r at [4, 5)
    assert filler_spans(["a", "x", "b", "y", "c"], ["a", "p", "q", "b", "r", "c"]) == {"x": [1, 3], "y": [4, 5]}
    assert filler_spans(["y", "b", "x"], ["p", "b", "q", "r"]) == {"y": [0, 1], "x": [2, 4]}
    assert filler_spans(["a", "x", "b", "y", "c"], ["a", "p", "b", "q", "b", "r", "c"]) is None  # two readings


def test_spans_of_generated_test_lines_match_the_drawn_fillers(tmp_path):
    import json

    from paragen.data.synthetic import STATISTICS_FILE, drawn_rules, rules_json, spans_of_test_lines, write_splits

    splits = generate(NEW)
    write_splits(splits, tmp_path)
    (tmp_path / STATISTICS_FILE).write_text(json.dumps({"rules": rules_json(drawn_rules(NEW))}))
    spans = spans_of_test_lines(tmp_path, [e.source for e in splits["test"]])
    for example, span in zip(splits["test"], spans):
        for variable, (start, end) in span.items():
            assert example.source[start:end] == example.fillers[variable]


def test_generation_statistics_by_hand():
    """One x->x rule "a x b" -> "c x" (3 symbols that are not variables) with two instances: fillers of 2 and 1
    symbols, sources of 4 and 3, targets of 3 and 2 tokens, the second redrawn once. Means 1.5, 3, 3.5, 2.5; one
    redrawn instance (counting redraws > 1 gives 0, >= 0 gives 2); the other types have nothing and report 0."""
    from paragen.data.synthetic import RULE_TYPES, Example, Rule, statistics

    rule = Rule("x->x", ("a", "x", "b"), ("c", "x"))
    examples = [Example(["a", "p", "q", "b"], ["c", "p", "q"], "x->x", 0, {"x": ["p", "q"]}, 0),
                Example(["a", "r", "b"], ["c", "r"], "x->x", 0, {"x": ["r"]}, 1)]
    stats = statistics([rule], {"train": examples[:1], "test": examples[1:]})
    assert stats["x->x"] == {"rules": 1, "instances": 2, "ambiguous_rules": 0, "redrawn_instances": 1,
                             "mean_filler_length": 1.5, "mean_rule_length": 3.0, "mean_source_length": 3.5,
                             "mean_target_length": 2.5}
    empty = {"rules": 0, "instances": 0, "ambiguous_rules": 0, "redrawn_instances": 0, "mean_filler_length": 0.0,
             "mean_rule_length": 0.0, "mean_source_length": 0.0, "mean_target_length": 0.0}
    assert all(stats[t] == empty for t in RULE_TYPES if t != "x->x")
