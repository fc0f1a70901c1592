"""``paragen report --table NAME``: one reproduced table plus its figures."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from paragen import pipeline
from paragen.atomic import write_text
from paragen.config import (ConfigError, HeadlineSyntheticDataset, ParagenConfig, RealDataset, TableConfig,
                            TrainingConfig)
from paragen.data.synthetic import tag_column
from paragen.report.closest_epoch import closest_epoch, mean_rows
from paragen.report.figures import (panel_limits, plot_alignment_heatmaps, plot_copy_heatmap, plot_curves,
                                    plot_odd_generation, plot_training_panels, plot_type_curves, read_log)
from paragen.models.pretrained import EmbeddingInit
from paragen.report.parameters import count_cell
from paragen.runlock import lock_holder
from paragen.stopping_rule import SESSIONS_FILE, TrainingOutcome, trained_with, training_outcome
from paragen.report.comparisons import comparison_lines
from paragen.report.tables import (ABSENT, Cell, Column, PaperTable, ResultTable, RowSource, SeedRun, fill_table,
                                   read_rescored, to_csv, to_latex, to_markdown)
from paragen.seeds import replica_runs, replicas

log = logging.getLogger(__name__)

TRACE_PREFERENCE = ("xy->xy", "x->xx", "x->x", "xy->x", "x->0")
"""Which rule type's example the heat map shows: the richest copying pattern available."""


def _beams_text(config: ParagenConfig, experiments: list[str]) -> str:
    beams = sorted({config.decoding[config.experiments[e].decoding].beam_size for e in experiments})
    return f"beam {', '.join(map(str, beams))}."


def _model_text(config: ParagenConfig, experiments: list[str]) -> str:
    by_size: dict[str, list[str]] = {}  # models of one size are named together
    for model_name in dict.fromkeys(config.experiments[e].model for e in experiments):
        m = config.models[model_name]
        if m.architecture == "transformer":
            size = (f"Transformer {m.encoder_layers}+{m.decoder_layers} layers, d_model {m.embedding_size}, "
                    f"{m.heads} heads x d_k {m.key_size}, feed-forward {m.feedforward_width}, dropout {m.dropout}")
        else:
            size = (f"{'bi-' if m.bidirectional else ''}{m.cell.upper()} {m.encoder_layers}+{m.decoder_layers} "
                    f"layers, hidden {m.hidden_size} / embedding {m.embedding_size}, dropout {m.dropout}")
        by_size.setdefault(size, []).append(model_name)
    return "; ".join(f"{', '.join(names)}: {size}" for size, names in by_size.items()) + "; " + \
        _beams_text(config, experiments)


def describe_scale(config: ParagenConfig, experiments: list[str]) -> str:
    """Caption text naming the data scale, model sizes and decoding of the rows."""
    first = config.experiments[experiments[0]]
    data = config.datasets[first.dataset]
    if isinstance(data, RealDataset):
        datasets = dict.fromkeys(config.experiments[e].dataset for e in experiments)
        data_text = "; ".join(
            f"{name}: {config.datasets[name].segmentation} tokens, vocabulary "
            f"{config.datasets[name].vocab_size or 'all'}" for name in datasets)
        perl = [config.datasets[name].evaluation for name in datasets if config.datasets[name].evaluation.rouge_perl]
        scoring = "" if not perl else " ROUGE-1.5.5's -m: " + (
            "WordNet 2.0 exception lists, then Porter stemming." if perl[0].rouge_perl_exceptions == "wordnet" else
            "Porter stemming alone, no WordNet exception lists (the setting that reproduced a published Gigaword "
            "score; docs/measurements.md).")
        return f"Data: {data_text}.{scoring} Models: " + _model_text(config, experiments)
    if isinstance(data, HeadlineSyntheticDataset):
        low, high = data.source_length
        return (f"Data: the headline stand-in (not the paper's setup), {data.train_pairs:,} / {data.valid_pairs:,} / "
                f"{data.test_pairs:,} train / valid / test pairs, sources of {low}-{high} tokens drawn from "
                f"{data.content_words} content and {data.filler_words} filler word types ({data.content_share:.0%} "
                f"content), headlines of the first {data.max_target_length} content words at most, "
                f"{data.rewrite_fraction:.0%} of the content types rewritten c<i> -> r<i>, seed {data.seed}. Models: "
                + _model_text(config, experiments))
    sizes = sorted({(config.models[config.experiments[e].model].hidden_size,
                     config.models[config.experiments[e].model].embedding_size) for e in experiments})
    size_text = ", ".join(f"hidden {h} / embedding {e}" for h, e in sizes)
    return (f"Scale: {data.rules} rules × {data.instances_per_rule} instances "
            f"(paper: 200 × 200), {data.symbols} symbols, seed {data.seed}; "
            f"bi-{config.models[first.model].cell.upper()} encoder, {size_text}; " + _beams_text(config, experiments))


def hardware_summary(run_dirs: dict[str, Path]) -> str:
    """Caption text: the devices and the wall time summed over the runs (the per-run list is the table's setup)."""
    minutes, devices, runs = 0.0, set(), 0
    for run_dir in run_dirs.values():
        sessions_path, log_path = run_dir / SESSIONS_FILE, run_dir / "train_log.csv"
        if sessions_path.exists() and log_path.exists():
            devices.update(s["device"] for s in json.loads(sessions_path.read_text(encoding="utf-8")))
            minutes += sum(r["wall_time_s"] for r in read_log(log_path)) / 60
            runs += 1
    if not runs:
        return ""
    return f" Trained on {' and '.join(sorted(devices))}: {minutes:.0f} min of training over {runs} run(s)."


def describe_hardware(run_dirs: dict[str, Path]) -> str:
    """Setup text: the device each row trained on, its wall time, and where a run was split across processes.

    Read from each run's ``sessions.json`` (written by training) and the ``wall_time_s`` of its log; rows whose
    run predates session records are left out rather than guessed.
    """
    parts, devices = [], set()
    for row, run_dir in run_dirs.items():
        sessions_path, log_path = run_dir / SESSIONS_FILE, run_dir / "train_log.csv"
        if not (sessions_path.exists() and log_path.exists()):
            continue
        sessions = json.loads(sessions_path.read_text(encoding="utf-8"))
        minutes = sum(r["wall_time_s"] for r in read_log(log_path)) / 60
        devices.update(s["device"] for s in sessions)
        split = ("" if len(sessions) <= 1 else ", resumed at epoch "
                 + ", ".join(str(s["first_epoch"]) for s in sessions[1:]))
        parts.append(f"{row} {minutes:.1f} min{split}")
    if not parts:
        return ""
    return (f" Trained on {' and '.join(sorted(devices))}; wall time per row (training and per-epoch validation, "
            f"summed over epochs): {'; '.join(parts)}.")


def absent_reason(config: ParagenConfig, experiment: str) -> str:
    dataset = config.dataset_of(experiment)
    system = config.systems.get(experiment)
    if system is not None and system.input != "source" and dataset in config.data:
        return f"not run: it rewrites the output of {system.input}, which cannot run ({absent_reason(config, system.input)})"
    return f"{ABSENT} ({dataset} is not switched on; fetch it, then run with `--config data='[{dataset}]'`)"


def sweep_summary(config: ParagenConfig, name: str) -> str:
    """", over N seeds: SARI m ± sd, ..." for a skip row whose sweep includes its own probability."""
    from paragen.simplification.skip_sweep import summary_at

    spec = config.systems[name]
    path = Path(pipeline.sweep_outputs(name)[1])
    found = summary_at(path, spec.probability) if spec.sweep and path.exists() else None
    if found is None:
        return ""
    seeds, scores = found
    shown = ", ".join(f"{m.upper()} {mean:.2f} ± {sd:.2f}" for m, (mean, sd) in scores.items())
    return f" (over seeds {spec.seed}..{spec.seed + seeds - 1}: {shown}; every p in {pipeline.sweep_outputs(name)[0]})"


def describe_embeddings(config: ParagenConfig, rows: dict[str, str]) -> str:
    """" Embeddings: ROW: GloVe for N of V words; ..." for rows whose model starts from pretrained vectors."""
    parts = []
    for row, exp in rows.items():
        if exp not in config.experiments or not config.models[config.experiments[exp].model].pretrained_embeddings:
            continue
        path = Path(pipeline.embeddings_path(exp))
        if path.exists():
            parts.append(f"{row}: " + EmbeddingInit(**json.loads(path.read_text(encoding="utf-8"))).describe())
    return (" Embeddings: " + "; ".join(parts) + ".") if parts else ""


def describe_systems(config: ParagenConfig, names: list[str]) -> str:
    """Caption text for the rows that need no training: what each computes."""
    parts = []
    for name in names:
        s = config.systems[name]
        if s.method == "skip" and s.seeds > 1:
            parts.append(f"{name}: each word dropped with p = {s.probability}; its cells are the mean over seeds "
                         f"{s.seed}..{s.seed + s.seeds - 1}"
                         + (f" (every p in {pipeline.sweep_outputs(name)[0]})" if s.sweep else ""))
        elif s.method == "skip":
            parts.append(f"{name}: each word dropped with p = {s.probability}, seed {s.seed}" + sweep_summary(config, name))
        elif s.method == "oracle" and s.reference == "leave_one_out":
            parts.append(f"{name}: each reference of the test set in turn as output, scored against the other "
                         "references, averaged (leave-one-out: a reference is never scored against itself)")
        elif s.method == "oracle":
            parts.append(f"{name}: reference {s.reference} of the test set as output, scored against all references "
                         "(itself included)")
        elif s.method == "paraphrase":
            on = "the source" if s.input == "source" else f"the output of {s.input}"
            parts.append(f"{name}: the {s.granularity} rules of {s.rules} applied to {on}")
        else:
            parts.append(f"{name}: the source unchanged")
    used = [r for r in dict.fromkeys(config.systems[n].rules for n in names) if r is not None]
    notes = [f"Rules {r}: {config.rules[r].title}, applied longest match first, left to right, the highest weight "
             f"where several apply.{' ' + config.rules[r].note if config.rules[r].note else ''}" for r in used]
    return ("Rows without training: " + "; ".join(parts) + "." + "".join(f" {n}" for n in notes)) if parts else ""


def _write(table: ResultTable) -> None:
    md, csv_path, tex = pipeline.table_outputs(table.name)
    write_text(md, to_markdown(table))
    write_text(csv_path, to_csv(table))
    write_text(tex, to_latex(table))


def build_scores_table(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    paper = PaperTable.load(spec.paper)
    experiments = [e for e in spec.rows.values() if e in config.experiments]
    systems = [s for s in spec.rows.values() if s in config.systems]
    sources: dict[str, RowSource] = {row: row_runs(config, exp) if config.runnable(exp) else absent_reason(config, exp)
                                     for row, exp in spec.rows.items()}
    counts = sorted({_sentence_count(json.loads(run.metrics.read_text(encoding="utf-8")))
                     for runs in sources.values() if not isinstance(runs, str) for run in runs
                     if run.metrics.exists()})
    caption = (f"{paper.metric[0].upper()}{paper.metric[1:]}. Published numbers: {paper.paper}, {paper.table}. "
               + (describe_scale(config, experiments) if experiments else "")
               + (f" Test sentences: {', '.join(counts)}." if counts else "")
               + (f" {spec.note}" if spec.note else "")
               + ("" if paper.rows else " No paper reports numbers for these rows: every reproduced cell is ours."))
    rescored = read_rescored(pipeline.PUBLISHED_OUTPUTS_CSV) if pipeline.rescored_baselines(spec) else None
    table = fill_table(table_name, spec.title, caption, paper, sources, rescored, not_comparable=spec.not_comparable)
    table.setup = [text.strip() for text in (spec.setup, describe_systems(config, systems) if systems else "",
                                             describe_embeddings(config, spec.rows)) if text.strip()]
    trained = set(config.trained_and_runnable(spec.rows.values()))
    ran = {row: exp for row, exp in spec.rows.items() if exp in trained}
    seeded = config.seed_count > 1
    for row, exp in ran.items():
        for run, seed in replica_runs(config, exp):
            run_dir = Path(pipeline.run_dir(run))
            holder = lock_holder(run_dir)
            if holder is not None:
                table.training_notes.append(f"{row}{f' (seed {seed})' if seeded else ''}: still training ({run_dir} "
                                            f"is held by process {holder}); its cells are from an earlier run or empty")
            if (run_dir / "train_log.csv").exists():
                table.training.setdefault(row, []).append(
                    (seed if seeded else None, training_outcome(read_log(run_dir / "train_log.csv"),
                                                                settings_of_run(run_dir, config.training_of(run)))))
    table.comparisons = comparison_lines(config, spec)
    by_type = pipeline.rule_data_rows(config, list(ran.values()))  # rule data: per-type curves and closest epochs
    if by_type:
        table.caption += closest_epoch_text(config, paper, ran, table.training)
    run_dirs = {(f"{row} seed {seed}" if seeded else row): Path(pipeline.run_dir(run))
                for row, exp in ran.items() for run, seed in replica_runs(config, exp)}
    table.caption += hardware_summary(run_dirs)
    if describe_hardware(run_dirs):
        table.setup.append(describe_hardware(run_dirs).strip())
    _write(table)

    if not ran:
        log.info("wrote %s (no trained row can run: no figures)", ", ".join(pipeline.table_outputs(table_name)))
        return
    copying = pipeline.copy_traced_experiments(config, list(ran.values()))
    panels = pipeline.panel_experiments(config, list(ran.values()))
    figures = pipeline.figure_paths(table_name, bool(copying), panels, by_type)
    logs = {row: [Path(pipeline.run_dir(run)) / "train_log.csv" for run in replicas(config, exp)]
            for row, exp in ran.items()}
    column, label = pipeline.curve_column(config, list(ran.values()))
    datasets = ", ".join(dict.fromkeys(config.experiments[e].dataset for e in ran.values()))
    plot_curves(logs, figures[0], label, f"{label} after each training epoch\n"
                f"(validation split of {datasets}; the runs behind table {table_name}, not its test scores)", column)
    if copying:
        row = next(r for r, e in ran.items() if e == copying[0])
        trace_path = Path(pipeline.copy_trace_path(copying[0]))
        if not trace_path.exists():
            raise FileNotFoundError(f"{trace_path}: the copy-mode trace is missing; the stage decode_{copying[0]} "
                                    f"writes it (`snakemake {trace_path}`)")
        traces = json.loads(trace_path.read_text(encoding="utf-8"))
        rule_type = next(t for t in TRACE_PREFERENCE if t in traces)
        shown = [traces[rule_type][k] for k in ("correct", "wrong") if traces[rule_type].get(k)]
        plot_copy_heatmap(shown, figures[1], f"{row} copy mode on rule type {rule_type}: the first test line whose "
                          "top-1 output equals the reference and the first whose does not")
    if by_type:
        plot_type_curves(logs, figures[-1], {c.key: (tag_column(c.key), c.label) for c in paper.columns},
                         paper.rows, f"{spec.title}: exact match per rule type on the validation split after each "
                         "epoch (dashed: the paper's test accuracy)")
    limits = panel_limits([logs[row][0] for row, exp in ran.items() if exp in panels])
    for row, exp in ran.items():
        if exp in panels:
            plot_training_panels(logs[row][0], pipeline.training_panels_path(table_name, exp),
                                 f"{row} ({exp}): per-epoch training log (as 003 Figure 1; validation split of "
                                 f"{config.dataset_of(exp)})", limits)
    analysis = pipeline.analysis_figures(config, table_name, spec)
    if pipeline.heatmap_experiments(config, spec):
        plot_heatmaps(config, table_name, spec)
    if pipeline.oddgen_drawn(config, spec):
        plot_oddgen(config, table_name, spec)
    if pipeline.pairs_experiment(config, spec):
        from paragen.report.aligned_pairs import write_aligned_pairs_table

        log.info("wrote %s", ", ".join(write_aligned_pairs_table(table_name, spec)))
    log.info("wrote %s and %d figure(s)", ", ".join(pipeline.table_outputs(table_name)), len(figures) + len(analysis))


def settings_of_run(run_dir: Path, current: TrainingConfig) -> TrainingConfig:
    """The stopping rule ``run_dir``'s run trained under (its sessions.json), else ``current``."""
    sessions = run_dir / SESSIONS_FILE
    if not sessions.exists():
        return current
    return trained_with(json.loads(sessions.read_text(encoding="utf-8")), current)


def closest_epoch_text(config: ParagenConfig, paper: PaperTable, ran: dict[str, str],
                       outcomes: dict[str, list[tuple[int | None, TrainingOutcome]]]) -> str:
    """Caption sentence (rule data): per row with published numbers, the epoch whose per-type validation exact
    match is closest to the paper's row, beside the distance at the selected epoch (``outcomes``: the table's
    training outcomes, each judged by the settings its run trained with)."""
    columns = {c.key: tag_column(c.key) for c in paper.columns}
    parts = []
    for row, exp in ran.items():
        paths = [Path(pipeline.run_dir(run)) / "train_log.csv" for run in replicas(config, exp)]
        if row not in paper.rows or not all(p.exists() for p in paths):
            continue
        logs = [read_log(p) for p in paths]
        best = outcomes[row][0][1].best_epoch if len(logs) == 1 else None
        found = closest_epoch(mean_rows(logs), paper.rows[row], columns, best)
        if found is not None:
            at_best = "" if found.best_epoch_distance is None else \
                f"; {found.best_epoch_distance:.1f} at the selected epoch {best}"
            parts.append(f"{row} epoch {found.epoch} ({found.distance:.1f}{at_best})")
    if not parts:
        return ""
    return (" Epoch whose per-type validation exact match is closest to the paper's row (mean absolute difference "
            "over the five types, points; with several seeds their per-epoch mean): " + ", ".join(parts) + ". The cells "
            "are the selected (best validation) checkpoint's test scores.")


def row_runs(config: ParagenConfig, experiment: str) -> RowSource:
    """A row's metrics file, or with several seeds each seed run's (with its alignment accuracy where the dataset
    has gold links)."""
    gold = experiment in config.experiments and pipeline.experiment_data(config, experiment).gold is not None
    runs = replica_runs(config, experiment)
    return [SeedRun(seed if len(runs) > 1 else None, Path(pipeline.metrics_path(run)),
                    {"alignment": Path(pipeline.alignment_path(run))} if gold else {})
            for run, seed in runs]


def _sentence_count(metrics: dict) -> str:
    """"N" for one test split, "split N, ..." for several."""
    if "splits" in metrics:
        return ", ".join(f"{split} {scored['count']}" for split, scored in metrics["splits"].items())
    return str(metrics["count"])


def plot_heatmaps(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    """004 Figure 4 from ``paragen align``'s matrices: one row's attention beside another's q_j, per sentence."""
    figure = spec.alignment_figure
    assert figure is not None
    names = (figure.attention, figure.source_prediction)
    matrices = [json.loads(Path(pipeline.alignment_matrices_path(spec.rows[n])).read_text(encoding="utf-8"))
                for n in names]
    chosen = [{e["line"]: e for e in m["sentences"]} for m in matrices]
    examples = [[c[line] for line in figure.sentences] for c in chosen]
    plot_alignment_heatmaps(examples[0], examples[1], names, pipeline.heatmap_path(table_name),
                            f"{spec.title}: line{'s' if len(figure.sentences) > 1 else ''} "
                            f"{', '.join(map(str, figure.sentences))} of {figure.split}, teacher-"
                            "forced on the gold target (as 004 §6.2). Rows: target tokens, [in brackets] the source "
                            "token attention weights most (a) or the word q_j ranks first over the vocabulary (b)"
                            + ("; rings: gold links." if examples[0][0].get("gold") else "."))


def plot_oddgen(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    """004 Figure 2 from the rows' metrics: sentences with repeats and sentences shorter than the gold."""
    figure = spec.oddgen_figure
    assert figure is not None
    counts: dict[str, list[dict[str, int]]] = {}
    for row in figure.rows:  # every seed run of the row
        for run, _ in replica_runs(config, spec.rows[row]):
            metrics = json.loads(Path(pipeline.metrics_path(run)).read_text(encoding="utf-8"))
            scored = metrics["splits"][figure.split] if "splits" in metrics else metrics
            counts.setdefault(row, []).append(scored["oddgen"]["score"])
    sentences = next(iter(counts.values()))[0]["sentences"]
    plot_odd_generation(counts, pipeline.oddgen_figure_path(table_name),
                        f"{spec.title}\nodd generation on {figure.split} ({sentences:,} sentences; 004 §6.1): fewer is better")


def build_parameters_table(config: ParagenConfig, table_name: str, spec: TableConfig) -> None:
    """Table 5: paper vs counted at the paper's vocabulary, plus the count at the vocabulary actually built."""
    paper = PaperTable.load(spec.paper)
    columns = [Column(c.key, f"{c.label} (paper V)", c.key) for c in paper.columns]
    columns += [Column(f"{c.key}_built", f"{c.label} (built V)", c.key) for c in paper.columns]
    table = ResultTable(table_name, spec.title, "", columns, list(spec.grid), decimals=paper.decimals)
    vocab_notes = []
    for row, cells in spec.grid.items():
        for column in paper.columns:
            experiment = cells[column.key]
            dataset = config.datasets[config.experiments[experiment].dataset]
            assert isinstance(dataset, RealDataset), "Table 5 cells are real-data experiments"
            vocab = pipeline.experiment_data(config, experiment).vocab if config.runnable(experiment) else None
            count = count_cell(config.models[config.experiments[experiment].model], dataset.vocab_size or 0, vocab)
            published = paper.rows.get(row, {}).get(column.key)
            table.cells[(row, column.key)] = Cell(published, count.at_paper_vocab / 1e6,
                                                  f"counted at V = {count.paper_vocab:,} + 4 specials")
            if count.at_built_vocab is None:
                table.cells[(row, f"{column.key}_built")] = Cell(None, None, absent_reason(config, experiment))
            else:
                table.cells[(row, f"{column.key}_built")] = Cell(
                    None, count.at_built_vocab / 1e6, f"built vocabulary: {count.built_vocab:,} tokens + 4 specials")
                vocab_notes.append(f"{column.label}: {count.built_vocab:,}")
    table.caption = (f"{paper.metric[0].upper()}{paper.metric[1:]}, {paper.paper} {paper.table} reproduced by "
                     "instantiating each experiment's model. Seq2seq: the k x V projection W (Eq. 3, bias "
                     "excluded); WEAN: the parameters of its score function f(q, e) (Eq. 5) as configured. "
                     "The paper reports the concat score's 2k^2 + k ('at most') although it trains with "
                     "general (k^2), hence the WEAN (concat) row." + (f" {spec.note}" if spec.note else ""))
    _write(table)
    log.info("wrote %s", ", ".join(pipeline.table_outputs(table_name)))


def build_table_report(config: ParagenConfig, table_name: str) -> None:
    if table_name not in config.tables:
        raise ConfigError(f"unknown table {table_name!r}; allowed values: {sorted(config.tables)}")
    spec = config.tables[table_name]
    if spec.kind == "parameters":
        build_parameters_table(config, table_name, spec)
    else:
        build_scores_table(config, table_name, spec)
