"""``matrix:``: every mechanism of the four papers on every task, under one protocol (docs/matrix.md).

Each paper tests its mechanism on its own task only. The matrix crosses mechanisms (CopyNet's copying, WEAN's
embedding queries, 004's selective gate and source-side prediction, DMASS, ...) with tasks (rule data, the
headline stand-in, turk-mini). A mechanism is defined once, as the model fields it sets; a task names the base
model of each family (recurrent, Transformer) that gives those fields their sizes, with its training and decoding.
A cell's model is the base with the mechanism's fields on top and nothing else changed (docs/decisions.md X7).

:func:`expand_matrix` runs once when params.yaml is validated: it declares an experiment per cell that applies,
unless a declared experiment already has the identical dataset, model, training and decoding (then the cell reuses
it and its runs: nothing is trained twice), and the seed replicas ``matrix.seeds`` asks for.
:func:`matrix_cells` answers, for every task x mechanism, which experiment fills it or why none does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, model_validator
from paragen.config.base import Name, PositiveInt, _Strict, _unique
from paragen.config.models import ModelConfig
from paragen.config.tables import BaselineSanity

if TYPE_CHECKING:
    from paragen.config import ParagenConfig

LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9+\-. ()]{0,39}")
"""What a mechanism label may be: it heads a table row and becomes part of an experiment name (slugged)."""
PREFIX = "mx"
"""Experiments and models the matrix declares are named ``mx_<task>_<mechanism slug>``."""
METRIC_PATHS = {"exact": "score", "rouge": "rouge/score/rouge2", "sari": "sari/score", "bleu": "bleu/score"}
"""Where a cell's metric sits in ``results/metrics/<run>.json`` (rouge: ROUGE-2 F1, what ``paragen compare
--metric rouge`` resamples)."""
METRIC_LABELS = {"exact": "exact match (%)", "rouge": "ROUGE-2 F1", "sari": "SARI", "bleu": "BLEU"}


class MatrixFamily(_Strict):
    """A task's base model of one family, with the training and decoding every cell of that family uses."""

    model: Name = Field(description="the base model: its sizes and settings, under the mechanism's fields")
    training: Name = Field(description="training settings (a name under training:)")
    decoding: Name = Field(description="decoding settings (a name under decoding:)")


class MatrixMechanism(_Strict):
    """One mechanism: the model fields it sets on a task's base model of its family."""

    family: Literal["recurrent", "transformer"] = Field(
        "recurrent", description="which base model of each task it modifies")
    settings: dict[str, Any] = Field(default_factory=dict, description="model fields (as under models:) set on the "
                                     "base; empty: the base itself")
    note: str = Field("", description="what the mechanism is, for the table's notes")

    @model_validator(mode="after")
    def _known_fields(self) -> "MatrixMechanism":
        unknown = sorted(set(self.settings) - set(ModelConfig.model_fields))
        if unknown:
            raise ValueError(f"settings: {unknown} are not model fields; allowed values: {sorted(ModelConfig.model_fields)}")
        return self


class MatrixTask(_Strict):
    """One task (a column): its dataset, base models, main metric and baseline."""

    label: str = Field(description="the column heading")
    dataset: Name = Field(description="the dataset every cell trains and tests on")
    recurrent: MatrixFamily = Field(description="base of the recurrent mechanisms")
    transformer: MatrixFamily | None = Field(None, description="base of the Transformer mechanisms (none: they do "
                                             "not apply)")
    metric: Literal["exact", "rouge", "sari", "bleu"] = Field(
        description="main metric: cells, ranks and the paired test (rouge: ROUGE-2 F1)")
    also: list[Literal["rouge", "sari", "bleu"]] = Field(default_factory=list,
                                                         description="metrics shown beside it in the CSV")
    baseline: str = Field(description="the mechanism every other cell of the column is tested against")
    skip: dict[str, str] = Field(default_factory=dict, description="mechanism -> why it does not apply to this task")
    sanity: BaselineSanity | None = Field(None, description="a bound the baseline must reach for the column's verdicts "
                                        "to count")


class MatrixConfig(_Strict):
    """The mechanism x task matrix (suite ``matrix``)."""

    title: str = Field(description="the table's heading")
    seeds: list[int] = Field([1, 2, 3], min_length=1, description="training seeds of every cell (X16: X4's three, "
                             "a verdict needs 2 of 3; [1] is X6's one-seed run for the 90-minute budget)")
    samples: PositiveInt = Field(1000, description="paired bootstrap resamples per test")
    mechanisms: dict[str, MatrixMechanism] = Field(min_length=1, description="row label -> mechanism")
    tasks: dict[Name, MatrixTask] = Field(min_length=1, description="task name -> task (a column)")
    _declared: dict[str, tuple[str, str]] = PrivateAttr(default_factory=dict)  # model -> (task, mechanism)
    _cells: list = PrivateAttr(default_factory=list)  # the MatrixCells, decided once by expand_matrix

    @model_validator(mode="after")
    def _labels(self) -> "MatrixConfig":
        _unique(self.seeds)
        slugs: dict[str, str] = {}
        for label in self.mechanisms:
            if not LABEL.fullmatch(label):
                raise ValueError(f"mechanisms: {label!r} is not a usable label (letters, digits, '+', '-', '.', "
                                 "spaces and parentheses, at most 40 characters)")
            other = slugs.setdefault(slug(label), label)
            if other != label:
                raise ValueError(f"mechanisms: {label!r} and {other!r} give the same experiment name {slug(label)!r}")
        for name, task in self.tasks.items():
            for key, label in [("baseline", task.baseline)] + [("skip", s) for s in task.skip]:
                if label not in self.mechanisms:
                    raise ValueError(f"tasks.{name}.{key}: {label!r} is not a mechanism; allowed values: "
                                     f"{list(self.mechanisms)}")
            if task.baseline in task.skip:
                raise ValueError(f"tasks.{name}: the baseline {task.baseline!r} is skipped")
        return self

    def required(self) -> int:
        """Seeds whose test must give p < 0.05 for a verdict: ⌈2n/3⌉ of n (X3: 2 of 3; X6: 1 of 1)."""
        return math.ceil(2 * len(self.seeds) / 3)


def slug(label: str) -> str:
    """``sGate+SPM`` -> ``sgate_spm``: a mechanism label as part of a name."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


@dataclass(frozen=True)
class MatrixCell:
    """One task x mechanism: the experiment filling it and its seed runs, or why none does."""

    task: str
    mechanism: str
    experiment: str | None  # None: it does not apply
    reason: str | None  # why not
    runs: tuple[tuple[str, int], ...]  # (run name, training seed) per matrix seed

    @property
    def applies(self) -> bool:
        return self.experiment is not None


def composed_model(config: ParagenConfig, task: MatrixTask, mechanism: MatrixMechanism) -> ModelConfig | str:
    """The cell's model (the base with the mechanism's fields on top), or why it does not apply."""
    family = _family(task, mechanism)
    if family is None:
        return "the task has no Transformer base (matrix.tasks.*.transformer)"
    try:
        return ModelConfig.model_validate({**config.models[family.model].model_dump(), **mechanism.settings})
    except ValidationError as error:
        return "; ".join(e["msg"].removeprefix("Value error, ") for e in error.errors())


def _family(task: MatrixTask, mechanism: MatrixMechanism) -> MatrixFamily | None:
    """The task's base of the mechanism's family (None: the task has no Transformer base)."""
    return task.recurrent if mechanism.family == "recurrent" else task.transformer


def same_experiment(config: ParagenConfig, dataset: str, model: ModelConfig, family: MatrixFamily) -> str | None:
    """A declared experiment (not a seed replica) with this dataset, training, decoding and an identical model."""
    wanted = model.model_dump()
    for name, spec in config.experiments.items():
        if (spec.seed is None and spec.dataset == dataset and spec.training == family.training
                and spec.decoding == family.decoding and config.models[spec.model].model_dump() == wanted):
            return name
    return None


def _cell_setting(config: ParagenConfig, name: str, label: str) -> tuple[ModelConfig | None, str | None]:
    task, mechanism = config.matrix.tasks[name], config.matrix.mechanisms[label]  # type: ignore[union-attr]
    if label in task.skip:
        return None, task.skip[label]
    model = composed_model(config, task, mechanism)
    return (None, model) if isinstance(model, str) else (model, None)


def _seed_run(config: ParagenConfig, experiment: str, seed: int) -> str:
    """The run of ``experiment`` trained with ``seed``: itself for its own seed, else its replica (declared)."""
    from paragen.config.seeds import _declare, base_seed

    return experiment if seed == base_seed(config, experiment) else _declare(config, experiment, seed)


def expand_matrix(config: ParagenConfig) -> None:
    """Declare the matrix's experiments (reusing identical declared ones) and their seed replicas (called once, on
    validation, before the suites' seed replicas)."""
    matrix = config.matrix
    if matrix is None:
        return
    matrix._cells = []  # decided afresh for this configuration
    for name, task in matrix.tasks.items():
        for key, family in (("recurrent", task.recurrent), ("transformer", task.transformer)):
            if family is None:
                continue
            for field, pool in (("model", config.models), ("training", config.training),
                                ("decoding", config.decoding)):
                if getattr(family, field) not in pool:
                    raise ValueError(f"matrix.tasks.{name}.{key}.{field}: unknown {field} {getattr(family, field)!r}; "
                                     f"allowed values: {sorted(pool)}")
        if task.sanity is not None:
            system = config.systems.get(task.sanity.system)
            if system is None or system.dataset != task.dataset:
                allowed = sorted(n for n, s in config.systems.items() if s.dataset == task.dataset)
                raise ValueError(f"matrix.tasks.{name}.sanity.system: {task.sanity.system!r} is not a system on "
                                 f"{task.dataset}; allowed values: {allowed}")
        if task.dataset not in config.datasets:
            raise ValueError(f"matrix.tasks.{name}.dataset: unknown dataset {task.dataset!r}; allowed values: "
                             f"{sorted(config.datasets)}")
        scored = config.comparison_metrics(task.dataset)
        for key, metric in [("metric", task.metric)] + [("also", m) for m in task.also] + (
                [("sanity.metric", task.sanity.metric)] if task.sanity else []):
            if metric not in scored:
                raise ValueError(f"matrix.tasks.{name}.{key}: {task.dataset} is not scored with {metric!r}; allowed "
                                 f"values: {scored}")
        cells = []
        for label, mechanism in matrix.mechanisms.items():
            model, reason = _cell_setting(config, name, label)
            if model is None:
                cells.append(MatrixCell(name, label, None, reason, ()))
                continue
            family = _family(task, mechanism)
            assert family is not None  # a cell without its family's base does not apply
            experiment = same_experiment(config, task.dataset, model, family)
            own = f"{PREFIX}_{name}_{slug(label)}"
            if experiment == own and config.experiments[own].model == own:  # declared by an earlier expansion (a
                matrix._declared[own] = (name, label)                        # config dumped and parsed again)
            if experiment is None:
                experiment = own
                if experiment in config.experiments or experiment in config.models:
                    raise ValueError(f"matrix: the name {experiment!r} of cell ({name}, {label}) is taken under "
                                     "experiments: or models:; rename that entry")
                from paragen.config.runs import ExperimentConfig

                config.models[experiment] = model
                matrix._declared[experiment] = (name, label)
                config.experiments[experiment] = ExperimentConfig(
                    dataset=task.dataset, model=experiment, training=family.training, decoding=family.decoding)
            cells.append(MatrixCell(name, label, experiment, None,
                                    tuple((_seed_run(config, experiment, seed), seed) for seed in matrix.seeds)))
        baseline = next(c for c in cells if c.mechanism == task.baseline)
        if not baseline.applies:
            raise ValueError(f"matrix.tasks.{name}.baseline: {task.baseline!r} does not apply to the task "
                             f"({baseline.reason})")
        matrix._cells += cells


def matrix_cells(config: ParagenConfig) -> list[MatrixCell]:
    """Every task x mechanism, tasks first, in params.yaml's order, as :func:`expand_matrix` decided them."""
    return [] if config.matrix is None else list(config.matrix._cells)


def declared_by_matrix(config: ParagenConfig, experiment: str) -> bool:
    """Whether the matrix declared ``experiment`` (``mx_<task>_<mechanism>``), rather than reusing a suite's."""
    return config.matrix is not None and experiment in config.matrix._declared


def model_params(config: ParagenConfig, model: str) -> tuple[str, ...]:
    """The params.yaml keys a model's settings come from: ``models.<model>``, or for a model the matrix declared,
    its task's base model and the matrix's mechanisms and task (DVC refuses keys absent from the file)."""
    declared = config.matrix._declared if config.matrix is not None else {}
    if model not in declared:
        return (f"models.{model}",)
    task, label = declared[model]
    family = _family(config.matrix.tasks[task], config.matrix.mechanisms[label])  # type: ignore[union-attr]
    assert family is not None  # declared cells have their family's base
    return (f"models.{family.model}", "matrix.mechanisms", f"matrix.tasks.{task}")


def baseline_cell(cells: list[MatrixCell], config: ParagenConfig, task: str) -> MatrixCell:
    """The cell every other cell of ``task``'s column is tested against."""
    label = config.matrix.tasks[task].baseline  # type: ignore[union-attr]
    return next(c for c in cells if c.task == task and c.mechanism == label)
