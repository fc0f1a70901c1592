"""The headline stand-in's generator: headlines, rewrites and the gold alignments it promises."""

from __future__ import annotations

import random

import pytest

from paragen.config import HeadlineSyntheticDataset
from paragen.data.headline_synthetic import generate, make_pair, read_alignments, rewritten_types, write_splits

SPEC = HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=300, valid_pairs=20, test_pairs=30,
                                content_words=40, filler_words=10, source_length=(4, 20), content_share=0.5,
                                max_target_length=5, rewrite_fraction=0.25, seed=3)


class Scripted(random.Random):
    """A generator whose draws are written out by hand: each kind of draw answers from its own list, in order
    (a choice must be one of the options offered)."""

    def __init__(self, ints=(), floats=(), picks=(), choices=()):
        super().__init__(0)
        self.ints, self.floats, self.picks, self.choices = map(iter, (ints, floats, picks, choices))

    def randint(self, a, b):
        return next(self.ints)

    def random(self):
        return next(self.floats)

    def randrange(self, n):
        return next(self.picks)

    def choice(self, options):
        value = next(self.choices)
        assert value in options
        return value


def test_headline_keeps_content_in_order_drops_fillers_and_rewrites_through_the_fixed_map():
    # A hand-built case: fix the random draws by scripting them. 6 source tokens, content at 0, 2, 3, 5;
    # content word 7 is a rewritten type, 9 is not; max_target_length 3 cuts the last content word.
    spec = SPEC.model_copy(update={"max_target_length": 3})

    scripted = Scripted(ints=[6],                                # source length
                        floats=[0.1, 0.9, 0.2, 0.3, 0.8, 0.4],       # < 0.5: content
                        picks=[9, 2, 7, 9, 5, 1])  # word ids: content 9, filler 2, content 7, 9, filler 5, 1
    pair = make_pair(scripted, spec, frozenset({7}))
    assert pair.source == ["c9", "f2", "c7", "c9", "f5", "c1"]
    assert pair.target == ["c9", "r7", "c9"]   # c1 (position 5) is past max_target_length
    assert pair.links == [(0, 0), (2, 1), (3, 2)]


def test_every_link_points_at_the_source_word_the_target_token_came_from():
    rewrites = rewritten_types(SPEC)
    for pair in generate(SPEC)["train"]:
        assert 1 <= len(pair.target) <= SPEC.max_target_length
        assert [j for _, j in pair.links] == list(range(len(pair.target)))
        sources = [i for i, _ in pair.links]
        assert sources == sorted(sources) and len(set(sources)) == len(sources)   # in order, each once
        for i, j in pair.links:
            word = pair.source[i]
            assert word.startswith("c")
            index = int(word[1:])
            assert pair.target[j] == (f"r{index}" if index in rewrites else word)
        # nothing content-bearing is skipped before the cut: the kept words are the first content words
        content_positions = [i for i, w in enumerate(pair.source) if w.startswith("c")]
        assert sources == content_positions[:len(sources)]
        assert not any(w.startswith("f") for w in pair.target)


def test_the_rewritten_share_is_the_configured_one_and_the_same_in_every_split():
    assert len(rewritten_types(SPEC)) == 10   # round(0.25 x 40)
    assert rewritten_types(SPEC) == rewritten_types(SPEC.model_copy(update={"train_pairs": 5}))
    splits = generate(SPEC)
    assert {k: len(v) for k, v in splits.items()} == {"train": 300, "valid": 20, "test": 30}
    assert all(SPEC.source_length[0] <= len(p.source) <= SPEC.source_length[1] for p in splits["test"])


def test_deterministic_for_a_seed_and_different_for_another():
    assert generate(SPEC) == generate(SPEC)
    assert generate(SPEC)["train"] != generate(SPEC.model_copy(update={"seed": 4}))["train"]


def test_written_alignments_read_back_and_a_bad_link_names_file_and_line(tmp_path):
    splits = generate(SPEC)
    write_splits(splits, tmp_path)
    assert read_alignments(tmp_path / "test.align") == [p.links for p in splits["test"]]
    lines = (tmp_path / "test.tgt").read_text().splitlines()
    assert lines[0].split() == splits["test"][0].target
    bad = tmp_path / "bad.align"
    bad.write_text("0-0 1-1\n2-0 x-1\n")
    with pytest.raises(ValueError, match=r"bad.align:2: expected links like 3-0.*'x-1'"):
        read_alignments(bad)


def test_config_rejects_a_reversed_length_range():
    with pytest.raises(ValueError, match="source_length: minimum 9 exceeds maximum 4"):
        HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=1, valid_pairs=1, test_pairs=1,
                                 source_length=(9, 4))


def test_paragen_generate_writes_the_stand_in(tmp_path, monkeypatch):
    from pathlib import Path

    from paragen.cli import main

    params = (Path(__file__).parent / "fixtures/tiny_params.yaml").read_text()
    params = params.replace("datasets:\n", "datasets:\n  hl: {kind: headline_synthetic, train_pairs: 8, valid_pairs: 2, "
                            "test_pairs: 3, content_words: 20, filler_words: 5}\n", 1)
    (tmp_path / "params.yaml").write_text(params)
    monkeypatch.chdir(tmp_path)
    assert main(["generate", "--params", "params.yaml", "--dataset", "hl"]) == 0
    written = tmp_path / "data/prepared/hl"
    assert [len((written / f"{s}.src").read_text().splitlines()) for s in ("train", "valid", "test")] == [8, 2, 3]
    assert len(read_alignments(written / "test.align")) == 3


def test_the_options_scripted_by_hand():
    # 6 body tokens: c9 f2 c3 c4 f5 f1; c9 is repeated at position 5 (the later filler the draw picks), the source
    # gets the register marker xb and the reverse marker xrev in front. Forms: c9 by register (b9 under xb),
    # c3 and c4 merged into m0. Headline: c9 c3 c4 (the repeat is dropped) -> b9 m0 m0, reversed.
    from paragen.data.headline_synthetic import TypeForms

    spec = SPEC.model_copy(update={"max_target_length": 10, "duplicate_share": 1.0, "reverse_share": 1.0,
                                   "context_fraction": 0.1})

    scripted = Scripted(ints=[6],
                        floats=[0.1, 0.9, 0.2, 0.3, 0.8, 0.7, 0.0, 0.0],  # content flags; repeat? yes; reverse? yes
                        picks=[9, 2, 3, 4, 5, 1, 1],                      # word ids, then register 1 (xb)
                        choices=[0, 5])                                   # repeat c9 (position 0) at position 5
    forms = TypeForms(frozenset({7}), {3: 0, 4: 0}, frozenset({9}))
    pair = make_pair(scripted, spec, forms)
    assert pair.source == ["xb", "xrev", "c9", "f2", "c3", "c4", "f5", "c9"]
    assert pair.target == ["m0", "m0", "b9"]
    assert pair.links == [(5, 0), (4, 1), (2, 2)]


def test_with_every_option_the_gold_links_stay_exact():
    from paragen.data.headline_synthetic import REGISTER_MARKERS, REVERSE_MARKER, type_forms

    spec = SPEC.model_copy(update={"rewrite_fraction": 0.2, "merge_fraction": 0.3, "merge_size": 3,
                                   "context_fraction": 0.2, "duplicate_share": 0.5, "reverse_share": 0.5})
    forms = type_forms(spec)
    assert len(forms.rewrites) == 8 and len(forms.merged) == 12 and len(forms.by_register) == 8  # of 40 types
    assert not (forms.rewrites & set(forms.merged)) and not (forms.by_register & set(forms.merged))
    merged_sources: dict[str, set[str]] = {}
    saw = {"reversed": 0, "repeat dropped": 0}
    for pair in generate(spec)["train"]:
        register = REGISTER_MARKERS.index(pair.source[0])  # every source has a register marker
        reverse = pair.source[1] == REVERSE_MARKER
        assert [j for _, j in pair.links] == list(range(len(pair.target)))
        positions = [i for i, _ in pair.links]
        assert positions == (sorted(positions, reverse=True) if reverse else sorted(positions))
        saw["reversed"] += reverse and len(positions) > 1
        for i, j in pair.links:  # the linked source token is a content word whose form is the target token
            word = int(pair.source[i][1:])
            assert pair.source[i] == f"c{word}" and pair.target[j] == forms.form(word, register)
            if pair.target[j].startswith("m"):
                merged_sources.setdefault(pair.target[j], set()).add(pair.source[i])
        body = [w for w in pair.source if w.startswith("c")]
        linked = [pair.source[i] for i in positions]
        if len(set(body)) < len(body) and len(linked) == len(set(linked)) < spec.max_target_length:
            saw["repeat dropped"] += 1  # a content word said twice in the source is said once in the headline
    assert any(len(types) > 1 for types in merged_sources.values())  # many-to-one: one word from several types
    assert saw["reversed"] > 0 and saw["repeat dropped"] > 0


def test_type_shares_beyond_one_are_refused():
    with pytest.raises(ValueError, match="at most 1"):
        SPEC.model_copy(update={}).model_validate({**SPEC.model_dump(), "rewrite_fraction": 0.5,
                                                    "merge_fraction": 0.4, "context_fraction": 0.2})


def test_the_caption_states_the_rouge_ceiling_of_the_gold_headlines(tmp_path, monkeypatch):
    from paragen.config import load_config
    from paragen.report.captions import ceiling_text

    from conftest import ROOT

    config = load_config(ROOT / "params.yaml")
    monkeypatch.chdir(tmp_path)
    assert ceiling_text(config, ["hs_encdec"]) == ""  # not generated yet: nothing to state
    gold = tmp_path / "data/prepared/headline_small/test.tgt"
    gold.parent.mkdir(parents=True)
    gold.write_text("c1 c2 c3\nr4 c5\nc6\nc7 c8\n")  # one one-word headline: ROUGE-2 0 there, 100 elsewhere
    assert ceiling_text(config, ["hs_encdec", "hs_spm"]) == (
        " Ceiling (the gold headlines scored against themselves): ROUGE-1 100.0 / ROUGE-2 75.0 / ROUGE-L 100.0 "
        "(1 one-word headlines score 0 on ROUGE-2).")
