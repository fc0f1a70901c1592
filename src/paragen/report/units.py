"""The unit and tokenisation of every metric a table shows: one short text per column (the CSV's ``unit``) and one
sentence for the caption, so no score is read without knowing what it counts.

A unit is read from the metrics files first (what the scorer actually chose: ``paragen score`` records BLEU's
``tokenize`` and ROUGE's ``unit``, each with whether ``auto`` chose it), and from the dataset's ``evaluation`` where
no row has been scored yet. ``auto`` is one rule everywhere (:func:`paragen.text_script.unit_by_script`):
characters (ROUGE) or sacrebleu's ``zh`` tokens (BLEU) for CJK text, words or ``13a`` tokens otherwise.
"""

from __future__ import annotations

from typing import Any, Iterable

from paragen.config import ParagenConfig, RealDataset
from paragen.config.datasets import Evaluation
from paragen.config.papers import Column

RULE_EXACT = "exact match: % of test sentences whose top-1 output equals the target, symbol for symbol"
FAMILY_LABELS = {"bleu": "BLEU", "sari": "SARI", "rouge": "ROUGE-1/2/L", "exact": "exact match",
                 "by_tag": "exact match", "oddgen": "odd generation", "alignment": "alignment accuracy",
                 "report_protocol": "003's protocol"}


def family(column: Column) -> str:
    """The metric a column reads (``bleu``, ``sari``, ``rouge``, ``exact``, ``oddgen``, ``by_tag``, ...): the first
    part of its path into a metrics file, after any ``splits/<split>/``."""
    parts = column.value.split("/")
    return parts[2] if parts[0] == "splits" and len(parts) > 2 else parts[0]


def _metric_result(scored: Iterable[dict[str, Any]], column: Column) -> dict[str, Any] | None:
    """The first metrics file's result for the column's metric (``{"tokenize": ..., "unit": ...}``), on the column's
    split or, where that split was not scored, on another (the unit is chosen the same way on every split of a
    dataset), or None."""
    metric = family(column)
    for metrics in scored:
        results = [metrics] + [s for s in (metrics.get("splits") or {}).values() if isinstance(s, dict)]
        found = next((r[metric] for r in results if isinstance(r.get(metric), dict)), None)
        if found is not None:
            return found
    return None


def _words(bpe: bool) -> str:
    """What is scored: the outputs as written, or with subword-nmt's joins undone (words again)."""
    return "the outputs with BPE undone" if bpe else "the outputs"


def metric_unit(metric: str, result: dict[str, Any] | None, evaluation: Evaluation | None, bpe: bool) -> str:
    """What one metric counts, in a few words: its scale, tokens and references."""
    case = "lowercased " if evaluation is None or evaluation.lowercase else ""
    result = result or {}
    if metric == "bleu":
        if "signature" in result:
            case = "lowercased " if "case:lc" in result["signature"] else ""
        if "tokenize" in result:
            tokens = f"sacrebleu {result['tokenize']} tokens" + (" (auto)" if "auto" in result.get(
                "tokenize_chosen", "") else "")
        else:
            tokens = "sacrebleu 13a tokens, zh for CJK text (auto)"
        return f"BLEU 0-100, corpus level, on {case}{tokens} of {_words(bpe)}, against every reference"
    if metric == "sari":
        return f"SARI 0-100 on {case}whitespace tokens of {_words(bpe)}, against the source and every reference"
    if metric == "rouge":
        if result.get("implementation", "").startswith("ROUGE-1.5.5") or (evaluation and evaluation.rouge_perl):
            return "ROUGE-1.5.5 F1 0-100 on words, Porter-stemmed (-m), against the first reference only"
        if "unit" in result:
            unit = {"char": "characters", "word": "words"}[result["unit"]]
            chosen = " (auto: chosen by the references' script)" if "auto" in result.get("unit_chosen", "") else \
                " (set in params.yaml)"
            stem = ", Porter-stemmed" if result.get("stemmed") else ""
        else:
            setting = evaluation.rouge_unit if evaluation is not None else "auto"
            unit, chosen, stem = {"auto": ("characters for CJK text, else words", " (auto)", ""),
                                  "char": ("characters", " (set in params.yaml)", ""),
                                  "word": ("words", " (set in params.yaml)", "")}[setting]
        return f"rouge-score F1 0-100 on {unit}{chosen}{stem} of {_words(bpe)}, against the first reference only"
    if metric == "exact":
        return "exact match: % of outputs equal to the first reference, token for token (BPE undone)"
    if metric == "by_tag":
        return RULE_EXACT
    if metric == "oddgen":
        return "number of test sentences (004 §6.1), against the first reference"
    if metric == "alignment":
        return "% of gold-aligned target words whose aligned source word is the gold one"
    if metric == "report_protocol":
        return "003's protocol: SARI.py's sentence mean against the 8 Turk references, BLEU on the files' tokens"
    return "as the caption says"


def column_units(config: ParagenConfig, columns: list[Column], experiments: list[str],
                 scored: list[dict[str, Any]]) -> dict[str, str]:
    """Column key -> the unit of its metric, for the rows' data (``experiments``; the first one's dataset)."""
    dataset = config.datasets[config.dataset_of(experiments[0])] if experiments else None
    evaluation = getattr(dataset, "evaluation", None)
    bpe = isinstance(dataset, RealDataset) and dataset.segmentation == "bpe"
    return {c.key: metric_unit(family(c), _metric_result(scored, c), evaluation, bpe) for c in columns}


def units_sentence(columns: list[Column], units: dict[str, str]) -> str:
    """Caption text: each metric's unit once, in column order (``Units: BLEU: ...; SARI: ...``)."""
    seen: dict[str, str] = {}
    for c in columns:
        label = FAMILY_LABELS.get(family(c), c.label)
        seen.setdefault(label, units[c.key])
    parts = [text if text.lower().startswith(label.lower()) else f"{label}: {text}" for label, text in seen.items()]
    return " Units: " + "; ".join(parts) + "."
