import itertools

import pytest
import torch

from paragen.batching import make_batch
from paragen.search import beam_search, normalised
from paragen.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIALS, Vocabulary

from conftest import ARCHITECTURES, tiny_model

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b"])
SOURCES = [["a", "b", "a"], ["b"], ["b", "b", "oov"]]


def sequence_log_prob(model, batch, row: int, tokens: tuple[int, ...]) -> float:
    encoded = model.encode(batch).index_select(torch.tensor([row]))
    state = model.initial_state(encoded)
    previous, total = BOS_ID, 0.0
    for token in tokens:
        out = model.step(torch.tensor([previous]), state, encoded)
        state = out.state
        total += out.log_probs[0, token].item()
        previous = token
    return total


def exhaustive_best(model, batch, row: int, max_length: int, alpha: float) -> tuple[tuple[int, ...], float]:
    """Score every complete hypothesis: ends with </s>, or reaches max_length."""
    width = model.encode(batch).width
    words = [i for i in range(width) if i not in (PAD_ID, BOS_ID, EOS_ID)]
    best = (None, float("-inf"))
    for length in range(0, max_length + 1):
        for body in itertools.product(words, repeat=length):
            # </s> counts towards max_length, so a body of max_length tokens is cut without one.
            candidates = [body + (EOS_ID,)] if length < max_length else [body]
            for tokens in candidates:
                if not tokens:
                    continue
                score = normalised(sequence_log_prob(model, batch, row, tokens), len(tokens), alpha)
                if score > best[1]:
                    best = (tokens, score)
    return best


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_beam_search_equals_exhaustive_search(architecture, alpha):
    model = tiny_model(architecture, len(VOCAB))
    batch = make_batch(SOURCES, None, VOCAB)
    max_length = 3
    results = beam_search(model, batch, beam_size=64, max_length=max_length, length_penalty=alpha, nbest=1)
    for row in range(len(SOURCES)):
        tokens, score = exhaustive_best(model, batch, row, max_length, alpha)
        assert results[row][0].tokens == tokens
        assert results[row][0].score == pytest.approx(score, abs=1e-4)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_greedy_is_beam_one(architecture):
    model = tiny_model(architecture, len(VOCAB))
    batch = make_batch(SOURCES, None, VOCAB)
    results = beam_search(model, batch, beam_size=1, max_length=6)
    encoded = model.encode(batch)
    state = model.initial_state(encoded)
    tokens = torch.full((len(SOURCES),), BOS_ID)
    chosen = [[] for _ in SOURCES]
    finished = [False] * len(SOURCES)
    for _ in range(6):
        out = model.step(tokens, state, encoded)
        log_probs = out.log_probs.clone()
        log_probs[:, [PAD_ID, BOS_ID]] = float("-inf")
        tokens, state = log_probs.argmax(-1), out.state
        for row, token in enumerate(tokens.tolist()):
            if not finished[row]:
                chosen[row].append(token)
                finished[row] = token == EOS_ID
    assert [list(r[0].tokens) for r in results] == chosen


def test_nbest_sorted_and_bounded():
    model = tiny_model("copynet", len(VOCAB))
    results = beam_search(model, make_batch(SOURCES, None, VOCAB), beam_size=5, max_length=4, nbest=5)
    for hyps in results:
        assert 1 <= len(hyps) <= 5
        assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)
        assert len({h.tokens for h in hyps}) == len(hyps)
    with pytest.raises(ValueError, match="nbest"):
        beam_search(model, make_batch(SOURCES, None, VOCAB), beam_size=2, max_length=4, nbest=3)
