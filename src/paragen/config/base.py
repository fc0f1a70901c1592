"""What every section of params.yaml is built from: strict models, shared types, safe names, the error."""

from __future__ import annotations

import re
from typing import Annotated, Any, Iterator, Literal, Mapping

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError


Architecture = Literal["encdec", "rnnsearch", "copynet", "wean", "transformer"]
AttentionScore = Literal["dot", "general", "concat", "bahdanau"]
WeanScore = Literal["dot", "general", "concat"]
PositiveInt = Annotated[int, Field(gt=0)]
IntRange = Annotated[tuple[PositiveInt, PositiveInt],
                     BeforeValidator(lambda value: tuple(value) if isinstance(value, list) else value)]
"""A [min, max] pair; YAML writes it as a list."""
Fraction = Annotated[float, Field(gt=0.0, lt=1.0)]


def _unique(values: list) -> list:
    repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
    if repeated:
        raise ValueError(f"{repeated} listed more than once")
    return values


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""What a dataset, model, training, decoding, experiment, rules, system, table or suite name may be: it becomes
part of file paths (``runs/<experiment>``) and stage commands, so no ``/``, ``.``, spaces or shell characters."""


def _safe_name(name: str) -> str:
    if not SAFE_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a usable name: use letters, digits, '_' and '-' only, starting with a "
                         "letter or digit (names become file paths and command arguments)")
    return name


Name = Annotated[str, AfterValidator(_safe_name)]


def _published_file(name: str) -> str:
    """A ``tables.*.paper`` value: the stem of a file in ``paragen/paper_results`` (checked at load time)."""
    from importlib import resources

    known = sorted(p.name[:-5] for p in resources.files("paragen.paper_results").iterdir() if p.name.endswith(".yaml"))
    if name not in known:
        raise ValueError(f"no published-number file {name!r} in paragen/paper_results; allowed values: {known}")
    return name


BRACES = "{}"
"""Characters no key or text of params.yaml may hold. Snakemake reads ``{name}`` in a rule's output paths and in
its ``params`` as a wildcard: the stage commands and the params values of each rule (``param_values`` in
workflow/rules/common.smk, which carry whole sections: a table's title, note, setup and row labels, a rule
file's title and note, mirror paths and URLs) are such params, and the report's categories come from the
tables' titles. One ``{`` there stops ``snakemake`` with an unrelated ``WildcardError`` while ``dvc repro``
accepts it, so the schema refuses braces everywhere, in every engine and command alike, naming the key.
(Captions reach Snakemake's Jinja and RST escaped, ``paragen.pipeline.snakemake_report``; they would be safe.)"""


def _braced(data: Mapping[Any, Any]) -> Iterator[tuple[tuple[Any, ...], str, str, bool]]:
    """(location, brace, the string, whether it is the key) of every string under ``data`` with a brace, in file
    order; walked with a stack, not recursion (the YAML loader bounds nesting, a Python caller may not)."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        where, value = stack.pop()
        children: list[tuple[tuple[Any, ...], Any]] = []
        if isinstance(value, str):
            brace = next((c for c in value if c in BRACES), None)
            if brace:
                yield where, brace, value, False
        elif isinstance(value, Mapping):
            for key, child in value.items():
                brace = next((c for c in key if c in BRACES), None) if isinstance(key, str) else None
                if brace:
                    yield (*where, key), brace, key, True
                children.append(((*where, key), child))
        elif isinstance(value, (list, tuple)):
            children = [((*where, i), child) for i, child in enumerate(value)]
        stack.extend(reversed(children))


class ConfigError(ValueError):
    """``params.yaml`` does not match the schema; the message names each bad key."""


class _Strict(BaseModel):
    """Base model that rejects unknown keys and loose types, so a mistake never passes silently.

    Strict types: ``batch_size: true`` is not the integer 1, ``"3"`` is not a number, ``1`` is not a
    boolean (an integer is still a valid float).

    Finite numbers: YAML reads ``.inf``, ``-.inf`` and ``.nan`` as floats, and a ``gt=0`` bound lets ``.inf``
    through; an infinite learning rate turns every weight into NaN at the first step, and a NaN anywhere makes
    comparisons false without a word. ``allow_inf_nan=False`` here, on the base of every section's model,
    covers every float field, bounded or not, nested in a tuple, list or dict too, without repeating it per field.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _no_braces(cls, data: Any) -> Any:
        """Refuse ``{`` and ``}`` in any key or string of this section (see :data:`BRACES`), each at its key."""
        if not isinstance(data, Mapping):
            return data
        errors = []
        for where, brace, text, in_key in _braced(data):
            what = f"the key {text!r} contains {brace!r}" if in_key else f"{brace!r} in {text!r}"
            message = f"{what}: Snakemake would read {{...}} as a wildcard; write it without braces"
            errors.append(InitErrorDetails(type=PydanticCustomError("braces", "{message}", {"message": message}),
                                           loc=where, input=text))
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return data
