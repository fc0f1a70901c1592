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
