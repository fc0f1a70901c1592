"""WEAN's output layer queries the *decoder's* input embeddings (Ma et al. 2018, §2.4), also when unshared."""

from __future__ import annotations

import pytest
import torch

from paragen.data.batching import make_batch
from paragen.data.vocabulary import BOS_ID, PAD_ID, SPECIALS, Vocabulary

from conftest import tiny_model

VOCAB = Vocabulary(list(SPECIALS) + ["a", "b", "c"])


@pytest.mark.parametrize("score", ["dot", "general"])
def test_unshared_wean_scores_against_the_decoder_input_table(score):
    """§2.4: "We reuse the embeddings of the decoder inputs as the values of the candidate words".

    q_t = tanh(W_c [s_t; c_t]) (Eq. 4); f = q^T e_i (dot) or q^T W_a e_i (general) (Eq. 5); p = softmax_i f
    (Eq. 6) over every word but <pad> and <s>. With share_embeddings false the encoder and decoder tables are
    distinct random matrices: e_i must be a row of the decoder's.
    """
    model = tiny_model("wean", len(VOCAB), wean_score=score, share_embeddings=False)
    generator = torch.Generator().manual_seed(7)
    encoder_table, decoder_table = (torch.randn(len(VOCAB), 8, generator=generator) for _ in range(2))
    with torch.no_grad():
        model.encoder.embedding.weight.copy_(encoder_table)
        model.decoder.embedding.weight.copy_(decoder_table)
    seen = {}
    model.output.register_forward_hook(lambda module, args, output: seen.update(hidden=args[0], context=args[1]))
    batch = make_batch([["a", "b", "c"], ["c", "a"]], None, VOCAB)
    layer = model.output

    def expected(table: torch.Tensor) -> torch.Tensor:
        q = torch.tanh(torch.cat([seen["hidden"], seen["context"]], -1) @ layer.query.weight.T + layer.query.bias)
        scores = (q @ layer.W_a.weight.T if score == "general" else q) @ table.T
        scores[:, [PAD_ID, BOS_ID]] = float("-inf")
        return scores.log_softmax(-1)

    with torch.no_grad():
        encoded = model.encode(batch)
        step = model.step(torch.full((2,), BOS_ID), model.initial_state(encoded), encoded)
        torch.testing.assert_close(step.log_probs, expected(decoder_table), atol=1e-5, rtol=0)
        assert not torch.allclose(expected(encoder_table), expected(decoder_table), atol=1e-3)  # a swap would show
