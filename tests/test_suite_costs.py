"""The cost benches: bench/train_speed.py at an experiment's own settings, and bench/suite_costs.py keeping the
README's cost table equal to what the committed measurements give."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

BENCH = ROOT / "bench"


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True)


def test_readme_cost_table_is_what_the_committed_measurements_give():
    result = run(BENCH / "suite_costs.py", "--check")
    assert result.returncode == 0, result.stderr


def test_a_stale_cost_table_is_caught(tmp_path):
    readme, table = tmp_path / "README.md", tmp_path / "suite_costs.md"
    readme.write_text((ROOT / "README.md").read_text().replace("| `wean` | `pwkp`", "| `wean` | `PWKP`"))
    table.write_text((ROOT / "results" / "tables" / "suite_costs.md").read_text())
    result = run(BENCH / "suite_costs.py", "--check", "--readme", readme, "--table", table)
    assert result.returncode == 1 and str(readme) in result.stderr and str(table) not in result.stderr
    assert run(BENCH / "suite_costs.py", "--write", "--readme", readme, "--table", table).returncode == 0
    assert readme.read_text() == (ROOT / "README.md").read_text()


def test_train_speed_takes_each_experiments_own_settings(tmp_path):
    """simp_nmt: WikiLarge's 10,000 words + 4 specials, nmt_simp's batch of 32; giga_spm: Gigaword's 5,000
    merges + 1,000 characters + 4 specials + SPM's <tpad>, batch 256, and its decoder scores the target
    continued to the source's length (38.6 against 10.3 mean tokens), so it scores more tokens than the
    references hold; a model without SPM scores exactly the references' tokens."""
    output = tmp_path / "speed.json"
    result = run(BENCH / "train_speed.py", "--experiments", "simp_nmt", "giga_spm", "--batches", "1",
                 "--decode-sentences", "2", "--threads", "1", "--json", output)
    assert result.returncode == 0, result.stderr
    measured = json.loads(output.read_text())
    assert measured["threads"] == 1 and measured["device"].startswith("CPU")
    nmt, spm = measured["results"]
    assert (nmt["name"], nmt["vocabulary"], nmt["batch"], nmt["beam"]) == ("simp_nmt", 10004, 32, 5)
    assert (spm["name"], spm["vocabulary"], spm["batch"]) == ("giga_spm", 6005, 256)
    assert nmt["scored_tokens_per_s"] == nmt["train_tokens_per_s"] > 0
    assert spm["scored_tokens_per_s"] > 2 * spm["train_tokens_per_s"] > 0
    assert nmt["decode_sentences_per_s"] > 0


def test_the_joeynmt_anchor_gives_a_median_only_when_its_rounds_agree():
    """Within 20 % of the smallest ratio: the median (1.59, 1.66 -> 1.62, rounded from 1.625); the CPU rounds of
    3.30 (beside other work) and 1.72 (quiet) differ by 92 %, so no median (their 2.51 meant nothing)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("anchor_joeynmt", BENCH / "anchor_joeynmt.py")
    anchor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anchor)
    assert anchor.summary([1.66, 1.59]).endswith("median ratio 1.62 over 2 rounds")
    busy = anchor.summary([3.30, 1.72])
    assert "disagree by 92 %" in busy and "3.30, 1.72" in busy and "median" not in busy.replace("no median", "")
    assert "median ratio 1.20" in anchor.summary([1.0, 1.2, 1.2])  # exactly 20 % apart still agree
    assert "disagree" in anchor.summary([1.0, 1.21])


def test_cost_rows_worked_by_hand_from_the_measurement_files():
    """pwkp_seq2seq on CPU: 89,042 pairs x 20.7 mean target tokens at the measured rate, plus PWKP's rehearsed
    epoch batching (11.2 s for its 89,042 pairs). giga_spm on one GPU, projected: its decoder runs 38.6 steps a
    pair (the source's length), each 2 x 64 / (7,000 x 256) s launch-bound (no FLOP rate is assumed any more), plus
    Gigaword's batching (306.9 s for 3,803,957 rehearsed pairs, scaled to 3,778,230). With a GPU rate file holding
    giga_spm at its own batch (10,000 target tokens/s at 10.3 a pair), that measurement replaces the projection."""
    import importlib.util

    from paragen.config import load_config
    from paragen.pipeline.resources import MeasuredRate

    spec = importlib.util.spec_from_file_location("suite_costs", BENCH / "suite_costs.py")
    costs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(costs)
    rehearsals = {r["dataset"]: r for r in costs.load("rehearsal/*.json")}
    speeds = {r["name"]: r for r in json.loads((ROOT / "results/train_speed/cpu.json").read_text())["results"]}
    config = load_config(ROOT / "params.yaml")
    rows = {r["experiment"]: r for r in costs.experiment_rows(config, speeds, rehearsals, {})}

    pwkp = rows["pwkp_seq2seq"]
    assert pwkp["cpu_epoch"] == pytest.approx(
        89_042 * 20.7 / speeds["pwkp_seq2seq"]["train_tokens_per_s"] + 11.2, rel=1e-6)
    batching = 306.9 * 3_778_230 / 3_803_957
    launch_bound = 3_778_230 * 38.6 * 2 * 64 / (7000 * 256) + batching
    assert rows["giga_spm"]["gpu_epoch"] == pytest.approx(launch_bound, rel=1e-9)
    assert rows["giga_spm"]["gpu_basis"] == "projected"
    encdec = 3_778_230 * 10.3 * 2 * 64 / (7000 * 256) + batching  # no SPM: the target's 10.3 steps
    assert rows["giga_encdec"]["gpu_epoch"] == pytest.approx(encdec, rel=1e-9)

    measured = MeasuredRate(10_000.0, 10.3, 256, "rnnsearch", "NVIDIA H100 80GB HBM3", "2026-12-01")
    rows = {r["experiment"]: r for r in costs.experiment_rows(config, speeds, rehearsals, {"giga_spm": measured})}
    assert rows["giga_spm"]["gpu_epoch"] == pytest.approx(3_778_230 * 10.3 / 10_000 + batching, rel=1e-9)
    assert rows["giga_spm"]["gpu_basis"] == "measured" and rows["giga_encdec"]["gpu_basis"] == "projected"
