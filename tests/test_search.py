import itertools
import math

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.decoding.decode import translate
from paragen.decoding.search import beam_search
from paragen.data.vocabulary import BOS_ID, EOS_ID, PAD_ID, SPECIALS, Vocabulary

from conftest import ARCHITECTURES, tiny_model
from scripted import A, B, FakeBatch, ScriptedModel

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
                score = sequence_log_prob(model, batch, row, tokens) / len(tokens) ** alpha
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
    results = beam_search(model, batch, beam_size=1, max_length=6, stopping="early")
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


E = EOS_ID
# Table 1. Traced by hand with beam 2, alpha 1, max_length 4 (ln .5 = -.693, ln .3 = -1.204, ...):
#  step 1: a -.693, </s> -1.204, b -1.609. </s> ranks inside the beam: finished at -1.204.
#  step 2: a</s> -1.386, aa -1.492, bb -1.714, ab -3.689. a</s> finishes at -1.386 / 2 = -.693.
#          `early` has 2 finished and stops: best (a,</s>) -.693. GroundHog's beam is empty after a</s>.
#          `bound`: the live aa can still reach -1.492 / 4 = -.373 > -.693, so it goes on:
#  step 3: aa</s> -1.597 (/3 = -.532) and bb</s> -1.765 (/3 = -.588) finish; the live aaa (-4.488) can reach
#          only -1.12: stop. Best (a,a,</s>) -.532, then (b,b,</s>) -.588.
TABLE_1 = {(): {A: .5, E: .3, B: .2}, (A,): {E: .5, A: .45, B: .05}, (B,): {B: .9, E: .05, A: .05},
           (A, A): {E: .9, A: .05, B: .05}, (B, B): {E: .95, A: .025, B: .025}}
# Table 2: early keeps both live hypotheses after </s> finishes at step 1; GroundHog keeps one.
#  step 1: as table 1; </s> finishes (-1.204). early: alive a, b; shrinking: beam 1, alive a.
#  step 2 (early): aa -1.204, bb -1.660, ab -1.897, a</s> -2.996: no ending in the beam; alive aa, bb.
#  step 3 (early): bb</s> -1.670 (/3 = -.557), aa</s> -1.897 (/3 = -.632) finish: 3 >= 2, stop; best (b,b,</s>).
#  shrinking: step 2 keeps aa alone; step 3: aa</s> (-1.897) beats aaa (-2.590) and finishes: beam empty.
#             Finished: exactly 2 = beam: (a,a,</s>) -.632 and (</s>) -1.204.
TABLE_2 = {(): {A: .5, E: .3, B: .2}, (A,): {A: .6, B: .3, E: .1}, (B,): {B: .95, A: .03, E: .02},
           (B, B): {E: .99, A: .005, B: .005}}
DEFAULT = {E: .5, A: .25, B: .25}


def _search(table, stopping, nbest=1, beam=2, max_length=4, alpha=1.0, model=None):
    model = model or ScriptedModel(table, DEFAULT, max_length)
    return beam_search(model, FakeBatch(1), beam_size=beam, max_length=max_length, length_penalty=alpha,
                       nbest=nbest, stopping=stopping)[0]


def test_early_stopping_returns_the_first_beam_endings():
    hyps = _search(TABLE_1, "early", nbest=2)
    assert [h.tokens for h in hyps] == [(A, E), (E,)]
    assert hyps[0].score == pytest.approx((math.log(.5) + math.log(.5)) / 2)


def test_bound_stopping_goes_on_while_a_live_hypothesis_can_still_win():
    hyps = _search(TABLE_1, "bound", nbest=2)
    assert [h.tokens for h in hyps] == [(A, A, E), (B, B, E)]
    assert hyps[0].score == pytest.approx((math.log(.5) + math.log(.45) + math.log(.9)) / 3)
    assert hyps[1].score == pytest.approx((math.log(.2) + math.log(.9) + math.log(.95)) / 3)


def test_shrinking_beam_ends_with_exactly_beam_hypotheses():
    hyps = _search(TABLE_2, "shrinking", nbest=2)
    assert [h.tokens for h in hyps] == [(A, A, E), (E,)]
    assert hyps[0].log_prob == pytest.approx(math.log(.5) + math.log(.6) + math.log(.5))
    assert [h.tokens for h in _search(TABLE_2, "early", nbest=2)] == [(B, B, E), (A, A, E)]


@pytest.mark.parametrize("table", [TABLE_1, TABLE_2])
@pytest.mark.parametrize("nbest", [1, 2])
def test_bound_search_with_a_small_beam_equals_exhaustive_search(table, nbest):
    """Beam 2 against all 31 complete outputs of 4 steps over a, b, </s> (1 + 2 + 4 + 3 * 8)."""
    model = ScriptedModel(table, DEFAULT, max_length=4)
    everything = sorted(((total / len(tokens), tokens) for tokens, total in model.sequences()), reverse=True)
    assert len(everything) == 31
    hyps = _search(table, "bound", nbest=nbest)
    assert [h.tokens for h in hyps] == [tokens for _, tokens in everything[:nbest]]
    assert [h.score for h in hyps] == pytest.approx([score for score, _ in everything[:nbest]])


def test_unknown_stopping_rule_is_refused():
    with pytest.raises(ValueError, match="allowed values: early, bound, shrinking"):
        _search(TABLE_1, "eager")


def _confident_copynet(vocab):
    """Generate mode silenced below the 1e-20 floor (log -46), so only copying and </s> remain."""
    model = tiny_model("copynet", len(vocab))
    with torch.no_grad():
        model.output.generate.project.bias.fill_(-60.0)
        model.output.generate.project.bias[EOS_ID] = 0.0
    return model


@pytest.mark.parametrize("beam,nbest", [(1, 1), (3, 1), (4, 4)])
@pytest.mark.parametrize("stopping", ["early", "bound", "shrinking"])
def test_copynet_nbest_does_not_depend_on_batch_mates(beam, nbest, stopping):
    """A sentence with one OOV beside one with four: slots it does not own must never be chosen."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b"])
    model = _confident_copynet(vocab)
    sources = [["a", "p", "b"], ["q", "r", "s", "t", "a"], ["b", "b"]]
    options = dict(beam_size=beam, max_length=6, length_penalty=1.0, nbest=nbest, device=torch.device("cpu"),
                   stopping=stopping)
    together = translate(model, sources, vocab, batch_size=3, **options)
    for source, result in zip(sources, together):
        alone = translate(model, [source], vocab, batch_size=1, **options)[0]
        assert result.nbest == alone.nbest
        assert result.scores == pytest.approx(alone.scores, abs=1e-5)
        assert all(word in source or word in vocab for hyp in result.nbest for word in hyp)


def test_each_rule_stops_at_the_step_traced_by_hand():
    """Table 1's trace: `early` and GroundHog stop after step 2, `bound` after step 3 (not at max_length 4)."""
    for stopping, steps in (("early", 2), ("shrinking", 2), ("bound", 3)):
        model = ScriptedModel(TABLE_1, DEFAULT, max_length=4)
        _search(TABLE_1, stopping, nbest=2, model=model)
        assert model.steps == steps, stopping


@pytest.mark.parametrize("alpha", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("table", [TABLE_1, TABLE_2])
def test_a_beam_holding_every_prefix_finds_the_best_under_any_length_exponent(table, alpha):
    """Scores log p / len**alpha worked out here; beam 8 keeps all 2**3 live prefixes, so nothing is pruned."""
    model = ScriptedModel(table, DEFAULT, max_length=4)
    everything = sorted(((total / len(tokens) ** alpha, tokens) for tokens, total in model.sequences()), reverse=True)
    by_tokens = {tokens: score for score, tokens in everything}
    hyps = _search(table, "bound", nbest=3, beam=8, alpha=alpha)
    assert [h.score for h in hyps] == pytest.approx([score for score, _ in everything[:3]])
    assert [h.score for h in hyps] == pytest.approx([by_tokens[h.tokens] for h in hyps])  # ties may swap places


def test_length_normalisation_and_the_bound_by_hand():
    from paragen.decoding.search import best_reachable, normalised

    assert normalised(-3.0, 3, 0.5) == pytest.approx(-3.0 / math.sqrt(3))  # -1.732
    assert normalised(-3.0, 3, 2.0) == pytest.approx(-3.0 / 9)
    assert normalised(-3.0, 3, 0.0) == -3.0
    assert best_reachable(-2.0, 4, 2.0) == pytest.approx(-2.0 / 16)  # a live hypothesis can at best grow to 4
    assert best_reachable(-2.0, 9, 0.5) == pytest.approx(-2.0 / 3)
    assert best_reachable(-2.0, 4, 0.0) == -2.0


# Table 3, for `early` with beam 3 and nbest 2 (alpha 1, max_length 5), traced by hand:
#  step 1: a -.511, </s> -1.204, b -2.303. </s> ranks inside the beam of 3: finished (</s>) at -1.204.
#  step 2: aa -.616, bb -2.408, a</s> -3.324, ab -3.730. a</s> ranks 3rd, inside the beam: finished at
#          -3.324 / 2 = -1.662. Two finished: nbest is reached but the beam (3) is not, so the search goes on
#          with aa, bb, ab.
#  step 3: aaa -1.309, aa</s> -1.532, bb</s> -2.513, aab -2.919, ab</s> -4.423, ...  aa</s> (-1.532 / 3 = -.511)
#          and bb</s> (-2.513 / 3 = -.838) finish: four finished >= beam 3, stop.
#  n-best: (a,a,</s>) -.511, (b,b,</s>) -.838. (aaa</s> would have scored -2.002 / 4 = -.5005: `early` stops
#  before a live hypothesis can overtake, as its rule says.)
TABLE_3 = {(): {A: .6, E: .3, B: .1}, (A,): {A: .9, E: .06, B: .04}, (B,): {B: .9, E: .05, A: .05},
           (A, A): {A: .5, E: .4, B: .1}, (B, B): {E: .9, A: .05, B: .05}}


def test_early_stopping_waits_for_beam_endings_not_nbest_and_returns_nbest():
    """`early` stops once a sentence has `beam` finished hypotheses, then keeps the `nbest` best by
    log p / length (length normalisation with alpha 1); nbest 2 < beam 3."""
    model = ScriptedModel(TABLE_3, DEFAULT, max_length=5)
    hyps = _search(TABLE_3, "early", nbest=2, beam=3, max_length=5, model=model)
    assert [h.tokens for h in hyps] == [(A, A, E), (B, B, E)]
    assert [h.log_prob for h in hyps] == pytest.approx([math.log(.6) + math.log(.9) + math.log(.4),
                                                        math.log(.1) + math.log(.9) + math.log(.9)])
    assert [h.score for h in hyps] == pytest.approx([(math.log(.6 * .9 * .4)) / 3, (math.log(.1 * .9 * .9)) / 3])
    assert model.steps == 3


class _CountedRows:
    """Counts the hypothesis rows each search step feeds the model (sentences leave the batch once done)."""

    def __init__(self, model):
        self.model, self.rows = model, 0

    def __getattr__(self, name):
        return getattr(self.model, name)

    def step(self, tokens, state, encoded):
        self.rows += tokens.size(0)
        return self.model.step(tokens, state, encoded)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_keeping_fewer_hypotheses_keeps_the_best_one(architecture, alpha):
    """`bound` stops a sentence once no live hypothesis can still enter its n-best; with nbest 1 that is once none
    can beat the best finished one, so the top-1 is the one a search keeping 4 returns (the beam itself does not
    depend on nbest), while sentences leave the batch sooner. What the rule data's decodes rely on (decisions.md
    S20). Without a length penalty these untrained models stop early with nbest 1 (fewer rows stepped), which
    exercises the batch-leaving path; CopyNet's and the length-normalised searches run to max_length either way."""
    vocab = Vocabulary(list(SPECIALS) + ["a", "b", "c"])
    sources = [["a", "b", "c", "a"], ["b"], ["c", "c", "oov", "a", "b"], ["a", "a"]]
    model = tiny_model(architecture, len(vocab))
    options = dict(beam_size=4, max_length=7, length_penalty=alpha, device=torch.device("cpu"), stopping="bound")
    one_model, four_model = _CountedRows(model), _CountedRows(model)
    one = translate(one_model, sources, vocab, batch_size=4, nbest=1, **options)
    four = translate(four_model, sources, vocab, batch_size=4, nbest=4, **options)
    assert [len(t.nbest) for t in one] == [1] * len(sources)
    assert [t.nbest[0] for t in one] == [t.nbest[0] for t in four]
    assert [t.scores[0] for t in one] == pytest.approx([t.scores[0] for t in four], abs=1e-5)
    assert one_model.rows <= four_model.rows
    if alpha == 0.0 and architecture != "copynet":
        assert one_model.rows < four_model.rows
