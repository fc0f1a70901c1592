"""What each active table needs and draws, decided once from ``params.yaml``: its rows -> experiments -> seed
runs -> their metric and log files, which rows can run (and why not), which figures it draws.

:func:`table_plan` builds a :class:`TablePlan`; the report stage (:mod:`paragen.pipeline.report_stages`) turns it
into inputs and outputs, and ``paragen report`` (:mod:`paragen.report.build`) fills the same files from it, so the
DAG and the report cannot disagree about what a table shows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from paragen.artifacts import (aligned_pairs_outputs, comparisons_csv_path, alignment_path, closest_choice_path, closest_metrics_path, heldout_path,
                               experiment_data, figure_paths,
                               examples_data_path, examples_path, heatmap_paths, metrics_path, oddgen_figure_path,
                               provenance_dir, run_dir, table_outputs, table_page_path)
from paragen.config import Comparison, ConfigError, ParagenConfig, SyntheticDataset, TableConfig
from paragen.config.papers import Column, PaperTable
from paragen.config.seeds import confirmation_runs, replica_runs, replicas
from paragen.pipeline.curves import curve_column


def rule_data_rows(config: ParagenConfig, experiments: list[str]) -> bool:
    """Whether the trained rows learn CopyNet's rule data: their logs carry per-rule-type validation accuracy."""
    return any(isinstance(config.datasets[config.experiments[e].dataset], SyntheticDataset)
               for e in experiments if e in config.experiments)


def panel_experiments(config: ParagenConfig, experiments: list[str]) -> tuple[str, ...]:
    """Trained rows whose log carries 003 Figure 1's metrics (``training.*.log_metrics``): each gets its panels."""
    return tuple(e for e in experiments if e in config.experiments
                 and config.training[config.experiments[e].training].log_metrics)


def attention_traced_experiments(config: ParagenConfig, experiments: list[str]) -> list[str]:
    """RNNSearch runs on rule data: their decode stage also writes the attention trace, drawn beside CopyNet's
    copy-mode map (how far attention alone finds the words to repeat)."""
    return [e for e in experiments if e in config.experiments
            and config.models[config.experiments[e].model].architecture == "rnnsearch"
            and isinstance(config.datasets[config.experiments[e].dataset], SyntheticDataset)]


def trace_of(config: ParagenConfig, experiment: str) -> str | None:
    """What the decode stage of ``experiment`` traces on the test split: "copy", "attention" or nothing."""
    if copy_traced_experiments(config, [experiment]):
        return "copy"
    return "attention" if attention_traced_experiments(config, [experiment]) else None


def copy_traced_experiments(config: ParagenConfig, experiments: list[str]) -> list[str]:
    """CopyNet runs on rule data: their decode stage also writes the copy-mode trace (Figure 3), which picks its
    lines by rule type (the headline stand-in has none)."""
    return [e for e in experiments if e in config.experiments
            and config.models[config.experiments[e].model].architecture == "copynet"
            and isinstance(config.datasets[config.experiments[e].dataset], SyntheticDataset)]


def compared_runs(config: ParagenConfig, table: TableConfig, comparison: Comparison) -> list[tuple[str, str, int]]:
    """(row's run, baseline's run, seed) per seed a comparison tests: seed k of one against seed k of the other;
    none when a row cannot run."""
    row, baseline = table.rows[comparison.row], table.rows[comparison.baseline]
    if not (config.runnable(row) and config.runnable(baseline)):
        return []
    return [(a, b, seed) for (a, seed), b in zip(replica_runs(config, row), replicas(config, baseline))]


def confirmed_runs(config: ParagenConfig, table: TableConfig, comparison: Comparison) -> list[tuple[str, str, int]]:
    """(row's run, baseline's run, seed) per confirmation seed of the table (none without confirmation seeds or when
    a row cannot run)."""
    row, baseline = table.rows[comparison.row], table.rows[comparison.baseline]
    if table.confirmation is None or not (config.runnable(row) and config.runnable(baseline)):
        return []
    seeds = table.confirmation.seeds
    return [(a, b, seed) for (a, seed), (b, _) in zip(confirmation_runs(config, row, seeds),
                                                      confirmation_runs(config, baseline, seeds))]


def heatmap_experiments(config: ParagenConfig, table: TableConfig) -> tuple[str, ...]:
    """The experiments a table's heat maps draw (attention, then q_j), when both can run; else none."""
    figure = table.alignment_figure
    if figure is None:
        return ()
    drawn = (table.rows[figure.attention], table.rows[figure.source_prediction])
    return tuple(dict.fromkeys(drawn)) if all(config.runnable(e) for e in drawn) else ()


def pairs_experiment(config: ParagenConfig, table: TableConfig) -> str | None:
    """The experiment whose aligned pairs the table lists (004 Table 4), when it can run."""
    if table.aligned_pairs is None:
        return None
    experiment = table.rows[table.aligned_pairs.row]
    return experiment if config.runnable(experiment) else None


def oddgen_drawn(config: ParagenConfig, table: TableConfig) -> bool:
    """Whether the table's odd-generation figure (004 Figure 2) is drawn: it has one and all its rows can run."""
    return table.oddgen_figure is not None and all(config.runnable(table.rows[r]) for r in table.oddgen_figure.rows)


def caption_params(config: ParagenConfig, rows: list[str]) -> tuple[str, ...]:
    """Keys a table's caption quotes beyond its rows' metrics: each system's settings and its rules' title and note
    (editing a note reruns the report, although the system's output does not change)."""
    systems = [r for r in rows if config.declared_in_params(r)]
    rules = dict.fromkeys(config.systems[s].rules for s in systems if config.systems[s].rules)
    return tuple(f"systems.{s}" for s in systems) + tuple(f"rules.{r}" for r in rules)


ABSENT = "not run: dataset absent"
"""How a cell whose row cannot run starts (the report renders it in place of a number)."""


def absent_reason(config: ParagenConfig, name: str) -> str:
    """Why a row (experiment or system) cannot run: its dataset is not switched on, or it rewrites a row that
    cannot run."""
    dataset = config.dataset_of(name)
    system = config.systems.get(name)
    if system is not None and system.input != "source" and dataset in config.data:
        return f"not run: it rewrites the output of {system.input}, which cannot run ({absent_reason(config, system.input)})"
    return f"{ABSENT} ({dataset} is not switched on; fetch it, then run with `--config data='[{dataset}]'`)"


@dataclass(frozen=True)
class RunPlan:
    """One seed run of a row and the files the report reads of it."""

    name: str  # the experiment itself, or its replica E_seed<k>; a system's own name
    seed: int | None  # training seed; None for a system
    metrics: str  # results/metrics/<run>.json
    train_log: str | None  # runs/<run>/train_log.csv of a trained run
    alignment: str | None  # gold-link accuracy of a run on data with gold links (headline stand-in)


@dataclass(frozen=True)
class RowPlan:
    """One row of a table: the experiment or system it shows, whether it can run, and its seed runs."""

    label: str
    name: str
    runnable: bool
    absent: str | None  # why not, when it cannot run
    trained: bool  # a trained experiment that can run (it has training logs)
    runs: tuple[RunPlan, ...]
    closest: bool = False  # the closest-epoch decode of a trained row (runs' metrics: <run>.closest.json)


def seed_suffix(row: RowPlan, run: RunPlan) -> str:
    """" (seed k)" after a row's label when the row shows several seeds, else ""."""
    return f" (seed {run.seed})" if len(row.runs) > 1 else ""


@dataclass(frozen=True)
class TablePlan:
    """Everything one table needs and draws, decided from params.yaml (see the module docstring)."""

    name: str
    spec: TableConfig
    paper: PaperTable
    rows: dict[str, RowPlan]  # by row label, in the table's order
    ran: tuple[str, ...]  # experiments and systems that can run, once each, in table order
    trained: tuple[str, ...]  # the trained experiments among them
    copy_rows: tuple[str, ...]  # CopyNet rows on rule data: their decode writes the copy trace (Figure 3)
    attention_rows: tuple[str, ...]  # RNNSearch rows of such a table: their attention trace is drawn beside it
    panels: tuple[str, ...]  # rows drawn as 003 Figure 1's per-epoch panels
    by_type: bool  # rule data: per-rule-type validation curves
    figures: tuple[str, ...]  # figure_paths(...) of the trained rows (none when nothing is trained)
    curve: tuple[str, str] | None  # (train_log.csv column, label) of the validation curves
    heatmap_rows: tuple[str, ...]  # experiments 004 Figure 4 draws (attention, q_j), when both run
    oddgen: bool  # 004 Figure 2 is drawn
    pairs_experiment: str | None  # the experiment whose aligned pairs 004 Table 4 lists
    comparisons: tuple[tuple[Comparison, tuple[tuple[str, str, int], ...]], ...]  # each with its compared runs
    confirmations: tuple[tuple[Comparison, tuple[tuple[str, str, int], ...]], ...] = ()  # the same on the
    # confirmation seeds (``tables.*.confirmation``), none without them

    def compared(self) -> list[tuple[str, str]]:
        """(row's run, baseline's run) of every paired test the table reports, design and confirmation seeds."""
        return [(a, b) for _, runs in self.comparisons + self.confirmations for a, b, _ in runs]

    @property
    def rescored(self) -> bool:
        """Whether the table's baseline rows are read from the DRESS rescoring table."""
        return self.spec.kind == "scores" and any(b.rescored for b in self.paper.baselines)

    @property
    def tables(self) -> tuple[str, ...]:
        """The table's .md, .csv and .tex."""
        return table_outputs(self.name)

    @property
    def analysis_figures(self) -> tuple[str, ...]:
        """004's Figure 4 (heat maps) and Figure 2 (odd generation), when the rows they draw can run."""
        return ((heatmap_paths(self.name) if self.heatmap_rows else ())
                + ((oddgen_figure_path(self.name),) if self.oddgen else ()))

    @property
    def provenance(self) -> str:
        """``results/provenance/<table>/``: what the report read outside results/ (a scores table's)."""
        return provenance_dir(self.name)

    @property
    def outputs(self) -> tuple[str, ...]:
        """Every file ``paragen report --table NAME`` writes."""
        page = (table_page_path(self.name),)
        if self.spec.kind == "parameters":
            return self.tables + page
        return (self.tables + page + ((comparisons_csv_path(self.name),) if self.comparisons else ())
                + (self.provenance,)
                + self.figures
                + ((examples_path(self.name), examples_data_path(self.name)) if self.example_rows else ())
                + self.analysis_figures
                + (aligned_pairs_outputs(self.name) if self.pairs_experiment else ()))

    @property
    def example_rows(self) -> dict[str, str]:
        """Row label -> experiment or system whose test output the examples table shows: the table's own rows
        that run (not the closest-epoch or confirmation blocks), when any row was trained."""
        if not self.figures:
            return {}
        return {label: name for label, name in self.spec.rows.items() if name in self.ran}

    @property
    def own(self) -> bool:
        """A table of your own data (``paper: own``): no published numbers, every cell is ours."""
        return self.paper.study == "own"

    def row_of(self, experiment: str) -> str:
        """The first row label naming an experiment."""
        return next(label for label, row in self.rows.items() if row.name == experiment)

    def trained_runs(self) -> list[RunPlan]:
        """Every seed run of every trained experiment, once each, in table order (confirmation runs last)."""
        runs = [run for row in self.rows.values() if row.trained for run in row.runs]
        return list({run.name: run for run in runs}.values())

    def closest_rows(self) -> list[RowPlan]:
        """The closest-epoch rows (``closest_epochs``): each run decodes its closest epoch's checkpoint."""
        return [row for row in self.rows.values() if row.closest]

    def design_rows(self) -> dict[str, str]:
        """:meth:`trained_rows` without the confirmation blocks: the rows the figures draw one line or panel for."""
        return {label: name for label, name in self.trained_rows().items() if self.row_of(name) == label}

    def trained_rows(self) -> dict[str, str]:
        """Row label -> experiment of the rows that were trained and can run."""
        return {label: row.name for label, row in self.rows.items() if row.trained}


def _row_plan(config: ParagenConfig, label: str, name: str,
              seed_runs: list[tuple[str, int]] | list[tuple[str, int | None]] | None = None) -> RowPlan:
    """A row from its experiment's own seed runs, or from ``seed_runs`` (a confirmation block's)."""
    runnable = config.runnable(name)
    gold = name in config.experiments and experiment_data(config, name).gold is not None
    trained = runnable and name in config.experiments
    runs = tuple(RunPlan(run, seed, metrics_path(run), f"{run_dir(run)}/train_log.csv" if trained else None,
                         alignment_path(run) if gold else None)
                 for run, seed in (replica_runs(config, name) if seed_runs is None else seed_runs))
    return RowPlan(label, name, runnable, None if runnable else absent_reason(config, name), trained, runs)


CLOSEST_LABEL = "{row}, closest epoch"
"""The label of a row's closest-epoch decode (its epoch, chosen on validation, is named under the table)."""


def closest_rows(config: ParagenConfig, spec: TableConfig) -> dict[str, RowPlan]:
    """Per row in ``closest_epochs`` that can run: its seed runs' closest-epoch decodes, scored as the row is."""
    result = {}
    for label in spec.closest_epochs:
        name = spec.closest_run(label)
        if not (config.runnable(name) and config.runnable(spec.rows[label])):
            continue
        runs = tuple(RunPlan(run, seed, closest_metrics_path(run), None, None)
                     for run, seed in replica_runs(config, name))
        shown = CLOSEST_LABEL.format(row=label)
        result[shown] = RowPlan(shown, name, True, None, False, runs, closest=True)
    return result


def closest_choices(plan: TablePlan) -> list[str]:
    """The files naming each closest-epoch decode's epoch (``paragen decode --closest-to``)."""
    return [closest_choice_path(run.name) for row in plan.closest_rows() for run in row.runs]


def heldout_files(plan: TablePlan) -> list[str]:
    """The closest-epoch hypothesis read per held-out type, per closest-epoch run (``paragen closest-heldout``)."""
    return [heldout_path(run.name) for row in plan.closest_rows() for run in row.runs]


def confirmation_rows(config: ParagenConfig, spec: TableConfig) -> dict[str, RowPlan]:
    """The confirmation block: per trained row that can run, a row of its confirmation seeds' runs."""
    block = spec.confirmation
    if block is None:
        return {}
    return {block.label(label): _row_plan(config, block.label(label), name,
                                          confirmation_runs(config, name, block.seeds))
            for label, name in spec.rows.items() if name in config.experiments and config.runnable(name)}


def paper_of(config: ParagenConfig, name: str) -> PaperTable:
    """The published numbers table ``name`` compares with, restricted to its ``columns`` when it names them; a table
    of your own data gets its columns from its rows' data (:func:`own_columns`)."""
    spec = config.tables[name]
    paper = PaperTable.load(spec.paper)
    if paper.study == "own":
        return own_columns(config, name, paper)
    return paper.with_columns(spec.columns) if spec.columns else paper


def own_splits(config: ParagenConfig, spec: TableConfig) -> list[str]:
    """The splits a table of your own data shows: every split its rows decode and score (``test_splits``; a local
    dataset's default: all but train), in the order first named. A system other than identity scores test alone."""
    splits = (config.splits_of(row) for row in spec.rows.values())
    return list(dict.fromkeys(split for names in splits for split in names))


def own_columns(config: ParagenConfig, name: str, own: PaperTable) -> PaperTable:
    """A table of your own data: the metrics ``columns`` names, then exact match wherever a row's dataset is scored
    with it (its ``evaluation.metrics`` lists exact: the data asks for it), once per split shown (labelled "valid
    BLEU", "test BLEU", ... when there are several; their values under ``splits/<split>/`` of the metrics file).

    A column whose metric a row's dataset is not scored with is refused: its cells could never hold a number."""
    spec = config.tables[name]
    evaluations = {config.dataset_of(row): config.evaluation(row) for row in spec.rows.values()}
    scored = {d: e.metrics for d, e in evaluations.items() if e is not None}
    keys = list(spec.columns) + (["exact"] if "exact" not in spec.columns and
                                 any("exact" in metrics for metrics in scored.values()) else [])
    base = own.with_columns(keys)
    for column in base.columns:
        metric = column.value.split("/")[0]
        for dataset, metrics in scored.items():
            if metric not in metrics:
                raise ConfigError(f"tables.{name}.columns: {column.key!r} reads {metric} scores, which "
                                 f"datasets.{dataset}.evaluation.metrics does not list ({list(metrics)}); add "
                                 f"{metric} there or drop the column")
    splits = own_splits(config, spec)
    if splits == ["test"]:
        return base
    return replace(base, columns=[Column(f"{split}/{c.key}", f"{split} {c.label}", f"splits/{split}/{c.value}",
                                         c.decimals) for split in splits for c in base.columns])


def table_plan(config: ParagenConfig, name: str) -> TablePlan:
    """The plan of table ``name`` (any table of params.yaml, active or not)."""
    spec = config.tables[name]
    ran = [e for e in spec.experiments() if config.runnable(e)]
    trained = config.trained_and_runnable(ran)
    scores = spec.kind == "scores"
    copy_rows = tuple(copy_traced_experiments(config, trained)) if scores else ()
    attention_rows = tuple(attention_traced_experiments(config, trained)) if copy_rows else ()
    panels = panel_experiments(config, trained) if scores else ()
    by_type = scores and rule_data_rows(config, trained)
    paper = paper_of(config, name)
    if spec.closest_epochs:  # a closest-epoch row is compared with the paper's row it was chosen to be close to
        paper = replace(paper, rows={**paper.rows, **{CLOSEST_LABEL.format(row=r): paper.rows[r]
                                                      for r in spec.closest_epochs}})
    return TablePlan(
        name=name, spec=spec, paper=paper,
        rows=({label: _row_plan(config, label, row) for label, row in spec.rows.items()}
              | closest_rows(config, spec) | confirmation_rows(config, spec)) if scores else {},
        ran=tuple(ran), trained=tuple(trained), copy_rows=copy_rows, attention_rows=attention_rows, panels=panels,
        by_type=by_type,
        figures=figure_paths(name, bool(copy_rows), panels, by_type, bool(attention_rows)) if scores and trained
        else (),
        curve=curve_column(config, trained) if scores and trained else None,
        heatmap_rows=heatmap_experiments(config, spec) if scores else (),
        oddgen=scores and oddgen_drawn(config, spec),
        pairs_experiment=pairs_experiment(config, spec) if scores else None,
        comparisons=tuple((c, tuple(compared_runs(config, spec, c))) for c in spec.comparisons) if scores else (),
        confirmations=tuple((c, tuple(confirmed_runs(config, spec, c))) for c in spec.comparisons)
        if scores and spec.confirmation else ())


def drawable_figures(config: ParagenConfig, name: str) -> tuple[str, ...]:
    """Every figure table ``name`` draws when all its rows run, whatever this run's data switches: the index lists
    those that exist (a table may come from an earlier run with other settings)."""
    table = config.tables[name]
    rows = list(table.rows.values())
    analysis = (heatmap_paths(name) if table.alignment_figure else ()) + \
        ((oddgen_figure_path(name),) if table.oddgen_figure else ())
    copying = bool(copy_traced_experiments(config, rows))
    return figure_paths(name, copying, panel_experiments(config, rows), rule_data_rows(config, rows),
                        copying and bool(attention_traced_experiments(config, rows))) + analysis
