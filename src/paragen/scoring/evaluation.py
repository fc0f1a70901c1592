"""``paragen evaluate``: score a real-data experiment's test output with its dataset's metrics.

One JSON per experiment (``results/metrics/<experiment>.json``) holds every metric the dataset
asks for (``datasets.<name>.evaluation``), each computed by :func:`paragen.scoring.files.score` with
the same settings a user would pass to ``paragen score``: BPE is restored first, BLEU and SARI
see every reference set of the split (``test.ref.k``) and the source (SARI), ROUGE the first
reference on the configured unit (LCSTS: characters, so +C and +W rows are comparable), with rouge-score
or, where ``evaluation.rouge_perl`` says so, the official ROUGE-1.5.5 (SPM's Gigaword scores).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from paragen import artifacts
from paragen.config import Evaluation, HeadlineSyntheticDataset, ParagenConfig, RealDataset
from paragen.data.corpus import CorpusError, read_lines, reference_files
from paragen.metrics.degenerate import count_degenerate
from paragen.scoring.files import ScoreRequest, score


def evaluate_experiment(config: ParagenConfig, experiment: str) -> dict[str, Any]:
    """Score an experiment's decoded test output, or a system's computed one (the same files, the same metrics).

    A dataset with one test split gives the metrics at the top level; one with several (004: test_ours, test_rush,
    test_zhou) gives them per split under ``splits``."""
    dataset_name = config.dataset_of(experiment)
    dataset = config.datasets[dataset_name]
    if not isinstance(dataset, (RealDataset, HeadlineSyntheticDataset)):
        raise CorpusError(f"{experiment}: `paragen evaluate` scores real-data and headline stand-in experiments; "
                          "rule-data ones use `paragen score --metric exact`")
    data = artifacts.experiment_data(config, experiment)
    remove_bpe = restores_bpe(dataset)
    system = config.systems.get(experiment)
    oracle = system is not None and system.method == "oracle"
    splits = config.splits_of(experiment)
    if oracle and system.reference == "leave_one_out":
        scored = {"test": evaluate_leave_one_out(dataset.evaluation, data.directory, remove_bpe=remove_bpe)}
    elif system is not None and system.method == "skip" and system.seeds > 1:
        scored = {"test": evaluate_skip_seeds(config, experiment)}
    else:
        scored = {split: evaluate_output(dataset.evaluation, data.directory, artifacts.hyp_path(experiment, split),
                                         remove_bpe, split) for split in splits}
    if isinstance(dataset, RealDataset) and dataset.evaluation.report_protocol and "report_protocol" not in \
            scored["test"]:
        from paragen.simplification.report_protocol import score_file

        scored["test"]["report_protocol"] = score_file(artifacts.hyp_path(experiment), oracle=oracle,
                                                       remove_bpe=remove_bpe)
    if config.test_splits(dataset_name) == ["test"]:  # per split wherever the dataset has several, so every row of
        return {"experiment": experiment, "dataset": dataset_name, **scored["test"]}  # a table has the same keys
    return {"experiment": experiment, "dataset": dataset_name, "splits": scored}


def _mean_results(results: list[Any]) -> Any:
    """The element-wise mean of several metric results: numbers averaged, dicts recursively, anything else (paths,
    signatures) taken from the first."""
    first = results[0]
    if all(r == first for r in results[1:]):  # counts, paths, settings shared by every output
        return first
    if isinstance(first, dict):
        return {key: _mean_results([r[key] for r in results]) for key in first}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return sum(results) / len(results)
    return first


def skip_runs(evaluation: Evaluation, directory: str, points: Iterable[tuple[float, int]], remove_bpe: bool = False,
              protocol: Any = None) -> Iterator[dict[str, Any]]:
    """The skip baseline's output at each (drop probability, seed) of ``points``, scored as the table's rows are
    (the outputs are scratch files); ``protocol``: a :class:`~paragen.simplification.report_protocol.TurkTest` to
    also score each output under 003's protocol."""
    import tempfile

    from paragen.simplification.systems import skip

    sources = read_lines(f"{directory}/test.src")
    with tempfile.TemporaryDirectory() as scratch:
        hyp = Path(scratch) / "test.hyp"
        for probability, seed in points:
            lines = skip(sources, probability, seed)
            hyp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            run = evaluate_output(evaluation, directory, str(hyp), remove_bpe)
            if protocol is not None:
                from paragen.simplification.report_protocol import protocol_scores

                run["report_protocol"] = protocol_scores(protocol, lines, f"skip output, seed {seed}")
            yield run


def evaluate_skip_seeds(config: ParagenConfig, name: str) -> dict[str, Any]:
    """The skip baseline over its seeds (seed, seed + 1, ...): every metric averaged over the outputs, the
    per-seed values kept under ``per_seed``. One seed's output is one draw of a random procedure; the row's cell
    is their mean (the test output file holds the first seed's)."""
    spec = config.systems[name]
    dataset = config.datasets[spec.dataset]
    assert isinstance(dataset, RealDataset)
    directory = artifacts.experiment_data(config, name).directory
    seeds = list(range(spec.seed, spec.seed + spec.seeds))
    protocol = None
    if dataset.evaluation.report_protocol:  # the Turk files read once for every seed
        from paragen.simplification.report_protocol import read_turk_test

        protocol = read_turk_test()
    runs = list(skip_runs(dataset.evaluation, directory, [(spec.probability, seed) for seed in seeds],
                          restores_bpe(dataset), protocol))
    result = _mean_results(runs)
    for metric in dataset.evaluation.metrics:  # the outputs were scratch files; the run's file holds the first seed's
        result[metric]["hyp"] = f"{artifacts.hyp_path(name)} and seeds {seeds[1]}..{seeds[-1]} computed in memory"
    if "report_protocol" in result:
        result["report_protocol"]["output"] = result[dataset.evaluation.metrics[0]]["hyp"]
    result["per_seed"] = {"seeds": seeds, **{metric: [run[metric]["score"] for run in runs]
                                             for metric in dataset.evaluation.metrics if metric in ("bleu", "sari")}}
    result["skip"] = f"mean over the outputs of seeds {seeds[0]}..{seeds[-1]} (each word dropped with p = " \
                     f"{spec.probability})"
    return result


def evaluate_leave_one_out(evaluation: Evaluation, directory: str, split: str = "test",
                           remove_bpe: bool = False) -> dict[str, Any]:
    """The oracle with no reference scored against itself: reference k as the output, scored against the other
    references, every metric averaged over k (BLEU of a reference against a set containing it is 100 by
    construction). ``remove_bpe``: segmentation wrote the references in subwords too; they are scored on words,
    as every other row's output and references are."""
    refs = reference_files(directory, split)
    if len(refs) < 2:
        raise CorpusError(f"{directory}: a leave-one-out oracle needs at least 2 references of {split}, found "
                          f"{len(refs)}")
    runs = [evaluate_output(evaluation, directory, held_out, remove_bpe, split=split,
                            refs=[r for r in refs if r != held_out]) for held_out in refs]
    result = _mean_results(runs)
    if evaluation.report_protocol:  # 003's protocol has its own oracle: the .simp sentence
        from paragen.simplification.report_protocol import score_file

        result["report_protocol"] = score_file(refs[0], oracle=True)
    result["oracle"] = (f"leave-one-out: each of the {len(refs)} references scored against the other {len(refs) - 1}, "
                        "metrics averaged over the references")
    return result


def restores_bpe(dataset: RealDataset | HeadlineSyntheticDataset) -> bool:
    """Whether outputs are scored after undoing BPE (``@@ `` joins): real data segmented with BPE."""
    return isinstance(dataset, RealDataset) and dataset.segmentation == "bpe"


def evaluate_output(evaluation: Evaluation, directory: str, hyp: str, remove_bpe: bool = False,
                    split: str = "test", refs: list[str] | None = None) -> dict[str, Any]:
    """The evaluation's metrics of one output file against ``directory``'s ``split`` source and references, or
    ``refs`` where given (ROUGE and odd generation against the first reference)."""
    refs = reference_files(directory, split) if refs is None else refs
    outputs = read_lines(hyp)
    result: dict[str, Any] = {"count": len(outputs), "references": len(refs),
                              "degenerate": count_degenerate(outputs).as_dict()}
    for metric in evaluation.metrics:
        result[metric] = score(score_request(evaluation, metric, directory, hyp, remove_bpe, split, refs=refs))
    return result


def score_request(evaluation: Evaluation, metric: str, directory: str, hyp: str, remove_bpe: bool = False,
                  split: str = "test", compare: str | None = None, samples: int = 1000,
                  refs: list[str] | None = None) -> ScoreRequest:
    """How the evaluation scores ``hyp`` with ``metric`` (and, given ``compare``, tests it against that output)."""
    refs = reference_files(directory, split) if refs is None else refs
    return ScoreRequest(metric=metric, hyp=hyp, refs=refs if metric not in ("rouge", "oddgen") else refs[:1],
                        src=f"{directory}/{split}.src", lowercase=evaluation.lowercase,
                        rouge_unit=evaluation.rouge_unit, rouge_perl=evaluation.rouge_perl,
                        rouge_perl_exceptions=evaluation.rouge_perl_exceptions, remove_bpe=remove_bpe,
                        compare=compare, bootstrap_samples=samples)
