"""``paragen check-tables``: rebuild every committed table from committed inputs and name each file that differs.

For each ``results/provenance/<table>/`` (:mod:`paragen.report.provenance`) a scratch folder gets the repository's
``params.yaml``, the committed ``results/metrics/``, the rescoring and sweep tables the captions quote, and the
table's kept files back at their own paths; ``paragen report --tables-only`` then rebuilds the table there with
the settings it was built with. A committed ``.md``/``.csv``/``.tex`` that differs from its rebuild was edited by
hand or left behind by a change to params.yaml or to the report code. A table of params.yaml committed without
provenance cannot be rebuilt and is named too.
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paragen import artifacts
from paragen.report.provenance import SETTINGS_FILE, restore

QUOTED_TABLES = (artifacts.PUBLISHED_OUTPUTS_CSV, artifacts.scoring_variants_outputs()[0])
"""Committed tables other than metrics that a report reads (the sweep tables are found by their suffix), and the
scoring-variants scores its ranking is redrawn from."""


@dataclass(frozen=True)
class Stale:
    """One committed file that its rebuild does not give back (``detail``: the first lines of the diff, or why
    it could not be rebuilt)."""

    path: str
    detail: str

    def describe(self) -> str:
        return f"{self.path}: {self.detail}"


def _scratch_inputs(root: Path, scratch: Path) -> None:
    shutil.copyfile(root / "params.yaml", scratch / "params.yaml")
    shutil.copytree(root / "results" / "metrics", scratch / "results" / "metrics")
    if (root / "results" / "matrix").is_dir():  # the matrix's paired tests
        shutil.copytree(root / "results" / "matrix", scratch / "results" / "matrix")
    tables = root / "results" / "tables"
    quoted = [root / p for p in QUOTED_TABLES] + sorted(tables.glob("*_sweep.csv"))
    for path in quoted:
        if path.is_file():
            target = scratch / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def _diff(committed: Path, rebuilt: Path, name: str, lines: int = 12) -> str | None:
    old = committed.read_text(encoding="utf-8").splitlines()
    new = rebuilt.read_text(encoding="utf-8").splitlines()
    if old == new:
        return None
    diff = list(difflib.unified_diff(old, new, f"committed {name}", f"rebuilt {name}", n=0, lineterm=""))
    shown = [line if len(line) <= 300 else line[:300] + " …" for line in diff[:lines]]
    return "differs from its rebuild:\n    " + "\n    ".join(shown) + ("\n    …" if len(diff) > lines else "")


def rebuild_table(root: Path, provenance: Path, scratch: Path) -> tuple[str, str | None]:
    """Rebuild one table under ``scratch``; (table name, None) or (table name, why it failed)."""
    _scratch_inputs(root, scratch)
    return rebuild(scratch, restore(provenance, scratch))


def rebuild_parameters(root: Path, name: str, scratch: Path) -> tuple[str, str | None]:
    """A parameters table (counted from params.yaml and the vocabularies there are, so it keeps no provenance),
    rebuilt with no real dataset switched on, as committed."""
    _scratch_inputs(root, scratch)
    return rebuild(scratch, {"table": name, "data": [], "seeds": 1})


def rebuild(scratch: Path, settings: dict) -> tuple[str, str | None]:
    """Run the command that writes ``settings["table"]`` (with the ``data`` and ``seeds`` it was built with) in a
    ``scratch`` that holds its inputs."""
    command = [sys.executable, "-m", "paragen.cli", "report", "--params", "params.yaml", "--table", settings["table"],
               "--tables-only", "--seeds", str(settings["seeds"])]
    if settings["table"] == artifacts.MATRIX_TABLE:
        command = [sys.executable, "-m", "paragen.cli", "matrix", "--params", "params.yaml", "--tables-only",
                   "--suites", "matrix"]  # `seeds` is the matrix's own (matrix.seeds)
    if settings["table"] == artifacts.SCORING_VARIANTS_TABLE:  # the ranking redrawn from the committed scores
        command = [sys.executable, "-m", "paragen.cli", "scoring-variants", "--from-csv"]
    if settings["data"]:
        command += ["--data", ",".join(settings["data"])]
    done = subprocess.run(command, cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0:
        return settings["table"], f"could not be rebuilt ({' '.join(command[3:])}): " + \
            (done.stderr.strip().splitlines() or ["no message"])[-1]
    return settings["table"], None


def _take_rebuild(committed: Path, rebuilt: Path) -> None:
    """``--update``: the committed file becomes its rebuild (removed where the rebuild no longer writes it)."""
    if rebuilt.exists():
        committed.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(rebuilt, committed)
    else:
        committed.unlink()


def rebuilt_outputs(table: str) -> tuple[str, ...]:
    """The committed files a table's rebuild writes and the check compares (the scoring-variants scores are its
    input, not compared: rescoring needs the Turk files and minutes)."""
    if table == artifacts.SCORING_VARIANTS_TABLE:
        return artifacts.scoring_variants_outputs()[1:]
    return (artifacts.table_outputs(table) + (artifacts.comparisons_csv_path(table),)
            + artifacts.aligned_pairs_outputs(table))


def check_tables(root: str | Path, names: list[str] | None = None,
                 update: bool = False) -> tuple[list[Stale], list[str]]:
    """(stale files, tables checked): every table with provenance under ``root`` (or those in ``names``), and every
    committed parameters table of params.yaml, rebuilt and compared; a scores table of params.yaml whose Markdown
    is committed without provenance is stale too.
    ``update``: each stale file that a rebuild gives is replaced by it in ``root`` (how a change to the report code
    reaches the committed tables: through the report stage, from the committed metrics and provenance, never by
    hand); the returned list still names what was stale before."""
    from paragen.config import load_config

    root = Path(root)
    kept = sorted(p.parent for p in (root / "results" / "provenance").glob(f"*/{SETTINGS_FILE}"))
    kept = [p for p in kept if names is None or p.name in names]
    stale: list[Stale] = []
    config = load_config(root / "params.yaml")
    for name, spec in config.tables.items():
        md = artifacts.table_outputs(name)[0]
        if spec.kind == "scores" and (root / md).exists() and not (root / "results/provenance" / name).is_dir() \
                and (names is None or name in names):
            stale.append(Stale(md, "committed without results/provenance/ (what it was built from): it cannot be "
                               "rebuilt; regenerate it with the pipeline"))
    parameters = [name for name, spec in config.tables.items() if spec.kind == "parameters"
                  and (root / artifacts.table_outputs(name)[0]).exists() and (names is None or name in names)]
    for name in [p.name for p in kept] + parameters:
        with tempfile.TemporaryDirectory(prefix=f"check-{name}-") as folder:
            scratch = Path(folder)
            if name in parameters:
                table, failure = rebuild_parameters(root, name, scratch)
            else:
                table, failure = rebuild_table(root, root / "results" / "provenance" / name, scratch)
            if failure is not None:
                stale.append(Stale(artifacts.table_outputs(table)[0], failure))
                continue
            stale += _compare(root, scratch, rebuilt_outputs(table), update)
    return stale, [p.name for p in kept] + parameters


def _compare(root: Path, scratch: Path, outputs: tuple[str, ...], update: bool) -> list[Stale]:
    """Each committed output against its rebuild (``update``: replaced by it where they differ)."""
    stale = []
    for path in outputs:
        committed, rebuilt = root / path, scratch / path
        if not committed.exists():
            if rebuilt.exists():
                stale.append(Stale(path, "the rebuild writes it, but it is not committed"))
                if update:
                    _take_rebuild(committed, rebuilt)
            continue
        if not rebuilt.exists():
            stale.append(Stale(path, "committed, but the rebuild does not write it"))
        else:
            detail = _diff(committed, rebuilt, path)
            if detail is None:
                continue
            stale.append(Stale(path, detail))
        if update:
            _take_rebuild(committed, rebuilt)
    return stale
