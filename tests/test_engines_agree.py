"""Snakemake and DVC must run the same commands over the same inputs and outputs (docs/architecture.md, principle 1)."""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from paragen.config import load_config
from paragen.artifacts import PUBLISHED_OUTPUTS_CSV
from paragen.pipeline.dvc import write_dvc_yaml

from conftest import ROOT, TINY_PARAMS, stage_command


def snakemake_jobs(directory) -> dict[str, tuple[str, frozenset, frozenset]]:
    """rule -> (shell command, inputs, outputs) from a forced dry run of the real Snakefile."""
    result = subprocess.run(["snakemake", "--dry-run", "--forceall", "--printshellcmds", "--cores", "1"],
                            cwd=directory, capture_output=True, text=True, check=True)
    jobs = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", result.stdout):
        header = re.match(r"(?:local)?rule (\w+):", block)
        if not header or header.group(1) == "all":
            continue
        fields = dict(re.findall(r"^    (input|output): (.*)$", block, flags=re.M))
        commands = re.findall(r"^\s*Shell command: (.*)$", block, flags=re.M)
        assert len(commands) == 1, block
        # the command after the logging prefix (logs/<rule>.log, which only Snakemake writes and no stage declares)
        jobs[header.group(1)] = (stage_command(header.group(1), commands[0].strip()),
                                 frozenset(fields.get("input", "").split(", ")) - {""},
                                 frozenset(fields["output"].split(", ")))
    return jobs


def dvc_stages(directory) -> dict[str, tuple[str, frozenset, frozenset]]:
    """stage -> (cmd, deps, outs) as DVC itself parses dvc.yaml."""
    from dvc.repo import Repo

    with Repo(str(directory)) as repo:
        return {stage.name: (stage.cmd, frozenset(str(d.def_path) for d in stage.deps if not d.def_path.endswith(".yaml")),
                             frozenset(str(o.def_path) for o in stage.outs))
                for stage in repo.index.stages}


def _with_real_data(path) -> str:
    """The project's params.yaml with the real-data stages switched on."""
    return path.read_text().replace("\ndata: []\n", "\ndata: [turk_mini]\n")


def _with_real_experiments(path) -> str:
    """...and the turk-mini, WEAN and simplification suites, so real-data train/decode/evaluate stages, the
    rows without training (system + evaluate) and their tables are in."""
    return path.read_text().replace("\ndata: []\n", "\ndata: [turk_mini, turk, wikilarge]\n").replace(
        "\nsuites: [synthetic]\n", "\nsuites: [synthetic, turk_mini, wean, simplification, simplification_mini]\n")


def _with_headline_suites(path) -> str:
    """...and the headline stand-in (generate with gold links, align, evaluate, heat maps) and Gigaword's suite
    (three test splits per row)."""
    return path.read_text().replace("\ndata: []\n", "\ndata: [gigaword]\n").replace(
        "\nsuites: [synthetic]\n", "\nsuites: [headline_synthetic, headline]\n")


def _with_matrix(path) -> str:
    """...and the mechanism x task matrix with its turk-mini column (reused suite runs, declared cells, paired
    tests, the matrix's report)."""
    return path.read_text().replace("\ndata: []\n", "\ndata: [turk_mini_matrix]\n").replace(
        "\nsuites: [synthetic]\n", "\nsuites: [matrix]\n")


def _with_local_data() -> str:
    """The tiny configuration with a dataset of your own (kind: local), two experiments and a table on it."""
    from test_local_data import local_params

    with tempfile.TemporaryDirectory() as scratch:
        shutil.copy(TINY_PARAMS, Path(scratch) / "params.yaml")
        local_params(Path(scratch))
        return (Path(scratch) / "params.yaml").read_text()


@pytest.mark.parametrize("params_text", [TINY_PARAMS.read_text(), TINY_PARAMS.read_text() + "seeds: 2\n",
                                         _with_local_data(),
                                         (ROOT / "params.yaml").read_text(),
                                         _with_real_data(ROOT / "params.yaml"),
                                         _with_real_experiments(ROOT / "params.yaml"),
                                         _with_headline_suites(ROOT / "params.yaml"),
                                         _with_matrix(ROOT / "params.yaml")],
                         ids=["tiny", "tiny-two-seeds", "tiny-with-local-data", "project", "project-with-real-data", "project-with-real-experiments",
                              "project-with-headline-suites", "project-with-matrix"])
def test_snakemake_and_dvc_run_the_same_commands(workflow_dir, params_text):
    (workflow_dir / "params.yaml").write_text(params_text)
    if "kind: local" in params_text:  # the user's files are inputs: they must exist for a dry run
        shutil.copytree(ROOT / "tests/fixtures/local", workflow_dir / "mydata")
    committed = workflow_dir / PUBLISHED_OUTPUTS_CSV  # an input of the WEAN tables, kept in git
    committed.parent.mkdir(parents=True)
    committed.write_text((ROOT / PUBLISHED_OUTPUTS_CSV).read_text())
    subprocess.run(["git", "init", "-q"], cwd=workflow_dir, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=workflow_dir, check=True)
    write_dvc_yaml(load_config(workflow_dir / "params.yaml"), workflow_dir / "dvc.yaml")
    snake, dvc = snakemake_jobs(workflow_dir), dvc_stages(workflow_dir)
    assert snake.keys() == dvc.keys()
    if re.search(r"data: \[turk_mini[,\]]", params_text):
        assert {"fetch_turkcorpus", "prepare_turk_mini", "segment_turk_mini", "vocab_turk_mini",
                "datasets_table"} <= snake.keys()
    if "turk_mini, wean" in params_text:
        assert {"train_mini_wean", "evaluate_mini_wean", "report_turk_mini", "report_wean_parameters"} <= snake.keys()
        assert "train_pwkp_wean" not in snake  # PWKP is not switched on: its rows say so instead
        assert {"fetch_ppdb", "system_simp_ppdb_word", "evaluate_simp_ppdb_word", "system_simp_oracle",
                "report_simplification"} <= snake.keys()
        # trained simplification rows: their rule files are inputs of training (DMASS, critic)
        assert {"train_simp_transformer", "train_simp_dmass", "train_simp_critic_fixed", "system_simp_nmt_ppdb_word",
                "train_smini_dmass", "report_simplification_turk_mini"} <= snake.keys()
        assert "data/raw/ppdb/.complete-eval.json" in snake["train_simp_dmass"][1]
    if "kind: local" in params_text:
        assert {"prepare_mine", "segment_mine", "vocab_mine", "train_m_wean", "evaluate_m_wean", "report_mine"} \
            <= snake.keys()
        assert "mydata/test.ref1" in snake["prepare_mine"][1]  # the user's files are the stage's inputs
    if "suites: [matrix]" in params_text:  # cells of three tasks, the bound of turk-mini's column, the report
        assert {"train_mx_rules_transformer", "train_mx_turk_mini_transformer_dmass", "train_syn_copynet",
                "train_hs_sgate_spm", "matrix_compare_mx_turk_mini_wean_vs_mx_turk_mini_rnnsearch",
                "system_mx_identity_vocabulary", "segment_turk_mini_matrix", "report_matrix"} <= snake.keys()
        assert "--train-sample" in snake["segment_turk_mini_matrix"][0]
    if "headline_synthetic, headline" in params_text:
        assert {"align_hs_spm", "evaluate_hs_spm", "report_headline_synthetic", "fetch_gigaword",
                "decode_giga_spm_test_zhou", "align_giga_spm", "report_spm_gigaword"} <= snake.keys()
    for name in snake:
        cmd, deps, outs = dvc[name]
        kept = {o for o in outs if o.endswith("/resume.json")}  # DVC's persistent output; Snakemake cannot declare it
        assert kept == ({f"runs/{name[len('train_'):]}/resume.json"} if name.startswith("train_") else set()), name
        assert snake[name] == (cmd, deps, outs - kept), name
