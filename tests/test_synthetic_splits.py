"""CopyNet's rule data: which instances each split takes (issue 41).

docs/synthetic.md and :func:`paragen.data.synthetic.generate` document the splits: each rule's instances go half
to train and half to test (the paper's 50/50 split, §5.1), and ``valid_fraction`` (10 %) *of the training half*
is held out for validation. So model selection never sees a test line: validation and test share no instance,
and both validation and train come from the training half. The earlier tests only checked split sizes, which a
generator that drew validation from the test half (model selection on test lines, sizes unchanged) keeps.

An instance is identified by (rule, source, target); the properties are checked on generated data whose
instances are all distinct (checked first), so a shared instance can only mean a shared draw.
"""

from __future__ import annotations

from collections import Counter

import paragen.data.synthetic as synthetic
from paragen.config import SyntheticDataset
from paragen.data.synthetic import generate

# 6 rules x 40 instances; 200 symbols and fillers of 3-8 symbols make two equal draws of one rule practically
# impossible (checked below), so shared lines between splits would be shared draws.
SPEC = SyntheticDataset(kind="synthetic", rules=6, instances_per_rule=40, symbols=200, variable_length=(3, 8),
                        seed=11)


def _instance(example) -> tuple:
    return example.rule, tuple(example.source), tuple(example.target)


def test_generated_instances_are_distinct():
    """The premise of the properties below: the 240 lines of the three splits are 240 distinct instances, so no
    two draws happen to coincide. (A line in two splits also breaks this: with validation drawn from the test half,
    6 rules x 2 validation lines repeat test lines and only 228 are distinct.)"""
    lines = [_instance(e) for split in generate(SPEC).values() for e in split]
    assert len(lines) == SPEC.rules * SPEC.instances_per_rule
    assert len(set(lines)) == len(lines)


def test_no_validation_or_test_line_shares_an_instance_with_another_split():
    """Correct: validation ∩ test = validation ∩ train = train ∩ test = ∅ (0 shared instances each). With
    validation drawn from the test half (sizes unchanged) validation ∩ test has 2 instances per rule (12 here), so
    model selection would be done on test lines."""
    splits = {name: [_instance(e) for e in examples] for name, examples in generate(SPEC).items()}
    valid, test, train = set(splits["valid"]), set(splits["test"]), set(splits["train"])
    assert valid & test == set()
    assert valid & train == set()
    assert test & train == set()


def test_split_counts_per_rule_are_as_documented():
    """40 instances per rule: half (20) to train+valid, half (20) to test; 10 % of the training half, round(20 x 0.1)
    = 2, to validation, so train keeps 18. Over 6 rules: train 108, valid 12, test 120. (At the paper's 200 x 200 the
    same arithmetic gives docs/synthetic.md's 18,000 training pairs: 200 x (100 - 10).)"""
    splits = generate(SPEC)
    assert {name: len(examples) for name, examples in splits.items()} == {"train": 108, "valid": 12, "test": 120}
    for name, per_rule in (("train", 18), ("valid", 2), ("test", 20)):
        assert Counter(e.rule for e in splits[name]) == {rule: per_rule for rule in range(SPEC.rules)}, name
    # a larger validation fraction: round(20 x 0.25) = 5 of the training half
    quarter = generate(SPEC.model_copy(update={"valid_fraction": 0.25}))
    assert {name: len(examples) for name, examples in quarter.items()} == {"train": 90, "valid": 30, "test": 120}


def test_each_split_comes_from_its_documented_half(monkeypatch):
    """Label every draw with its position among its rule's draws: ``_fillers`` is replaced by a counter whose
    fillers are ``z<k>`` (k = the k-th draw overall; no rule symbol starts with z, so every instance parses one way
    and none is redrawn). Rule r's draws are k = 40 r .. 40 r + 39, position k - 40 r. Documented: train and
    validation take positions 0-19 (the training half), test positions 20-39. Correct: every test position >= 20 and
    every train/validation position < 20; with validation drawn from the test half, the validation positions
    would be >= 20 (and test would still hold them)."""
    draws = iter(range(10**6))

    def labelled_fillers(rng, spec):
        k = next(draws)
        return {"x": [f"z{k}"], "y": [f"z{k}"]}

    monkeypatch.setattr(synthetic, "_fillers", labelled_fillers)
    splits = generate(SPEC)
    m, half = SPEC.instances_per_rule, SPEC.instances_per_rule // 2

    def positions(name: str) -> list[int]:
        found = []
        for example in splits[name]:
            assert example.redraws == 0
            found.append(int(example.fillers["x"][0][1:]) - m * example.rule)
        return found

    for position in positions("test"):
        assert half <= position < m, f"test line from position {position} of its rule (training half is 0-{half - 1})"
    for name in ("train", "valid"):
        for position in positions(name):
            assert 0 <= position < half, f"{name} line from position {position} (test half: {half}-{m - 1})"
    # together, the training half exactly: every position 0-19 of every rule once in train or valid
    assert sorted(positions("train") + positions("valid")) == sorted(list(range(half)) * SPEC.rules)
    assert sorted(positions("test")) == sorted(list(range(half, m)) * SPEC.rules)
