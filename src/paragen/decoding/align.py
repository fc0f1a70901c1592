"""``paragen align``: how well a trained model's attention and source-side prediction align, from files.

Reads one split of an experiment (``<split>.src``, ``<split>.tgt``) and, where the data has them, the gold links
(``<split>.align``, Pharaoh ``i-j`` pairs: source position i produced target position j, 0-based), runs the model
under teacher forcing (:func:`paragen.decoding.alignments.teacher_forced_alignments`) and returns

- the **accuracy** of each aligner per target token with a gold link (:mod:`paragen.metrics.alignment`): attention
  by source *position*, SPM's q_j by source *word*. The gold word is the source word as the encoder reads it, so
  a source word outside the vocabulary is answered correctly by ``<unk>``;
- 004 Table 4's **aligned pairs** (target token, q_j's word) of sampled pairs, grouped
  (:mod:`paragen.metrics.aligned_pairs`);
- the **matrices** of chosen sentences (1-based line numbers) for heat maps in the manner of 004 Figure 4: the
  attention over source positions and q_j of each source token's word, per target token (rows: the J target
  tokens; 004 Figure 4b also shows the steps SPM spends on ``<pad>`` after the target, which teacher forcing on
  the target alone does not run).

Bad input stops with the file and line: a malformed link, a link past its sentence, two links for one target
token, a gold file whose line count differs from the split, a line number past the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import torch

from paragen.decoding.alignments import SentenceAlignment, teacher_forced_alignments
from paragen.data.corpus import CorpusError, ParallelCorpus, check_aligned
from paragen.data.headline_synthetic import read_alignments
from paragen.metrics.aligned_pairs import grouped_pairs
from paragen.metrics.alignment import AlignmentScore, position_accuracy, word_accuracy
from paragen.data.vocabulary import UNK, Vocabulary

Links = list[tuple[int, int]]

ATTENTION_RULE = "the source position with the highest attention weight, per target token"
SPM_RULE = "the vocabulary word with the highest q_j (004 Eq. 6), per target token, against the gold source word"


def read_gold(path: str | Path, corpus: ParallelCorpus, split_name: str) -> list[Links]:
    """The gold links of a split, checked against its sentences; every error names ``path`` and the line."""
    if not Path(path).is_file():
        raise CorpusError(f"{path}: file not found (gold alignments, one line of i-j links per pair)")
    try:
        links = read_alignments(path)
    except ValueError as error:
        raise CorpusError(str(error)) from None
    check_aligned(path, len(links), split_name, len(corpus))
    for number, (pair, source, target) in enumerate(zip(links, corpus.sources, corpus.targets), start=1):
        seen: dict[int, int] = {}
        for i, j in pair:
            if j >= len(target):
                raise CorpusError(f"{path}:{number}: link {i}-{j} points past the target ({len(target)} tokens)")
            if i >= len(source):
                raise CorpusError(f"{path}:{number}: link {i}-{j} points past the source ({len(source)} tokens)")
            if j in seen:
                raise CorpusError(f"{path}:{number}: target position {j} has two gold links "
                                  f"({seen[j]}-{j} and {i}-{j}); each target token has at most one")
            seen[j] = i
    return links


def check_lines(lines: Sequence[int], count: int, split_name: str) -> list[int]:
    """1-based line numbers, each within the split (the error names the split file and its length)."""
    for line in lines:
        if not 1 <= line <= count:
            raise CorpusError(f"--sentences: line {line} is not in {split_name} (lines 1 to {count})")
    return list(dict.fromkeys(lines))


def as_read(words: Sequence[str], vocab: Vocabulary) -> list[str]:
    """A sentence as the encoder reads it: words outside the vocabulary become ``<unk>``."""
    return [w if w in vocab else UNK for w in words]


def _score(score: AlignmentScore, rule: str) -> dict[str, Any]:
    return {"accuracy": score.accuracy, "correct": score.correct, "total": score.total, "aligns": rule}


def alignment_accuracy(alignments: Sequence[SentenceAlignment], corpus: ParallelCorpus, gold: Sequence[Links],
                       vocab: Vocabulary) -> dict[str, Any]:
    """Attention's and (for an SPM model) q_j's accuracy against the gold links; ``source_prediction`` is None
    for a model without the SPM head."""
    attention = position_accuracy([a.attention_positions for a in alignments], gold)
    spm = None
    if alignments and alignments[0].spm_words is not None:
        spm = _score(word_accuracy([a.spm_words for a in alignments],
                                   [as_read(s, vocab) for s in corpus.sources], gold), SPM_RULE)
    return {"pairs": len(alignments), "gold_links": attention.total,
            "attention": _score(attention, ATTENTION_RULE), "source_prediction": spm}


def sentence_matrices(alignment: SentenceAlignment, line: int, source: Sequence[str], target: Sequence[str],
                      gold: Links | None) -> dict[str, Any]:
    """One sentence's heat-map data: rows are target tokens, columns source tokens."""
    return {"line": line, "source": list(source), "target": list(target),
            "gold": [list(link) for link in gold] if gold is not None else None,
            "attention": alignment.attention, "attention_argmax": alignment.attention_positions,
            "source_prediction": alignment.spm_source_probabilities, "spm_words": alignment.spm_words}


@dataclass
class AlignOutput:
    accuracy: dict[str, Any] | None  # None without gold links
    examples: list[dict[str, Any]]  # the chosen lines' matrices
    pairs: dict[str, Any] | None  # 004 Table 4's grouped (target token, q_j word) pairs, when asked


def align_corpus(model: torch.nn.Module, vocab: Vocabulary, corpus: ParallelCorpus, gold: Sequence[Links] | None,
                 lines: Sequence[int] = (), pair_indices: Sequence[int] | None = None,
                 device: torch.device = torch.device("cpu"), batch_size: int = 64) -> AlignOutput:
    """Accuracy against ``gold`` (every pair), the matrices of ``lines`` (1-based) and, for ``pair_indices``
    (0-based, e.g. a seeded sample), the grouped pairs of 004 Table 4. Only the pairs needed are run."""
    if pair_indices is not None and getattr(model, "source_prediction", None) is None:
        raise CorpusError("aligned pairs (004 Table 4) are SPM's: this model has no source-side prediction head")
    needed = range(len(corpus)) if gold is not None else sorted({line - 1 for line in lines} | set(pair_indices or ()))
    found = teacher_forced_alignments(model, [corpus.sources[i] for i in needed], [corpus.targets[i] for i in needed],
                                      vocab, device, batch_size)
    by_index = dict(zip(needed, found))
    examples = [sentence_matrices(by_index[line - 1], line, corpus.sources[line - 1], corpus.targets[line - 1],
                                  gold[line - 1] if gold is not None else None) for line in lines]
    accuracy = alignment_accuracy(found, corpus, gold, vocab) if gold is not None else None
    pairs = None
    if pair_indices is not None:
        pairs = {"pairs": len(pair_indices), "tokens": sum(len(corpus.targets[i]) for i in pair_indices),
                 "groups": grouped_pairs([corpus.targets[i] for i in pair_indices],
                                         [by_index[i].spm_words for i in pair_indices])}
    return AlignOutput(accuracy, examples, pairs)
