"""``paragen evaluate``: score a real-data experiment's test output with its dataset's metrics.

One JSON per experiment (``results/metrics/<experiment>.json``) holds every metric the dataset
asks for (``datasets.<name>.evaluation``), each computed by :func:`paragen.scoring.score` with
the same settings a user would pass to ``paragen score``: BPE is restored first, BLEU and SARI
see every reference set of the split (``test.ref.k``) and the source (SARI), ROUGE the first
reference on the configured unit (LCSTS: characters, so +C and +W rows are comparable), with rouge-score
or, where ``evaluation.rouge_perl`` says so, the official ROUGE-1.5.5 (SPM's Gigaword scores).
"""

from __future__ import annotations

from typing import Any

from paragen import pipeline
from paragen.config import Evaluation, HeadlineSyntheticDataset, ParagenConfig, RealDataset
from paragen.data.corpus import CorpusError, read_lines, reference_files
from paragen.scoring import ScoreRequest, score


def evaluate_experiment(config: ParagenConfig, experiment: str) -> dict[str, Any]:
    """Score an experiment's decoded test output, or a system's computed one (the same files, the same metrics).

    A dataset with one test split gives the metrics at the top level; one with several (004: test_ours, test_rush,
    test_zhou) gives them per split under ``splits``."""
    dataset_name = config.dataset_of(experiment)
    dataset = config.datasets[dataset_name]
    if not isinstance(dataset, (RealDataset, HeadlineSyntheticDataset)):
        raise CorpusError(f"{experiment}: `paragen evaluate` scores real-data and headline stand-in experiments; "
                          "rule-data ones use `paragen score --metric exact`")
    data = pipeline.experiment_data(config, experiment)
    remove_bpe = restores_bpe(dataset)
    splits = config.test_splits(dataset_name) if experiment in config.experiments else ["test"]
    scored = {split: evaluate_output(dataset.evaluation, data.directory, pipeline.hyp_path(experiment, split),
                                     remove_bpe, split) for split in splits}
    if splits == ["test"]:
        return {"experiment": experiment, "dataset": dataset_name, **scored["test"]}
    return {"experiment": experiment, "dataset": dataset_name, "splits": scored}


def restores_bpe(dataset: RealDataset | HeadlineSyntheticDataset) -> bool:
    """Whether outputs are scored after undoing BPE (``@@ `` joins): real data segmented with BPE."""
    return isinstance(dataset, RealDataset) and dataset.segmentation == "bpe"


def evaluate_output(evaluation: Evaluation, directory: str, hyp: str, remove_bpe: bool = False,
                    split: str = "test") -> dict[str, Any]:
    """The evaluation's metrics of one output file against ``directory``'s ``split`` source and references
    (ROUGE and odd generation against the first reference)."""
    refs = reference_files(directory, split)
    result: dict[str, Any] = {"count": len(read_lines(hyp)), "references": len(refs)}
    for metric in evaluation.metrics:
        result[metric] = score(score_request(evaluation, metric, directory, hyp, remove_bpe, split))
    return result


def score_request(evaluation: Evaluation, metric: str, directory: str, hyp: str, remove_bpe: bool = False,
                  split: str = "test", compare: str | None = None, samples: int = 1000) -> ScoreRequest:
    """How the evaluation scores ``hyp`` with ``metric`` (and, given ``compare``, tests it against that output)."""
    refs = reference_files(directory, split)
    return ScoreRequest(metric=metric, hyp=hyp, refs=refs if metric not in ("rouge", "oddgen") else refs[:1],
                        src=f"{directory}/{split}.src", lowercase=evaluation.lowercase,
                        rouge_unit=evaluation.rouge_unit, rouge_perl=evaluation.rouge_perl,
                        rouge_perl_exceptions=evaluation.rouge_perl_exceptions, remove_bpe=remove_bpe,
                        compare=compare, bootstrap_samples=samples)
