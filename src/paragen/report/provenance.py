"""What a table was built from, kept beside it, so anyone can rebuild it and see whether it is stale.

A table is read from the committed ``results/metrics/`` and from small files outside ``results/`` that git does
not keep: each trained run's ``train_log.csv`` and ``sessions.json`` (training outcome, wall time, hardware),
its pretrained-embeddings note, SPM's aligned pairs, and the data files a caption quotes (a rule dataset's
generation statistics, a headline stand-in's gold test headlines, a real dataset's ``prepare.json``). The report
stage copies those into ``results/provenance/<table>/files/`` under their own paths, and writes ``report.json``
with the settings it ran with (``data``, ``seeds``). With them, ``paragen check-tables``
(:mod:`paragen.report.staleness`) rebuilds every committed table in a scratch folder and names each file that
differs from what is committed: a table edited by hand, or left behind by a change to params.yaml or the report
code, cannot pass unnoticed (``tests/test_committed_tables.py`` runs it in CI).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from paragen import artifacts
from paragen.atomic import replaced_directory
from paragen.config import ParagenConfig
from paragen.pipeline.tables import TablePlan
from paragen.report.captions import caption_data_files

SETTINGS_FILE = "report.json"
FILES_DIR = "files"
RUN_FILES = ("train_log.csv", "sessions.json", "embeddings.json", "aligned_pairs.json")
"""What the report reads of a run directory (those that exist are kept)."""


def read_files(config: ParagenConfig, plan: TablePlan) -> list[str]:
    """Every file outside results/ the table's report read, that exists here: the runs' files, then the data's."""
    runs = [f"{artifacts.run_dir(run.name)}/{name}" for run in plan.trained_runs() for name in RUN_FILES]
    rows = [e for e in plan.spec.rows.values() if e in config.experiments]  # as the caption reads them
    return [path for path in runs + caption_data_files(config, rows) if Path(path).is_file()]


def publish_provenance(config: ParagenConfig, plan: TablePlan) -> str:
    """Replace ``results/provenance/<table>/`` with copies of what the report read and the settings it ran
    with; returns the directory."""
    return keep(plan.name, read_files(config, plan),
                {"table": plan.name, "data": list(config.data), "seeds": config.seed_count})


def keep(name: str, paths: list[str], settings: dict) -> str:
    """Replace ``results/provenance/<name>/`` with copies of ``paths`` (under ``files/``, at their own paths) and
    ``settings`` (``report.json``: ``table``, ``data``, ``seeds``); returns the directory."""
    target = artifacts.provenance_dir(name)
    with replaced_directory(target) as staging:
        for path in paths:
            copy = staging / FILES_DIR / path
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
        (staging / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    return target


def restore(provenance: Path, root: Path) -> dict:
    """Copy a table's kept files back under ``root`` at their own paths; returns its settings (report.json)."""
    files = provenance / FILES_DIR
    if files.is_dir():
        for copy in sorted(p for p in files.rglob("*") if p.is_file()):
            target = root / copy.relative_to(files)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(copy, target)
    return json.loads((provenance / SETTINGS_FILE).read_text(encoding="utf-8"))
