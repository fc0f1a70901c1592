"""PPDB rule files in their true formats, and the deterministic paraphrase baseline (003 §3.1)."""

from __future__ import annotations

import gzip

import pytest

from paragen.simplification.paraphrase import Paraphraser
from paragen.simplification.ppdb import Rule, RuleError, load_rules, read_rules

# Lines as the real files write them (tabs, PPDB 2.0's " ||| " and feature lists, DMASS's "=>").
PAIRS = "recipient\twinner\nabolish\tend\n\ncommence\tbegin\nbegin\tbegin\n"
SIMPLEPPDB = ("3.41\t0.98\t[NN]\trecipient\twinner\n"
              "3.02\t0.75\t[NN]\trecipient\thost\n"
              "2.50\t0.91\t[VP]\tpassed away\tdied\n")
PPDB2 = ("[VB] ||| abolish ||| eliminate ||| PPDB2.0Score=3.85 PPDB1.0Score=2.1 Equivalence=0.4 ||| 0-0 ||| Equivalence\n"
         "[NP] ||| the recipient ||| the winner ||| AGigaSim=0.6 ||| 0-0 1-1\n")
DMASS = "X=>recipient=>winner=>2\nX=>passed away=>died=>1.5\n"


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_pairs_format_has_weight_one_and_skips_blank_lines(tmp_path):
    rules = list(read_rules(write(tmp_path / "pairs.tsv", PAIRS), "pairs"))
    assert rules[:3] == [Rule(("recipient",), ("winner",), 1.0), Rule(("abolish",), ("end",), 1.0),
                         Rule(("commence",), ("begin",), 1.0)]
    assert len(rules) == 4
    # load_rules leaves the identity rule out
    assert [r.complex for r in load_rules(tmp_path / "pairs.tsv", "pairs")] == [("recipient",), ("abolish",),
                                                                               ("commence",)]


def test_simpleppdb_weight_is_the_simplification_score_and_phrases_split(tmp_path):
    path = write(tmp_path / "simple.tsv", SIMPLEPPDB)
    rules = list(read_rules(path, "simpleppdb"))
    assert [r.weight for r in rules] == [0.98, 0.75, 0.91]
    assert rules[2] == Rule(("passed", "away"), ("died",), 0.91)
    assert [r.simple for r in load_rules(path, "simpleppdb", "word")] == [("winner",), ("host",)]
    assert [r.simple for r in load_rules(path, "simpleppdb", "phrase")] == [("died",)]
    assert len(load_rules(path, "simpleppdb", "both")) == 3


def test_ppdb2_weight_is_ppdb2_score_or_one(tmp_path):
    rules = list(read_rules(write(tmp_path / "ppdb2", PPDB2), "ppdb2"))
    assert rules == [Rule(("abolish",), ("eliminate",), 3.85), Rule(("the", "recipient"), ("the", "winner"), 1.0)]
    assert not rules[1].lexical


def test_dmass_rule_lists_and_gzip(tmp_path):
    path = tmp_path / "rules.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(DMASS)
    assert list(read_rules(path, "dmass")) == [Rule(("recipient",), ("winner",), 2.0),
                                               Rule(("passed", "away"), ("died",), 1.5)]


@pytest.mark.parametrize("fmt, text, line, expected", [
    ("pairs", "a\tb\nx y z\n", 2, "expected 2 tab-separated fields"),
    ("simpleppdb", "3.4\t0.9\t[NN]\ta\tb\n3.4\thigh\t[NN]\ta\tb\n", 2, "simplification score 'high' is not a number"),
    ("simpleppdb", "3.4\t0.9\tNN\ta\tb\n", 1, "syntactic tag like [NN]"),
    ("simpleppdb", "3.4\t0.9\t[NN]\ta\n", 1, "expected 5 tab-separated fields"),
    ("ppdb2", "[NN] ||| a ||| b\n", 1, "found 3"),
    ("ppdb2", "[NN] ||| a ||| b ||| PPDB2.0Score=x ||| 0-0\n", 1, "PPDB2.0Score 'x' is not a number"),
    ("ppdb2", "[NN] ||| a ||| b ||| PPDB2.0Score ||| 0-0\n", 1, "features as name=value"),
    ("dmass", "X=>a=>b=>1\nX=>a=>b\n", 2, "X=>complex=>simple=>weight"),
    ("dmass", "X=>a=>b=>nan\n", 1, "not a finite number"),
])
def test_malformed_lines_name_file_line_and_expectation(tmp_path, fmt, text, line, expected):
    path = write(tmp_path / "rules.txt", text)
    with pytest.raises(RuleError) as error:
        list(read_rules(path, fmt))
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert expected in str(error.value)


def test_a_side_without_a_token_is_skipped_and_counted(tmp_path, caplog):
    # The real PPDB 1.0 pairs hold "\x16<TAB>\x1d" (line 59,175): control characters, no word.
    path = write(tmp_path / "pairs.tsv", "a\tb\n\x16\t\x1d\nc\t \nd\te\n")
    with caplog.at_level("WARNING"):
        rules = list(read_rules(path, "pairs"))
    assert [r.complex for r in rules] == [("a",), ("d",)]
    assert f"{path}: 2 rule(s) skipped, a side with no token once split on whitespace (lines 2, 3)" in caplog.text


def test_unknown_format_and_non_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("a\tb\n".encode() + "caf\xe9\tcafe\n".encode("latin-1"))
    with pytest.raises(RuleError, match="latin1.txt:2: not UTF-8"):
        list(read_rules(path, "pairs"))
    with pytest.raises(RuleError, match="allowed values: pairs, simpleppdb, ppdb2, dmass"):
        list(read_rules(path, "csv"))


def test_longest_match_first_left_to_right():
    rules = [Rule(("passed",), ("went",), 5.0), Rule(("passed", "away"), ("died",), 0.1),
             Rule(("away",), ("off",), 1.0)]
    # At "passed" the two-token rule wins although its weight is lower; "away" is consumed with it.
    assert Paraphraser(rules).sentence("he passed away far away") == "he died far off"


def test_highest_weight_wins_and_ties_are_deterministic():
    rules = [Rule(("recipient",), ("host",), 0.75), Rule(("recipient",), ("winner",), 0.98),
             Rule(("big",), ("large",), 1.0), Rule(("big",), ("huge",), 1.0)]
    paraphraser = Paraphraser(rules)
    # weight 0.98 beats 0.75; between the two weight-1 outputs "huge" sorts before "large"
    assert paraphraser.sentence("the big recipient") == "the huge winner"
    # the same rules in another order give the same output
    assert Paraphraser(list(reversed(rules))).sentence("the big recipient") == "the huge winner"


def test_no_cascade_and_no_rules():
    rules = [Rule(("a",), ("b",), 1.0), Rule(("b",), ("c",), 1.0)]
    assert Paraphraser(rules).sentence("a b") == "b c"  # the substituted b is not rewritten to c
    assert Paraphraser([]).sentence("x y") == "x y"


def test_identity_and_oracle():
    from paragen.simplification.systems import identity, oracle

    assert identity(["a b", "c"]) == ["a b", "c"]
    refs = [["r0 a", "r0 b"], ["r1 a", "r1 b"]]
    assert oracle(refs, 1) == ["r1 a", "r1 b"]
    with pytest.raises(ValueError, match="references 0..1"):
        oracle(refs, 2)


def test_skip_drops_each_token_with_probability_p_from_one_seeded_stream():
    import random

    from paragen.simplification.systems import skip

    sources = ["w1 w2 w3 w4", "w5 w6", "w7 w8 w9"]
    # Expected output from the definition: one stream, a draw per token, kept when draw >= p.
    rng = random.Random(7)
    draws = [rng.random() for _ in range(9)]
    tokens = [t for line in sources for t in line.split()]
    kept = {t for t, u in zip(tokens, draws) if u >= 0.5}
    expected = [" ".join(t for t in line.split() if t in kept) for line in sources]
    assert skip(sources, 0.5, seed=7) == expected
    assert skip(sources, 0.0, seed=7) == sources
    assert skip(sources, 1.0, seed=7) == ["", "", ""]
    with pytest.raises(ValueError, match=r"within \[0, 1\]"):
        skip(sources, 1.5, seed=1)
