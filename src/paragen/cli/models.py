"""The commands that run a model: train (one process or one per GPU under torchrun), decode, align."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from paragen import artifacts
from paragen.atomic import atomic_open, write_json
from paragen.cli.args import line_numbers, non_negative_int, output_file, positive_int
from paragen.cli.common import Commands, load_params, known_experiment
from paragen.config import ConfigError, ParagenConfig
from paragen.data.corpus import CorpusError, read_lines, read_split, reference_files
from paragen.pipeline import data_stages
from paragen.training.runlock import die_with_parent

if TYPE_CHECKING:
    import torch
    from paragen.data.vocabulary import Vocabulary

log = logging.getLogger("paragen")


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
    directory = artifacts.experiment_data(config, experiment).directory
    return make_validator(metric, valid, reference_sets(directory, "valid"), dataset.evaluation.lowercase,
                          dataset.evaluation.rouge_unit)


def _rule_tables(config: ParagenConfig, experiment: str, vocab) -> tuple[dict, list[str]]:
    """The rule tables (vocabulary ids) an experiment's DMASS memory or critic loss needs, and their files."""
    from paragen.models.critic import RuleTable
    from paragen.simplification.ppdb import load_rules

    tables, files = {}, []
    for name in data_stages.experiment_rules(config, experiment):
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

    config = load_params(args)
    spec = known_experiment(config, args.experiment)
    data = artifacts.experiment_data(config, args.experiment)
    valid = read_split(data.directory, "valid")
    vocab = Vocabulary.load(data.vocab)
    tables, rule_files = _rule_tables(config, args.experiment, vocab)
    state = train(
        model_config=config.models[spec.model], training=config.training_of(args.experiment),
        train_data=read_split(data.directory, "train"), valid_data=valid,
        vocab=vocab, run_dir=artifacts.run_dir(args.experiment), rule_tables=tables, rule_files=rule_files,
        device=device, progress=not args.quiet,
        validator=_validator(config, args.experiment, valid),
        monitors={m: _validator(config, args.experiment, valid, m) for m in config.training_of(args.experiment).log_metrics},
        extra_inputs=reference_files(data.directory, "valid") if data.real else (), training_name=spec.training,
        stop_after_epoch=args.stop_after_epoch,
    )
    if not state.finished:
        log.info("%s: stopped after epoch %d as asked (--stop-after-epoch), not published; the same command "
                 "resumes it", args.experiment, state.epoch)
        return
    log.info("%s: best valid metric %.2f at epoch %d of %d", args.experiment, state.best_metric,
             state.best_epoch, state.epoch)


def _trained_model(config: ParagenConfig, experiment: str, device: torch.device,
                   checkpoint: str | None = None) -> tuple[torch.nn.Module, Vocabulary]:
    """An experiment's published model (``best.pt``, or another of its checkpoints) and the vocabulary it reads and
    writes: the dataset's, plus ``<tpad>`` for an SPM model (:func:`paragen.models.vocabulary_for`), so decoding
    and alignment agree."""
    from paragen.models import vocabulary_for
    from paragen.training.checkpoint import load_model
    from paragen.data.vocabulary import Vocabulary

    spec = config.experiments[experiment]
    checkpoint_path = Path(checkpoint or Path(artifacts.run_dir(experiment)) / "best.pt")
    model, checkpoint = load_model(checkpoint_path, device)
    vocab_path = artifacts.experiment_data(config, experiment).vocab
    vocab = vocabulary_for(config.models[spec.model], Vocabulary.load(vocab_path))
    check_vocabulary(checkpoint, checkpoint_path, vocab, vocab_path)
    return model, vocab


def check_vocabulary(checkpoint: dict, checkpoint_path: Path, vocab: Vocabulary, vocab_path: str) -> None:
    """Refuse a vocabulary other than the one the checkpoint was trained with (same tokens, same order): ids
    would map to other words and every output would be wrong without a word (exact match 0.00 instead of 38)."""
    from paragen.training.checkpoint import CheckpointError, config_digest

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
    from paragen.pipeline.tables import trace_of
    from paragen.training.trainer import pick_device

    config = load_params(args)
    spec = known_experiment(config, args.experiment)
    decoding = config.decoding[spec.decoding]
    device = pick_device(args.device)
    data = artifacts.experiment_data(config, args.experiment)
    if args.split not in config.test_splits(spec.dataset):
        raise ConfigError(f"--split: {args.split!r} is not a test split of {spec.dataset}; allowed values: "
                          f"{config.test_splits(spec.dataset)}")
    choice = None
    if args.closest_to:  # the checkpoint of the epoch closest to the paper's row on validation (training.closest_choice)
        from paragen.training.closest_choice import choose

        choice = choose(config, args.closest_to, args.experiment)
    model, vocab = _trained_model(config, args.experiment, device, choice["checkpoint"] if choice else None)
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
    nbest_path, hyp_path = ((artifacts.closest_nbest_path, artifacts.closest_hyp_path) if choice else
                            (artifacts.nbest_path, artifacts.hyp_path))
    with atomic_open(nbest_path(args.experiment, args.split)) as handle:
        for r in results:
            handle.write(json.dumps({"nbest": [" ".join(h) for h in r.nbest], "scores": r.scores},
                                    ensure_ascii=False) + "\n")
    with atomic_open(hyp_path(args.experiment, args.split)) as handle:
        handle.writelines(" ".join(r.nbest[0]) + "\n" for r in results)
    if choice:
        write_json(artifacts.closest_choice_path(args.experiment), choice)
        log.info("%s: decoded epoch %d (closest to the paper's %s row on validation) into %s", args.experiment,
                 choice["epoch"], choice["row"], artifacts.closest_dir(args.experiment))
        return
    traced = trace_of(config, args.experiment)
    if traced and args.split == "test":  # heat maps: the first correct and first wrong output per rule type
        from paragen.data.synthetic import spans_of_test_lines
        from paragen.decoding.decode import trace_attention, trace_copy_modes

        tags = read_lines(Path(data.directory) / "test.tag")
        references = [line.split() for line in read_lines(Path(data.directory) / "test.tgt")]
        outputs = [r.nbest[0] for r in results]
        spans = spans_of_test_lines(data.directory, sources)  # None on a line whose rule's x and y are adjacent
        path, tracer = ((artifacts.copy_trace_path, trace_copy_modes) if traced == "copy" else
                        (artifacts.attention_trace_path, trace_attention))
        write_json(path(args.experiment), copy_examples(model, sources, outputs, references, tags, vocab, device,
                                                        spans, tracer))
    log.info("%s: decoded %d sentences of %s", args.experiment, len(results), args.split)


def cmd_closest_heldout(args: argparse.Namespace) -> None:
    """The closest-epoch hypothesis as a prediction: per copying type the epoch chosen with that type left out,
    its test score (decoding a kept checkpoint where no scored decode has it) against the paper's number."""
    import torch

    from paragen.decoding.decode import translate
    from paragen.scoring.closest_heldout import held_out_prediction
    from paragen.training.kept_epochs import epoch_checkpoint
    from paragen.training.trainer import pick_device

    config = load_params(args)
    spec = known_experiment(config, args.experiment)
    decoding = config.decoding[spec.decoding]
    device = pick_device(args.device)
    source_path = Path(artifacts.experiment_data(config, args.experiment).directory) / "test.src"

    def decode(epoch: int) -> list[list[str]] | None:
        checkpoint = epoch_checkpoint(artifacts.run_dir(args.experiment), epoch)
        if not checkpoint.exists():
            return None
        model, vocab = _trained_model(config, args.experiment, device, str(checkpoint))
        if decoding.threads:
            torch.set_num_threads(decoding.threads)
        sources = [line.split() for line in read_lines(source_path)]
        log.info("%s: decoding epoch %d for a held-out type", args.experiment, epoch)
        return [r.nbest[0] for r in translate(model, sources, vocab, device=device, progress=not args.quiet,
                                              **decoding.model_dump(exclude={"threads"}))]

    if args.die_with_parent:
        die_with_parent()
    result = held_out_prediction(config, args.table, args.experiment, decode)
    write_json(artifacts.heldout_path(args.experiment), result)
    for key, entry in result["types"].items():
        test = "missing" if "test" not in entry else f"{entry['test']:.2f} (error {entry['error']:.2f})"
        log.info("%s %s: epoch %d, test %s, paper %.1f, selected error %.2f", args.experiment, key, entry["epoch"],
                 test, entry["paper"], entry["selected_error"])


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
    config = load_params(args)
    known_experiment(config, args.experiment)  # an unknown experiment stops here, naming the known ones
    data = artifacts.experiment_data(config, args.experiment)
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


def _reads_run(args: argparse.Namespace) -> list[tuple[str, bool]]:
    """decode and align read a trained run: a shared lock on it (:mod:`paragen.locks`), so two of them work side
    by side but neither beside the run's trainer."""
    return [(artifacts.run_dir(args.experiment), True)]


def register(commands: Commands) -> None:
    """Add this module's subcommands to ``paragen``'s parser."""
    add = commands.add
    for name, handler, text in (("train", cmd_train, "train one experiment (resumes an interrupted run)"),
                                ("decode", cmd_decode, "beam-search decode one experiment's test set")):
        # train holds its run's lock itself (paragen.training.runlock, also under torchrun); decode reads the run
        p = add(name, handler, text, writes=None if name == "train" else _reads_run)
        p.add_argument("--experiment", required=True, help="an experiment name under params.yaml's experiments: (an unknown name lists the valid ones)")
        p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu; "
                       "train under torchrun: cuda:LOCAL_RANK per process)")
        p.add_argument("--quiet", action="store_true", help="no progress bars")
        p.add_argument("--die-with-parent", action="store_true",
                       help="end when the process that started this one dies (how the workflow engines run it, "
                       "so a killed Snakemake leaves no trainer behind)")
        if name == "train":
            p.add_argument("--stop-after-epoch", type=non_negative_int, metavar="N",
                           help="end once N epochs are trained, publishing nothing, as an interruption would (the "
                           "resume state is kept, so the same command goes on): a rehearsal of resumption")
        if name == "decode":
            p.add_argument("--split", default="test", help="the test split to decode (default test; 004's Gigaword "
                           "has test_ours, test_rush and test_zhou): writes runs/EXPERIMENT/SPLIT.hyp")
            p.add_argument("--closest-to", metavar="TABLE", help="decode the kept checkpoint of the epoch whose "
                           "per-type validation exact match is closest to TABLE's published row (rule data; the "
                           "row must be in its closest_epochs): writes runs/EXPERIMENT/closest/SPLIT.hyp and "
                           "results/metrics/EXPERIMENT.closest_epoch.json")
    p = add("closest-heldout", cmd_closest_heldout, "the closest-epoch hypothesis as a prediction (rule data): per "
            "copying type, the epoch closest to TABLE's published row on validation with that type left out, and "
            "that type's test score there against the paper's number", writes=_reads_run)
    p.add_argument("--experiment", required=True, help="a run of a row in TABLE's closest_epochs (its closest-epoch "
                   "decode scored: results/metrics/EXPERIMENT.closest.json)")
    p.add_argument("--table", required=True, help="the table whose paper row is predicted")
    p.add_argument("--device", default=None, help="torch device (default: cuda if available, else cpu)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--die-with-parent", action="store_true",
                   help="end when the process that started this one dies")
    p = add("align", cmd_align, "alignment accuracy of a trained model against gold links (attention by source "
            "position, SPM's q_j by source word; 004 Figure 4 measured), and heat-map matrices of chosen sentences",
            writes=_reads_run)
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
