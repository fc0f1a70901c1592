"""The caption phrase of a skip row whose drop-probability sweep includes its own probability
(paragen.report.captions.sweep_summary): the seeds it ran (first .. first + N - 1), each metric's mean ± sd at two
decimals as the sweep CSV holds them, and where every p is; nothing without a sweep, without its CSV, or when the
sweep did not score the row's own p. Expected phrases written out by hand."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from paragen.report.captions import sweep_summary

CSV = ("probability,seeds,sari_mean,sari_sd,bleu_mean,bleu_sd,sari_per_seed,bleu_per_seed\n"
       "0.1,4,34.0581,0.2447,85.4499,0.6131,x,x\n"
       "0.2,4,34.3412,0.2305,71.0829,0.9442,x,x\n")


def _config(probability: float, sweep: bool = True) -> SimpleNamespace:
    return SimpleNamespace(systems={"skip": SimpleNamespace(sweep=sweep, probability=probability, seed=7)})


def test_the_rows_own_probability_is_summarised(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("results/tables").mkdir(parents=True)
    Path("results/tables/skip_sweep.csv").write_text(CSV)
    assert sweep_summary(_config(0.2), "skip") == (" (over seeds 7..10: SARI 34.34 ± 0.23, BLEU 71.08 ± 0.94; every p "
                                                  "in results/tables/skip_sweep.md)")
    assert sweep_summary(_config(0.1), "skip") == (" (over seeds 7..10: SARI 34.06 ± 0.24, BLEU 85.45 ± 0.61; every p "
                                                  "in results/tables/skip_sweep.md)")


def test_nothing_without_a_sweep_its_file_or_its_probability(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert sweep_summary(_config(0.2), "skip") == ""  # no CSV yet
    Path("results/tables").mkdir(parents=True)
    Path("results/tables/skip_sweep.csv").write_text(CSV)
    assert sweep_summary(_config(0.3), "skip") == ""
    assert sweep_summary(_config(0.2, sweep=False), "skip") == ""
