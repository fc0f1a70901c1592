"""bench/decode_paired.py: the round order, the sign test and the reading of paired decoding rounds. Expected values
worked out by hand (binomial sums over 2^12 = 4,096 outcomes)."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import decode_paired  # noqa: E402
from decode_paired import compare, parse_decode, rotation, sign_test_p, verdict  # noqa: E402


def test_each_round_starts_one_version_later():
    names = ["a", "b", "c"]
    assert [rotation(names, r) for r in range(4)] == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"],
                                                     ["a", "b", "c"]]


def test_sign_test_tails():
    assert sign_test_p(10, 12) == pytest.approx((66 + 12 + 1) / 4096)  # 0.0193
    assert sign_test_p(9, 12) == pytest.approx((220 + 66 + 12 + 1) / 4096)  # 0.0730
    assert sign_test_p(12, 12) == pytest.approx(1 / 4096)
    assert sign_test_p(0, 12) == 1.0
    assert sign_test_p(2, 3) == pytest.approx(4 / 8)


def test_a_tie_is_a_loss_and_the_ratio_is_the_median_of_the_rounds():
    wins, p, ratio = compare([2.0, 2.0, 3.0], [1.0, 2.0, 4.0])
    assert wins == 1  # 2 > 1; 2 = 2 loses; 3 < 4
    assert p == pytest.approx(7 / 8)
    assert ratio == pytest.approx(1.0)  # ratios 2, 1, 0.75
    with pytest.raises(ValueError, match="paired rounds needed, got 2 and 1"):
        compare([1.0, 2.0], [1.0])


def test_ten_of_twelve_is_a_claim_and_nine_is_not():
    slow, fast = [10.0] * 12, [11.0] * 10 + [9.0] * 2
    assert verdict("new", "old", fast, slow) == (
        "new vs old: new wins 10 of 12 rounds (p = 0.019), old wins 2 (p = 0.997); median rate ratio 1.100 "
        "-> new faster")
    assert verdict("old", "new", slow, fast).endswith("-> new faster")
    nine = [11.0] * 9 + [9.0] * 3
    assert verdict("new", "old", nine, slow).endswith("(p = 0.073), old wins 3 (p = 0.981); median rate ratio "
                                                      "1.100 -> no claim")


def test_the_decodes_rate_and_equality_counts_are_read_from_its_output():
    output = ("round 1: 300 sentences in 4.7 s, 63.9 sentences/s\ncode: /x/src/paragen; syn_rnnsearch, beam 10\n"
              "n-best equal to runs/syn_rnnsearch/test.nbest.jsonl on 298 of 300 sentences\n"
              "top-1 equal to runs/syn_rnnsearch/test.nbest.jsonl on 300 of 300 sentences\n")
    assert parse_decode(output) == (63.9, {"n-best": "298/300", "top-1": "300/300"})
    with pytest.raises(ValueError, match="no 'round 1"):
        parse_decode("round 2: 300 sentences in 4.7 s, 63.9 sentences/s\n")


def test_rounds_alternate_and_the_file_holds_what_was_printed(tmp_path, monkeypatch, capsys):
    for name in ("one", "two"):
        (tmp_path / name / "src" / "paragen").mkdir(parents=True)
    calls = []

    def fake_decode(directory, experiment, sentences):
        calls.append(directory.name)
        rate = 20.0 + len(calls) if directory.name == "two" else 10.0  # "two" always faster
        return rate, {"n-best": f"{sentences}/{sentences}"}

    monkeypatch.setattr(decode_paired, "decode_once", fake_decode)
    out = tmp_path / "ab.txt"
    monkeypatch.setattr(sys, "argv", ["decode_paired.py", "--experiment", "e", "--rounds", "3", "--sentences", "5",
                                      "--version", f"one={tmp_path / 'one'}", "--version", f"two={tmp_path / 'two'}",
                                      "--out", str(out)])
    decode_paired.main()
    assert calls == ["one", "two", "two", "one", "one", "two"]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines == capsys.readouterr().out.splitlines()
    assert lines[2] == "round  1  two             22.0 sentences/s  n-best equal 5/5"
    assert lines[-1] == ("one vs two: one wins 0 of 3 rounds (p = 1.000), two wins 3 (p = 0.125); median rate ratio "
                         "0.435 -> no claim")  # 10 / 23; 3 of 3 is p = 1/8: three rounds can never claim


def test_a_version_must_be_a_named_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["decode_paired.py", "--experiment", "e", "--version", f"x={tmp_path}",
                                      "--version", f"y={tmp_path}"])
    with pytest.raises(SystemExit):
        decode_paired.main()
    with pytest.raises(Exception, match="expected NAME=DIR"):
        decode_paired.version("no-equals-sign")


def test_a_saved_run_is_read_again_from_its_round_lines(tmp_path, monkeypatch, capsys):
    saved = tmp_path / "run.txt"
    saved.write_text("e: 300 sentences, 3 rounds; a = /x, b = /y\n"
                     "round  1  a                1.0 sentences/s  n-best equal 3/3\n"
                     "round  1  b                2.0 sentences/s  n-best equal 3/3\n"
                     "round  2  b                2.0 sentences/s\n"
                     "round  2  a                2.0 sentences/s\n"
                     "round  3  a                3.0 sentences/s\n"
                     "round  3  b                2.0 sentences/s\n"
                     "a vs b: an old verdict line, not read\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["decode_paired.py", "--read", str(saved)])
    decode_paired.main()
    assert capsys.readouterr().out.splitlines() == [
        "a: median 2.0 sentences/s over 3 rounds (1.0-3.0)",
        "b: median 2.0 sentences/s over 3 rounds (2.0-2.0)",
        # a wins round 3 only, b round 1 only (round 2 is a tie): each p = 7/8; ratios 0.5, 1, 1.5
        "a vs b: a wins 1 of 3 rounds (p = 0.875), b wins 1 (p = 0.875); median rate ratio 1.000 -> no claim"]
    saved.write_text("nothing timed here\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no round lines"):
        decode_paired.main()


def test_a_p_below_a_thousandth_is_printed_as_it_is_not_as_zero():
    """12 of 12 rounds: p = 1 / 2^12 = 1/4,096 = 0.000244140625 (by hand), four significant digits 0.0002441; the
    other side, 0 of 12, is p = 1 exactly."""
    rates = [2.0] * 12
    assert verdict("new", "old", rates, [1.0] * 12).startswith(
        "new vs old: new wins 12 of 12 rounds (p = 0.0002441), old wins 0 (p = 1.000);")
