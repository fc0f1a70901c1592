"""Pretrained word vectors (GloVe) as the starting embeddings of a model (003 §4.3.2: 300-d GloVe).

The vectors file is GloVe's text format: one word and its numbers per line, space-separated. Words of
the vocabulary found there get their vector; the others (and the special symbols) keep the model's
own random initialisation. When the file is absent the whole table stays random, and the run says so
in ``runs/<experiment>/embeddings.json``, which the table's caption quotes: never silently.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from paragen.data.corpus import CorpusError
from paragen.data.vocabulary import SPECIALS, Vocabulary

log = logging.getLogger(__name__)
EMBEDDINGS_FILE = "embeddings.json"
"""Written into the run directory by training: how the embeddings started (EmbeddingInit)."""


def vocabulary_tables(model: nn.Module, vocab_size: int) -> list[nn.Embedding]:
    """The model's word-embedding tables (encoder, decoder, WEAN's query: whatever indexes the vocabulary)."""
    return [m for m in model.modules() if isinstance(m, nn.Embedding) and m.num_embeddings == vocab_size]


@dataclass(frozen=True)
class EmbeddingInit:
    """How a run's embeddings started: what its table caption says."""

    source: str  # the vectors file, or "random"
    found: int  # vocabulary words given a pretrained vector
    vocabulary: int  # words in the vocabulary (specials excluded)
    reason: str = ""  # why random, when it is

    def describe(self) -> str:
        if self.source == "random":
            return f"random initial embeddings ({self.reason})"
        return f"embeddings initialised from {Path(self.source).name} for {self.found:,} of {self.vocabulary:,} words"

    def as_json(self) -> dict:
        return asdict(self)


def read_vectors(path: Path, words: set[str], size: int) -> dict[str, torch.Tensor]:
    """The vectors of ``words`` in a GloVe text file; a line of the wrong width is an error naming it."""
    vectors: dict[str, torch.Tensor] = {}
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            word, _, rest = raw.rstrip(b"\r\n").partition(b" ")
            try:
                text = word.decode("utf-8")
            except UnicodeDecodeError:
                continue  # a word the vocabulary (UTF-8) cannot hold
            if text not in words or text in vectors:
                continue
            values = rest.split()
            if len(values) != size:
                raise CorpusError(f"{path}:{number}: expected {size} numbers after the word {text!r} "
                                  f"(the model's embedding_size), found {len(values)}")
            try:
                vectors[text] = torch.tensor([float(v) for v in values])
            except ValueError:
                raise CorpusError(f"{path}:{number}: the vector of {text!r} holds a value that is not a number") \
                    from None
    return vectors


def initialise(tables: list[nn.Embedding], vocab: Vocabulary, path: Path) -> EmbeddingInit:
    """Copy the vectors of the vocabulary's words into every table (each distinct table once)."""
    words = [w for w in vocab.itos if w not in SPECIALS]
    if not path.exists():
        reason = f"{path} absent; fetch it with `paragen fetch glove`"
        log.warning("%s: random initial embeddings", reason)
        return EmbeddingInit("random", 0, len(words), reason)
    size = tables[0].embedding_dim
    vectors = read_vectors(path, set(words), size)
    with torch.no_grad():
        for table in {id(t): t for t in tables}.values():
            for word, vector in vectors.items():
                table.weight[vocab.id(word)] = vector
    result = EmbeddingInit(str(path), len(vectors), len(words))
    log.info("%s", result.describe())
    return result
