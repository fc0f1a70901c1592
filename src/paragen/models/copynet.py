"""CopyNet (Gu et al., 2016): RNNSearch plus the copy mode and selective read.

The decoder input gains ζ(y_{t-1}) (memory_size wide, §3.3) and the output
layer becomes :class:`~paragen.models.outputs.CopyOutput` (§3.2).
"""

from __future__ import annotations

from paragen.config import ModelConfig
from paragen.models import common
from paragen.models.outputs import CopyOutput
from paragen.models.seq2seq import Seq2Seq


def build(config: ModelConfig, vocab_size: int) -> Seq2Seq:
    enc = common.encoder(config, vocab_size)
    dec = common.decoder(config, enc, vocab_size, extra_size=enc.memory_size)
    out = CopyOutput(config.hidden_size, enc.memory_size, vocab_size, config.dropout)
    return Seq2Seq(enc, dec, out, vocab_size, selective_read=True)
