"""Model registry: ``architecture`` name in params.yaml -> builder."""

from __future__ import annotations

from typing import Callable

from paragen.config import ModelConfig
from torch import nn

from paragen.models import copynet, encdec, rnnsearch, wean
from paragen.models.transformer import Transformer


def _transformer(config: ModelConfig, vocab_size: int) -> Transformer:
    return Transformer(vocab_size, config.embedding_size, config.heads, config.key_size,
                       config.feedforward_size or 4 * config.embedding_size, config.encoder_layers,
                       config.decoder_layers, config.dropout, config.share_embeddings)


BUILDERS: dict[str, Callable[[ModelConfig, int], nn.Module]] = {
    "encdec": encdec.build,
    "rnnsearch": rnnsearch.build,
    "copynet": copynet.build,
    "wean": wean.build,
    "transformer": _transformer,
}


def build_model(config: ModelConfig, vocab_size: int) -> nn.Module:
    """Every model answers the same protocol: ``encode``, ``initial_state``, ``step``, ``forward``, ``loss``,
    ``target_ids``, ``copies``, ``vocab_size`` (:class:`paragen.models.seq2seq.Seq2Seq` and
    :class:`paragen.models.transformer.Transformer`)."""
    return BUILDERS[config.architecture](config, vocab_size)
