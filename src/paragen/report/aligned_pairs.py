"""004 Table 4 reproduced: SPM's aligned pairs on sampled test pairs, grouped, beside the paper's examples.

Reads what ``paragen align --pairs`` wrote (:mod:`paragen.metrics.aligned_pairs`) and writes
``results/tables/<table>_aligned_pairs.{md,csv}``. 004 lists hand-picked examples without counts; the paper column
shows them as published, ours are the most frequent pairs of each group with their counts.
"""

from __future__ import annotations

import csv
import io
import json
from importlib import resources
from pathlib import Path

import yaml

from paragen import artifacts
from paragen.atomic import write_text
from paragen.markdown_text import literal, write_markdown
from paragen.config import TableConfig
from paragen.metrics.aligned_pairs import GROUPS

GROUP_LABELS = {"identical": "identical (target token = q_j's word)",
                "inflection": "inflection (same Porter stem; 004: verb inflection)",
                "shorter": "shorter target token (004: paraphrasing to shorter form)",
                "others": "others"}


def paper_examples(name: str | None) -> tuple[str, dict[str, list[list[str]]]]:
    """(where the examples are published, group -> examples); none without a paper file."""
    if name is None:
        return "", {}
    raw = yaml.safe_load(resources.files("paragen.paper_results").joinpath(f"{name}.yaml").read_text(encoding="utf-8"))
    return f"{raw['paper']}, {raw['table']}", raw["groups"]


def _pair(row: list) -> str:
    """"(target token, q_j's word)", each token literal in Markdown (a ``<unk>`` stays visible)."""
    return f"({literal(row[0])}, {literal(row[1])})"


def write_aligned_pairs_table(table_name: str, spec: TableConfig) -> tuple[str, str]:
    wanted = spec.aligned_pairs
    assert wanted is not None
    experiment = spec.rows[wanted.row]
    found = json.loads(Path(artifacts.aligned_pairs_path(experiment)).read_text(encoding="utf-8"))
    source, examples = paper_examples(wanted.paper)
    tokens = found["tokens"]
    lines = [f"# {spec.title}: aligned pairs (as 004 Table 4)", "",
             "| group | share of target tokens | most frequent pairs (target token, q_j's word) × count | paper's examples |",
             "| --- | --- | --- | --- |"]
    for group in GROUPS:
        rows = found["groups"][group]
        share = 100.0 * sum(r[2] for r in rows) / tokens if tokens else 0.0
        shown = "; ".join(f"{_pair(r)} × {r[2]}" for r in rows[:wanted.top]) or "none"
        paper = ", ".join(_pair(r) for r in examples.get(group, [])) or "—"
        lines.append(f"| {GROUP_LABELS[group]} | {share:.1f} % | {shown} | {paper} |")
    lines += ["", f"{wanted.row} ({experiment}): for each target token y_j of {found['pairs']:,} test pairs of "
              f"{found['split']} (a sample of {found['sample']:,} drawn with seed {found['seed']}, or all when fewer; "
              f"{tokens:,} target tokens), fed with teacher forcing (004 Appendix E), the pair (y_j, the word q_j ranks "
              "first over the vocabulary), both as the model reads them (subword symbols where the data is "
              "BPE-segmented). Each pair falls into the first group whose rule it meets, in the order shown; a stem "
              f"misses irregular forms (win/won), and 'shorter' compares characters. Up to {wanted.top} pairs per "
              "group, most frequent first. "
              + (f"Paper's examples: {source}, hand-picked, without counts." if source
                 else "No paper examples: not a paper's setup.")]
    md_path, csv_path = artifacts.aligned_pairs_outputs(table_name)
    write_markdown(md_path, "\n".join(lines) + "\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "row", "group", "rank", "target", "aligned", "count"])
    for group in GROUPS:
        for rank, row in enumerate(found["groups"][group], start=1):
            writer.writerow([table_name, wanted.row, group, rank, row[0], row[1], row[2]])
    write_text(csv_path, buffer.getvalue())
    return md_path, csv_path
