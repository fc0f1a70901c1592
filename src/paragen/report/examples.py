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


def _cut(line: str) -> str:
    tokens = restore_bpe(line).split()
    shown = " ".join(tokens[:MAX_TOKENS]).replace("|", "\\|")
    return shown + (f" … (+{len(tokens) - MAX_TOKENS} tokens)" if len(tokens) > MAX_TOKENS else "")


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


def examples_markdown(title: str, data: ExampleSource, outputs: dict[str, list[str]]) -> str:
    """The table: one block per chosen line (source, reference, each row's output), rows in the table's order."""
    count = len(data.sources)
    for row, lines in outputs.items():
        if len(lines) != count:
            raise ValueError(f"example outputs: {row} has {len(lines)} output lines, the test set {count}")
    chosen = first_of_each_type(data.tags) if data.tags else evenly_spaced(count)
    lines = [f"# {title}: example outputs", "",
             f"Lines chosen by rule: {rule_text(bool(data.tags), count)}. Each model's output is its test output "
             f"as scored (beam top-1; the first seed's run); sentences longer than {MAX_TOKENS} tokens are cut.", "",
             "| line | | text |", "| --- | --- | --- |"]
    for index in chosen:
        label = f"{index + 1}" + (f" ({data.tags[index]})" if data.tags else "")
        lines += [f"| {label} | source | {_cut(data.sources[index])} |",
                  f"| | reference | {_cut(data.references[index])} |"]
        lines += [f"| | {row} | {_cut(output[index])} |" for row, output in outputs.items()]
    return "\n".join(lines) + "\n"
