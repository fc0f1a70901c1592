"""The scoring-variants search behind "003's protocol" (the simplification report's Table 1 scoring)."""

from __future__ import annotations

import pytest

from paragen.data.corpus import CorpusError
from paragen.metrics.sari import score_from_statistics, sentence_statistics
from paragen.simplification import scoring_variants as sv
from paragen.simplification.report_protocol import TurkTest, read_turk_test
from paragen.simplification.report_protocol import test_files as turk_files  # not collected as a test


def test_sari_deletion_by_precision_alone_worked_by_hand():
    # source "a b c", output "a b", one reference "a".
    # add: nothing added by output or reference -> 0 for every order.
    # keep, n=1: kept {a,b}, reference keeps {a} -> P 1/2, R 1 -> F1 2/3; n>=2: 0  -> keep = (2/3)/4 = 1/6.
    # delete: n=1 deleted {c}, reference deletes {b,c} -> P 1, R 1/2, F1 2/3; n=2 {bc} of {ab,bc} -> P 1, F1 2/3;
    #         n=3 {abc} of {abc} -> P 1, F1 1; n=4 nothing -> 0.
    #   F1 deletion = (2/3 + 2/3 + 1 + 0)/4 = 7/12; precision deletion = (1 + 1 + 1 + 0)/4 = 3/4.
    stats = sentence_statistics("a b c", "a b", ["a"])
    assert score_from_statistics(stats, "legacy").sari == pytest.approx(100 * (0 + 1 / 6 + 7 / 12) / 3)
    assert score_from_statistics(stats, "legacy", deletion="precision").sari == pytest.approx(
        100 * (0 + 1 / 6 + 3 / 4) / 3)


def write_turk_files(folder, sources: list[str], turk: list[list[str]], simp: list[str]):
    """The Turk test files as distributed, under report_protocol.test_files' names: sources, each of the 8 Turk
    references (a list of lines each), the .simp sentences."""
    for path, lines in zip(turk_files(folder), [sources, *turk, simp], strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _turk_dir(tmp_path):
    sources = ["the cat -lrb- felis -rrb- sat on the mat .", "it was commenced in 1990 by the city council ."]
    turk = [["the cat sat on the mat .", "it began in 1990 ."]] * 8
    return write_turk_files(tmp_path, sources, turk, sources)  # the .simp sentence equals the source here


def test_grid_covers_every_setting_and_identity_equals_its_only_reference(tmp_path):
    scored = sv.score_variants(read_turk_test(_turk_dir(tmp_path)))
    assert len(scored) == 2 * 5  # texts x systems (identity, skip, three oracles)
    for s in scored:
        assert len(s.sari) == len(sv.REFERENCE_SETS) * len(sv.SARI_FORMS)
        assert len(s.bleu) == len(sv.REFERENCE_SETS) * len(sv.BLEU_FORMS)
    identity = next(s for s in scored if s.system == "identity" and s.text == "as distributed")
    for form in sv.BLEU_FORMS:  # output == the only reference: BLEU 100 in every form
        assert identity.bleu[(".simp", form)] == pytest.approx(100.0)
    assert identity.bleu[("8 Turk", "tokens as given")] < 100
    # the held-out oracle never meets itself: every Turk reference is the same here, so against the other 7 it is
    # a perfect match too, while scored against .simp it is not
    held_out = next(s for s in scored if s.system == sv.ORACLES[2] and s.text == "as distributed")
    assert held_out.bleu[("8 Turk", "13a")] == pytest.approx(100.0)
    assert held_out.bleu[(".simp", "13a")] < 100


def test_protocols_are_ranked_by_numbers_given_back_then_distance(tmp_path):
    scored = sv.score_variants(read_turk_test(_turk_dir(tmp_path)))
    ranked = sv.rank_protocols(scored)
    assert len(ranked) == 2 * 3 * (3 * 4) * (3 * 4)  # texts x oracles x SARI settings x BLEU settings
    keys = [(-p.given_back, p.distance) for p in ranked]
    assert keys == sorted(keys)
    implemented = [p for p in ranked if p.key == sv.IMPLEMENTED]
    assert len(implemented) == 1
    text = sv.to_markdown(scored, ranked, 2)
    assert "The protocol paragen scores as \"003's protocol\"" in text and "The ten best protocols" in text


def test_a_protocol_counts_the_numbers_within_tolerance():
    residuals = {"identity": (0.59, 0.0), "skip (p=.5)": (0.61, -0.1), "oracle": (0.0, 0.11)}
    protocol = sv.Protocol("t", "r", "f", "r", "f", "o", residuals)
    assert protocol.given_back == 4  # 0.59, 0.0 | -0.1 | 0.0 ; not 0.61 (SARI) nor 0.11 (BLEU)
    assert protocol.distance == pytest.approx(0.59 + 0.61 + 0.1 + 0.11)


def test_missing_files_say_how_to_fetch(tmp_path):
    with pytest.raises(CorpusError, match="paragen fetch turkcorpus --eval-only"):
        read_turk_test(tmp_path)


def test_clean_applies_the_reports_preprocessing_to_every_file():
    test = TurkTest(["A b -lrb- c"], [["A , b"]], ["B !"])
    cleaned = sv.clean(test, "lowercased, specials removed")
    assert (cleaned.sources, cleaned.turk, cleaned.simp) == (["a b lrb c"], [["a b"]], ["b"])
