"""ROUGE-1.5.5's Average_F is reported, not the plain sentence mean (issue 41).

With SPM's options the script's ``Average_F`` is the mean of its 1,000 bootstrap resample means (resample i seeded
with ``srand(i)``, n draws ``int(rand(n))`` over the eval IDs sorted as strings), which differs from the plain mean
of the sentences' F by resampling noise. The existing checks could not tell them apart where perl runs without
XML::Parser (skipped), and the recorded two-sentence output has Average_F equal to the plain mean: with two
sentences Perl's draws happen to split exactly 1,000 / 1,000 (counted below), so two sentences never separate them.

Five sentences do: sentence 4 scores F = 0 on every measure, the others F = 1 (hypothesis = reference). Perl's
drand48 (x <- 0x5DEECE66D x + 0xB mod 2^48, srand(i) sets x = i 2^16 + 0x330E, rand(n) = n x / 2^48) gives the
5,000 draws of the 1,000 resamples as 1003, 1001, 1007, 979, 1010 per sentence, so
Average_F = (1003 + 1001 + 1007 + 1010) / 5000 = 4021/5000 = 80.42 % on ROUGE-1, -2 and -L, where the plain mean
is 4/5 = 80.00 %.
"""

from __future__ import annotations

import json

import pytest

from paragen.metrics.rouge_perl import parse_output, perl_rouge

HYPS = ["man bit dog", "stocks fall in tokyo", "oil prices rise", "cat sat", "team wins title"]
REFS = ["man bit dog", "stocks fall in tokyo", "oil prices rise", "dog ran", "team wins title"]



def draws_per_instance(n: int, resamples: int = 1000) -> list[int]:
    """How often each of n instances (in sorted eval-ID order) is drawn over the script's resamples: Perl's
    drand48 written out (an independent formula, not paragen's code)."""
    a, c, mask = 0x5DEECE66D, 0xB, (1 << 48) - 1
    counts = [0] * n
    for i in range(resamples):
        x = ((i << 16) + 0x330E) & mask
        for _ in range(n):
            x = (a * x + c) & mask
            counts[int(n * x / 2**48)] += 1
    return counts


def test_draw_counts_by_formula():
    """The counts quoted in the module docstring; two sentences split evenly, so they cannot separate the figures."""
    assert draws_per_instance(5) == [1003, 1001, 1007, 979, 1010]
    assert draws_per_instance(2) == [1000, 1000]


# Three sentences (F 1, 0, 0 on ROUGE-1) as the script prints them: Average_F 0.33400 = 1002/3000 (the draws
# per sentence are 1002, 998, 1000), where the plain mean of the Eval lines is 1/3 = 0.33333.
OUTPUT = """---------------------------------------------
X ROUGE-1 Average_F: 0.33400 (95%-conf.int. 0.00000 - 0.66667)
.............................................
X ROUGE-1 Eval 1.X R:1.00000 P:1.00000 F:1.00000
X ROUGE-1 Eval 2.X R:0.00000 P:0.00000 F:0.00000
X ROUGE-1 Eval 3.X R:0.00000 P:0.00000 F:0.00000
---------------------------------------------
X ROUGE-2 Average_F: 0.16700 (95%-conf.int. 0.00000 - 0.33333)
.............................................
X ROUGE-2 Eval 1.X R:0.50000 P:0.50000 F:0.50000
X ROUGE-2 Eval 2.X R:0.00000 P:0.00000 F:0.00000
X ROUGE-2 Eval 3.X R:0.00000 P:0.00000 F:0.00000
---------------------------------------------
X ROUGE-L Average_F: 0.33400 (95%-conf.int. 0.00000 - 0.66667)
.............................................
X ROUGE-L Eval 1.X R:1.00000 P:1.00000 F:1.00000
X ROUGE-L Eval 2.X R:0.00000 P:0.00000 F:0.00000
X ROUGE-L Eval 3.X R:0.00000 P:0.00000 F:0.00000
"""


def test_parse_output_reports_average_f_not_the_sentence_mean():
    """No perl needed. Correct scores: rouge1 33.4, rouge2 16.7, rougeL 33.4 (the printed Average_F); the plain means
    of the Eval lines are 33.333, 16.667, 33.333 (and are ``sentence_mean``)."""
    assert draws_per_instance(3) == [1002, 998, 1000]  # 1002/3000 = 0.33400, 0.5 x 1002/3000 = 0.16700
    result = parse_output(OUTPUT, 3)
    assert result.scores == {"rouge1": 33.4, "rouge2": 16.7, "rougeL": 33.4}
    assert result.sentence_mean == pytest.approx({"rouge1": 100 / 3, "rouge2": 50 / 3, "rougeL": 100 / 3})


def test_perl_rouge_reports_average_f_of_five_sentences(rouge155):
    """Correct: Average_F 80.42 on each measure (from the draw counts); the plain sentence mean, 80.0, is
    ``sentence_mean`` and is not the reported score."""
    counts = draws_per_instance(len(HYPS))
    expected = 100 * sum(count for count, f in zip(counts, [1, 1, 1, 0, 1]) if f) / sum(counts)
    assert expected == pytest.approx(80.42)
    result = perl_rouge(HYPS, REFS)
    assert [row[0] for row in result.sentences] == [100.0, 100.0, 100.0, 0.0, 100.0]
    assert result.scores == pytest.approx({"rouge1": 80.42, "rouge2": 80.42, "rougeL": 80.42}, abs=1e-3)
    assert result.sentence_mean == pytest.approx({"rouge1": 80.0, "rouge2": 80.0, "rougeL": 80.0}, abs=1e-3)


def test_score_json_reports_average_f(rouge155, tmp_path, capsys):
    """``paragen score --rouge-perl --json``: "score" rouge1 80.42 (Average_F), "sentence_mean" rouge1 80.0."""
    from paragen.cli import main

    (tmp_path / "hyp").write_text("\n".join(HYPS) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(REFS) + "\n", encoding="utf-8")
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--hyp", str(tmp_path / "hyp"),
                 "--ref", str(tmp_path / "ref"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["score"]["rouge1"] == pytest.approx(80.42, abs=1e-3)
    assert result["sentence_mean"]["rouge1"] == pytest.approx(80.0, abs=1e-3)
