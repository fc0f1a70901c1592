"""Loading a user's YAML (params.yaml) safely: plain data only, bounded, no duplicate keys.

``yaml.safe_load`` already refuses Python tags, but it still accepts three things that hurt here:

- **Alias bombs.** Nine levels of nine aliases expand to 9^9 values; the loaded objects share memory, but
  anything that walks or copies them (pydantic validation, an error message quoting the input) does not.
  The composed node graph is measured with aliases counted at their full expanded size, and a file whose
  expansion passes :data:`MAX_VALUES` is refused, naming the innermost node that crosses the bound.
- **Duplicate keys.** YAML says a mapping's keys are unique, PyYAML keeps the last one silently, so a
  trailing ``scale: paper`` would switch a whole run to paper scale unseen. Refused with both lines.
- **Size.** A file over :data:`MAX_BYTES` is refused before parsing.
- **Depth.** PyYAML composes nodes recursively, as do pydantic, Snakemake and json after it, so a file nested a
  few thousand levels deep (``[[[[...]]]]`` is 2 bytes a level) ends in a RecursionError and a traceback. The
  events are counted as the composer takes them (:meth:`_UniqueKeyLoader.get_event`, a loop over a stack, no
  recursion), and the first collection past :data:`MAX_DEPTH` levels is refused with its line and column before
  the composer goes any deeper; an alias counts at the depth of the value it copies.

Errors are :class:`YamlInputError` with ``file:line: what`` (``file:line:column:`` for depth); the caller wraps
them in its own error type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1 << 20
"""params.yaml is hand-written configuration: 1 MiB is far above any real one (the project's is ~30 KiB)."""
MAX_DEPTH = 64
"""Levels of mappings and lists within each other (the top-level mapping is level 1; an alias adds the levels of
the value it stands for). The project's params.yaml nests 5; 64 keeps every recursive reader far from Python's
recursion limit (about 1,000 frames, of which PyYAML's composer takes 2 a level)."""
MAX_VALUES = 100_000
"""Values (scalars, lists, mappings) the file may expand to with every alias counted in full (the project's own
params.yaml has about 2,000)."""


class YamlInputError(ValueError):
    """The file is not acceptable YAML input; the message starts with ``file:line``."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping key given twice (merge keys ``<<`` may still be overridden)."""

    source = "<yaml>"
    max_depth = MAX_DEPTH

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._open: list[list[Any]] = []  # per open mapping or list: [levels under it so far, its anchor]
        self._levels: dict[str, int] = {}  # anchor -> levels of the value it names (a scalar: 0)

    def get_event(self) -> yaml.Event:
        """The parser's next event, refused when it opens a level past :attr:`max_depth` (see the module)."""
        event = super().get_event()
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._open.append([0, event.anchor])
            self._check_depth(len(self._open), event)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            below, anchor = self._open.pop()
            self._ended(below + 1, anchor)
        elif isinstance(event, yaml.ScalarEvent):
            self._ended(0, event.anchor)
        elif isinstance(event, yaml.AliasEvent):
            levels = self._levels.get(event.anchor, 0)  # an undefined one: the composer names it next
            self._check_depth(len(self._open) + levels, event)
            self._ended(levels, None)
        return event

    def _ended(self, levels: int, anchor: str | None) -> None:
        if anchor is not None:
            self._levels[anchor] = levels
        if self._open:
            self._open[-1][0] = max(self._open[-1][0], levels)

    def _check_depth(self, depth: int, event: yaml.Event) -> None:
        if depth > self.max_depth:
            mark = event.start_mark
            through = f" (through the alias *{event.anchor})" if isinstance(event, yaml.AliasEvent) else ""
            raise YamlInputError(f"{self.source}:{mark.line + 1}:{mark.column + 1}: nesting deeper than "
                                 f"{self.max_depth} levels{through}")

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, (str, int, float, bool)) or key is None:
                if key in seen:
                    raise YamlInputError(f"{self.source}:{line}: duplicate key {key!r} (first given at line "
                                         f"{seen[key]}); give each key once")
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node: yaml.Node, memo: dict[int, int], limit: int, source: str) -> int:
    """Values under ``node`` with aliases (shared nodes) counted at full size; raises past ``limit``."""
    known = memo.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, memo, limit, source) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, memo, limit, source) + _expanded_size(v, memo, limit, source)
                    for k, v in node.value)
    if size > limit:
        raise YamlInputError(f"{source}:{node.start_mark.line + 1}: this value expands to more than {limit:,} values "
                             "through YAML aliases (*name); write the values out, or use fewer nested aliases")
    memo[id(node)] = size
    return size


def load_yaml_text(text: str, source: str, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text`` (from ``source``, for messages) as plain bounded YAML data; see the module docstring."""
    loader = _UniqueKeyLoader(text)
    loader.source = source
    loader.max_depth = max_depth
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, {}, max_values, source)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_yaml_file(path: str | Path, max_bytes: int = MAX_BYTES, max_values: int = MAX_VALUES,
                   max_depth: int = MAX_DEPTH) -> Any:
    """Read and parse a YAML file with the bounds above; a missing file raises FileNotFoundError."""
    path = Path(path)
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise YamlInputError(f"{path}: larger than {max_bytes:,} bytes; not a configuration file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise YamlInputError(f"{path}:{line}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    return load_yaml_text(text, str(path), max_values, max_depth)
