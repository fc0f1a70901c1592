"""Enc-Dec without attention (Cho et al., 2014; CopyNet Table 1's first row).

The decoder sees the source only through the encoder summary, fed at every
step in place of an attention context.
"""

from __future__ import annotations

from paragen.config import ModelConfig
from paragen.models import common
from paragen.models.outputs import SoftmaxOutput
from paragen.models.seq2seq import Seq2Seq


def build(config: ModelConfig, vocab_size: int) -> Seq2Seq:
    enc = common.encoder(config, vocab_size)
    dec = common.decoder(config, enc, vocab_size, attend=False)
    out = SoftmaxOutput(config.hidden_size, enc.memory_size, vocab_size, config.dropout)
    return Seq2Seq(enc, dec, out, vocab_size)
