"""The Snakemake workflow follows the workflow catalog's conventions: `snakemake --lint` finds nothing (every rule
logs to logs/<rule>.log and names a conda environment) and snakefmt leaves the Snakefile and workflow/ as they are."""

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

BIN = Path(sys.executable).parent  # the environment running the tests: its snakemake and snakefmt
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    assert (BIN / tool).exists(), f"{BIN / tool} not found: pip install -e '.[test]'"
    return subprocess.run([str(BIN / tool), *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)


def test_snakemake_lint_finds_nothing():
    result = run("snakemake", "--lint")
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "Lints for" not in output, output


def test_snakefmt_leaves_the_workflow_as_it_is():
    result = run("snakefmt", "--check", "--diff", "Snakefile", "workflow/")
    assert result.returncode == 0, f"run `snakefmt Snakefile workflow/`:\n{result.stdout}{result.stderr}"


def test_the_conda_environment_installs_this_checkout():
    """Snakemake copies the environment file to .snakemake/conda/ before creating it, so a relative path there would
    not find the checkout; it runs <env>.post-deploy.sh, found beside the file, in the new environment from the
    working directory (the repository root), and that script installs paragen."""
    import yaml

    env = yaml.safe_load((ROOT / "workflow/envs/paragen.yaml").read_text())
    assert env["channels"][0] == "conda-forge" and {"python=3.11", "pip"} <= set(map(str, env["dependencies"]))
    pip = [item for entry in env["dependencies"] if isinstance(entry, dict) for item in entry["pip"]]
    assert not [item for item in pip if item.startswith(("-e", ".", "/", "file:"))], pip
    script = ROOT / "workflow/envs/paragen.post-deploy.sh"
    assert "python -m pip install -e ." in script.read_text()
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
