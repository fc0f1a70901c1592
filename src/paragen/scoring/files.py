"""File-level scoring behind ``paragen score``: read system outputs, return JSON-ready results.

Every metric reads the same arguments (source, one or more reference files, hypothesis file),
checks that line counts agree (naming the files and counts when they do not), and may compare a
second system with paired bootstrap resampling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from paragen.data.corpus import MAX_LINE_CHARS, CorpusError, check_aligned, read_lines
from paragen.metrics.bootstrap import ScoreFn, paired_bootstrap
from paragen.metrics.exact import TOP_K, accuracy_by_tag
from paragen.text_script import CJK_THRESHOLD, cjk_share, unit_by_script

METRICS = ("bleu", "sari", "rouge", "exact", "oddgen")


@dataclass
class ScoreRequest:
    """Everything ``paragen score`` was asked; paths are strings as given on the command line."""

    metric: str
    hyp: str
    refs: list[str]
    src: str | None = None
    lowercase: bool = False
    tokenize: str = "auto"
    sari_mode: str = "legacy"
    rouge_unit: str = "auto"
    stem: bool = False
    rouge_perl: bool = False
    rouge_perl_exceptions: str = "wordnet"  # ROUGE-1.5.5's -m: WordNet exceptions then Porter, or Porter alone
    nbest: str | None = None
    tags: str | None = None
    groups: str | None = None  # exact match: a group (rule) per line; each tag's accuracy gets a 95 % interval
    topk: list[int] | None = None  # None: 1, 5 and 10 as far as the n-best lists reach
    compare: str | None = None
    bootstrap_samples: int = 1000
    seed: int = 12345
    remove_bpe: bool = False
    max_line_chars: int = MAX_LINE_CHARS


def restore_bpe(line: str) -> str:
    """Undo subword-nmt segmentation ("head@@ line" -> "headline") before scoring words."""
    return (line + " ").replace("@@ ", "").rstrip() if "@@" in line else line


ROUGE_LIMIT_REASON = (" (--max-line-chars: ROUGE-L's longest common subsequence takes time and memory in "
                      "the product of a hypothesis's and a reference's lengths; one 4,000-character pair takes about "
                      "4.5 s scored on characters, 0.3 s on words)")


def _read_text(path: str, request: ScoreRequest) -> list[str]:
    """A file's lines, each read with a bound: ``max_line_chars`` for ROUGE (the one quadratic metric), and
    the reader's general bound otherwise, so article-length sources of BLEU/SARI are accepted."""
    if request.metric == "rouge":
        lines = read_lines(path, request.max_line_chars, ROUGE_LIMIT_REASON)
    else:
        lines = read_lines(path)
    return [restore_bpe(line) for line in lines] if request.remove_bpe else lines


def _aligned(path_a: str | Path, lines_a: Sequence[Any], path_b: str | Path, lines_b: Sequence[Any]) -> None:
    check_aligned(path_a, len(lines_a), path_b, len(lines_b))


def _read_references(request: ScoreRequest, hyp_lines: list[str]) -> list[list[str]]:
    if not request.refs:
        raise CorpusError("at least one --ref file is needed")
    sets = [_read_text(path, request) for path in request.refs]
    for path, lines in zip(request.refs, sets):
        _aligned(request.hyp, hyp_lines, path, lines)
        if request.metric != "exact":  # an empty reference would count as one (SARI: 81.21 instead of 87.15)
            empty = next((n for n, line in enumerate(lines, 1) if not line.strip()), None)
            if empty is not None:
                raise CorpusError(f"{path}:{empty}: empty reference line; every sentence needs each of its "
                                  "references (give sentences with fewer references fewer --ref files, or drop them)")
    return sets


def _read_source(request: ScoreRequest, hyp_lines: list[str]) -> list[str]:
    if request.src is None:
        raise CorpusError(f"--src is required for {request.metric}")
    lines = _read_text(request.src, request)
    _aligned(request.src, lines, request.hyp, hyp_lines)
    return lines


def read_nbest(path: str | Path) -> list[list[str]]:
    """n-best lists from the JSONL written by ``paragen decode`` (``{"nbest": [...]}`` per line)."""
    lists = []
    for number, line in enumerate(read_lines(path), start=1):
        try:
            hyps = json.loads(line)["nbest"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise CorpusError(f"{path}:{number}: expected a JSON object with an \"nbest\" list") from None
        if not isinstance(hyps, list) or not all(isinstance(h, str) for h in hyps):
            raise CorpusError(f"{path}:{number}: \"nbest\" must be a list of strings")
        lists.append(hyps)
    return lists


# Each scorer returns (result dict, per-sentence statistics of the hypotheses when already computed,
# the statistics function and the corpus-score function that paired bootstrap needs, or None).
Stats = Callable[[list[str]], np.ndarray]
Scorer = Callable[[ScoreRequest, list[str]], tuple[dict[str, Any], np.ndarray | None, Stats | None, ScoreFn | None]]


def _choose_unit(request: ScoreRequest, refs: list[list[str]], flag: str, requested: str, cjk_unit: str,
                 word_units: tuple[str, ...], why: str) -> tuple[str, str]:
    """``auto`` resolves to ``cjk_unit`` on CJK references, else the first of ``word_units``; a word unit
    asked for explicitly on CJK text is refused (it would score near 0 without a word of warning)."""
    lines = [line for ref_set in refs for line in ref_set]
    chosen, cjk = unit_by_script(lines, cjk_unit, word_units[0])
    if requested == "auto":
        return chosen, f"auto: {'CJK text detected, ' if cjk else ''}{flag} {chosen}"
    if cjk and requested in word_units:
        share = cjk_share(lines)
        raise CorpusError(f"{request.refs[0]}: the references are CJK text ({share:.0%} of characters), which "
                          f"{flag} {requested} {why}; use {flag} {cjk_unit} (or auto)")
    return requested, f"{flag} {requested}"


def _bleu(request: ScoreRequest, hyps: list[str]):
    from paragen.metrics import bleu

    refs = _read_references(request, hyps)
    tokenize, chosen = _choose_unit(request, refs, "--tokenize", request.tokenize, "zh", ("13a", "intl"),
                                    "keeps as whole unsegmented sentences (BLEU near 0)")
    result = bleu.corpus_bleu(hyps, refs, request.lowercase, tokenize)
    metric = bleu.bleu_metric(request.lowercase, tokenize)
    stats = lambda h: bleu.sentence_statistics(h, refs, request.lowercase, tokenize)[0]  # noqa: E731
    return ({"score": result.score, "signature": result.signature, "references": len(refs),
             "tokenize": tokenize, "tokenize_chosen": chosen}, None, stats,
            lambda rows: bleu.score_from_statistics(metric, rows.sum(axis=0)))


def _sari(request: ScoreRequest, hyps: list[str]):
    from paragen.metrics import sari

    refs = _read_references(request, hyps)
    sources = _read_source(request, hyps)
    if request.lowercase:
        sources, hyps, refs = [s.lower() for s in sources], [h.lower() for h in hyps], \
            [[r.lower() for r in ref_set] for ref_set in refs]
    per_sentence = sari.all_statistics(sources, hyps, refs, request.sari_mode)
    result = sari.score_from_statistics(per_sentence.sum(axis=0), request.sari_mode)
    stats = lambda h: sari.all_statistics(sources, [x.lower() if request.lowercase else x for x in h], refs,  # noqa: E731
                                          request.sari_mode)
    return ({"score": result.sari, "add": result.add, "keep": result.keep, "delete": result.delete,
             "mode": result.mode, "references": len(refs)}, per_sentence, stats,
            lambda rows: sari.score_from_statistics(rows.sum(axis=0), request.sari_mode).sari)


def _rouge(request: ScoreRequest, hyps: list[str]):
    from paragen.metrics import rouge

    refs = _read_references(request, hyps)
    if len(refs) != 1:
        raise CorpusError(f"rouge takes exactly one --ref, got {len(refs)}")
    if request.rouge_perl:
        return _rouge_perl(request, hyps, refs[0])
    unit, chosen = _choose_unit(request, refs, "--rouge-unit", request.rouge_unit, "char", ("word",),
                                "deletes (rouge-score's tokenizer drops every CJK character: all scores 0)")
    per_sentence = rouge.sentence_f1(hyps, refs[0], unit, request.stem)  # score() refused an empty hyp file
    score = dict(zip(rouge.ROUGE_TYPES, map(float, per_sentence.mean(axis=0))))
    stats = lambda h: rouge.sentence_f1(h, refs[0], unit, request.stem)  # noqa: E731
    return ({"score": score, "unit": unit, "unit_chosen": chosen, "stemmed": request.stem,
             "implementation": "rouge-score", "bootstrap_on": "rouge2"}, per_sentence, stats,
            lambda rows: float(rows[:, 1].mean()))


def _rouge_perl(request: ScoreRequest, hyps: list[str], refs: list[str]):
    """The official ROUGE-1.5.5 with SPM's options; words only, stemming always on (``-m``)."""
    from paragen.metrics import rouge_perl

    share = cjk_share(refs)
    if share >= CJK_THRESHOLD or request.rouge_unit == "char":
        raise CorpusError(f"{request.refs[0]}: --rouge-perl scores English words; ROUGE-1.5.5 drops every token that "
                          f"does not begin with [a-z0-9$] (CJK text: all scores 0; references are {share:.0%} CJK); "
                          "score characters with rouge-score (--rouge-unit char, without --rouge-perl)")
    empty = rouge_perl.uncountable(refs)
    if empty:
        raise CorpusError(f"{request.refs[0]}:{empty[0]}: no token ROUGE-1.5.5 counts (it keeps tokens beginning with "
                          f"[a-z0-9$]; {len(empty)} such line(s)); with -w 1.2 the script divides by zero on them")
    exceptions = request.rouge_perl_exceptions
    result = rouge_perl.perl_rouge(hyps, refs, exceptions=exceptions)
    stats = lambda h: np.asarray(rouge_perl.perl_rouge(h, refs, exceptions=exceptions).sentences)  # noqa: E731
    return ({"score": result.scores, "unit": "word", "stemmed": True, "implementation": "ROUGE-1.5.5 (perl)",
             "options": " ".join(result.options), "wordnet_exceptions": exceptions == "wordnet",
             "sentence_mean": result.sentence_mean, "rougeW": result.rouge_w,
             "confidence_95": result.intervals,
             "script": result.script, "script_sha256": rouge_perl.script_sha256(result.script),
             "bootstrap_on": "rouge2"}, np.asarray(result.sentences), stats,
            lambda rows: float(rows[:, 1].mean()))


def _exact(request: ScoreRequest, hyps: list[str]):
    refs = _read_references(request, hyps)[0]
    nbest = [[h] for h in hyps]
    ks = [1]
    if request.nbest is None and request.topk and max(request.topk) > 1:
        raise CorpusError(f"top-{max(request.topk)} asked for (--topk) without --nbest: {request.hyp} holds one "
                          "hypothesis a line")
    if request.nbest is not None:
        nbest = read_nbest(request.nbest)
        _aligned(request.refs[0], refs, request.nbest, nbest)
        for number, (first, hyp) in enumerate(zip(nbest, hyps), start=1):
            if first and first[0] != hyp:
                raise CorpusError(f"{request.nbest}:{number}: first hypothesis differs from line {number} "
                                  f"of {request.hyp}")
        longest = max((len(hyps) for hyps in nbest), default=0)
        ks = sorted(set(request.topk or [k for k in TOP_K if k <= longest]) | {1})
        if ks[-1] > max(longest, 1):  # top-1 of an empty list is a miss, not an error
            held = f"{longest} hypothesis" if longest == 1 else f"{longest} hypotheses"
            raise CorpusError(f"{request.nbest}: top-{ks[-1]} asked for (--topk) but no line holds more than "
                              f"{held}; decode with nbest >= {ks[-1]} or leave top-{ks[-1]} out")
    tags = read_lines(request.tags) if request.tags is not None else ["all"] * len(refs)
    _aligned(request.refs[0], refs, request.tags or request.refs[0], tags)
    by_tag = accuracy_by_tag([[h.split() for h in n] for n in nbest], [r.split() for r in refs], tags, ks)
    overall = by_tag.pop("all")
    if request.groups is not None:
        groups = read_lines(request.groups)
        _aligned(request.refs[0], refs, request.groups, groups)
        _group_intervals(by_tag, [float(h.split() == r.split()) for h, r in zip(hyps, refs)], tags, groups, request)
    stats = lambda h: np.array([[float(a.split() == b.split())] for a, b in zip(h, refs)])  # noqa: E731
    return ({"score": overall["top1"], "count": overall["count"], "overall": overall, "by_tag": by_tag}, None, stats,
            lambda rows: 100.0 * float(rows.mean()))


def _group_intervals(by_tag: dict[str, dict[str, Any]], correct: list[float], tags: list[str], groups: list[str],
                     request: ScoreRequest) -> None:
    """Add ``top1_ci95`` ([low, high]) to each tag: the interval from resampling its groups (rules), not lines."""
    from paragen.metrics.bootstrap import cluster_interval

    for tag, row in by_tag.items():
        ids = [i for i, t in enumerate(tags) if t == tag]
        low, high = cluster_interval(np.array([correct[i] for i in ids]), [groups[i] for i in ids],
                                     request.bootstrap_samples, request.seed)
        row["top1_ci95"] = [round(low, 4), round(high, 4)]


def _oddgen(request: ScoreRequest, hyps: list[str]):
    """004 §6.1's counts; the paired bootstrap resamples each sentence's odd/not odd (repeats beyond the gold, or
    shorter than the gold) and compares the share of sentences without odd generation (higher is better)."""
    from paragen.metrics.oddgen import is_odd, odd_generation

    refs = [r.split() for r in _read_references(request, hyps)[0]]
    counts = odd_generation([h.split() for h in hyps], refs).as_dict()
    stats = lambda h: np.array([[float(is_odd(o.split(), r))] for o, r in zip(h, refs)])  # noqa: E731
    return ({"score": counts, "bootstrap_on": "oddgen"}, None, stats,
            lambda rows: 100.0 * (1.0 - float(rows.mean())))


SCORERS: dict[str, Scorer] = {"bleu": _bleu, "sari": _sari, "rouge": _rouge, "exact": _exact, "oddgen": _oddgen}


def score(request: ScoreRequest) -> dict[str, Any]:
    """Score ``request.hyp``; with ``request.compare`` also test it against that second system."""
    if request.metric not in SCORERS:
        raise ValueError(f"unknown metric {request.metric!r}; allowed values: {', '.join(METRICS)}")
    hyps = _read_text(request.hyp, request)
    if not hyps:  # sacrebleu would raise IndexError, ROUGE and SARI would print 0.00
        raise CorpusError(f"{request.hyp}: empty file: there are no sentences to score")
    details, rows, stats, corpus_score = SCORERS[request.metric](request, hyps)
    result = {"metric": request.metric, **details, "hyp": request.hyp, "refs": request.refs}
    if request.compare is not None:
        if stats is None or corpus_score is None:
            raise CorpusError(f"paired bootstrap is not defined for {request.metric}")
        other = _read_text(request.compare, request)
        _aligned(request.hyp, hyps, request.compare, other)
        test = paired_bootstrap(stats(other), rows if rows is not None else stats(hyps), corpus_score,
                                request.bootstrap_samples, request.seed)
        result["bootstrap"] = {"system_a": request.compare, "system_b": request.hyp, **test.as_dict()}
    return result


def headline(result: dict[str, Any]) -> dict[str, Any]:
    """The headline numbers of a ``score`` result or an ``evaluate`` result (one per metric), plus the sentence
    count: what ``dvc metrics show`` lists, instead of one column per rule type and top-k."""
    if "splits" in result:  # an evaluation over several test splits: each split's headline numbers
        return {split: headline(scored) for split, scored in result["splits"].items()}
    if "metric" in result:
        scores = {result["metric"]: result["score"]}
    else:
        scores = {m: result[m]["score"] for m in METRICS if isinstance(result.get(m), dict)}
    return {**scores, **({"count": result["count"]} if "count" in result else {})}
