"""Record outputs made by Snakemake into ``dvc.lock``, so a user who switches to ``dvc repro`` retrains nothing.

Both engines run the same stages (:func:`paragen.pipeline.plan.build_plan`), but only DVC writes ``dvc.lock``; after a
Snakemake run ``dvc status`` would call every stage changed. ``dvc commit --force`` hashes the outputs already
in the workspace and records them, with the current dependencies and parameters, as if ``dvc repro`` had made
them. That is only true when the outputs were made from this very ``params.yaml`` and ``dvc.yaml``: the caller
(the Snakefile's ``onsuccess`` handler) checks that no ``--config`` override was in force.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Iterator

from paragen.pipeline import dvc

from paragen.pipeline import plan
from paragen.config import ConfigError, ParagenConfig, parse_config, read_params


class DvcRecordError(RuntimeError):
    """DVC could not record the outputs; the message carries DVC's own."""


def complete_stages(config: ParagenConfig, root: str | Path = ".") -> tuple[list[str], list[str]]:
    """Stage names whose outputs and dependencies all exist under ``root``, and the names of the others.

    A dependency can be missing where an output is not: the tables and scores under ``results/`` are
    committed to git, the runs they were scored from are not, so after a partial Snakemake run in a fresh
    clone a score stage looks finished while its ``test.hyp`` is absent, and ``dvc commit`` refuses it."""
    complete, incomplete = [], []
    for stage in plan.stages(config):
        present = all((Path(root) / path).exists() for path in (*stage.outs, *stage.kept, *stage.deps))
        (complete if present else incomplete).append(stage.name)
    return complete, incomplete


def record_into_dvc_lock(config: ParagenConfig, params: str | Path = "params.yaml",
                         root: str | Path = ".") -> tuple[list[str], list[str]]:
    """``dvc commit --force`` every stage whose outputs and inputs exist; returns (recorded, skipped) stage names."""
    root = Path(root)
    if not (root / ".dvc").is_dir():
        raise ConfigError(f"{root.resolve()}: not a DVC repository (run `dvc init` first)")
    dvc_yaml = root / "dvc.yaml"
    current = dvc_yaml.read_text(encoding="utf-8") if dvc_yaml.exists() else ""
    if current != dvc.render_dvc_yaml(config):
        raise ConfigError(f"{dvc_yaml} is out of date with {params}: run `paragen dvc-yaml` first")
    recorded, skipped = complete_stages(config, root)
    if recorded:
        outputs = [root / out for stage in plan.stages(config) if stage.name in recorded
                   for out in (*stage.outs, *stage.kept)]  # resume.json is cached too: DVC re-links it
        with times_kept(outputs):
            # not --quiet: it silences DVC's error as well, and the message below would be empty
            result = subprocess.run(["dvc", "commit", "--force", *recorded], cwd=root, capture_output=True, text=True)
        if result.returncode != 0:
            raise DvcRecordError(f"`dvc commit` failed: {(result.stderr or result.stdout).strip()}")
    return recorded, skipped


@contextlib.contextmanager
def times_kept(paths: list[Path]) -> Iterator[None]:
    """Put back each file's access and modification times after the block (to the nanosecond).

    ``dvc commit`` re-links every cached output from the cache, which gives it a new modification time in
    whatever order DVC visits the stages; Snakemake then sees inputs newer than their outputs and plans the
    finished jobs again. The content is unchanged (DVC has just hashed it), so the old times are the true ones.
    """
    files = [f for p in paths for f in ([p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file()))]
    times = {f: (f.stat().st_atime_ns, f.stat().st_mtime_ns) for f in files}
    try:
        yield
    finally:
        for path, (atime, mtime) in times.items():
            if path.exists():
                os.utime(path, ns=(atime, mtime))


def record_after_snakemake(run_config: dict, params: str | Path = "params.yaml", root: str | Path = ".") -> str:
    """The Snakefile's ``onsuccess``: record the run's outputs when that tells the truth; says what it did."""
    if not (Path(root) / ".dvc").is_dir():
        return "not a DVC repository: dvc.lock not written"
    if dict(run_config) != read_params(Path(root) / params):
        return ("outputs not recorded into dvc.lock: this run used --config overrides that params.yaml does not "
                "hold, so DVC would credit them to the wrong parameters")
    try:
        recorded, skipped = record_into_dvc_lock(parse_config(run_config, str(params)), params, root)
    except (ConfigError, DvcRecordError) as error:
        return f"outputs not recorded into dvc.lock: {error}"
    return describe(recorded, skipped)


def describe(recorded: list[str], skipped: list[str]) -> str:
    return (f"dvc.lock: recorded {len(recorded)} stage(s) whose outputs and inputs exist"
            + (f"; skipped {len(skipped)} with missing outputs or inputs: {', '.join(skipped)}" if skipped else ""))
