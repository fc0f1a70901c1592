"""Small behaviours of `paragen.data` that the mutation run over the package found unpinned: prepare.json and the
overlap refusal of a recipe's preparation, one-reference splits on disk, the reference length limit, the rules
record of the rule data, rounding of its statistics, the mirror taken from the environment, the vocabulary
refusal, the headline stand-in's files, and the rule data's readings, redraws and validation share. Expected
values are worked out by hand from the inputs below.
"""

from __future__ import annotations

import json

import pytest

from paragen.data.corpus import CorpusError
from paragen.data.headline_synthetic import AlignedPair, write_splits
from paragen.data.prepare import Split, drop_overlong, prepare_dataset
from paragen.data.prepared_files import write_split
from paragen.data.registry import default_mirror
from paragen.data.synthetic import Rule, _mean, rules_json
from paragen.data.vocabularies import build_vocabularies

from test_prepare_dataset_cases import pwkp


def test_prepare_json_is_the_whole_record(tmp_path):
    """pwkp valid (2 pairs) and test (1 pair), nothing shared: the dataset, no options, per split the pairs, one
    reference, the paper's count (205 and 100) and no notes, and the overlap of the one pair of splits."""
    pwkp(tmp_path, "valid", [("a b", "a"), ("c d", "c")])
    pwkp(tmp_path, "test", [("e f", "e")])
    prepare_dataset("pwkp", ["valid", "test"], tmp_path, tmp_path / "out", check_counts=False)
    assert json.loads((tmp_path / "out" / "pwkp" / "prepare.json").read_text()) == {
        "dataset": "pwkp", "options": {},
        "splits": {"valid": {"pairs": 2, "references": 1, "paper": 205, "notes": []},
                   "test": {"pairs": 1, "references": 1, "paper": 100, "notes": []}},
        "overlap": {"valid/test": {"sources": 0, "pairs": 0, "guarded": True}}}


def test_every_overlapping_pair_of_splits_is_named_in_one_refusal(tmp_path):
    """valid shares "a b" with train (its target differs: 0 identical pairs), test shares "c d" with train (same
    target: 1 identical pair); both are listed, and the setting that would allow them asks for 1."""
    pwkp(tmp_path, "train", [("a b", "a"), ("c d", "c")])
    pwkp(tmp_path, "valid", [("a b", "x"), ("g h", "g")])
    pwkp(tmp_path, "test", [("c d", "c"), ("i j", "i")])
    with pytest.raises(CorpusError) as error:
        prepare_dataset("pwkp", None, tmp_path, tmp_path / "out", check_counts=False)
    assert str(error.value) == (
        "pwkp: 1 of the 2 valid lines have a source sentence that is also in train (0 identical pairs); 1 of the 2 "
        "test lines have a source sentence that is also in train (1 identical pairs); a score on such lines "
        "measures memory, not generation. Make the splits disjoint, or allow it with --max-overlap: 1 (tables "
        "then state the overlap)")


def test_a_split_with_one_reference_has_no_reference_files(tmp_path):
    write_split(tmp_path, "test", Split(["a b"], [["a"]], []))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test.src", "test.tgt"]
    write_split(tmp_path, "valid", Split(["a b"], [["a"], ["b"]], []))
    assert (tmp_path / "valid.ref.1").read_text() == "b\n" and (tmp_path / "valid.ref.0").read_text() == "a\n"


def test_a_reference_of_exactly_the_limit_is_kept():
    """Limit 5: "abcde" (5 characters) stays, "abcdef" (6) drops its pair, in the source or in any reference."""
    data = Split(["abcde", "abc", "abcdef"], [["abcde", "abc", "a"], ["a", "abcdef", "a"]], [])
    kept = drop_overlong(data, 5)
    assert kept.sources == ["abcde"] and kept.references == [["abcde"], ["a"]]
    assert kept.notes == ["2 pairs with a line over 5 characters dropped (max_line_chars)"]


def test_the_rules_record_names_each_rule_s_type_patterns_and_adjacency():
    rules = [Rule("xy->x", ("a", "x", "b", "y"), ("x", "c")), Rule("xy->xy", ("x", "y", "d"), ("y", "x"))]
    assert rules_json(rules) == [
        {"type": "xy->x", "source": "a x b y", "target": "x c", "adjacent_variables": False},
        {"type": "xy->xy", "source": "x y d", "target": "y x", "adjacent_variables": True}]


def test_statistics_means_are_rounded_to_three_decimals():
    assert _mean([1, 2, 2]) == 1.667 and _mean([]) == 0.0


def test_the_mirror_comes_from_paragen_mirror_when_set_and_not_empty(monkeypatch):
    monkeypatch.setenv("PARAGEN_MIRROR", "/srv/mirror")
    assert default_mirror() == "/srv/mirror"
    monkeypatch.setenv("PARAGEN_MIRROR", "")
    assert default_mirror() is None
    monkeypatch.delenv("PARAGEN_MIRROR")
    assert default_mirror() is None


def test_vocabularies_without_a_training_split_name_both_missing_files(tmp_path):
    with pytest.raises(CorpusError) as error:
        build_vocabularies(tmp_path, 10, shared=True)
    assert str(error.value) == ("vocabularies are built on the training split, which is missing: "
                                f"{tmp_path / 'train.src'}, {tmp_path / 'train.tgt'}")


def test_the_headline_stand_in_writes_words_links_and_headlines_one_pair_a_line(tmp_path):
    write_splits({"test": [AlignedPair(["c1", "f2", "c3"], ["c1", "r3"], [(0, 0), (2, 1)]),
                           AlignedPair(["c4"], ["c4"], [(0, 0)])]}, tmp_path)
    assert (tmp_path / "test.src").read_text() == "c1 f2 c3\nc4\n"
    assert (tmp_path / "test.tgt").read_text() == "c1 r3\nc4\n"
    assert (tmp_path / "test.align").read_text() == "0-0 2-1\n0-0\n"


def test_readings_stop_at_their_limit():
    """x y over a b c d splits three ways (a | b c d, a b | c d, a b c | d); with limit 2 the first two."""
    from paragen.data.synthetic import readings

    assert readings(["x", "y"], ["a", "b", "c", "d"], limit=2) == [{"x": [0, 1], "y": [1, 4]},
                                                                  {"x": [0, 2], "y": [2, 4]}]


def test_an_ambiguous_instance_is_redrawn_up_to_the_limit_and_counted(monkeypatch):
    """One rule, parses scripted: ambiguous three times then unique, with REDRAW_LIMIT 3, gives an instance
    redrawn 3 times; ambiguous every time, the rule is refused after its 3 redraws."""
    import random

    from paragen.config import SyntheticDataset
    from paragen.data import synthetic

    rule = Rule("x->x", ("a", "x"), ("x",))
    spec = SyntheticDataset(kind="synthetic", rules=1, instances_per_rule=2, symbols=5, seed=1)
    monkeypatch.setattr(synthetic, "_rules_then_rng", lambda s: ([rule], random.Random(0)))
    monkeypatch.setattr(synthetic, "REDRAW_LIMIT", 3)
    answers = iter([2, 2, 2, 1, 1])
    monkeypatch.setattr(synthetic, "parses", lambda pattern, source: next(answers))
    splits = synthetic.generate(spec)
    assert sorted(e.redraws for split in splits.values() for e in split) == [0, 3]
    monkeypatch.setattr(synthetic, "parses", lambda pattern, source: 2)
    with pytest.raises(ValueError) as error:
        synthetic.generate(spec)
    assert str(error.value) == "rule 0 (a x): no unambiguous instance after 3 redraws"  # 4 draws in all


@pytest.mark.parametrize("per_rule, sizes", [(2, (3, 0, 3)), (4, (3, 3, 6))])
def test_each_rule_s_train_half_gives_validation_one_instance_when_it_has_two(per_rule, sizes):
    """3 rules. 2 instances a rule: a train half of 1 keeps it (no validation instance); 4 a rule: a train half of
    2 gives max(1, round(2 x 0.1)) = 1 to validation. (train, valid, test) instances in all."""
    from paragen.config import SyntheticDataset
    from paragen.data.synthetic import generate

    splits = generate(SyntheticDataset(kind="synthetic", rules=3, instances_per_rule=per_rule, symbols=50, seed=2))
    assert (len(splits["train"]), len(splits["valid"]), len(splits["test"])) == sizes
