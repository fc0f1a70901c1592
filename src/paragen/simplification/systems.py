"""The simplification report's systems that need no training (003 §3.1, Table 1).

- ``identity`` returns the source unchanged (``vocabulary_only``: with out-of-vocabulary words as ``<unk>``).
- ``skip`` drops each word independently with probability p (seeded; one random stream over the
  corpus in line order, so a seed fixes every output).
- ``paraphrase`` applies PPDB rules (:mod:`paragen.simplification.paraphrase`) to the source, or to
  another system's output ("paraphrase nmt").
- ``oracle`` returns one Turk reference; scored against all eight it includes itself, which is what
  "returns a reference translation" scored as every other system gives.
"""

from __future__ import annotations

import random
from typing import Sequence

from paragen.simplification.paraphrase import Paraphraser


def identity(sources: Sequence[str]) -> list[str]:
    return list(sources)


def identity_in_vocabulary(sources: Sequence[str], vocabulary: set[str], unknown: str) -> list[str]:
    """The source with every token outside ``vocabulary`` written as ``unknown``: the best output of a model that
    can only emit its vocabulary's words, when the best output is the source."""
    return [" ".join(t if t in vocabulary else unknown for t in line.split()) for line in sources]


def skip(sources: Sequence[str], probability: float, seed: int) -> list[str]:
    """Each token kept with probability 1 - p; a sentence may lose every word (an empty output line)."""
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"skip probability must be within [0, 1], got {probability}")
    rng = random.Random(seed)
    return [" ".join(t for t in line.split() if rng.random() >= probability) for line in sources]


def paraphrase(inputs: Sequence[str], paraphraser: Paraphraser) -> list[str]:
    return [paraphraser.sentence(line) for line in inputs]


def oracle(references: Sequence[Sequence[str]], which: int) -> list[str]:
    """Reference set ``which`` (0-based) as the output."""
    if not 0 <= which < len(references):
        raise ValueError(f"oracle reference {which} does not exist; the test set has references 0..{len(references) - 1}")
    return list(references[which])
