"""Model registry: ``architecture`` name in params.yaml -> builder."""

from __future__ import annotations

from typing import Callable

from paragen.config import ModelConfig
from torch import nn

from paragen.models import copynet, encdec, rnnsearch, wean
from paragen.models.critic import RuleTable
from paragen.models.dmass import DmassMemory
from paragen.models.transformer import Transformer
from paragen.data.vocabulary import Vocabulary


def _transformer(config: ModelConfig, vocab_size: int, rules: RuleTable | None = None) -> Transformer:
    memory = None
    if config.dmass is not None:
        if rules is None:
            raise ValueError("a Transformer with dmass needs its rule table (rules:) to be built")
        memory = DmassMemory(rules, config.decoder_layers, config.embedding_size, config.dmass.update,
                             config.dmass.combine, config.dmass.read_after_updates, config.dmass.placement,
                             config.dmass.trigger)
    return Transformer(vocab_size, config.embedding_size, config.heads, config.key_size,
                       config.feedforward_width, config.encoder_layers,
                       config.decoder_layers, config.dropout, config.share_embeddings, memory=memory)


BUILDERS: dict[str, Callable[[ModelConfig, int], nn.Module]] = {
    "encdec": encdec.build,
    "rnnsearch": rnnsearch.build,
    "copynet": copynet.build,
    "wean": wean.build,
}


def vocabulary_for(config: ModelConfig, vocab: Vocabulary) -> Vocabulary:
    """The vocabulary a model of ``config`` reads and writes: the dataset's, plus <tpad> for SPM (004 §4.1).

    Training and decoding both build batches and the model from it, so the model's size, the batch ids
    and the extended ids of out-of-vocabulary words agree."""
    return vocab.with_target_pad() if config.source_prediction is not None else vocab


def build_model(config: ModelConfig, vocab_size: int, rules: RuleTable | None = None) -> nn.Module:
    """Every model answers the same protocol: ``encode``, ``initial_state``, ``step``, ``forward``, ``loss``,
    ``target_ids``, ``copies``, ``vocab_size``, ``never_generated`` (:class:`paragen.models.seq2seq.Seq2Seq` and
    :class:`paragen.models.transformer.Transformer`). ``rules``: DMASS's rule table (vocabulary ids).
    ``vocab_size`` is the size of :func:`vocabulary_for`'s vocabulary."""
    if config.architecture == "transformer":
        return _transformer(config, vocab_size, rules)
    return BUILDERS[config.architecture](config, vocab_size)
