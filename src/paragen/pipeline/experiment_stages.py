"""The stages of one trained experiment (train -> decode -> align -> score/evaluate), of a system (a row computed
without training), of the paired comparisons between rows, and of the closest-epoch decodes."""

from __future__ import annotations

from dataclasses import dataclass

from paragen.artifacts import (alignment_matrices_path, attention_trace_path, alignment_path, aligned_pairs_path, closest_choice_path,
                               closest_hyp_path, closest_nbest_path, comparison_path, copy_trace_path, embeddings_path, experiment_data, fetch_marker, headline_path, heldout_path,
                               hyp_path, metrics_path, nbest_path, output_vocabulary, prepared, run_dir, sweep_outputs)
from paragen.config import HeadlineSyntheticDataset, ParagenConfig, RealDataset, SyntheticDataset, TableConfig
from paragen.config.matrix import model_params
from paragen.config.seeds import same_seed_run
from paragen.metrics.exact import TOP_K
from paragen.pipeline.data_stages import experiment_rules, fetch_scopes, rule_markers
from paragen.pipeline.report_items import sweep_items
from paragen.pipeline.resources import decode_resources, train_resources
from paragen.pipeline.stage import PARAMS_FILE, Stage, set_keys, shell_command
from paragen.pipeline.tables import TablePlan
from paragen.training.stopping import RESUME_RECORD, SESSIONS_FILE
from paragen.training.kept_epochs import EPOCHS_DIR


def experiment_stages(config: ParagenConfig, exp: str, traced: str | None, train_only: bool = False) -> list[Stage]:
    """train -> decode (each test split) -> score (synthetic: exact match by rule type) or evaluate (real data and
    the headline stand-in: the dataset's metrics), and ``paragen align`` where there are gold links or heat maps.
    ``traced``: what the test decode also traces for the heat maps ("copy", "attention" or None); ``train_only``:
    a retrain that only gives a closest-epoch row (:meth:`ParagenConfig.retrain_only_runs`)."""
    spec = config.experiments[exp]
    data, run = experiment_data(config, exp), run_dir(exp)
    evaluation = validation_keys(config, exp)
    rules = experiment_rules(config, exp)
    kept_epochs = (f"{run}/{EPOCHS_DIR}",) if config.training[spec.training].keep_epochs else ()
    stages_ = [Stage(
        name=f"train_{exp}", step="train",
        cmd=train_command(exp, spec.gpus),
        deps=data.train_deps + (data.vocab,) + rule_markers(config, rules),
        params=model_params(config, spec.model) + (f"training.{spec.training}",) + evaluation + tuple(f"rules.{r}" for r in rules),
        outs=(f"{run}/best.pt", f"{run}/last.pt", f"{run}/train_log.csv", f"{run}/{SESSIONS_FILE}")
        + ((embeddings_path(exp),) if config.models[spec.model].pretrained_embeddings else ())
        + kept_epochs,
        directories=kept_epochs,  # training.*.keep_epochs: runs/<exp>/epochs/, owned whole
        kept=(f"{run}/{RESUME_RECORD}",),
        threads=spec.gpus * (config.training[spec.training].threads or 1),  # each torchrun worker has its threads
        resources=train_resources(config, exp),
    )]
    if train_only:
        return stages_
    splits = config.test_splits(spec.dataset)
    several = splits != ["test"]  # one decode stage per test split, named and called by its split
    for split in splits:
        decode_outs = (hyp_path(exp, split), nbest_path(exp, split))
        if traced:
            decode_outs += (copy_trace_path(exp) if traced == "copy" else attention_trace_path(exp),)
        stages_.append(Stage(
            name=f"decode_{exp}" + (f"_{split}" if several else ""), step="decode",
            cmd=shell_command("exec", "paragen", "decode", "--params", PARAMS_FILE, "--experiment", exp,
                         *(("--split", split) if several else ()), "--die-with-parent"),
            deps=(f"{run}/best.pt",) + tuple(d for d in data.test_deps if not d.endswith(".tgt")) + (data.vocab,),
            params=(f"decoding.{spec.decoding}",),
            outs=decode_outs,
            threads=config.decoding[spec.decoding].threads or 1,
            resources=decode_resources(config, exp, split),
        ))
    aligning = align_stage(config, exp)
    if aligning is not None:
        stages_.append(aligning)
    metrics, headline = metrics_path(exp), headline_path(exp)
    if data.evaluated:
        return stages_ + [evaluate_stage(config, exp)]
    test_tgt, test_tag = data.test_deps[1], data.test_deps[2]
    test_rule = data.test_deps[3]  # each cell's 95 % interval resamples rules
    stages_.append(Stage(
        name=f"score_{exp}", step="score",
        cmd=shell_command("paragen", "score", "--metric", "exact", "--ref", test_tgt, "--hyp", f"{run}/test.hyp",
                     "--nbest", f"{run}/test.nbest.jsonl", *topk_args(config, exp), "--tags", test_tag,
                     "--groups", test_rule, "--out", metrics, "--headline", headline),
        deps=(test_tgt, f"{run}/test.hyp", f"{run}/test.nbest.jsonl", test_tag, test_rule),
        outs=(metrics, headline), metrics=(headline,), uncached=(metrics, headline),
    ))
    return stages_


def topk_args(config: ParagenConfig, experiment: str) -> tuple[str, ...]:
    """``--topk`` for the score stage: each of :data:`~paragen.metrics.exact.TOP_K` up to the experiment's
    ``decoding.*.nbest``."""
    nbest = config.decoding[config.experiments[experiment].decoding].nbest
    return ("--topk", *(str(k) for k in TOP_K if k <= nbest))


def train_command(experiment: str, gpus: int) -> str:
    """``paragen train`` for one GPU (or the CPU); for several, torchrun starts one worker per GPU on this node.

    The workers run the same CLI as a module (``-m paragen.cli``), read torchrun's RANK / WORLD_SIZE and train
    as one DDP job; ``--standalone`` keeps the rendezvous on the node, so no port or host is configured.
    ``exec`` makes the engine's job torchrun itself, which stops its workers when the engine stops it (and SLURM
    ends the whole job); each worker also dies with torchrun. Only a SIGKILL of a local Snakemake would leave
    torchrun running, as torchrun cannot be told to die with its parent."""
    args = ("train", "--params", PARAMS_FILE, "--experiment", experiment, "--die-with-parent")
    if gpus == 1:
        return shell_command("exec", "paragen", *args)
    return shell_command("exec", "torchrun", "--standalone", "--nproc-per-node", str(gpus), "-m", "paragen.cli", *args)


@dataclass(frozen=True)
class AlignRequests:
    """What the active tables ask ``paragen align`` of one experiment: heat-map lines and aligned pairs, from one
    test split, and the params keys that say so."""

    split: str | None = None
    lines: tuple[int, ...] = ()
    pairs: tuple[int, int] | None = None  # (sample, seed)
    keys: tuple[str, ...] = ()


def align_requests(config: ParagenConfig, exp: str) -> AlignRequests:
    """The heat maps (004 Figure 4) and aligned pairs (004 Table 4) of the active tables that draw ``exp``."""
    split, lines, pairs, keys = None, [], None, []
    for name, table in config.active_tables().items():
        asks = []
        figure = table.alignment_figure
        if figure is not None and exp in (table.rows[figure.attention], table.rows[figure.source_prediction]):
            asks.append(("alignment_figure", figure.split))
            lines += [line for line in figure.sentences if line not in lines]
        wanted = table.aligned_pairs
        if wanted is not None and table.rows[wanted.row] == exp:
            asks.append(("aligned_pairs", wanted.split))
            if pairs is not None and pairs != (wanted.sample, wanted.seed):
                raise ValueError(f"tables.{name}.aligned_pairs: another table samples {exp}'s pairs differently")
            pairs = (wanted.sample, wanted.seed)
        for key, asked in asks:
            if split is not None and asked != split:
                raise ValueError(f"tables.{name}.{key}.split: {exp} is aligned on {split!r} for another figure or "
                                 "table; one experiment's alignments come from one split")
            split = asked
            keys.append(f"tables.{name}.{key}")
    return AlignRequests(split, tuple(lines), pairs, tuple(keys))


ATTENDING = ("rnnsearch", "copynet", "wean")
"""Architectures whose decoder step returns recurrent attention weights over the source (gold-link accuracy reads
them; Enc-Dec has none, and the Transformer's are per head and layer)."""


def align_stage(config: ParagenConfig, exp: str) -> Stage | None:
    """``paragen align``: accuracy against the gold links (headline stand-in) and the heat maps' matrices; None when
    the experiment has neither."""
    data = experiment_data(config, exp)
    asked = align_requests(config, exp)
    split, lines = asked.split or "test", asked.lines
    attends = config.models[config.experiments[exp].model].architecture in ATTENDING
    gold = data.gold if split == "test" and attends else None
    if gold is None and not lines and asked.pairs is None:
        return None
    outs = ((alignment_path(exp),) if gold else ()) + ((alignment_matrices_path(exp),) if lines else ()) \
        + ((aligned_pairs_path(exp),) if asked.pairs else ())
    split_deps = data.test_deps if data.real else (prepared(config.experiments[exp].dataset, split, "src"),
                                                    prepared(config.experiments[exp].dataset, split, "tgt"))
    return Stage(
        name=f"align_{exp}", step="score",
        cmd=shell_command("paragen", "align", "--params", PARAMS_FILE, "--experiment", exp,
                     *(("--split", split) if split != "test" else ()),
                     *(("--gold", gold, "--out", alignment_path(exp)) if gold else ()),
                     *(("--sentences", ",".join(map(str, lines)), "--matrices", alignment_matrices_path(exp))
                       if lines else ()),
                     *(("--pairs", aligned_pairs_path(exp), "--sample", str(asked.pairs[0]), "--seed",
                        str(asked.pairs[1])) if asked.pairs else ())),
        deps=(f"{run_dir(exp)}/best.pt",) + split_deps + ((gold,) if gold else ()) + (data.vocab,),
        params=asked.keys, outs=outs, metrics=(alignment_path(exp),) if gold else (),
        uncached=(alignment_path(exp),) if gold else ())


def validation_keys(config: ParagenConfig, exp: str) -> tuple[str, ...]:
    """The evaluation settings a training reads, as params keys: validation BLEU and SARI lowercase as the dataset's
    test scores do (``evaluation.lowercase``, real data), validation ROUGE-2 takes its unit (``rouge_unit``); the
    rest of ``evaluation`` (metrics, ROUGE-1.5.5, 003's protocol) is the evaluate stage's alone, so changing it
    rescores without retraining (docs/usage.md)."""
    dataset = config.datasets[config.experiments[exp].dataset]
    if not isinstance(dataset, (RealDataset, HeadlineSyntheticDataset)) or "evaluation" not in \
            dataset.model_fields_set:
        return ()
    training = config.training_of(exp)
    metrics = {training.valid_metric, *training.log_metrics}
    read = (("lowercase",) if metrics & {"bleu", "sari"} and isinstance(dataset, RealDataset) else ()) \
        + (("rouge_unit",) if "rouge2" in metrics else ())
    name = config.experiments[exp].dataset
    return tuple(f"datasets.{name}.evaluation.{key}" for key in read if key in dataset.evaluation.model_fields_set)


def evaluate_stage(config: ParagenConfig, row: str) -> Stage:
    """``paragen evaluate``: the dataset's metrics on a row's output on each test split (one metrics file)."""
    data, dataset = experiment_data(config, row), config.dataset_of(row)
    spec = config.datasets[dataset]
    assert isinstance(spec, (RealDataset, HeadlineSyntheticDataset))
    metrics, headline = metrics_path(row), headline_path(row)
    hyps = tuple(hyp_path(row, split) for split in config.splits_of(row))
    if isinstance(spec, RealDataset) and spec.evaluation.report_protocol:  # 003's protocol reads the Turk files
        hyps += (fetch_marker("turkcorpus", fetch_scopes(config).get("turkcorpus", "eval")),)
    return Stage(
        name=f"evaluate_{row}", step="score",
        cmd=shell_command("paragen", "evaluate", "--params", PARAMS_FILE, "--experiment", row),
        deps=hyps + data.test_deps, params=set_keys(dataset, spec, ("evaluation", "test_splits"))
        + ((f"systems.{row}",) if config.declared_in_params(row) else ()),  # a skip row averages over its seeds
        outs=(metrics, headline), metrics=(headline,), uncached=(metrics, headline))


def system_stages(config: ParagenConfig, name: str) -> list[Stage]:
    """compute the output (no training) -> evaluate, as for a trained row."""
    system = config.systems[name]
    test_deps = experiment_data(config, name).test_deps
    deps = test_deps
    params = [f"systems.{name}"] if config.declared_in_params(name) else []
    if system.rules is not None:
        deps += rule_markers(config, [system.rules])
        params.append(f"rules.{system.rules}")
    if system.input != "source":
        deps += (hyp_path(system.input),)
    if system.vocabulary_only:
        deps += (output_vocabulary(config, system.dataset),)
    result = [Stage(name=f"system_{name}", step="decode",
                    cmd=shell_command("paragen", "system", "--params", PARAMS_FILE, "--name", name),
                    deps=deps, params=tuple(params),
                    outs=tuple(hyp_path(name, split) for split in config.splits_of(name))),
              evaluate_stage(config, name)]
    if system.sweep:
        dataset = config.dataset_of(name)
        spec = config.datasets[dataset]
        outs = sweep_outputs(name)
        protocol = (fetch_marker("turkcorpus", fetch_scopes(config).get("turkcorpus", "eval")),) \
            if isinstance(spec, RealDataset) and spec.evaluation.report_protocol else ()  # 003's protocol too
        result.append(Stage(name=f"sweep_{name}", step="score",
                            cmd=shell_command("paragen", "skip-sweep", "--params", PARAMS_FILE, "--name", name, "--quiet"),
                            deps=test_deps + protocol,
                            params=(f"systems.{name}",) + set_keys(dataset, config.datasets[dataset], ("evaluation",)),
                            outs=outs, uncached=outs, report=sweep_items(table_of_row(config, name), name, outs)))
    return result


def table_of_row(config: ParagenConfig, row: str) -> TableConfig:
    """The first active table that shows a row (experiment or system), or shows a system rewriting its output:
    where the row's extra outputs (a sweep) belong."""
    def shown(name: str, table: TableConfig) -> bool:
        return name in table.experiments() or any(
            config.systems[s].input == name and shown(s, table) for s in table.experiments() if s in config.systems)

    return next(t for t in config.active_tables().values() if shown(row, t))


def comparison_stages(config: ParagenConfig, tables: dict[str, TablePlan]) -> list[Stage]:
    """One ``paragen compare`` per comparison of the active tables whose rows run, per seed (seed k of the row
    against seed k of the baseline)."""
    result: dict[str, Stage] = {}
    for name, plan in tables.items():
        table = plan.spec
        for comparison, runs in plan.comparisons + plan.confirmations:
            metric = config.comparison_metric(table, comparison)
            for a, b, _ in runs:
                stage = compare_stage(config, a, b, metric, comparison.samples, (f"tables.{name}.comparisons",))
                result.setdefault(stage.outs[0], stage)
    return list(result.values())


def compare_stage(config: ParagenConfig, a: str, b: str, metric: str, samples: int, keys: tuple[str, ...],
                  out: str | None = None) -> Stage:
    """``paragen compare``: run ``a`` against run ``b`` on their test set by paired bootstrap (rule data: the test
    also resamples rules, paragen.metrics.cluster_bootstrap, per type and overall). ``keys``: the params keys that
    ask for the test; the dataset's evaluation settings are added. ``out``: default ``comparison_path(a, b)``."""
    dataset = config.dataset_of(a)
    spec = config.datasets[dataset]
    keys += () if isinstance(spec, SyntheticDataset) else set_keys(dataset, spec, ("evaluation",))
    data = experiment_data(config, a)
    rules = ("--tags", data.test_deps[2], "--groups", data.test_deps[3]) if isinstance(spec, SyntheticDataset) else ()
    out = out or comparison_path(a, b)
    hyps = tuple(hyp_path(e, split) for e in (a, b) for split in config.test_splits(dataset))
    return Stage(
        name=("" if out == comparison_path(a, b) else "matrix_") + f"compare_{a}_vs_{b}", step="score",
        cmd=shell_command("paragen", "compare", "--params", PARAMS_FILE, "--experiment", a, "--baseline", b,
                          "--metric", metric, "--samples", str(samples), *rules, "--out", out),
        deps=hyps + data.test_deps, params=keys, outs=(out,), uncached=(out,))


def closest_epoch_stages(config: ParagenConfig, tables: dict[str, TablePlan]) -> list[Stage]:
    """Per run of a row in a table's ``closest_epochs``: decode the kept checkpoint of the epoch closest to the
    paper's row on validation (``paragen decode --closest-to``), then score it as the row is scored; then the same
    hypothesis as a prediction per held-out type (``paragen closest-heldout``: each type's epoch chosen on the other
    types, its test score against the paper's, decoding the kept checkpoints it needs)."""
    result: dict[str, Stage] = {}
    for name, plan in tables.items():
        for row in plan.closest_rows():
            data = experiment_data(config, row.name)
            spec = config.experiments[row.name]
            test_src, test_tgt, test_tag, test_rule = data.test_deps[:4]
            for run in row.runs:
                decoded = (closest_hyp_path(run.name), closest_nbest_path(run.name), closest_choice_path(run.name))
                result.setdefault(f"closest_{run.name}", Stage(
                    name=f"closest_{run.name}", step="decode",
                    cmd=shell_command("exec", "paragen", "decode", "--params", PARAMS_FILE, "--experiment", run.name,
                                      "--closest-to", name, "--die-with-parent"),
                    deps=(f"{run_dir(run.name)}/train_log.csv", f"{run_dir(run.name)}/{EPOCHS_DIR}", test_src,
                          data.vocab),
                    params=(f"decoding.{spec.decoding}", f"tables.{name}.closest_epochs", f"tables.{name}.paper")
                    + ((f"tables.{name}.closest_runs",) if plan.spec.closest_runs else ()),
                    outs=decoded, uncached=(closest_choice_path(run.name),),
                    threads=config.decoding[spec.decoding].threads or 1,
                    resources=decode_resources(config, run.name, "test")))
                result.setdefault(f"score_{run.name}_closest", Stage(
                    name=f"score_{run.name}_closest", step="score",
                    cmd=shell_command("paragen", "score", "--metric", "exact", "--ref", test_tgt, "--hyp",
                                      decoded[0], "--nbest", decoded[1], *topk_args(config, run.name), "--tags",
                                      test_tag, "--groups", test_rule, "--out", run.metrics),
                    deps=(test_tgt, decoded[0], decoded[1], test_tag, test_rule),
                    outs=(run.metrics,), uncached=(run.metrics,)))
                label = next(r for r in plan.spec.closest_epochs if plan.spec.closest_run(r) == row.name)
                own = run.name if plan.spec.closest_run(label) == plan.spec.rows[label] else \
                    same_seed_run(config, run.name, plan.spec.rows[label])  # the table's selected checkpoint
                result.setdefault(f"heldout_{run.name}", Stage(
                    name=f"heldout_{run.name}", step="decode",
                    cmd=shell_command("exec", "paragen", "closest-heldout", "--params", PARAMS_FILE, "--experiment",
                                      run.name, "--table", name, "--quiet", "--die-with-parent"),
                    deps=(f"{run_dir(run.name)}/train_log.csv", f"{run_dir(run.name)}/{EPOCHS_DIR}", test_src,
                          test_tgt, test_tag, data.vocab, closest_choice_path(run.name), run.metrics,
                          metrics_path(own)),
                    params=(f"decoding.{spec.decoding}", f"tables.{name}.closest_epochs", f"tables.{name}.paper"),
                    outs=(heldout_path(run.name),), uncached=(heldout_path(run.name),),
                    threads=config.decoding[spec.decoding].threads or 1,
                    resources=decode_resources(config, run.name, "test")))
    return list(result.values())
