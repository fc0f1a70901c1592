"""Shared fixtures: the repository root, the tiny configuration, and tiny models."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import torch

from paragen.config import RECURRENT_ONLY, ModelConfig, load_config
from paragen.models import build_model
from paragen.data.vocabulary import Vocabulary

ROOT = Path(__file__).resolve().parent.parent
TINY_PARAMS = ROOT / "tests" / "fixtures" / "tiny_params.yaml"
ARCHITECTURES = ("encdec", "rnnsearch", "copynet", "wean", "transformer")
MIRROR = Path(os.environ.get("PARAGEN_MIRROR", ROOT.parent / "shared" / "data"))
"""The public-data mirror (../shared/data beside the checkout); tests that need it skip when it is absent."""


@pytest.fixture
def tiny_config():
    return load_config(TINY_PARAMS)


@pytest.fixture
def vocab() -> Vocabulary:
    return Vocabulary.build([[["a", "b", "c", "d", "e", "f"]]])


def tiny_model(architecture: str, vocab_size: int, **overrides) -> torch.nn.Module:
    """A small model in eval mode; the transformer ignores recurrent-only overrides (e.g. ``cell``)."""
    torch.manual_seed(0)
    if architecture == "transformer":
        overrides = {k: v for k, v in overrides.items() if k not in RECURRENT_ONLY}
        config = ModelConfig(architecture=architecture, embedding_size=8, heads=2, key_size=4, feedforward_size=16,
                             **overrides)
    else:
        config = ModelConfig(architecture=architecture, embedding_size=8, hidden_size=12, **overrides)
    return build_model(config, vocab_size).eval()


def write_lines(path: Path, lines, ending: str = "\n") -> Path:
    """``lines`` into ``path`` as UTF-8, each followed by ``ending`` ("\r\n" for a CRLF file), its folder made first;
    returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(line + ending for line in lines).encode("utf-8"))
    return path


def write_csv(path: Path, columns: list[str], rows) -> Path:
    """A comma-separated file (a train_log.csv, say): the header, then one line per row of values."""
    return write_lines(path, [",".join(columns)] + [",".join(str(v) for v in row) for row in rows])


def cycle_colour(index: int) -> str:
    """The ``index``-th colour of matplotlib's own colour cycle: what a figure test expects a row's colour to be."""
    import matplotlib.pyplot as plt

    return plt.rcParams["axes.prop_cycle"].by_key()["color"][index]


def write_trained_run(folder: Path, walls: list[float], sessions: list[dict] | None) -> Path:
    """A run folder as training leaves it: ``train_log.csv`` with one epoch per wall time (losses 2.0 / 1.5,
    validation metric 40.0) and, unless ``sessions`` is None (a run that predates session records),
    ``sessions.json``; returns the folder."""
    write_lines(folder / "train_log.csv", ["epoch,train_loss,valid_loss,valid_metric,wall_time_s",
                                           *(f"{i + 1},2.0,1.5,40.0,{w}" for i, w in enumerate(walls))])
    if sessions is not None:
        write_lines(folder / "sessions.json", [json.dumps(sessions)])
    return folder


def file_tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` as {relative path: UTF-8 text}: what a test compares a written tree with."""
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*") if p.is_file()}


def matrix_cell(task: str, mechanism: str, status: str = "scored", rank: float | None = None, values=(),
                verdict: str = "", tested: bool = False):
    """A matrix cell as the report sees it (``paragen.report.matrix.CellResult``); ``tested``: one seed's paired test
    (delta +1.0, p 0.01)."""
    from paragen.report.matrix import CellResult

    tests = [{"seed": 1, "run": "r", "baseline": "b", "delta": 1.0, "p_value": 0.01}] if tested else []
    return CellResult(task, mechanism, status, rank=rank, values=list(values), verdict=verdict, tests=tests)


@pytest.fixture
def server():
    """A loopback HTTP server (``tests/loopback.py``) for download tests, closed afterwards."""
    from loopback import Server

    s = Server()
    yield s
    s.close()


@pytest.fixture
def close_figures():
    """A test that reads a figure's drawn artists keeps the figure open for its assertions (nothing saves it);
    every figure is closed after it (matplotlib warns past 20 open figures)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def copy_workflow(directory: Path) -> Path:
    """Copy the real workflow files (Snakefile, rules, profiles, report captions) and the tiny configuration."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "workflow", ".dvcignore"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, directory / name)
        else:
            shutil.copy(source, directory / name)
    shutil.copy(TINY_PARAMS, directory / "params.yaml")
    return directory


@pytest.fixture
def workflow_dir(tmp_path: Path) -> Path:
    """A copy of the real workflow files running the tiny configuration."""
    return copy_workflow(tmp_path)


LOGGED = re.compile(r"exec > >\(tee -i (?P<log>\S+)\) 2>&1; (?P<command>.*)")
"""How workflow/rules/stages.smk runs a stage: its output to logs/<rule>.log and the terminal, then its command."""


def stage_command(rule: str, shell_command: str) -> str:
    """The stage's own command (DVC's ``cmd``) in the shell command Snakemake prints for ``rule``'s job, which also
    sends the job's stdout and stderr to ``logs/<rule>.log``."""
    logged = LOGGED.fullmatch(shell_command)
    assert logged and logged["log"] == f"logs/{rule}.log", (rule, shell_command)
    return logged["command"]


@pytest.fixture(scope="module")
def rouge155() -> None:
    """The official ROUGE-1.5.5 can run: skip, naming the module, only where a Perl module it loads is truly
    missing (a broken install fails instead)."""
    import shutil

    from paragen.metrics.rouge_perl import MissingPerlModule, check_perl

    if shutil.which("perl") is None:
        pytest.skip("no perl on PATH: ROUGE-1.5.5 is a Perl script")
    try:
        check_perl()
    except MissingPerlModule as error:
        pytest.skip(f"ROUGE-1.5.5 cannot run here: {error}")


def write_test_outputs(config, table: str, lines: int = 2) -> None:
    """The files a table's examples read, where a report test's fixture has none (in the current folder): the
    first test split's sources and first reference of the table's first row, and each runnable row's output."""
    from paragen import artifacts
    from paragen.pipeline.report_stages import example_output
    from paragen.pipeline.tables import table_plan

    rows = table_plan(config, table).example_rows
    if not rows:
        return
    data = Path(artifacts.experiment_data(config, next(iter(rows.values()))).directory)
    data.mkdir(parents=True, exist_ok=True)
    split = Path(example_output(config, next(iter(rows.values())))).stem
    for name in (f"{split}.src", f"{split}.tgt"):
        if not (data / name).exists():
            (data / name).write_text("".join(f"{name} {k}\n" for k in range(lines)))
    for row in rows.values():
        path = Path(example_output(config, row))
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"{row} {k}\n" for k in range(lines)))
