"""The ``ew_sew`` recipe (Nisioi et al.'s filtered EW-SEW pairs; WEAN §3.1.1) on a few hand-written raw files:
training pairs from train.en / train.sen with empty sides dropped and the filter's provenance noted, validation
and test from the Turk tune / test files with their 8 references. Its training release is not in the data mirror,
so no other test reaches this recipe."""

from __future__ import annotations

from paragen.data.prepare import prepare_dataset

from conftest import write_lines


def test_ew_sew_training_pairs_and_turk_evaluation_sets(tmp_path):
    """train: 3 lines, line 2's simple side empty -> 2 pairs, notes in order; valid (tune): 2 sentences x 8
    references; test: 1 sentence x 8. Counts are not checked against the paper's (2,000 / 359) here."""
    raw = tmp_path / "raw"
    write_lines(raw / "ew_sew" / "train.en", ["the cat sat on the mat .", "a long sentence .", "he left ."])
    write_lines(raw / "ew_sew" / "train.sen", ["the cat sat .", "", "he went ."])
    for name, sources in (("tune", ["one .", "two ."]), ("test", ["three ."])):
        write_lines(raw / "turkcorpus" / f"{name}.8turkers.tok.norm", sources)
        for k in range(8):
            write_lines(raw / "turkcorpus" / f"{name}.8turkers.tok.turk.{k}", [f"{s} r{k}" for s in sources])
    summary = prepare_dataset("ew_sew", None, raw, tmp_path / "out", check_counts=False)
    out = tmp_path / "out" / "ew_sew"
    assert (out / "train.src").read_text().splitlines() == ["the cat sat on the mat .", "he left ."]
    assert (out / "train.tgt").read_text().splitlines() == ["the cat sat .", "he went ."]
    assert summary["train"]["notes"] == ["1 pairs with an empty side dropped",
                                         "Hwang et al. matches above 0.45, as released filtered by Nisioi et al."]
    assert (summary["train"]["pairs"], summary["valid"]["pairs"], summary["test"]["pairs"]) == (2, 2, 1)
    assert (summary["valid"]["references"], summary["test"]["references"]) == (8, 8)
    assert (out / "valid.src").read_text().splitlines() == ["one .", "two ."]
    assert (out / "valid.ref.7").read_text().splitlines() == ["one . r7", "two . r7"]
    assert (out / "test.ref.3").read_text().splitlines() == ["three . r3"]
