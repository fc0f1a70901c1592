"""WEAN (Ma et al., 2018): an attentional decoder whose output layer queries its input embeddings."""

from __future__ import annotations

from paragen.config import ModelConfig
from paragen.models import common
from paragen.models.outputs import WeanOutput
from paragen.models.seq2seq import Seq2Seq


def build(config: ModelConfig, vocab_size: int) -> Seq2Seq:
    enc = common.encoder(config, vocab_size)
    dec = common.decoder(config, enc, vocab_size, attentional_size=config.embedding_size)
    out = WeanOutput(dec.embedding, config.hidden_size, enc.memory_size, config.wean_score, config.dropout)
    return Seq2Seq(enc, dec, out, vocab_size, char_decoder=common.char_decoder(config, config.embedding_size))
