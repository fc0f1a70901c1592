"""The rescored published outputs' Markdown (paragen.report.published.to_markdown), word for word on two hand-made
rows in two test sets: each section lists only its own rows, the signatures are sorted and joined with "; ", and
the settings, the note on WEAN's copied baselines and the sources read as below."""

from __future__ import annotations

from paragen.report.published import Row, to_markdown

SPEC = {"test_sets": {"turk": {"title": "Turk test"}, "pwkp": {"title": "PWKP test"}}}
ROWS = [Row("pwkp", "Hybrid", "BLEU", 53.94, "ZL17-T2", 53.9, 0.05, "sig-b"),
        Row("turk", "Dress", "SARI (legacy)", 37.08, "003", 36.5, 0.1, "sig-a")]


def test_the_whole_page():
    """Hybrid: 53.90 - 53.94 = -0.04, within 0.05; Dress: 36.50 - 37.08 = -0.58, outside 0.1."""
    assert to_markdown(ROWS, SPEC) == "\n".join([
        "# Published system outputs rescored", "",
        "The DRESS release (Zhang & Lapata, 2017) contains the outputs behind published numbers. paragen's scorers "
        "rescore them from a local mirror of the public data; each row shows the published value, ours, the "
        "difference and whether it is within the tolerance.", "",
        "## Turk test", "", "| system | metric | published | ours | difference | verdict | source |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        "| Dress | SARI (legacy) | 37.08 | 36.50 | -0.58 | NOT reproduced: differs by -0.58 (tolerance ±0.1) | 003 |",
        "",
        "## PWKP test", "", "| system | metric | published | ours | difference | verdict | source |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        "| Hybrid | BLEU | 53.94 | 53.90 | -0.04 | reproduced (±0.05) | ZL17-T2 |",
        "",
        "Settings: SARI in legacy mode (corpus-level, Joshua STAR behaviour; outputs and references 13a-tokenised, "
        "source untouched); BLEU with sacrebleu, lowercased, 13a. Signatures: `sig-a`; `sig-b`.", "",
        "WEAN's Tables 1-2 copy these baselines from different sources: on EW-SEW (the Turk test) its PBMT-R (67.79) "
        "and SBMT-SARI (73.62) BLEU differ from Zhang & Lapata's, and no rescoring of the released outputs gives them "
        "back. PWKP SARI as published by Zhang & Lapata is not reproduced by corpus-level SARI against the single "
        "released reference either; the published values are kept beside ours, marked.", "",
        "Sources: ZL17-T2 = Zhang & Lapata (2017) Table 2 (not among the four papers); WEAN-T1/T2 = Ma et al. (2018, "
        "WEAN) Tables 1/2; 003 = Wang, Kurohara & Liang (Wikipedia Sentence Simplification) Table 1.", ""])


def test_the_csv():
    from paragen.report.published import to_csv

    assert to_csv(ROWS) == (
        "test_set,system,metric,published,ours,difference,reproduced,tolerance,source,signature\n"
        "pwkp,Hybrid,BLEU,53.94,53.90,-0.04,True,0.05,ZL17-T2,sig-b\n"
        "turk,Dress,SARI (legacy),37.08,36.50,-0.58,False,0.1,003,sig-a\n")
