"""The headline stand-in's generator: headlines, rewrites and the gold alignments it promises."""

from __future__ import annotations

import random

import pytest

from paragen.config import HeadlineSyntheticDataset
from paragen.data.headline_synthetic import generate, make_pair, read_alignments, rewritten_types, write_splits

SPEC = HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=300, valid_pairs=20, test_pairs=30,
                                content_words=40, filler_words=10, source_length=(4, 20), content_share=0.5,
                                max_target_length=5, rewrite_fraction=0.25, seed=3)


def test_headline_keeps_content_in_order_drops_fillers_and_rewrites_through_the_fixed_map():
    # A hand-built case: fix the random draws by scripting them. 6 source tokens, content at 0, 2, 3, 5;
    # content word 7 is a rewritten type, 9 is not; max_target_length 3 cuts the last content word.
    spec = SPEC.model_copy(update={"max_target_length": 3})

    class Scripted(random.Random):
        def __init__(self):
            super().__init__(0)
            self.ints = iter([6])                            # source length
            self.floats = iter([0.1, 0.9, 0.2, 0.3, 0.8, 0.4])  # < 0.5: content
            self.picks = iter([9, 2, 7, 9, 5, 1])           # word ids: content 9, filler 2, content 7, 9, filler 5, 1

        def randint(self, a, b):
            return next(self.ints)

        def random(self):
            return next(self.floats)

        def randrange(self, n):
            return next(self.picks)

    pair = make_pair(Scripted(), spec, frozenset({7}))
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
