"""The rows `paragen published-outputs` writes (paragen.report.published.score_published_outputs), on a two-line
mirror and a one-test-set spec made here instead of the packaged one: per system a SARI row and two BLEU rows, each
labelled, with its test set, system, published number, the source of that number, the tolerance and the scoring's
signature; 003's protocol rows carry the test set's name too; a misaligned output is refused naming both files; one
log line per system. Scores are not re-derived here (the scorers have their own tests): the output equals the first
reference, so BLEU is 100.0."""

from __future__ import annotations

import logging

import pytest

from paragen.data.corpus import CorpusError
from paragen.report import published

from conftest import write_lines

SPEC = {"tolerance": {"sari": 0.05, "bleu": 0.3}, "test_sets": {"turk": {
    "source": "t/src", "references": ["t/ref0", "t/ref1"], "outputs": "o/{system}.lower", "simp": "t/ref0",
    "systems": {"Dress": {"sari": 37.08, "bleu": 77.18, "wean_bleu": 77.5}},
    "sources": {"sari": "ZL17-T2", "bleu": "ZL17-T2 (BLEU)", "wean_bleu": "WEAN-T2"},
    "report_protocol": {"Dress": {"sari": 39.96, "bleu": 73.08}}}}}


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    monkeypatch.setattr(published, "load_spec", lambda: SPEC)
    write_lines(tmp_path / "t/src", ["the big cat sat down", "a small dog ran off"])
    write_lines(tmp_path / "t/ref0", ["the cat sat down here", "a dog ran off fast"])
    write_lines(tmp_path / "t/ref1", ["the cat sat", "a dog ran"])
    write_lines(tmp_path / "o/Dress.lower", ["the cat sat down here", "a dog ran off fast"])
    return tmp_path


def test_each_row_names_its_test_set_system_metric_source_and_signature(mirror, caplog):
    with caplog.at_level(logging.INFO, logger="paragen"):
        rows = published.score_published_outputs(mirror)
    assert [(r.test_set, r.system, r.metric, r.published, r.source, r.tolerance) for r in rows] == [
        ("turk", "Dress", "SARI (legacy)", 37.08, "ZL17-T2", 0.05),
        ("turk", "Dress", "BLEU", 77.18, "ZL17-T2 (BLEU)", 0.3),
        ("turk", "Dress", "BLEU (as in WEAN)", 77.5, "WEAN-T2", 0.3),
        ("turk", "Dress", "SARI (003's protocol)", 39.96, "003-T1", 0.05),
        ("turk", "Dress", "BLEU (003's protocol)", 73.08, "003-T1", 0.3)]
    sari, bleu, wean_bleu = rows[:3]
    assert sari.signature == "sari:legacy|tok:13a(output,refs)|corpus-level"
    assert bleu.ours == wean_bleu.ours == pytest.approx(100.0)
    assert bleu.signature == wean_bleu.signature and "tok:13a" in bleu.signature and "case:lc" in bleu.signature
    messages = [r.getMessage() for r in caplog.records if r.name == published.log.name]
    assert messages == [f"turk Dress: SARI {sari.ours:.2f} (published 37.08), BLEU 100.00 (published 77.18)"]


def test_a_misaligned_output_is_refused_naming_both_files(mirror):
    write_lines(mirror / "o/Dress.lower", ["the cat sat down here"])
    with pytest.raises(CorpusError, match=rf"^{mirror}/o/Dress\.lower has 1 lines but {mirror}/t/src has 2: "):
        published.score_published_outputs(mirror)
