"""``paragen evaluate``: score a real-data experiment's test output with its dataset's metrics.

One JSON per experiment (``results/metrics/<experiment>.json``) holds every metric the dataset
asks for (``datasets.<name>.evaluation``), each computed by :func:`paragen.scoring.score` with
the same settings a user would pass to ``paragen score``: BPE is restored first, BLEU and SARI
see every reference set of the split (``test.ref.k``) and the source (SARI), ROUGE the first
reference on the configured unit (LCSTS: characters, so +C and +W rows are comparable).
"""

from __future__ import annotations

from typing import Any

from paragen import pipeline
from paragen.config import ParagenConfig, RealDataset
from paragen.data.corpus import CorpusError, read_lines, reference_files
from paragen.scoring import ScoreRequest, score


def evaluate_experiment(config: ParagenConfig, experiment: str) -> dict[str, Any]:
    spec = config.experiments[experiment]
    dataset = config.datasets[spec.dataset]
    if not isinstance(dataset, RealDataset):
        raise CorpusError(f"{experiment}: `paragen evaluate` scores real-data experiments; synthetic ones use "
                          "`paragen score --metric exact`")
    data = pipeline.experiment_data(config, experiment)
    hyp = f"{pipeline.run_dir(experiment)}/test.hyp"
    refs = reference_files(data.directory, "test")
    result: dict[str, Any] = {"experiment": experiment, "dataset": spec.dataset, "count": len(read_lines(hyp)),
                              "references": len(refs)}
    for metric in dataset.evaluation.metrics:
        request = ScoreRequest(metric=metric, hyp=hyp, refs=refs if metric != "rouge" else refs[:1],
                               src=f"{data.directory}/test.src", lowercase=dataset.evaluation.lowercase,
                               rouge_unit=dataset.evaluation.rouge_unit, remove_bpe=dataset.segmentation == "bpe")
        result[metric] = score(request)
    return result
