"""WEAN Table 5: output-layer parameters, counted from instantiated models.

The paper counts Seq2seq's vocabulary projection W (k x V, Eq. 3; bias excluded) against the
parameters of WEAN's relevance score f(q, e) (Eq. 5): "two parameter matrices and one parameter
vector at most", i.e. the ``concat`` score's 2k^2 + k, although it trains with ``general``
(k^2). Both models share everything else, including the attentional layer W_c [s_t; c_t], so
it is not counted. Each cell instantiates the experiment's model twice: at the paper's
vocabulary size and at the size of the vocabulary actually built (when it exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paragen.config import ModelConfig
from paragen.models import build_model
from paragen.models.outputs import SoftmaxOutput, WeanOutput
from paragen.data.vocabulary import SPECIALS, Vocabulary


def output_layer_parameters(config: ModelConfig, vocab_size: int) -> int:
    """Parameters WEAN Table 5 attributes to the output layer of ``config`` at ``vocab_size`` (incl. specials)."""
    output = build_model(config, vocab_size).output
    if isinstance(output, WeanOutput):
        return output.score_parameters()
    if isinstance(output, SoftmaxOutput):
        return output.vocabulary_parameters()
    raise ValueError(f"Table 5 compares Seq2seq and WEAN output layers, not {type(output).__name__}")


@dataclass(frozen=True)
class ParameterCount:
    paper_vocab: int  # the paper's vocabulary size, e.g. 50,000 (specials added on top)
    at_paper_vocab: int
    built_vocab: int | None  # None: the dataset's vocabulary was not built
    at_built_vocab: int | None


def count_cell(config: ModelConfig, paper_vocab: int, vocab_path: str | Path | None) -> ParameterCount:
    at_paper = output_layer_parameters(config, paper_vocab + len(SPECIALS))
    if vocab_path is None or not Path(vocab_path).exists():
        return ParameterCount(paper_vocab, at_paper, None, None)
    size = len(Vocabulary.load(vocab_path))
    return ParameterCount(paper_vocab, at_paper, size - len(SPECIALS), output_layer_parameters(config, size))
