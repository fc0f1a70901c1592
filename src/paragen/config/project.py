"""The whole of ``params.yaml`` (:class:`ParagenConfig`): cross-checks between sections and the queries the DAG
and the report ask of it."""

from __future__ import annotations

from typing import Annotated, Iterable, Literal

from pydantic import Field, PrivateAttr, model_validator
from paragen.config.base import Name, PositiveInt, _Strict
from paragen.config.local_data import LocalDataset, check_local_dataset
from paragen.config.matrix import MatrixConfig
from paragen.config.datasets import (Evaluation, HeadlineSyntheticDataset, RealDataset, SyntheticDataset, VocabConfig,
                                     _check_real_dataset)
from paragen.config.models import ModelConfig
from paragen.config.cross_checks import check_curves, check_systems
from paragen.config.runs import DecodingConfig, ExperimentConfig, RuleFileConfig, SystemConfig, TrainingConfig
from paragen.config.tables import Comparison, TableConfig


class ParagenConfig(_Strict):
    """The whole of params.yaml."""

    suites: list[Name] = Field(description="suites whose tables are produced")
    scale: Literal["default", "paper"] = Field(
        "default", description="synthetic suite size: the embedded default or the paper's scale"
    )
    seeds: PositiveInt | None = Field(
        None, description="training runs per trained table row (training seeds s, s+1, ...); tables show mean ± sd. "
        "null: 1 at the default scale, 3 at the paper's")
    datasets: dict[Name, Annotated[SyntheticDataset | HeadlineSyntheticDataset | RealDataset | LocalDataset,
                                   Field(discriminator="kind")]] = Field(description="data by name; kind picks the type")
    data: list[Name] = Field(default_factory=list, description="real and local datasets to fetch, prepare and "
                             "segment (rows on the others say they did not run)")
    mirrors: list[str] = Field(default_factory=list, description="local directories or URLs tried before upstream, "
                               "each holding the registry's files at their `mirror:` paths (none by default; e.g. "
                               "--config 'mirrors=[/path/to/mirror]', docs/datasets.md)")
    max_runtime: int = Field(
        2880, ge=120, description="minutes: the most wall time any stage asks a cluster for (Snakemake's `runtime`); "
        "a training estimated longer asks for this and resumes after its last finished epoch in the next job. At "
        "least 120, a download stage's fixed request")
    vocab: VocabConfig = Field(description="vocabulary settings (required: DVC tracks this key)")
    models: dict[Name, ModelConfig] = Field(description="model configurations by name")
    training: dict[Name, TrainingConfig] = Field(description="optimiser and stopping settings by name")
    decoding: dict[Name, DecodingConfig] = Field(description="beam-search settings by name")
    experiments: dict[Name, ExperimentConfig] = Field(description="trained systems: dataset x model x training x decoding")
    rules: dict[Name, RuleFileConfig] = Field(default_factory=dict, description="paraphrase rule files (PPDB)")
    systems: dict[Name, SystemConfig] = Field(default_factory=dict,
                                             description="rows that need no training (003 Table 1 baselines)")
    tables: dict[Name, TableConfig] = Field(description="the paper tables to reproduce, and your own")
    matrix: MatrixConfig | None = Field(None, description="the mechanism x task matrix (suite `matrix`, "
                                        "docs/matrix.md); none: no such suite")
    _implicit_systems: set[str] = PrivateAttr(default_factory=set)  # own tables' source rows (config.own_tables)

    @model_validator(mode="after")
    def _references_resolve(self) -> "ParagenConfig":
        for name, exp in self.experiments.items():
            for field, pool in (
                ("dataset", self.datasets),
                ("model", self.models),
                ("training", self.training),
                ("decoding", self.decoding),
            ):
                value = getattr(exp, field)
                if value not in pool:
                    raise ValueError(
                        f"experiments.{name}.{field}: unknown {field} {value!r}; "
                        f"allowed values: {sorted(pool)}"
                    )
        for name, exp in self.experiments.items():
            dataset = self.datasets[exp.dataset]
            if isinstance(dataset, RealDataset):
                missing = [s for s in ("train", "valid", *dataset.test_splits) if s not in dataset.splits]
                if missing:
                    raise ValueError(f"experiments.{name}.dataset: {exp.dataset!r} lacks split(s) {missing}; "
                                     "training needs train and valid, decoding its test_splits")
                if not dataset.shared_vocab:
                    raise ValueError(f"experiments.{name}.dataset: {exp.dataset!r} has shared_vocab: false; "
                                     "models read one vocabulary for source and target")
        for name in self.data:
            if name not in self.datasets or not isinstance(self.datasets[name], RealDataset):
                real = sorted(n for n, d in self.datasets.items() if isinstance(d, RealDataset))
                raise ValueError(f"data: {name!r} is not a real or local dataset; allowed values: {real}")
        preparations: dict[str, tuple[str, tuple]] = {}
        for name, dataset in self.datasets.items():
            if isinstance(dataset, LocalDataset):
                check_local_dataset(name)
            elif isinstance(dataset, RealDataset):
                _check_real_dataset(name, dataset)
                recipe = dataset.recipe or name
                how = (tuple(dataset.fetch), dataset.fetch_scope, tuple(dataset.splits), dataset.strip_specials,
                       dataset.max_line_chars, dataset.alignment_filter)
                first, first_how = preparations.setdefault(recipe, (name, how))
                if first_how != how:
                    raise ValueError(f"datasets.{name}: shares recipe {recipe!r} with datasets.{first} but differs in "
                                     "fetch, fetch_scope, splits, strip_specials, max_line_chars or alignment_filter; "
                                     "they must agree")
        known_suites = {t.suite for t in self.tables.values()}
        if "matrix" in known_suites:
            raise ValueError("tables: the suite name 'matrix' is the mechanism x task matrix's; name the table's "
                             "suite otherwise")
        if self.matrix is not None:
            known_suites.add("matrix")
        for suite in self.suites:
            if suite not in known_suites:
                raise ValueError(f"suites: unknown suite {suite!r}; allowed values: {sorted(known_suites)} (an "
                                 "empty list, suites=[], builds no table: the data stages of `data` alone)")
        self._check_figures()
        self._check_comparisons()
        self._check_closest_epochs()
        check_systems(self)
        self._check_rule_references()
        self._check_raw_files()
        from paragen.config.own_tables import add_source_rows

        # before the rows are checked: a configuration dumped and parsed again (an engine's --config) names them
        self._implicit_systems = add_source_rows(self)
        for name, table in self.tables.items():
            for exp in table.experiments():
                if exp not in self.experiments and not (table.kind == "scores" and exp in self.systems):
                    allowed = sorted(self.experiments) + (sorted(self.systems) if table.kind == "scores" else [])
                    raise ValueError(f"tables.{name}: unknown experiment or system {exp!r}; allowed values: {allowed}")
        from paragen.config.matrix import expand_matrix
        from paragen.config.seeds import add_replicas

        check_curves(self)  # after every row is known to exist
        expand_matrix(self)
        add_replicas(self)
        return self

    def declared_in_params(self, system: str) -> bool:
        """Whether ``systems.<system>`` is a key of params.yaml (not an implicit source row's system): only such
        keys may be a stage's DVC params."""
        return system in self.systems and system not in self._implicit_systems

    def _check_comparisons(self) -> None:
        """Compared rows are trained rows of their table, on one dataset, with a metric it is scored with."""
        for name, table in self.tables.items():
            for index, comparison in enumerate(table.comparisons):
                key = f"tables.{name}.comparisons[{index}]"
                trained = [label for label, e in table.rows.items() if e in self.experiments]
                for side in ("row", "baseline"):
                    if getattr(comparison, side) not in trained:
                        raise ValueError(f"{key}.{side}: {getattr(comparison, side)!r} is not a trained row of the "
                                         f"table; allowed values: {trained}")
                a, b = (self.experiments[table.rows[getattr(comparison, side)]] for side in ("row", "baseline"))
                if a.dataset != b.dataset:
                    raise ValueError(f"{key}: the rows are trained on different datasets ({a.dataset}, {b.dataset}); "
                                     "paired resampling needs one test set")
                allowed = self.comparison_metrics(a.dataset)
                if comparison.metric is not None and comparison.metric not in allowed:
                    raise ValueError(f"{key}.metric: {comparison.metric!r} is not a metric {a.dataset} is scored "
                                     f"with; allowed values: {allowed}")
                check = comparison.sanity
                if check is not None:
                    systems = [e for e in table.rows.values() if e in self.systems]
                    if check.system not in systems or self.systems[check.system].dataset != a.dataset:
                        raise ValueError(f"{key}.sanity.system: {check.system!r} is not a system row of the table on "
                                         f"{a.dataset} (the report reads its score); allowed values: {systems}")
                    if check.metric not in allowed:
                        raise ValueError(f"{key}.sanity.metric: {check.metric!r} is not a metric {a.dataset} is "
                                         f"scored with; allowed values: {allowed}")

    def _check_closest_run(self, key: str, row: str, retrain: str) -> None:
        """A closest-epoch row from another run must be the row's own experiment trained again: every experiment
        field (dataset, model, decoding, seed, GPUs, ...) and every training setting the same but for how long it
        runs, what it keeps and its CPU threads."""
        if retrain not in self.experiments:
            raise ValueError(f"{key}: {retrain!r} is not an experiment")
        ours, theirs = self.experiments[row].model_dump(), self.experiments[retrain].model_dump()
        ours_training = self.training[ours["training"]].model_dump()
        theirs_training = self.training[theirs["training"]].model_dump()
        differing = [field for field, value in ours.items()
                     if field not in ("training", "seed") and theirs[field] != value]
        if (ours["seed"] if ours["seed"] is not None else ours_training["seed"]) != \
                (theirs["seed"] if theirs["seed"] is not None else theirs_training["seed"]):
            differing.append("seed")  # an experiment's seed replaces training.seed: the one training uses
        free = {"max_epochs", "patience", "keep_epochs", "threads", "seed"}
        training = [f"training.{k}" for k, v in ours_training.items() if k not in free and theirs_training[k] != v]
        if differing or training:
            raise ValueError(f"{key}: {retrain} differs from the row's experiment {row} in {differing + training}; "
                             "only max_epochs, patience, keep_epochs and threads may differ")

    def _check_closest_epochs(self) -> None:
        """Closest-epoch rows: trained rows on rule data with a published row, whose training keeps its epochs."""
        from paragen.config.papers import PaperTable

        for name, table in self.tables.items():
            for label in table.closest_epochs:
                key = f"tables.{name}.closest_epochs"
                if table.rows.get(label) not in self.experiments:
                    trained = [r for r, e in table.rows.items() if e in self.experiments]
                    raise ValueError(f"{key}: {label!r} is not a trained row of the table; allowed values: {trained}")
                experiment = table.closest_run(label)
                if experiment != table.rows[label]:
                    self._check_closest_run(f"tables.{name}.closest_runs.{label}", table.rows[label], experiment)
                spec = self.experiments[experiment]
                if not isinstance(self.datasets[spec.dataset], SyntheticDataset):
                    raise ValueError(f"{key}: {label!r} does not learn rule data (the closest epoch is judged on its "
                                     "per-type validation exact match)")
                if label not in PaperTable.load(table.paper).rows:
                    raise ValueError(f"{key}: the paper has no row {label!r} to be close to")
                if not self.training[spec.training].keep_epochs:
                    raise ValueError(f"{key}: {label!r} needs its epochs' weights: set training.{spec.training}."
                                     "keep_epochs (e.g. all)")

    def comparison_metrics(self, dataset: str) -> list[str]:
        """Metrics a paired bootstrap can resample on ``dataset``'s test set (odd generation: the share of sentences
        without it)."""
        spec = self.datasets[dataset]
        if isinstance(spec, SyntheticDataset):
            return ["exact"]
        return list(spec.evaluation.metrics)

    def comparison_metric(self, table: TableConfig, comparison: Comparison) -> str:
        """The metric a comparison resamples: its own, or the first its dataset allows."""
        return comparison.metric or self.comparison_metrics(self.experiments[table.rows[comparison.row]].dataset)[0]

    def _check_figures(self) -> None:
        """Figure rows name trained rows of their table, on a test split of their dataset; q_j needs an SPM model."""
        for name, table in self.tables.items():
            named = []
            if table.alignment_figure is not None:
                figure = table.alignment_figure
                named += [("alignment_figure.attention", figure.attention, figure.split),
                          ("alignment_figure.source_prediction", figure.source_prediction, figure.split)]
            if table.oddgen_figure is not None:
                named += [("oddgen_figure.rows", row, table.oddgen_figure.split) for row in table.oddgen_figure.rows]
            if table.aligned_pairs is not None:
                named.append(("aligned_pairs.row", table.aligned_pairs.row, table.aligned_pairs.split))
            for key, row, split in named:
                experiment = table.rows.get(row)
                if experiment not in self.experiments:
                    trained = [label for label, e in table.rows.items() if e in self.experiments]
                    raise ValueError(f"tables.{name}.{key}: {row!r} is not a trained row of the table; allowed values: "
                                     f"{trained}")
                splits = self.test_splits(self.experiments[experiment].dataset)
                if split not in splits:
                    raise ValueError(f"tables.{name}.{key.split('.')[0]}.split: {split!r} is not a test split of "
                                     f"{self.experiments[experiment].dataset}; allowed values: {splits}")
                evaluation = self.evaluation(experiment)
                if key == "oddgen_figure.rows" and (evaluation is None or "oddgen" not in evaluation.metrics):
                    raise ValueError(f"tables.{name}.{key}: {row!r} is not scored with oddgen (add it to "
                                     f"datasets.{self.experiments[experiment].dataset}.evaluation.metrics)")
            spm_rows = ([("alignment_figure.source_prediction", table.alignment_figure.source_prediction)]
                        if table.alignment_figure is not None else []) + \
                ([("aligned_pairs.row", table.aligned_pairs.row)] if table.aligned_pairs is not None else [])
            for key, row in spm_rows:
                model = self.experiments[table.rows[row]].model
                if self.models[model].source_prediction is None:
                    raise ValueError(f"tables.{name}.{key}: row {row!r} (model {model}) has no source-side "
                                     "prediction head to draw")

    def test_splits(self, dataset: str) -> list[str]:
        """The splits an experiment on ``dataset`` decodes and scores."""
        spec = self.datasets[dataset]
        return list(spec.test_splits) if isinstance(spec, RealDataset) else ["test"]

    def splits_of(self, row: str) -> list[str]:
        """The splits a row's output is written and scored on: an experiment's test splits; an identity system's too
        (the source is there on every split); any other system's test split alone."""
        system = self.systems.get(row)
        if system is None or system.method == "identity":
            return self.test_splits(self.dataset_of(row))
        return ["test"]

    def evaluation(self, name: str) -> "Evaluation | None":
        """How ``paragen evaluate`` scores an experiment or system (None: exact match by ``paragen score``)."""
        spec = self.datasets[self.dataset_of(name)]
        return spec.evaluation if isinstance(spec, (RealDataset, HeadlineSyntheticDataset)) else None

    def _check_rule_references(self) -> None:
        named = [(f"models.{n}.dmass.rules", m.dmass.rules) for n, m in self.models.items() if m.dmass] + \
                [(f"training.{n}.critic.rules", c.critic.rules) for n, c in self.training.items() if c.critic]
        for key, rules in named:
            if rules not in self.rules:
                raise ValueError(f"{key}: unknown rules {rules!r}; allowed values: {sorted(self.rules)}")

    def _check_raw_files(self) -> None:
        """Every file named by registry entry (rule files, pretrained vectors) names a known entry."""
        files = {f"rules.{n}.fetch": spec for n, spec in self.rules.items()}
        files |= {f"models.{n}.pretrained_embeddings.fetch": m.pretrained_embeddings
                  for n, m in self.models.items() if m.pretrained_embeddings}
        if not files:
            return
        from paragen.data.registry import load_registry

        registry = load_registry()
        for key, spec in files.items():
            if spec.fetch not in registry:
                raise ValueError(f"{key}: unknown registry entry {spec.fetch!r}; allowed values: {sorted(registry)}")

    def active_tables(self) -> dict[str, TableConfig]:
        """Tables of the enabled suites at the selected scale, in declaration order."""
        return {
            name: t
            for name, t in self.tables.items()
            if t.suite in self.suites and (t.scale is None or t.scale == self.scale)
        }

    def dataset_of(self, name: str) -> str:
        """The dataset of an experiment or of a system."""
        return (self.experiments[name] if name in self.experiments else self.systems[name]).dataset

    def runnable(self, name: str) -> bool:
        """Synthetic experiments always run; real ones only when their dataset is switched on in ``data``;
        a system that rewrites another row's output also needs that row."""
        dataset = self.dataset_of(name)
        if name in self.systems and self.systems[name].input != "source" \
                and not self.runnable(self.systems[name].input):
            return False
        return isinstance(self.datasets[dataset], (SyntheticDataset, HeadlineSyntheticDataset)) or dataset in self.data

    def _active_rows(self) -> list[str]:
        """Runnable rows of the active scores tables, plus the rows whose output a system rewrites."""
        seen: dict[str, None] = {}

        def add(name: str) -> None:
            if name in self.systems and self.systems[name].input != "source":
                add(self.systems[name].input)
            seen.setdefault(name, None)

        for table in self.active_tables().values():
            if table.kind == "scores":
                for row in table.rows.values():
                    if self.runnable(row):
                        add(row)
                for label, retrain in table.closest_runs.items():
                    if self.runnable(table.rows[label]) and self.runnable(retrain):
                        add(retrain)
        if "matrix" in self.suites and self.matrix is not None:
            for task in self.matrix.tasks.values():
                if task.sanity is not None and self.runnable(task.sanity.system):
                    add(task.sanity.system)
        return list(seen)

    def trained_and_runnable(self, rows: Iterable[str]) -> list[str]:
        """The rows that are trained experiments (not systems) and can run: what has a training log."""
        return [row for row in rows if row in self.experiments and self.runnable(row)]

    def active_experiments(self) -> list[str]:
        """Experiments the active scores tables need and can run, deduplicated, in table order; each followed by
        its seed replicas (``seeds:``); then the runs of the tables' confirmation seeds."""
        from paragen.config.seeds import confirmation_runs, replicas

        runs = [run for name in self._active_rows() if name in self.experiments for run in replicas(self, name)]
        for table in self.active_tables().values():
            if table.confirmation is not None and table.kind == "scores":
                runs += [run for name in table.rows.values() if self.runnable(name)
                         for run, _ in confirmation_runs(self, name, table.confirmation.seeds)]
        return list(dict.fromkeys(runs + self.matrix_runs()))

    def retrain_only_runs(self) -> set[str]:
        """Runs whose experiment only gives a closest-epoch row (``closest_runs``): trained, never decoded whole,
        since no table shows their selected checkpoint."""
        from paragen.config.seeds import replicas

        tables = [t for t in self.active_tables().values() if t.kind == "scores"]
        shown = {e for t in tables for e in t.rows.values()} | {c.experiment for c in self._matrix_cells()}
        return {run for t in tables for e in t.closest_runs.values() if e not in shown for run in replicas(self, e)}

    def _matrix_cells(self) -> list:
        """The matrix's cells (:class:`paragen.config.matrix.MatrixCell`) when the suite ``matrix`` is on, else none."""
        from paragen.config.matrix import matrix_cells

        return matrix_cells(self) if "matrix" in self.suites else []

    def matrix_runs(self) -> list[str]:
        """The seed runs of the matrix's cells that apply and can run, when the suite ``matrix`` is on."""
        return [run for cell in self._matrix_cells() if cell.applies and self.runnable(cell.experiment)
                for run, _ in cell.runs]

    @property
    def seed_count(self) -> int:
        """Training runs per trained row: ``seeds``, or 1 at the default scale and 3 at the paper's."""
        return self.seeds if self.seeds is not None else (3 if self.scale == "paper" else 1)

    def training_of(self, experiment: str) -> TrainingConfig:
        """An experiment's training settings, with its own seed where it has one (a seed replica)."""
        spec = self.experiments[experiment]
        training = self.training[spec.training]
        return training if spec.seed is None else training.model_copy(update={"seed": spec.seed})

    def active_systems(self) -> list[str]:
        """Systems (rows without training) the active tables need and can run, inputs first."""
        return [name for name in self._active_rows() if name in self.systems]
