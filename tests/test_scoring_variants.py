"""The scoring-variants study behind the simplification table's identity row (003 Table 1)."""

from __future__ import annotations

import pytest

from paragen.data.corpus import CorpusError
from paragen.metrics.sari import score_from_statistics, sentence_statistics
from paragen.simplification.scoring_variants import SARI_FORMS, read_turk_test, score_variants, to_markdown


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


def _turk_dir(tmp_path):
    sources = ["the cat -lrb- felis -rrb- sat on the mat .", "it was commenced in 1990 by the city council ."]
    simp = sources  # the aligned Simple Wikipedia sentence equals the source here
    turk = [["the cat sat on the mat .", "it began in 1990 ."]] * 8
    (tmp_path / "test.8turkers.tok.norm").write_text("\n".join(sources) + "\n")
    (tmp_path / "test.8turkers.tok.simp").write_text("\n".join(simp) + "\n")
    for k, ref in enumerate(turk):
        (tmp_path / f"test.8turkers.tok.turk.{k}").write_text("\n".join(ref) + "\n")
    return tmp_path


def test_grid_covers_every_setting_and_identity_equals_its_only_reference(tmp_path):
    rows = score_variants(read_turk_test(_turk_dir(tmp_path)))
    assert len(rows) == 2 * 3 * 3  # texts x systems x reference sets
    identity_simp = [r for r in rows if r.system == "identity" and r.references == ".simp only"]
    for row in identity_simp:  # output == the only reference: BLEU 100 in both tokenisations
        assert row.bleu == {"13a": pytest.approx(100.0), "tokens as given": pytest.approx(100.0)}
        assert set(row.sari) == set(SARI_FORMS)
    # identity against 8 references that delete words: nothing kept matches what they delete, so SARI < 100
    identity_turk = next(r for r in rows if r.system == "identity" and r.references == "8 Turk"
                         and r.text == "as distributed")
    assert identity_turk.bleu["tokens as given"] < 100
    text = to_markdown(rows, 2)
    assert "Closest settings per system" in text and "- identity: text" in text


def test_missing_files_say_how_to_fetch(tmp_path):
    with pytest.raises(CorpusError, match="paragen fetch turkcorpus --eval-only"):
        read_turk_test(tmp_path)
