"""Reading ``params.yaml``: bounded safe YAML, errors that name file, line and key, then validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml
from pydantic import ValidationError
from paragen.config.base import ConfigError
from paragen.config.datasets import DATASET_KINDS
from paragen.config.project import ParagenConfig


def _format_errors(error: ValidationError, source: str) -> str:
    lines = [f"{source}: invalid configuration"]
    for item in error.errors():
        loc = list(item["loc"])
        if len(loc) > 2 and loc[0] == "datasets" and loc[2] in DATASET_KINDS:
            del loc[2]  # pydantic names the union member; params.yaml has no such key
        key = ".".join(str(part) for part in loc) or "(top level)"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key"
        elif item["type"] == "literal_error":
            allowed = item.get("ctx", {}).get("expected", "")
            message = f"got {item.get('input')!r}; allowed values: {allowed}"
        elif item["type"] == "missing":
            message = "required key is missing"
        elif item["type"] == "finite_number":
            message = f"got {item.get('input')!r}; expected a finite number (not .inf, -.inf or .nan)"
        elif item["type"] in ("int_type", "float_type", "bool_type", "string_type"):
            message = f"{message}, got {item.get('input')!r} ({type(item.get('input')).__name__})"
        lines.append(f"  {key}: {message}")
    return "\n".join(lines)


def parse_config(raw: Mapping[str, Any], source: str = "params.yaml") -> ParagenConfig:
    """Validate an already-loaded mapping (e.g. Snakemake's ``config``)."""
    try:
        return ParagenConfig.model_validate(dict(raw))
    except ValidationError as error:
        raise ConfigError(_format_errors(error, source)) from None


def override_source(path: str | Path, config: Mapping[str, Any], configfiles: Sequence[str | Path] = ()) -> str:
    """What Snakemake's ``config`` was read from, for :func:`parse_config`'s messages: ``params.yaml`` alone, or
    ``params.yaml with --config seeds=2`` when ``snakemake --config`` (``config``: its key=value pairs) or
    ``--configfile`` overrides changed it, so a message blames the overrides only when there were some.

    workflow/rules/common.smk passes Snakemake's ``workflow.config_settings.config`` and ``.configfiles``: the
    command line's values, which ``configfile:`` merges over the file's."""
    given = []
    if configfiles:
        given.append("--configfile " + " ".join(str(f) for f in configfiles))
    if config:
        given.append("--config " + " ".join(f"{key}={value if isinstance(value, str) else json.dumps(value)}"
                                            for key, value in config.items()))
    return f"{path} with {' '.join(given)}" if given else str(path)


def _yaml_error(path: Path, error: yaml.YAMLError) -> ConfigError:
    """``params.yaml:14:8: not valid YAML: expected ',' or ']' ...`` with the offending line shown."""
    mark, start = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    if context:
        problem += f" ({context}{f' that starts at line {start.line + 1}, column {start.column + 1}' if start else ''})"
    if mark is None:
        return ConfigError(f"{path}: not valid YAML: {problem}")
    lines = mark.buffer.splitlines() if mark.buffer else []
    shown = f"\n    {lines[mark.line]}\n    {' ' * mark.column}^" if mark.line < len(lines) else ""
    return ConfigError(f"{path}:{mark.line + 1}:{mark.column + 1}: not valid YAML: {problem}{shown}")


def read_yaml(path: str | Path) -> Any:
    """A configuration file's YAML as plain data (:mod:`paragen.safe_yaml`'s bounds); a missing file, a bound
    passed or a syntax error is a :class:`ConfigError` naming the file (and line and column)."""
    from paragen.safe_yaml import YamlInputError, load_yaml_file

    path = Path(path)
    try:
        return load_yaml_file(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except YamlInputError as error:
        raise ConfigError(str(error)) from None
    except yaml.YAMLError as error:
        raise _yaml_error(path, error) from None


def read_params(path: str | Path = "params.yaml") -> dict[str, Any]:
    """The raw mapping of a params file; syntax errors name the file, line and column.

    The Snakefile calls this before its ``configfile:`` directive, so a YAML mistake reads the same under
    Snakemake (which would only say "not valid JSON or YAML") as under ``paragen`` and DVC.
    """
    path = Path(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(raw).__name__}")
    # Snakemake's configfile: would act on some keys (``__use_yte__: true`` runs the file as a YTE template,
    # evaluating Python) before paragen validates anything: refuse every key the schema lacks, here, first
    unknown = [key for key in raw if key not in ParagenConfig.model_fields]
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {', '.join(map(repr, unknown))}; allowed keys: "
                          f"{', '.join(ParagenConfig.model_fields)}")
    return raw


def load_config(path: str | Path = "params.yaml") -> ParagenConfig:
    """Read and validate ``params.yaml``."""
    return parse_config(read_params(path), str(path))
