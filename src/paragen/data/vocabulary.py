"""Token vocabulary with the four special symbols every model shares."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from paragen.atomic import write_text

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS: tuple[str, ...] = (PAD, UNK, BOS, EOS)
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)
TARGET_PAD = "<tpad>"
"""Kiyono et al.'s target-side <pad> (004 §4.1): a real token that follows </s> in Y' up to the source
length and is scored like a word, unlike the batch padding ``<pad>`` (id 0), which is never scored.
Only models that predict it read a vocabulary that holds it (:meth:`Vocabulary.with_target_pad`), so
vocabulary files, their ids and every other model's sizes stay as they were."""


def target_pad_id(vocab_size: int) -> int:
    """The id of :data:`TARGET_PAD` in a vocabulary of ``vocab_size`` entries made by
    :meth:`Vocabulary.with_target_pad` (the last)."""
    return vocab_size - 1


class Vocabulary:
    """Bidirectional token <-> id map; ids 0-3 are ``<pad> <unk> <s> </s>``."""

    def __init__(self, tokens: Sequence[str]):
        if tuple(tokens[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"a vocabulary must start with {SPECIALS}, got {tuple(tokens[:4])}")
        if len(set(tokens)) != len(tokens):
            duplicates = sorted(t for t, n in Counter(tokens).items() if n > 1)
            raise ValueError(f"duplicate tokens in vocabulary: {duplicates[:5]}")
        self.itos: list[str] = list(tokens)
        self.stoi: dict[str, int] = {t: i for i, t in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def id(self, token: str) -> int:
        return self.stoi.get(token, UNK_ID)

    def encode(self, tokens: Iterable[str]) -> list[int]:
        return [self.id(t) for t in tokens]

    @classmethod
    def build(
        cls, corpora: Iterable[Iterable[Sequence[str]]], max_size: int | None = None, min_count: int = 1
    ) -> "Vocabulary":
        """Most frequent tokens first (ties broken alphabetically, so builds are reproducible)."""
        counts: Counter[str] = Counter()
        for corpus in corpora:
            for sentence in corpus:
                counts.update(sentence)
        ranked = sorted((t for t, n in counts.items() if n >= min_count and t not in SPECIALS and t != TARGET_PAD),
                        key=lambda t: (-counts[t], t))
        if max_size is not None:
            ranked = ranked[: max(0, max_size - len(SPECIALS))]
        return cls(list(SPECIALS) + ranked)

    def with_target_pad(self) -> "Vocabulary":
        """This vocabulary with :data:`TARGET_PAD` appended: its id is the last, ``len(self)``, so every id of
        the file keeps its meaning and out-of-vocabulary (extended) ids start after it."""
        if TARGET_PAD in self.stoi:
            raise ValueError(f"the vocabulary already holds {TARGET_PAD}")
        return Vocabulary(self.itos + [TARGET_PAD])

    def save(self, path: str | Path) -> None:
        write_text(path, "\n".join(self.itos) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "Vocabulary":
        """Read a vocabulary file (one token per line); a missing one names the stage that writes it."""
        try:
            tokens = Path(path).read_text(encoding="utf-8").split("\n")
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: vocabulary not found; `paragen vocab` (synthetic data) or `paragen "
                                    "vocab-build` (real data, the vocab_<dataset> stage) writes it: run the "
                                    "pipeline up to it (`snakemake <that file>`)") from None
        if tokens and tokens[-1] == "":
            tokens.pop()
        if "" in tokens:  # a blank line would become a token that no text holds, shifting no id but hiding damage
            raise ValueError(f"{path}:{tokens.index('') + 1}: empty line; a vocabulary file holds one token per line")
        return cls(tokens)
