"""Pieces every RNN model builds the same way: embeddings and the encoder."""

from __future__ import annotations

from torch import nn

from paragen.config import ModelConfig
from paragen.models.attention import Attention
from paragen.models.encoders import RNNEncoder
from paragen.vocabulary import PAD_ID


def embedding(config: ModelConfig, vocab_size: int) -> nn.Embedding:
    return nn.Embedding(vocab_size, config.embedding_size, padding_idx=PAD_ID)


def encoder(config: ModelConfig, vocab_size: int) -> RNNEncoder:
    return RNNEncoder(embedding(config, vocab_size), config.hidden_size, config.encoder_layers,
                      config.bidirectional, config.cell, config.dropout)


def attention(config: ModelConfig, memory_size: int) -> Attention:
    return Attention(config.attention, config.hidden_size, memory_size)
