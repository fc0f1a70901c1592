"""Model registry: ``architecture`` name in params.yaml -> builder."""

from __future__ import annotations

from typing import Callable

from paragen.config import ModelConfig
from paragen.models import copynet, encdec, rnnsearch, wean
from paragen.models.seq2seq import Seq2Seq

BUILDERS: dict[str, Callable[[ModelConfig, int], Seq2Seq]] = {
    "encdec": encdec.build,
    "rnnsearch": rnnsearch.build,
    "copynet": copynet.build,
    "wean": wean.build,
}


def build_model(config: ModelConfig, vocab_size: int) -> Seq2Seq:
    return BUILDERS[config.architecture](config, vocab_size)
