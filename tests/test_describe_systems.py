"""The caption sentence for rows without training (paragen.report.captions.describe_systems), word for word.

Expected text written out by hand from what each row computes: a skip row over several seeds names the seed range
first..first+seeds-1 and, with a sweep, the sweep's table; a one-seed skip row names its seed; paraphrase rows name
their rules and input; each rule set used gets one note, with its own note appended when it has one."""

from __future__ import annotations

from types import SimpleNamespace

from paragen.report.captions import describe_systems


def _system(method: str, **fields) -> SimpleNamespace:
    base = dict(seeds=1, seed=1, probability=0.0, sweep=False, reference=None, input="source", granularity=None,
                rules=None, vocabulary_only=False)
    return SimpleNamespace(method=method, **{**base, **fields})


CONFIG = SimpleNamespace(
    systems={
        "skip3": _system("skip", seeds=3, seed=4, probability=0.5, sweep=True),
        "skip2": _system("skip", seeds=2, seed=1, probability=0.3),
        "skip1": _system("skip", seeds=1, seed=7, probability=0.2),
        "para": _system("paraphrase", granularity="lexical", rules="ppdb"),
        "para2": _system("paraphrase", input="skip1", granularity="phrasal", rules="wiki"),
        "ident": _system("identity"),
    },
    rules={"ppdb": SimpleNamespace(title="PPDB lexical", note="Only words."),
           "wiki": SimpleNamespace(title="Wiki phrases", note=None)},
)


def test_every_kind_of_row_word_for_word():
    """Faulty variants: seeds 4..8 or 4..-0 (the range's end off), a two-seed row described as one seed (a test of
    seeds > 2), the one-seed row as a mean (seeds >= 1), the sweep's CSV named instead of its table, the notes run
    together or the PPDB note without its space."""
    names = ["skip3", "skip2", "skip1", "para", "para2", "ident"]
    assert describe_systems(CONFIG, names) == (
        "Rows without training: "
        "skip3: each word dropped with p = 0.5; its cells are the mean over seeds 4..6 "
        "(every p in results/tables/skip3_sweep.md); "
        "skip2: each word dropped with p = 0.3; its cells are the mean over seeds 1..2; "
        "skip1: each word dropped with p = 0.2, seed 7; "
        "para: the lexical rules of ppdb applied to the source; "
        "para2: the phrasal rules of wiki applied to the output of skip1; "
        "ident: the source unchanged. "
        "Rules ppdb: PPDB lexical, applied longest match first, left to right, the highest weight where several "
        "apply. Only words. "
        "Rules wiki: Wiki phrases, applied longest match first, left to right, the highest weight where several "
        "apply.")


def test_no_rows_no_sentence():
    assert describe_systems(CONFIG, []) == ""


ORACLES = SimpleNamespace(
    systems={
        "loo": _system("oracle", reference="leave_one_out"),
        "ref1": _system("oracle", reference=1),
        "vocab": _system("identity", vocabulary_only=True),
        # a skip row carrying a reference: described as a skip row (the skip branches come first)
        "skipref": _system("skip", seed=2, probability=0.1, reference="leave_one_out"),
    },
    rules={},
)


def test_oracle_and_vocabulary_rows_word_for_word():
    """Faulty variants: the leave-one-out oracle described as reference "leave_one_out" scored against all
    references (its test's `and` read as `or`, or either half negated), the fixed-reference oracle or the
    vocabulary-only source described as the source unchanged. skipref only checks that the skip branches come
    first."""
    assert describe_systems(ORACLES, ["loo", "ref1", "vocab", "skipref"]) == (
        "Rows without training: "
        "loo: each reference of the test set in turn as output, scored against the other references, averaged "
        "(leave-one-out: a reference is never scored against itself); "
        "ref1: reference 1 of the test set as output, scored against all references (itself included); "
        "vocab: the source with every word outside the output vocabulary written as <unk> (the most a model that "
        "writes only its vocabulary can copy); "
        "skipref: each word dropped with p = 0.1, seed 2.")
