"""Example outputs per model (in the manner of WEAN Figure 4 and SPM Figure 3): for a few test lines, the source,
the reference and each row's output, as a Markdown table.

The lines are chosen by a rule, never by hand: on rule data the first test line of each rule type (the types in
the order the tags file first shows them), elsewhere :data:`EXAMPLES` lines evenly spaced over the test set
(lines 1, 1 + n/k, 1 + 2n/k, ... with n lines and k examples, rounded down). Long sentences are cut to
:data:`MAX_TOKENS` tokens with the count of the rest, so the table reads at page width.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paragen.data.corpus import read_lines
from paragen.markdown_text import literal
from paragen.scoring.files import restore_bpe

EXAMPLES = 4
MAX_TOKENS = 40


def evenly_spaced(count: int, examples: int = EXAMPLES) -> list[int]:
    """0-based indices of ``examples`` lines spread over ``count`` (all of them when there are fewer)."""
    if count <= examples:
        return list(range(count))
    return [k * count // examples for k in range(examples)]


def first_of_each_type(tags: list[str]) -> list[int]:
    """0-based index of the first line of each tag, in the order the tags first appear."""
    first: dict[str, int] = {}
    for index, tag in enumerate(tags):
        first.setdefault(tag, index)
    return list(first.values())


def rule_text(by_type: bool, count: int) -> str:
    """The caption's statement of how the lines were chosen."""
    if by_type:
        return "the first test line of each rule type, in the order the test file first shows the types"
    return (f"{min(EXAMPLES, count)} test lines evenly spaced over the {count:,} of the test set "
            f"(line 1 + k·{count}/{EXAMPLES}, rounded down)")


def _shown(line: str) -> tuple[str, int]:
    """A line as the page shows it: BPE joined, its first :data:`MAX_TOKENS` tokens, and how many were cut."""
    tokens = restore_bpe(line).split()
    return " ".join(tokens[:MAX_TOKENS]), max(len(tokens) - MAX_TOKENS, 0)


def _cell(text: str, cut: int) -> str:
    """A shown line as a table cell: literal (a model's ``<unk>`` or ``|`` cannot format the page), then the
    count of the tokens cut."""
    return literal(text) + (f" … (+{cut} tokens)" if cut else "")


def _cut(line: str) -> str:
    return _cell(*_shown(line))


@dataclass(frozen=True)
class ExampleSource:
    """The test files a table's rows share: sources, first references and (rule data) the type of each line."""

    sources: list[str]
    references: list[str]
    tags: list[str] | None


def read_example_source(directory: str | Path, split: str) -> ExampleSource:
    """``<split>.src``, the first reference (``<split>.tgt`` or ``<split>.ref.0``) and ``<split>.tag`` where it
    exists."""
    directory = Path(directory)
    single = directory / f"{split}.tgt"
    tags = directory / f"{split}.tag"
    return ExampleSource(read_lines(directory / f"{split}.src"),
                         read_lines(single if single.exists() else directory / f"{split}.ref.0"),
                         read_lines(tags) if tags.exists() else None)


def example_records(data: ExampleSource, outputs: dict[str, list[str]],
                    missing: dict[str, str] | None = None) -> dict:
    """What the examples page shows, as data (``results/tables/<table>_examples.json``): the rule that chose the
    lines and, per chosen line, its number, rule type and each text as shown (``[role, text, tokens cut]``: source,
    reference, then each row in the table's order). ``missing``: rows without a test output, and why; the page
    names them and shows the others."""
    count = len(data.sources)
    for row, lines in outputs.items():
        if len(lines) != count:
            raise ValueError(f"example outputs: {row} has {len(lines)} output lines, the test set {count}")
    chosen = first_of_each_type(data.tags) if data.tags else evenly_spaced(count)
    return {"rule": rule_text(bool(data.tags), count), "max_tokens": MAX_TOKENS, "missing": dict(missing or {}),
            "lines": [{"line": index + 1, "tag": data.tags[index] if data.tags else None,
                       "texts": [[role, *_shown(text)] for role, text in
                                 [("source", data.sources[index]), ("reference", data.references[index])]
                                 + [(row, output[index]) for row, output in outputs.items()]]}
                      for index in chosen]}


def render_examples(title: str, records: dict, limit: int | None = None, heading: bool = True) -> str:
    """The page of :func:`example_records`: the rule, the rows not shown and why, then one block per chosen line
    (``limit``: only the first lines, as REPORT.md shows them inline; ``heading``: the page's own title)."""
    lines = ([f"# {title}: example outputs", ""] if heading else []) + [
        f"Lines chosen by rule: {records['rule']}. Each model's output is its test output as scored (beam top-1; "
        f"the first seed's run); sentences longer than {records['max_tokens']} tokens are cut.", ""]
    if records["missing"]:
        lines += ["Not shown: " + "; ".join(f"{row} ({why})" for row, why in records["missing"].items()) + ".", ""]
    lines += ["| line | | text |", "| --- | --- | --- |"]
    for example in records["lines"][:limit]:
        label = f"{example['line']}" + (f" ({example['tag']})" if example["tag"] else "")
        for k, (role, text, cut) in enumerate(example["texts"]):
            lines.append("| " + " | ".join([label if k == 0 else "", role, _cell(text, cut)]).lstrip() + " |")
    return "\n".join(lines) + "\n"


def examples_markdown(title: str, data: ExampleSource, outputs: dict[str, list[str]]) -> str:
    """The page for these outputs (:func:`example_records` rendered by :func:`render_examples`)."""
    return render_examples(title, example_records(data, outputs))
