"""``paragen compare``: a paper's headline comparison (CopyNet vs RNNSearch, WEAN vs Seq2seq, SPM vs EncDec) as a
paired bootstrap test of two experiments' test outputs, on every test split of their dataset.

The outputs are scored exactly as their table scores them (:mod:`paragen.scoring.evaluation`'s settings; exact match on
rule data) and resampled by :func:`paragen.metrics.bootstrap.paired_bootstrap`, the test ``paragen score
--compare`` runs. The p-value is the share of resamples in which the row does not beat the baseline.
"""

from __future__ import annotations

from typing import Any

from paragen import artifacts
from paragen.config import ParagenConfig, SyntheticDataset
from paragen.scoring.evaluation import restores_bpe, score_request
from paragen.scoring.files import ScoreRequest, score


def compare_experiments(config: ParagenConfig, experiment: str, baseline: str, metric: str,
                        samples: int = 1000) -> dict[str, Any]:
    """Paired bootstrap of ``experiment``'s test outputs against ``baseline``'s, per test split."""
    dataset_name = config.dataset_of(experiment)
    if config.dataset_of(baseline) != dataset_name:
        raise ValueError(f"{experiment} and {baseline} are trained on different datasets ({dataset_name}, "
                         f"{config.dataset_of(baseline)}): paired resampling needs one test set")
    allowed = config.comparison_metrics(dataset_name)
    if metric not in allowed:
        raise ValueError(f"{dataset_name} is not scored with {metric!r}; allowed values: {allowed}")
    dataset = config.datasets[dataset_name]
    directory = artifacts.experiment_data(config, experiment).directory
    splits: dict[str, Any] = {}
    for split in config.test_splits(dataset_name):
        hyp, other = artifacts.hyp_path(experiment, split), artifacts.hyp_path(baseline, split)
        if isinstance(dataset, SyntheticDataset):
            request = ScoreRequest(metric="exact", hyp=hyp, refs=[f"{directory}/{split}.tgt"], compare=other,
                                   bootstrap_samples=samples)
        else:
            request = score_request(dataset.evaluation, metric, directory, hyp, restores_bpe(dataset), split,
                                    compare=other, samples=samples)
        result = score(request)
        splits[split] = {**result["bootstrap"], "on": result.get("bootstrap_on", metric)}
    return {"experiment": experiment, "baseline": baseline, "metric": metric, "splits": splits}
