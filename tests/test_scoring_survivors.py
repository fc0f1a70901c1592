"""`paragen score`'s wiring that the scoring group's mutation run (docs/development.md) found unpinned: SARI's
--lowercase reaching the source, the output and every reference alike, and a misaligned --src named with the
output it was checked against."""

from __future__ import annotations

import re

import pytest

from paragen.data.corpus import CorpusError
from paragen.scoring.files import ScoreRequest, score

from conftest import write_lines


def test_sari_lowercase_folds_source_output_and_references_alike(tmp_path):
    """The hand-worked case of tests/test_sari_cases.py (S "a a b", O "a b c", refs "a b" and "a a b c": add 75,
    keep (8/9 + 4/5)/4 = 42.22, delete 3 (2/3)/4 = 50, SARI 55.74), written here in mixed case: each file has a
    capital the others lack at that n-gram, so lowercasing only some of them (or upper-casing one side instead)
    leaves n-grams unmatched and gives another score. Without --lowercase the capitals count as other words."""
    src, hyp, refs = tmp_path / "src", tmp_path / "hyp", [tmp_path / "ref0", tmp_path / "ref1"]
    for path, line in zip([src, hyp, *refs], ["A a b", "a B c", "a b", "a A b C"]):
        write_lines(path, [line])
    request = dict(metric="sari", hyp=str(hyp), refs=[str(r) for r in refs], src=str(src))
    folded = score(ScoreRequest(**request, lowercase=True))
    add, keep, delete = 75.0, 100 * (8 / 9 + 4 / 5) / 4, 50.0
    assert (folded["add"], folded["keep"], folded["delete"]) == pytest.approx((add, keep, delete))
    assert folded["score"] == pytest.approx((add + keep + delete) / 3)  # 55.74
    as_written = score(ScoreRequest(**request, lowercase=False))
    assert as_written["score"] != pytest.approx(folded["score"], abs=0.5)


def test_sari_compare_folds_both_systems(tmp_path):
    """With --compare the bootstrap rescores both outputs: the other system, "A B C" in capitals, is the same
    output as "a b c" once folded, so the two systems tie on every resample (delta 0), as they would if both
    were written in lower case."""
    src, hyp, other, ref = tmp_path / "src", tmp_path / "hyp", tmp_path / "other", tmp_path / "ref"
    for path, line in zip([src, hyp, other, ref], ["a a b", "a b c", "A B C", "a a b c"]):
        write_lines(path, [line])
    request = dict(metric="sari", hyp=str(hyp), refs=[str(ref)], src=str(src), compare=str(other),
                   bootstrap_samples=20)
    folded = score(ScoreRequest(**request, lowercase=True))["bootstrap"]
    assert folded["score_a"] == pytest.approx(folded["score_b"]) and folded["delta"] == pytest.approx(0.0)
    as_written = score(ScoreRequest(**request, lowercase=False))["bootstrap"]
    assert as_written["score_a"] < as_written["score_b"]  # capitals match nothing in the references


def test_a_source_of_another_length_is_named_with_the_output(tmp_path):
    """SARI reads --src beside the output: a source one line short names the source file with its count first,
    then the output file with its own."""
    src, hyp, ref = tmp_path / "test.src", tmp_path / "test.hyp", tmp_path / "test.ref"
    write_lines(src, ["a b"])
    for path in (hyp, ref):
        write_lines(path, ["a b", "c d"])
    with pytest.raises(CorpusError, match=re.escape(f"{src} has 1 lines but {hyp} has 2: files must be aligned")):
        score(ScoreRequest("sari", str(hyp), [str(ref)], src=str(src)))
