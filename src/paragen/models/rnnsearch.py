"""RNNSearch / attentional Seq2seq: bi-RNN encoder and attentional decoder (Bahdanau et al., 2014).

With ``attention: general`` and LSTM cells this is WEAN's "Seq2seq" baseline (Luong-style
attention, Ma et al. 2018 §3.1.3); with GRUs and ``bahdanau`` it is CopyNet's RNNSearch.

Kiyono et al. (2018)'s EncDec (004 §3, Appendix A-C) is this model with LSTMs, ``attention: general``,
``input_feeding: attentional`` and three switches: ``bidirectional_merge: sum`` (Eq. 16),
``decoder_init: encoder_final`` (Eq. 18) and ``attentional_bias: false`` (Eq. 21). Its +sGate adds
``selective_gate: true`` (the encoder add-on), its +SPM ``source_prediction:`` (the training-only head).
"""

from __future__ import annotations

from paragen.config import ModelConfig
from paragen.models import common
from paragen.models.outputs import SoftmaxOutput
from paragen.models.seq2seq import Seq2Seq


def build(config: ModelConfig, vocab_size: int) -> Seq2Seq:
    enc = common.encoder(config, vocab_size)
    dec = common.decoder(config, enc, vocab_size, attentional_size=config.hidden_size)
    out = SoftmaxOutput(config.hidden_size, enc.memory_size, vocab_size, config.dropout, config.attentional_bias)
    return Seq2Seq(enc, dec, out, vocab_size, char_decoder=common.char_decoder(config, config.hidden_size),
                   source_prediction=common.source_prediction(config, config.hidden_size, vocab_size))
