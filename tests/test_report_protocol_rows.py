"""The rows `paragen published-outputs` adds under 003's protocol (paragen.report.published._report_protocol_rows),
on a two-line mirror made here: each system of the test set's ``report_protocol`` entry gives a SARI row and a BLEU
row, labelled as 003's protocol, against 003-T1's published numbers, with the set's tolerance; an output of the
wrong length is refused naming its file in the mirror; a test set without the entry adds nothing."""

from __future__ import annotations

import pytest

from paragen.data.corpus import CorpusError
from paragen.report.published import Row, _report_protocol_rows
from paragen.simplification.report_protocol import SARI_FORM

from conftest import write_lines

SOURCES = ["the cat sat down", "a dog ran off"]
REFERENCES = [["the cat sat", "a dog ran"], ["the cat sat down", "a dog left"]]
TEST_SET = {"simp": "turk/test.simp", "outputs": "out/{system}.lower",
            "report_protocol": {"SBMT": {"sari": 39.96, "bleu": 73.08}}}
TOLERANCE = {"sari": 0.05, "bleu": 0.3}


def test_each_system_gives_a_sari_and_a_bleu_row_against_003_t1(tmp_path):
    """The output equals the .simp sentences (four words or more, so every n-gram order has a match), so its BLEU
    against them is 100.0."""
    write_lines(tmp_path / "turk/test.simp", ["the cat sat down now", "a dog ran off fast"])
    write_lines(tmp_path / "out/SBMT.lower", ["the cat sat down now", "a dog ran off fast"])
    sari, bleu = _report_protocol_rows(tmp_path, "turk", TEST_SET, SOURCES, REFERENCES, TOLERANCE)
    assert sari == Row("turk", "SBMT", "SARI (003's protocol)", 39.96, "003-T1", sari.ours, 0.05, SARI_FORM)
    assert 0.0 < sari.ours <= 100.0
    assert (bleu.test_set, bleu.system, bleu.metric, bleu.published, bleu.source, bleu.tolerance) == \
        ("turk", "SBMT", "BLEU (003's protocol)", 73.08, "003-T1", 0.3)
    assert bleu.ours == pytest.approx(100.0)
    assert bleu.signature.startswith("nrefs:1|") and bleu.signature.endswith(" vs .simp")


def test_an_output_of_the_wrong_length_is_refused_naming_its_file(tmp_path):
    write_lines(tmp_path / "turk/test.simp", ["the cat sat", "a dog ran"])
    write_lines(tmp_path / "out/SBMT.lower", ["the cat sat"])
    with pytest.raises(CorpusError, match=rf"^{tmp_path}/out/SBMT\.lower: 1 lines, but the Turk test set has 2"):
        _report_protocol_rows(tmp_path, "turk", TEST_SET, SOURCES, REFERENCES, TOLERANCE)


def test_a_test_set_without_the_entry_adds_no_row(tmp_path):
    without = {k: v for k, v in TEST_SET.items() if k != "report_protocol"}
    assert _report_protocol_rows(tmp_path, "turk", without, SOURCES, REFERENCES, TOLERANCE) == []
