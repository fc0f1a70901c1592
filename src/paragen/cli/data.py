"""The data commands: fetch, prepare, segment and vocabularies of real datasets; generate and vocab of the
synthetic ones; the datasets table."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from paragen import artifacts
from paragen.atomic import write_json
from paragen.cli.args import input_dir, non_negative_int, output_dir, positive_int
from paragen.cli.common import Commands, load_params
from paragen.config import ConfigError
from paragen.data.corpus import MAX_LINE_CHARS, CorpusError, read_split
from paragen.data.fetch import FetchError
from paragen.data.registry import default_mirror

log = logging.getLogger("paragen")


def _dataset_dir(dataset: str) -> Path:
    return Path(artifacts.prepared(dataset, "train", "src")).parent


def cmd_generate(args: argparse.Namespace) -> None:
    from paragen.data import headline_synthetic, synthetic

    config = load_params(args)
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
        from paragen.data.synthetic_ceiling import ceilings_of

        rules = synthetic.drawn_rules(spec)
        stats = synthetic.statistics(rules, splits)
        ceilings = ceilings_of(rules, splits["test"], spec.variable_length)
        for rule_type, row in stats.items():  # the best expected test exact match: 100 unless x and y can touch
            row["test_ceiling"] = ceilings[rule_type]["ceiling"]
        write_json(_dataset_dir(args.dataset) / synthetic.STATISTICS_FILE,
                   {"by_type": stats, "rules": synthetic.rules_json(rules)})
        for rule_type, row in stats.items():
            log.info("%s %-6s %s", args.dataset, rule_type,
                     ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in row.items()))


def cmd_vocab(args: argparse.Namespace) -> None:
    from paragen.data.vocabulary import Vocabulary

    config = load_params(args)
    train = read_split(_dataset_dir(args.dataset), "train")
    vocab = Vocabulary.build([train.sources, train.targets], config.vocab.max_size, config.vocab.min_count)
    vocab.save(artifacts.vocab_path(args.dataset))
    log.info("%s: vocabulary of %d tokens", args.dataset, len(vocab))


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
                    max_line_chars=args.max_line_chars, max_overlap=args.max_overlap)


def cmd_prepare_local(args: argparse.Namespace) -> None:
    from paragen.config import LocalDataset
    from paragen.data.local import prepare_local

    config = load_params(args)
    spec = config.datasets.get(args.dataset)
    if not isinstance(spec, LocalDataset):
        local = sorted(n for n, d in config.datasets.items() if isinstance(d, LocalDataset))
        raise ConfigError(f"{args.dataset!r} is not a kind: local dataset of {args.params}; allowed values: {local}")
    prepare_local(args.dataset, spec, args.out_root)


def cmd_segment(args: argparse.Namespace) -> None:
    from paragen.data.segment import segment_dataset

    out = segment_dataset(args.dataset, args.scheme, merges=args.merges, lowercase=args.lowercase,
                          prepared_root=args.prepared_root, out_root=args.out_root, workers=args.workers,
                          progress=not args.quiet, drop_longer_target=args.drop_longer_target, name=args.name,
                          copy_task=args.copy_task, train_sample=args.train_sample,
                          train_sample_seed=args.train_sample_seed)
    print(f"{args.dataset}: segmented with {args.scheme} into {out}")


def cmd_vocab_build(args: argparse.Namespace) -> None:
    from paragen.data.vocabularies import build_vocabularies
    from paragen.data.vocabulary import SPECIALS, Vocabulary

    for path in build_vocabularies(args.dir, args.size, args.shared, args.out):
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
        try:  # one call per dataset (each replaces data/prepared/<name>/ whole); turk-mini's train is in the mirror
            prepare_dataset(name, [s for s in recipe.splits if s != "train" or name == "turk_mini"],
                            skip_unavailable=True)
        except CorpusError as error:
            print(f"{name}: not prepared: {error}", file=sys.stderr)
    try:
        fetch_dataset("dress_outputs", [args.mirror], "eval", progress=False)  # listed in the table, not prepared
    except FetchError as error:
        print(error if str(error).startswith("dress_outputs:") else f"dress_outputs: {error}", file=sys.stderr)
    cmd_datasets_table(args)


def register(commands: Commands) -> None:
    """Add this module's subcommands to ``paragen``'s parser."""
    add = commands.add
    p = add("fetch", cmd_fetch, "download (or copy from a mirror) and verify a dataset's files", params=False)
    p.add_argument("dataset", nargs="+", help="dataset name(s) from the registry, or 'all'")
    p.add_argument("--mirror", action="append", default=[],
                   help="local directory or base URL tried before upstream; repeatable (e.g. /data/paragen-mirror)")
    p.add_argument("--eval-only", action="store_true", help="only validation/test/reference files")
    p.add_argument("--root", default="data/raw", type=output_dir, help="where datasets go (default data/raw)")
    p.add_argument("--keep-going", action="store_true", help="continue with the next dataset after a failure")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p = add("prepare", cmd_prepare, "prepare a fetched dataset's splits as its paper describes", params=False,
            writes=lambda a: [(str(Path(a.out_root) / a.dataset), False)])
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
    p.add_argument("--max-overlap", type=non_negative_int, default=0,
                   help="refuse when more evaluation lines than this share a source sentence with the training split "
                   "(or a test line with validation); default 0; params.yaml: datasets.<name>.max_overlap")
    p = add("prepare-local", cmd_prepare_local, writes=lambda a: [(str(Path(a.out_root) / a.dataset), False)],
            help_text="check a kind: local dataset's own files (present, digest, UTF-8, "
            "aligned) and prepare them as a real dataset's")
    p.add_argument("--dataset", required=True, help="a dataset of kind: local under params.yaml's datasets:")
    p.add_argument("--out-root", default="data/prepared", type=output_dir)
    p = add("segment", cmd_segment, "segment a prepared dataset: bpe (subword-nmt), char, jieba or word",
            params=False, writes=lambda a: [(str(Path(a.out_root) / f"{a.name or a.dataset}.{a.scheme}"), False)])
    p.add_argument("dataset")
    p.add_argument("--scheme", required=True, choices=["bpe", "char", "jieba", "word"])
    p.add_argument("--name", help="output name: data/segmented/NAME.SCHEME (default: the dataset)")
    p.add_argument("--merges", type=int, default=5000, help="BPE merge operations, learned jointly (default 5000)")
    p.add_argument("--lowercase", action="store_true")
    p.add_argument("--drop-longer-target", action="store_true",
                   help="drop training pairs whose segmented target is longer than the source (SPM, Gigaword)")
    p.add_argument("--train-sample", type=int, default=None, metavar="N",
                   help="keep N training pairs, drawn without replacement, in their order")
    p.add_argument("--train-sample-seed", type=int, default=1, metavar="S", help="seed of --train-sample's draw")
    p.add_argument("--copy-task", action="store_true",
                   help="replace every split's target and references by its source (a copy-task sanity check)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--prepared-root", default="data/prepared", type=output_dir)
    p.add_argument("--out-root", default="data/segmented", type=output_dir)
    p.add_argument("--quiet", action="store_true")
    p = add("vocab-build", cmd_vocab_build, "vocabularies of a given size from a segmented training split",
            params=False, writes=lambda a: [(a.out or a.dir, False)])
    p.add_argument("--dir", required=True, type=input_dir,
                   help="segmented dataset directory holding train.src / train.tgt")
    p.add_argument("--out", type=output_dir, default=None,
                   help="directory the vocabularies are written to (default: --dir; the DAG: data/vocab/NAME.SCHEME)")
    p.add_argument("--size", type=int, default=None, help="tokens besides the 4 special symbols (default: all)")
    p.add_argument("--shared", action="store_true", help="one vocabulary for source and target")
    p = add("generate", cmd_generate, "generate CopyNet's synthetic rule dataset",
            writes=lambda a: [(str(_dataset_dir(a.dataset)), False)])
    p.add_argument("--dataset", required=True, help="a dataset name under params.yaml's datasets: (an unknown name lists the valid ones)")
    p = add("vocab", cmd_vocab, "build a dataset's vocabulary from its training split",
            writes=lambda a: [(artifacts.vocab_path(a.dataset), False)])
    p.add_argument("--dataset", required=True, help="a dataset name under params.yaml's datasets: (an unknown name lists the valid ones)")
    p = add("datasets-table", cmd_datasets_table, "write results/tables/datasets.{md,csv} from data/prepared",
            params=False)
    p.add_argument("--prepared-root", default="data/prepared")
    p = add("evalsets", cmd_evalsets, "fetch and prepare every evaluation set a local mirror holds, then the "
            "datasets table", params=False)
    p.add_argument("--mirror", default=default_mirror(), required=default_mirror() is None,
                   help="a local mirror of the public data (default: $PARAGEN_MIRROR)")
    p.add_argument("--prepared-root", default="data/prepared")
