"""Pieces every RNN model builds the same way: embeddings, the encoder and the decoder."""

from __future__ import annotations

from torch import nn

from paragen.config import ModelConfig
from paragen.models.attention import Attention
from paragen.models.char_decoder import CharDecoder
from paragen.models.decoders import RecurrentDecoder
from paragen.models.encoders import RNNEncoder
from paragen.models.source_prediction import SourcePrediction
from paragen.data.vocabulary import PAD_ID


def embedding(config: ModelConfig, vocab_size: int) -> nn.Embedding:
    return nn.Embedding(vocab_size, config.embedding_size, padding_idx=PAD_ID)


def encoder(config: ModelConfig, vocab_size: int) -> RNNEncoder:
    return RNNEncoder(embedding(config, vocab_size), config.hidden_size, config.encoder_layers,
                      config.bidirectional, config.cell, config.dropout, config.bidirectional_merge,
                      config.selective_gate)


def attention(config: ModelConfig, memory_size: int) -> Attention:
    return Attention(config.attention, config.hidden_size, memory_size)


def decoder(config: ModelConfig, enc: RNNEncoder, vocab_size: int, *, attend: bool = True,
            extra_size: int = 0, attentional_size: int | None = None) -> RecurrentDecoder:
    """The input-feeding decoder; with ``share_embeddings`` it reads the encoder's embedding table.

    Sharing is WEAN's setting (Ma et al. 2018, §1/§2.4: one vocabulary whose embeddings are
    updated from the encoder input, the decoder input and the output query).
    ``attentional_size`` is the width of the output layer's attentional vector h̃, fed back
    when ``config.input_feeding`` is ``attentional``.
    """
    table = enc.embedding if config.share_embeddings else embedding(config, vocab_size)
    feed = attentional_size if config.input_feeding == "attentional" else None
    if config.input_feeding == "attentional" and attentional_size is None:
        raise ValueError(f"{config.architecture}: its output layer has no attentional vector to feed")
    return RecurrentDecoder(table, config.hidden_size, enc.memory_size, config.cell,
                            attention(config, enc.memory_size) if attend else None, extra_size, config.dropout,
                            config.decoder_layers, feed, config.decoder_init)


def source_prediction(config: ModelConfig, attentional_size: int, vocab_size: int) -> SourcePrediction | None:
    """004's SPM head (``source_prediction:``) over a vocabulary that holds <tpad> (see ``vocabulary_for``)."""
    if config.source_prediction is None:
        return None
    return SourcePrediction(attentional_size, vocab_size, config.source_prediction.weight_c, config.dropout)


def char_decoder(config: ModelConfig, attentional_size: int) -> CharDecoder | None:
    """The character decoder for <unk> words (``char_decoder: true``), started from the attentional vector."""
    return CharDecoder(attentional_size) if config.char_decoder else None
