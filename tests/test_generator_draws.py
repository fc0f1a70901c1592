"""Two generators' per-line work with every random draw scripted by hand, so that the draw order, the candidate
lists and the result are pinned exactly (a statistical test of generated data cannot see a changed candidate
list or a shifted alignment): the headline stand-in's :func:`make_pair` and the rule data's
:func:`spans_of_test_lines`."""

from __future__ import annotations

import json

import pytest

from paragen.config import HeadlineSyntheticDataset
from paragen.data.headline_synthetic import TypeForms, make_pair
from paragen.data.synthetic import STATISTICS_FILE, spans_of_test_lines


class ScriptedRandom:
    """A stand-in for random.Random that returns scripted values in order and logs each call with its
    arguments (``choice`` logs the list it was given and returns the scripted element)."""

    def __init__(self, *values):
        self.values, self.calls = list(values), []

    def _next(self, call):
        self.calls.append(call)
        return self.values.pop(0)

    def randint(self, a, b):
        return self._next(("randint", a, b))

    def random(self):
        return self._next(("random",))

    def randrange(self, n):
        return self._next(("randrange", n))

    def choice(self, seq):
        return self._next(("choice", list(seq)))


def spec(**options) -> HeadlineSyntheticDataset:
    base = {"kind": "headline_synthetic", "train_pairs": 1, "valid_pairs": 1, "test_pairs": 1, "content_words": 10,
            "filler_words": 8, "source_length": (5, 5), "content_share": 0.5, "max_target_length": 10}
    return HeadlineSyntheticDataset.model_validate({**base, **options})


def test_a_repeated_content_word_is_mentioned_once_and_links_point_at_its_first_position():
    """Length 5; content draws 0.1 0.9 0.2 0.9 0.9 (content at 0 and 2, since < 0.5); words 3 7 4 1 2 ->
    c3 f7 c4 f1 f2. Duplicate (0.1 < 0.5): first = choice of the content positions [0, 2] -> 0; its later mention
    goes to a filler position from first + 2 on, [3, 4] -> 4: source c3 f7 c4 f1 c3. No reversal (0.9), no
    register (context_fraction 0: no draw). Headline c3 c4, links 0-0 2-1 (position 4 is the repeat, dropped).
    A slip drawing the later position from first + 1 would offer [1, 3, 4]."""
    rng = ScriptedRandom(5, 0.1, 0.9, 0.2, 0.9, 0.9, 3, 7, 4, 1, 2, 0.1, 0, 4, 0.9)
    pair = make_pair(rng, spec(duplicate_share=0.5, reverse_share=0.5), frozenset())
    assert (pair.source, pair.target, pair.links) == (["c3", "f7", "c4", "f1", "c3"], ["c3", "c4"], [(0, 0), (2, 1)])
    assert rng.calls == [("randint", 5, 5), *[("random",)] * 5, ("randrange", 10), ("randrange", 8),
                         ("randrange", 10), ("randrange", 8), ("randrange", 8), ("random",), ("choice", [0, 2]),
                         ("choice", [3, 4]), ("random",)]
    assert not rng.values


def test_the_later_mention_may_sit_two_after_the_first_but_not_next_to_it():
    """Length 4, content at 0 only (0.1 0.9 0.9 0.9), words 3 7 4 1 -> c3 f7 f4 f1; duplicate drawn (0.1): first
    = 0, later mention among the fillers from first + 2 on, [2, 3] (a slip starting at first + 3 would offer [3]);
    choice -> 2: source c3 f7 c3 f1, headline c3 linked 0-0."""
    rng = ScriptedRandom(4, 0.1, 0.9, 0.9, 0.9, 3, 7, 4, 1, 0.1, 0, 2, 0.9)
    pair = make_pair(rng, spec(source_length=(4, 4), duplicate_share=0.5, reverse_share=0.5), frozenset())
    assert (pair.source, pair.target, pair.links) == (["c3", "f7", "c3", "f1"], ["c3"], [(0, 0)])
    assert rng.calls[-3:] == [("choice", [0]), ("choice", [2, 3]), ("random",)] and not rng.values

def test_register_and_reversal_shift_and_reverse_the_links_and_the_cap_cuts_the_headline():
    """Length 5, content at 0, 1, 3, 4 (draws 0.1 0.2 0.9 0.3 0.4), words 5 6 2 9 8 -> c5 c6 f2 c9 c8; reversal
    drawn (0.1 < 0.5), register b (randrange(2) -> 1): prefix xb xrev shifts every source position by 2. Forms:
    5 rewritten (r5), 6 by register (b6), the rest copied. The cap of 3 keeps c5 c6 c9 (c8 is cut), reversed:
    headline c9 b6 r5 with links 5-0 3-1 2-2. No duplicate draw (duplicate_share 0)."""
    rng = ScriptedRandom(5, 0.1, 0.2, 0.9, 0.3, 0.4, 5, 6, 2, 9, 8, 0.1, 1)
    forms = TypeForms(frozenset({5}), {}, frozenset({6}))
    pair = make_pair(rng, spec(reverse_share=0.5, context_fraction=0.1, max_target_length=3), forms)
    assert pair.source == ["xb", "xrev", "c5", "c6", "f2", "c9", "c8"]
    assert pair.target == ["c9", "b6", "r5"] and pair.links == [(5, 0), (3, 1), (2, 2)]
    assert rng.calls[-2:] == [("random",), ("randrange", 2)] and not rng.values


def test_a_source_without_content_gets_one_content_word():
    """Length 3, no content draw below 0.5 (0.7 0.8 0.9): position randrange(3) -> 1 becomes content; words 4 5
    6 -> f4 c5 f6, headline c5 linked 1-0."""
    rng = ScriptedRandom(3, 0.7, 0.8, 0.9, 1, 4, 5, 6)
    pair = make_pair(rng, spec(source_length=(3, 3)), frozenset())
    assert (pair.source, pair.target, pair.links) == (["f4", "c5", "f6"], ["c5"], [(1, 0)])
    assert ("randrange", 3) in rng.calls and not rng.values


def _rule_data(tmp_path, ids):
    rules = [{"type": "xy->xy", "source": "a x b y c", "target": "x y", "adjacent_variables": False},
             {"type": "xy->xy", "source": "x y d", "target": "y x", "adjacent_variables": True}]
    (tmp_path / STATISTICS_FILE).write_text(json.dumps({"rules": rules}))
    (tmp_path / "test.rule").write_text("".join(f"{i}\n" for i in ids))


def test_spans_of_test_lines_by_hand(tmp_path):
    """Rule 0 "a x b y c" on "a p q b r c": x = [1, 3), y = [4, 5); rule 1 has adjacent variables: None; rule 0
    on "a s b t u c": x = [1, 2), y = [3, 5). Each line is read with its own rule (a slip reading every line with
    rule 0 would give spans for line 2)."""
    _rule_data(tmp_path, [0, 1, 0])
    sources = [["a", "p", "q", "b", "r", "c"], ["p", "q", "d"], ["a", "s", "b", "t", "u", "c"]]
    assert spans_of_test_lines(tmp_path, sources) == [{"x": [1, 3], "y": [4, 5]}, None, {"x": [1, 2], "y": [3, 5]}]


def test_spans_need_one_rule_per_test_source(tmp_path):
    _rule_data(tmp_path, [0, 1, 0])
    with pytest.raises(ValueError) as error:
        spans_of_test_lines(tmp_path, [["a", "p", "b", "q", "c"], ["p", "d"]])
    assert str(error.value) == f"{tmp_path / 'test.rule'}: 3 lines but 2 test sources"
