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
from paragen.config import ParagenConfig, RealDataset
from paragen.data.corpus import CorpusError, read_lines, reference_files
from paragen.scoring import ScoreRequest, score


def evaluate_experiment(config: ParagenConfig, experiment: str) -> dict[str, Any]:
    """Score an experiment's decoded test output, or a system's computed one (the same files, the same metrics)."""
    dataset_name = config.dataset_of(experiment)
    dataset = config.datasets[dataset_name]
    if not isinstance(dataset, RealDataset):
        raise CorpusError(f"{experiment}: `paragen evaluate` scores real-data experiments; synthetic ones use "
                          "`paragen score --metric exact`")
    data = pipeline.experiment_data(config, experiment)
    return {"experiment": experiment, "dataset": dataset_name,
            **evaluate_output(dataset, data.directory, pipeline.hyp_path(experiment))}


def evaluate_output(dataset: RealDataset, directory: str, hyp: str) -> dict[str, Any]:
    """The dataset's metrics of one test output file against ``directory``'s test source and references."""
    refs = reference_files(directory, "test")
    result: dict[str, Any] = {"count": len(read_lines(hyp)), "references": len(refs)}
    for metric in dataset.evaluation.metrics:
        request = ScoreRequest(metric=metric, hyp=hyp, refs=refs if metric != "rouge" else refs[:1],
                               src=f"{directory}/test.src", lowercase=dataset.evaluation.lowercase,
                               rouge_unit=dataset.evaluation.rouge_unit, rouge_perl=dataset.evaluation.rouge_perl,
                               remove_bpe=dataset.segmentation == "bpe")
        result[metric] = score(request)
    return result
