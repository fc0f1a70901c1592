"""The published numbers a table compares with: one file per paper table under ``paragen/paper_results``.

A table in params.yaml names its file (``tables.<name>.paper``); the DAG reads it to know whether baseline rows are
rescored and which paper a table belongs to, and the report reads its numbers and columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from importlib import resources

import yaml

STUDIES = {
    "wean": "WEAN (Ma et al., 2018)",
    "copynet": "CopyNet (Gu et al., 2016)",
    "simplification": "Transformer + PPDB simplification (Wang, Kurohara & Liang)",
    "spm": "SPM headline generation (Kiyono et al.)",
    "own": "Your own data",
}
"""The four papers (README.md, Papers) (key: the ``study`` of a ``paper_results`` file) -> the
report category their tables and figures are grouped under; ``own``: tables of the user's own data."""


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    value: str  # '/'-separated path into a metrics JSON file
    decimals: int | None = None  # shown with this many decimals instead of the table's (counts: 0)
    paper: str | None = None  # the published number is the paper's number of this column key (one number, two scorings)

    @property
    def published_key(self) -> str:
        return self.paper or self.key


@dataclass(frozen=True)
class Baseline:
    """Another paper's system in a table: its published numbers, rescored from released outputs if possible."""

    label: str
    values: dict[str, float]
    source: str
    rescored: list[dict[str, str]] = field(default_factory=list)
    """Per column: {column, test_set, system, metric} of a row of results/tables/published_outputs.csv."""
    not_comparable: dict[str, str] = field(default_factory=dict)
    """Per column: why the published number was not scored the way the column scores (no difference shown)."""


@dataclass(frozen=True)
class PaperTable:
    """Published numbers of one paper table (a file under ``paragen/paper_results``)."""

    paper: str
    table: str
    metric: str
    columns: list[Column]
    rows: dict[str, dict[str, float]]
    baselines: list[Baseline] = field(default_factory=list)
    decimals: int = 1
    study: str = ""
    """Which of the four papers the table belongs to (a key of :data:`STUDIES`)."""

    @classmethod
    def load(cls, name: str) -> "PaperTable":
        text = resources.files("paragen.paper_results").joinpath(f"{name}.yaml").read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
        if raw.get("study") not in STUDIES:
            raise ValueError(f"paragen/paper_results/{name}.yaml: study: {raw.get('study')!r} is not one of the "
                             f"papers; allowed values: {sorted(STUDIES)}")
        rows = {row: {str(k): float(v) for k, v in values.items()} for row, values in (raw.get("rows") or {}).items()}
        baselines = [Baseline(b["label"], {str(k): float(v) for k, v in b["values"].items()}, b["source"],
                              b.get("rescored", []), b.get("not_comparable", {})) for b in raw.get("baselines", [])]
        return cls(raw["paper"], raw["table"], raw["metric"], [Column(**c) for c in raw["columns"]], rows, baselines,
                   int(raw.get("decimals", 1)), raw["study"])

    def with_columns(self, keys: list[str]) -> "PaperTable":
        """The table restricted to these columns, in this order (``tables.<name>.columns``: a table of your own
        data picks the metrics it shows)."""
        by_key = {c.key: c for c in self.columns}
        unknown = [k for k in keys if k not in by_key]
        if unknown:
            raise ValueError(f"columns: {unknown} are not columns of {self.paper!r}; allowed values: {list(by_key)}")
        return replace(self, columns=[by_key[k] for k in keys])
