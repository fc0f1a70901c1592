"""The cost benches: bench/train_speed.py at an experiment's own settings, and bench/suite_costs.py keeping the
README's cost table equal to what the committed measurements give."""

import json
import subprocess
import sys

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
