"""A scripted stand-in for a model: next-token probabilities are a table keyed on the prefix.

It implements the parts of the model protocol beam search calls (``encode``,
``initial_state``, ``step``) so search rules can be checked against traces
worked out by hand, independent of any network.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from paragen.models.seq2seq import StepOutput
from paragen.data.vocabulary import EOS_ID, SPECIALS, Vocabulary

A, B = 4, 5  # the two words of the scripted vocabulary (ids 0-3 are <pad> <unk> <s> </s>)
WIDTH = 6


@dataclass
class _Encoded:
    width: int = WIDTH

    def index_select(self, index: torch.Tensor) -> "_Encoded":
        return self


@dataclass
class _Step:
    log_probs: torch.Tensor
    state: dict[str, torch.Tensor]


class ScriptedModel:
    """``table[prefix] = {token: probability}``; prefixes missing from the table use ``default``."""

    def __init__(self, table: dict[tuple[int, ...], dict[int, float]], default: dict[int, float], max_length: int):
        self.table, self.default, self.max_length = table, default, max_length
        self.steps = 0  # how many decoding steps the search asked for

    def distribution(self, prefix: tuple[int, ...]) -> dict[int, float]:
        return self.table.get(prefix, self.default)

    def encode(self, batch) -> _Encoded:
        return _Encoded()

    def initial_state(self, encoded: _Encoded) -> dict[str, torch.Tensor]:
        return {}

    def step(self, tokens: torch.Tensor, state: dict[str, torch.Tensor], encoded: _Encoded) -> _Step:
        self.steps += 1
        rows = tokens.size(0)
        if "prefix" in state:  # after the first step, ``tokens`` are the previous outputs
            prefixes = torch.cat([state["prefix"], tokens.unsqueeze(1)], dim=1)
        else:  # the first step reads <s>, which is no part of the output
            prefixes = torch.zeros((rows, 0), dtype=torch.long)
        log_probs = torch.full((rows, WIDTH), float("-inf"))
        for row in range(rows):
            for token, p in self.distribution(tuple(prefixes[row].tolist())).items():
                log_probs[row, token] = math.log(p)
        return _Step(log_probs, {"prefix": prefixes})

    def sequences(self):
        """Every complete output (ends in </s>, or reaches max_length) with its total log-probability."""
        def walk(prefix: tuple[int, ...], log_prob: float):
            for token, p in self.distribution(prefix).items():
                tokens, total = prefix + (token,), log_prob + math.log(p)
                if token == EOS_ID or len(tokens) == self.max_length:
                    yield tokens, total
                else:
                    yield from walk(tokens, total)
        yield from walk((), 0.0)


class FakeBatch:
    """What beam search reads of a batch: the number of sentences and the device."""

    def __init__(self, sentences: int):
        self.src = torch.zeros((sentences, 1), dtype=torch.long)


ALIGN_VOCAB = Vocabulary(list(SPECIALS) + ["c1", "c2", "c3", "f1"])
"""The vocabulary of :class:`ScriptedAligner` (tests of teacher-forced alignments and `paragen align`)."""


class ScriptedHead:
    """q_t one-hot on the word id the scripted model put in its feed vector."""

    vocab_size = len(ALIGN_VOCAB)

    def __call__(self, feeds: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.one_hot(feeds[..., 0].long(), len(ALIGN_VOCAB)).float()


class ScriptedAligner:
    """Step t attends fully to source position (t + 1) mod length and feeds word id ``ids[t]`` to the head."""

    source_prediction = ScriptedHead()

    def __init__(self, ids):
        self.ids = ids

    def eval(self):
        return self

    def encode(self, batch):
        return batch.src_lengths

    def initial_state(self, lengths):
        return {"t": 0, "lengths": lengths}

    def step(self, tokens, state, lengths):
        t, width = state["t"], int(lengths.max())
        attention = torch.zeros(len(tokens), width)
        for row, length in enumerate(lengths.tolist()):
            attention[row, (t + 1) % length] = 1.0
        feed = torch.full((len(tokens), 1), float(ALIGN_VOCAB.id(self.ids[t])))
        return StepOutput(torch.zeros(len(tokens), len(ALIGN_VOCAB)), {"t": t + 1, "lengths": lengths, "feed": feed},
                          attention, None, None)
