"""The validation curves a table draws: which ``train_log.csv`` column its rows share and how the axis is labelled,
naming the tokens the metric counts (validation scores the model's own tokens, BPE pieces where the data is
segmented so, not the words the test table scores)."""

from __future__ import annotations

from paragen.config import ParagenConfig

VALID_LABELS = {"exact_match": "validation exact-match accuracy (%)", "bleu": "validation BLEU",
                "sari": "validation SARI", "rouge2": "validation ROUGE-2 F1", "neg_loss": "validation loss (negated)"}
"""What ``valid_metric`` in a ``train_log.csv`` holds, by ``training.*.valid_metric``."""


MODEL_TOKENS = {"bpe": "BPE pieces", "char": "characters", "jieba": "jieba words", "word": "words"}
"""What a real dataset's model reads and writes, by ``segmentation``: the tokens validation scores."""


def validation_unit(config: ParagenConfig, experiments: list[str], metric: str) -> str:
    """Label text: the tokens a validation score counts. Validation scores the model's own tokens (BPE pieces
    where the data is segmented so), not the words the test table scores (paragen.training.validation)."""
    if metric in ("exact_match", "neg_loss"):
        return ""
    kinds = {getattr(config.datasets[config.experiments[e].dataset], "segmentation", "word") for e in experiments}
    return f" on {MODEL_TOKENS[kinds.pop()]}" if len(kinds) == 1 else " on each dataset's model tokens"


def curve_column(config: ParagenConfig, experiments: list[str]) -> tuple[str, str]:
    """(train_log.csv column, label) the validation curves of these runs share: their model-selection metric when
    they all select by the same one, else a metric all of them log (``log_metrics``): never a mix of metrics. The
    label names the tokens the metric counts (:func:`validation_unit`)."""
    trainings = [config.training[config.experiments[e].training] for e in experiments]
    selection = {t.valid_metric for t in trainings}
    if len(selection) == 1:
        metric = selection.pop()
        return "valid_metric", VALID_LABELS[metric] + validation_unit(config, experiments, metric)
    common = [m for m in trainings[0].log_metrics if all(m in t.log_metrics for t in trainings)]
    if common:
        return f"valid_{common[0]}", VALID_LABELS[common[0]] + validation_unit(config, experiments, common[0])
    raise ValueError(f"the runs {experiments} select by different metrics ({sorted(selection)}) and log none in "
                     "common: give their training configurations a shared log_metrics entry to plot them together")
