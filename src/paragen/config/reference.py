"""``docs/params.md``, the parameter reference, generated from the pydantic schema of ``params.yaml``.

``paragen params-doc [--check]`` writes or checks it; ``tests/test_params_reference.py`` fails when it is stale.
The walk starts at the root model, keeps declaration order, and documents each nested model class once, in its
own section that every use of it links to.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import types
from pathlib import Path
from typing import Annotated, Any, Iterator, Literal, Union, get_args, get_origin

import annotated_types as at
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from paragen.atomic import holds, write_if_changed
from paragen.config.base import SAFE_NAME
from paragen.markdown_text import safe_markdown

DEFAULT_PATH = "docs/params.md"
"""Where ``paragen params-doc`` writes the reference (relative to the repository root)."""

_BOUNDS = ((at.Gt, "gt", ">"), (at.Ge, "ge", "≥"), (at.Lt, "lt", "<"), (at.Le, "le", "≤"))
_VALIDATOR_NOTES = {  # validators of paragen.config.base, by qualified name (an unknown validator adds nothing)
    "paragen.config.base._safe_name": f"a safe name: matches `{SAFE_NAME.pattern}`",
    "paragen.config.base._unique": "no value twice",
    "paragen.config.base._published_file": "a file stem in `src/paragen/paper_results/`",
}
_SIMPLE = re.compile(r"[\w\[\], ]+")
_PLAIN_STRING = re.compile(r"[A-Za-z_][\w.-]*")
_YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_union(tp: Any) -> bool:
    return get_origin(tp) in (Union, types.UnionType)


def _is_sequence(tp: Any) -> bool:
    """``list[T]``, ``set[T]``, ``tuple[T, ...]``: YAML lists of any length."""
    args = get_args(tp)
    return get_origin(tp) in (list, set, frozenset) or (get_origin(tp) is tuple and len(args) == 2 and args[1] is ...)


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    """``Annotated[T, ...]`` -> (T, its metadata, each ``Field(...)`` followed by its constraints)."""
    meta: list[Any] = []
    while get_origin(tp) is Annotated:
        tp, *extra = get_args(tp)
        for item in extra:
            meta.extend([item, *item.metadata] if isinstance(item, FieldInfo) else [item])
    return tp, meta


def _yaml(value: Any) -> str:
    """A value as params.yaml would write it (flow style; a model: the keys that differ from its defaults)."""
    value = value.model_dump(exclude_defaults=True) if isinstance(value, BaseModel) else value
    value = value.value if isinstance(value, enum.Enum) else sorted(value, key=repr) if isinstance(
        value, (set, frozenset)) else value
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(_yaml, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml(k)}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        plain = _PLAIN_STRING.fullmatch(value) and value.lower() not in _YAML_WORDS
        return value if plain else json.dumps(value, ensure_ascii=False)
    return repr(value)


def _prose(text: str | None) -> str:
    """Docstring or description text as one Markdown line: RST literals and roles become code spans, and ``<``/``>``
    outside code spans that could open an HTML tag are escaped (``<unk>`` would otherwise vanish)."""
    text = re.sub(r":[\w:]+:`~?([^`]*)`", r"`\1`", " ".join((text or "").split())).replace("``", "`")
    return safe_markdown(text)


def _doc(cls: type) -> str:
    """The first paragraph of a class's own docstring (not an inherited one)."""
    doc = cls.__dict__.get("__doc__")
    return _prose(inspect.cleandoc(doc).split("\n\n")[0]) if isinstance(doc, str) and doc.strip() else ""


def _note(meta: Any) -> str | None:
    """One constraint in words, or None for metadata that constrains nothing a user writes."""
    for kind, attr, sign in _BOUNDS:
        if isinstance(meta, kind):
            return f"{sign} {_yaml(getattr(meta, attr))}"
    if isinstance(meta, (at.MinLen, at.MaxLen)):
        bound = getattr(meta, "min_length", None)
        return "non-empty" if bound == 1 else f"length ≥ {bound}" if bound else f"length ≤ {meta.max_length}"
    if isinstance(getattr(meta, "pattern", None), str):
        return f"matches `{meta.pattern}`"
    func = getattr(meta, "func", None)
    return _VALIDATOR_NOTES.get(f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', '')}")


def _constraints(tp: Any, field_meta: list[Any] | tuple[Any, ...] = ()) -> list[str]:
    """Bounds, lengths, patterns and known validators of an annotation, items of lists and dicts included."""
    tp, meta = _unwrap(tp)
    notes = [note for note in map(_note, [*field_meta, *meta]) if note]
    origin, args = get_origin(tp), get_args(tp)
    if _is_union(tp):
        members = [a for a in args if a is not type(None)]
        for member in members:
            sub = _constraints(member)
            if sub:
                notes.append(", ".join(sub) if len(members) == 1 else f"{_type_text(member)}: {', '.join(sub)}")
    elif _is_sequence(tp) or origin is tuple:
        subs = [_constraints(a) for a in args if a is not Ellipsis]
        if subs and subs[0] and all(s == subs[0] for s in subs):
            notes.append("each " + ", ".join(subs[0]))
        else:
            notes += [f"item {i + 1}: {', '.join(s)}" for i, s in enumerate(subs) if s]
    elif origin is dict:
        notes += [f"{label}: {', '.join(sub)}" for label, sub in zip(("keys", "values"), map(_constraints, args)) if sub]
    return list(dict.fromkeys(notes))


def _type_text(tp: Any, anchors: dict[type, str] | None = None) -> str:
    """A readable type: ``int``, ``list[str]``, ``one of `a`, `b```, a link to a nested model's section."""
    anchors = anchors or {}
    tp, _ = _unwrap(tp)
    origin, args = get_origin(tp), get_args(tp)
    if tp is type(None):
        return "null"
    if _is_model(tp):
        return f"[{tp.__name__}](#{anchors[tp]})" if tp in anchors else tp.__name__
    if _is_union(tp):
        parts = [_type_text(a, anchors) for a in args]
        if any(p.startswith("one of ") for p in parts) and all(p.startswith("one of ") or p == "null" for p in parts):
            return "one of " + ", ".join(part.removeprefix("one of ") for part in parts)  # not "`a`, `b` or null"
        return " or ".join(parts)
    if origin is Literal or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
        values = args if origin is Literal else [member.value for member in tp]
        return ("one of " if len(values) > 1 else "") + ", ".join(f"`{_yaml(v)}`" for v in values)
    if _is_sequence(tp):
        inner = _type_text(args[0], anchors)
        return f"list[{inner}]" if _SIMPLE.fullmatch(inner) else f"list, each {inner}" if inner.startswith(
            "one of ") else f"list of {inner}"
    if origin is tuple:
        return "[" + ", ".join(_type_text(a, anchors) for a in args) + "]"
    if origin is dict:
        key, value = (_type_text(a, anchors) for a in args)
        return f"dict[{key}, {value}]" if _SIMPLE.fullmatch(key + value) else f"map of {key} → {value}"
    return getattr(tp, "__name__", str(tp))


def _default(info: FieldInfo) -> str:
    if info.default is PydanticUndefined and info.default_factory is None:
        return "*required*"
    try:
        value = info.get_default(call_default_factory=True, validated_data={})
    except Exception:  # a factory that needs other fields' values: nothing to show without them
        return "*computed*"
    if isinstance(value, BaseModel) and not value.model_dump(exclude_defaults=True):
        return "its defaults"
    return f"`{_yaml(value)}`"


def _holder(tp: Any) -> tuple[str, list[type[BaseModel]], str | None] | None:
    """Where an annotation holds models: (path suffix, the model classes, their discriminator), else None."""
    tp, meta = _unwrap(tp)
    origin, args = get_origin(tp), get_args(tp)
    if _is_model(tp):
        return "", [tp], None
    if _is_union(tp):
        members = [_unwrap(a)[0] for a in args if a is not type(None)]
        if not members or not all(map(_is_model, members)):
            return None
        tags = [m.discriminator for m in meta if isinstance(m, FieldInfo) and isinstance(m.discriminator, str)]
        return "", members, (tags or [None])[0]
    inner = _holder(args[0]) if _is_sequence(tp) else _holder(args[1]) if origin is dict else None
    return (("[<i>]" if origin is not dict else ".<name>") + inner[0], inner[1], inner[2]) if inner else None


class _Reference:
    """Two walks over the schema: the first names each model class's section, the second writes the sections."""

    def __init__(self, root: type[BaseModel]) -> None:
        self.root, self.anchors, self.rendered = root, {}, {root}
        self.paths: dict[type, list[str]] = {root: [""]}
        self._collect(root, "")

    @staticmethod
    def _children(cls: type[BaseModel], path: str) -> Iterator[tuple[str, str, FieldInfo, list[type], str | None]]:
        """(field path, path of the held models, field, model classes, discriminator) of fields that hold models."""
        for name, info in cls.model_fields.items():
            held = _holder(info.annotation)
            if held:
                field_path = f"{path}.{name}" if path else name
                tag = held[2] or (info.discriminator if isinstance(info.discriminator, str) else None)
                yield field_path, field_path + held[0], info, held[1], tag

    def _collect(self, cls: type[BaseModel], path: str) -> None:
        for _, model_path, _, models, _ in self._children(cls, path):
            for model in models:
                if model in self.paths:
                    self.paths[model] += [] if model_path in self.paths[model] else [model_path]
                    continue
                self.paths[model], anchor = [model_path], model.__name__.lower()
                while anchor in self.anchors.values():
                    anchor += "-"
                self.anchors[model] = anchor
                self._collect(model, model_path)

    def _table(self, cls: type[BaseModel], path: str) -> list[str]:
        rows = ["| Key | Type | Default | Constraints | Description |", "|---|---|---|---|---|"]
        for name, info in cls.model_fields.items():
            cells = [f"`{path}.{name}`" if path else f"`{name}`", _type_text(info.annotation, self.anchors),
                     _default(info), "; ".join(_constraints(info.annotation, info.metadata)), _prose(info.description)]
            rows.append("| " + " | ".join(" ".join(cell.split()).replace("|", "\\|") for cell in cells) + " |")
        return [*rows, ""]

    def _body(self, cls: type[BaseModel], path: str, level: int, intro: list[str]) -> list[str]:
        """A model's section below its heading: introduction, table, then its nested models' sections."""
        self.rendered.add(cls)
        elsewhere = [f"`{p}`" for p in self.paths[cls] if p != path]
        intro = [_doc(cls), *intro, "Also used at " + ", ".join(elsewhere) + "." if elsewhere else ""]
        lines = [" ".join(part for part in intro if part), ""] if any(intro) else []
        lines += self._table(cls, path)
        for field_path, model_path, info, models, tag in self._children(cls, path):
            lines += self._section(field_path, model_path, info, models, tag, level + 1)
        return lines

    def _section(self, field_path: str, path: str, info: FieldInfo, models: list[type], tag: str | None,
                 level: int) -> list[str]:
        """A field holding models: one section for a model, one sub-section per member of a union."""
        if all(model in self.rendered for model in models):
            return []  # documented already; the field's row links there
        hashes, text = "#" * min(level, 6), _prose(info.description)
        described = [f"`{field_path}`: {text}" + ("" if text.endswith(".") else ".")] if text else []
        if len(models) == 1:
            heading = f'{hashes} <a id="{self.anchors[models[0]]}"></a>`{path}` ({models[0].__name__})'
            return [heading, "", *self._body(models[0], path, level, described)]
        picks = [(self._tag_value(model, tag), model) for model in models]
        choice = ", ".join(f"[`{value}`](#{self.anchors[model]})" for value, model in picks)
        lines = [f"{hashes} `{path}`", "", " ".join([*described, f"One of {len(models)} schemas"
                                                    + (f", picked by its `{tag}` key: " if tag else ": ") + choice
                                                    + "."]), ""]
        for value, model in picks:
            if model not in self.rendered:
                label = f" with `{tag}: {value}`" if tag else ""
                lines += [f'{hashes}# <a id="{self.anchors[model]}"></a>`{path}`{label} ({model.__name__})', ""]
                lines += self._body(model, path, level + 1, [])
        return lines

    @staticmethod
    def _tag_value(model: type[BaseModel], tag: str | None) -> str:
        field = model.model_fields.get(tag or "")
        return ", ".join(_yaml(v) for v in get_args(_unwrap(field.annotation)[0])) if field else model.__name__

    def render(self) -> str:
        config, doc = self.root.model_config, _doc(self.root)
        from paragen.safe_yaml import MAX_DEPTH

        rules = ("Unknown keys are rejected when the file is loaded. " if config.get("extra") == "forbid" else "") + (
            "Types are strict: `\"3\"` is not a number and `1` is not a boolean (an integer is a valid float)."
            if config.get("strict") else "") + (
            " Numbers are finite: `.inf`, `-.inf` and `.nan` are refused." if config.get("allow_inf_nan") is False
            else "") + (" No key or text may hold `{` or `}` (Snakemake would read them as wildcards), and the file "
                        f"nests at most {MAX_DEPTH} levels (the top-level mapping is level 1).")
        lines = ["# `params.yaml` reference", "",
                 "> Generated by `paragen params-doc` from the pydantic schema in `src/paragen/config/`; do not edit "
                 "by hand.", "",
                 "`params.yaml` at the repository root is the worked example: it sets every section below, with "
                 "comments on where each value comes from. A key marked *required* must be given; any other key may "
                 "be left out and takes its default. In a key, `<name>` stands for a name you choose and `[<i>]` for "
                 "a list position. " + rules, "", "## Top-level keys", "", *([doc, ""] if doc else []),
                 *self._table(self.root, "")]
        for field_path, model_path, info, models, tag in self._children(self.root, ""):
            lines += self._section(field_path, model_path, info, models, tag, 2)
        return "\n".join(line.rstrip() for line in lines).rstrip() + "\n"


def render_params_reference(root: type[BaseModel] | None = None) -> str:
    """The Markdown reference of ``root`` (default: :class:`~paragen.config.project.ParagenConfig`)."""
    if root is None:
        from paragen.config.project import ParagenConfig

        root = ParagenConfig
    return _Reference(root).render()


def write_params_reference(path: str | Path = DEFAULT_PATH) -> bool:
    """Write the reference to ``path`` (atomically); True when the file changed."""
    return write_if_changed(path, render_params_reference())


def check_params_reference(path: str | Path = DEFAULT_PATH) -> bool:
    """True when ``path`` holds exactly what :func:`render_params_reference` renders now."""
    return holds(path, render_params_reference())
