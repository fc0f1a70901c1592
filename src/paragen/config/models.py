"""``models:``: the architectures and their add-ons (attention, WEAN, CopyNet, sGate, SPM, Transformer, DMASS)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Mapping

from pydantic import Field, model_validator
from paragen.config.base import Architecture, AttentionScore, PositiveInt, WeanScore, _Strict


RECURRENT_ONLY = ("hidden_size", "bidirectional", "cell", "attention", "wean_score", "input_feeding",
                  "bidirectional_merge", "decoder_init", "attentional_bias", "selective_gate", "source_prediction")
"""ModelConfig fields of the recurrent architectures only."""
TRANSFORMER_ONLY = ("heads", "key_size", "feedforward_size", "dmass")
"""ModelConfig fields of the Transformer only."""


class DmassConfig(_Strict):
    """DMASS's memory in a Transformer (003 §3.2.3); the defaults are the report's description."""

    rules: str = Field(description="a name under rules: (its lexical rules within the vocabulary get a slot each)")
    update: Literal["overwrite", "average", "halve"] = Field(
        "overwrite", description="overwrite (the report), a running mean, or (old + new) / 2 (Zhao et al.'s code)")
    placement: Literal["each_layer", "top"] = Field(
        "each_layer", description="each_layer (the report: slots per decoder layer, read before its feed-forward) or "
        "top (the released code: one memory keyed by layer 0's pre-context, valued by the output, read at the top)")
    trigger: Literal["predicted", "gold"] = Field(
        "predicted", description="store where the prediction (the report) or the gold target (the code) is the simple word")
    combine: Literal["add", "concat"] = Field(
        "add", description="c + r into the feed-forward (the report) or W[c; r] (the released code)")
    read_after_updates: Annotated[int, Field(ge=0)] = Field(
        0, description="reads stay off until this many memory updates (the released code's warm-up; report: 0)")


class SourcePredictionConfig(_Strict):
    """Kiyono et al.'s source-side prediction module (004 §4): an auxiliary head and loss, not used in decoding."""

    weight_c: Annotated[float, Field(gt=0.0)] = Field(
        10.0, description="C of Eq. 10-11: l_src = ||sum_j q_j - x~||^2 / C (004 Table 2: 10)")


class RawFile(_Strict):
    """A file a registry entry (sources.yaml) brings into data/raw/<fetch>/."""

    fetch: str = Field(description="registry entry (sources.yaml) that downloads the file")
    file: str = Field(description="the file inside data/raw/<fetch>/")

    @property
    def path(self) -> str:
        return f"data/raw/{self.fetch}/{self.file}"


class PretrainedEmbeddings(RawFile):
    """Word vectors to start the embeddings from (003 §4.3.2: 300-d GloVe); absent file -> random, said so."""

    fetch: str = Field("glove", description="registry entry that downloads the vectors")
    file: str = Field("glove.6B.300d.txt", description="GloVe text file inside data/raw/<fetch>/")


class ModelConfig(_Strict):
    """One model configuration; ``architecture`` picks the composition (docs/models.md)."""

    architecture: Architecture = Field(description="encdec: no attention (CopyNet Table 1's Enc-Dec); rnnsearch: "
        "attention (Bahdanau/Luong); copynet: generate or copy (001); wean: output by querying word embeddings "
        "(002); transformer: Vaswani et al. (003)")
    embedding_size: PositiveInt = Field(150, description="word embedding width (transformer: d_model)")
    hidden_size: PositiveInt = Field(300, description="RNN state width of each direction and layer")
    encoder_layers: PositiveInt = Field(1, description="stacked encoder layers")
    decoder_layers: PositiveInt = Field(1, description="stacked decoder cells (WEAN §3.1.3: 2)")
    bidirectional: bool = Field(True, description="the RNN encoder reads the source both ways")
    share_embeddings: bool = Field(False, description="encoder and decoder read one embedding table (WEAN §2.4)")
    cell: Literal["gru", "lstm"] = Field("gru", description="RNN cell of encoder and decoder")
    attention: AttentionScore = Field(
        "bahdanau", description="attention score: bahdanau (additive, from s_{t-1}), or Luong et al.'s dot, general, "
        "concat (from s_t)")
    wean_score: WeanScore = Field("general", description="WEAN query score, §2.3 Eq. 5")
    input_feeding: Literal["context", "attentional"] = Field(
        "context", description="what the decoder cell reads besides e(y_{t-1}): the previous attention context "
        "c_{t-1} (RNNSearch, CopyNet and Enc-Dec's own update) or Luong et al. (2015)'s attentional vector "
        "h~_{t-1} = tanh(W_c[s;c]) (WEAN's q_{t-1}; WEAN's Seq2seq, SPM's EncDec)")
    bidirectional_merge: Literal["concat", "sum"] = Field(
        "concat", description="how the two directions of an encoder state join: [->h; <-h] (Bahdanau et al.) or "
        "->h + <-h (004 Eq. 16), which keeps the memory hidden_size wide")
    decoder_init: Literal["bridge", "encoder_final"] = Field(
        "bridge", description="bridge: every decoder layer starts from tanh(W summary); encoder_final: decoder layer l "
        "starts from encoder layer l's last forward plus first backward state, LSTM cells likewise (004 Eq. 18)")
    attentional_bias: bool = Field(
        True, description="rnnsearch: a bias in the attentional layer tanh(W[s; c] + b); 004 Eq. 21 and Luong "
        "et al.'s Eq. 5 have none")
    selective_gate: bool = Field(
        False, description="Zhou et al. (2017)'s selective gate on the encoder memory: h_i * sigmoid(W h_i + U s + b), "
        "s the top layer's [->h_I; <-h_1] (004's +sGate)")
    source_prediction: SourcePredictionConfig | None = Field(
        None, description="rnnsearch with input_feeding: attentional: 004's SPM head and loss l_src beside the NLL of "
        "the target padded to the source length with <tpad>")
    dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = Field(0.0, description="dropout probability in training")
    heads: PositiveInt = Field(5, description="transformer: attention heads h")
    key_size: PositiveInt = Field(64, description="transformer: d_k = d_v per head (003 §4.3.2: 64)")
    feedforward_size: PositiveInt | None = Field(
        None, description="transformer: inner size of the ReLU feed-forward sublayer (default 4 x d_model, "
        "Vaswani et al.'s ratio)")
    dmass: DmassConfig | None = Field(None, description="transformer: DMASS's simplification memory")
    char_decoder: bool = Field(False, description="rnnsearch/wean with attentional input feeding: spell <unk> words "
                               "with a character LSTM started from the attentional vector (003 §4.3.1)")
    pretrained_embeddings: PretrainedEmbeddings | None = Field(
        None, description="start the embeddings from these word vectors (their width must be embedding_size)")

    @property
    def feedforward_width(self) -> int:
        """The Transformer's feed-forward inner size: as set, else 4 x d_model (Vaswani et al.'s ratio)."""
        return self.feedforward_size or 4 * self.embedding_size

    @classmethod
    def from_checkpoint(cls, stored: Mapping[str, Any]) -> "ModelConfig":
        """A configuration a checkpoint stored (every field), without the other architecture kind's fields, so a
        later change of their defaults cannot make old checkpoints unreadable."""
        other = RECURRENT_ONLY if stored.get("architecture") == "transformer" else TRANSFORMER_ONLY
        return cls.model_validate({k: v for k, v in stored.items() if k not in other})

    @model_validator(mode="after")
    def _fields_fit_architecture(self) -> "ModelConfig":
        # A value equal to the default is harmless (a checkpoint stores every field of its configuration).
        wrong = {name for name in (RECURRENT_ONLY if self.architecture == "transformer" else TRANSFORMER_ONLY)
                 if name in self.model_fields_set and getattr(self, name) != type(self).model_fields[name].default}
        if wrong:
            kind = "the transformer (its width is embedding_size = d_model)" if self.architecture == "transformer" \
                else f"{self.architecture} (a recurrent model)"
            raise ValueError(f"{', '.join(sorted(wrong))}: not a setting of {kind}")
        if self.char_decoder and (self.architecture not in ("rnnsearch", "wean") or self.input_feeding != "attentional"):
            raise ValueError("char_decoder: needs the attentional vector of Luong input feeding (architecture rnnsearch "
                             "or wean with input_feeding: attentional)")
        if self.input_feeding == "attentional" and self.architecture not in ("rnnsearch", "wean"):
            raise ValueError(f"input_feeding: 'attentional' needs an attentional output layer (rnnsearch, wean); "
                             f"{self.architecture} keeps its paper's update, use 'context'")
        self._recurrent_switches_fit()
        return self

    def _recurrent_switches_fit(self) -> None:
        """The encoder and decoder switches of 004's models (merge, start, gate, SPM) need matching settings."""
        if self.bidirectional_merge == "sum" and not self.bidirectional:
            raise ValueError("bidirectional_merge: 'sum' adds the two directions; it needs bidirectional: true")
        if self.decoder_init == "encoder_final":
            if self.encoder_layers != self.decoder_layers:
                raise ValueError(f"decoder_init: 'encoder_final' starts decoder layer l from encoder layer l; "
                                 f"encoder_layers ({self.encoder_layers}) and decoder_layers ({self.decoder_layers}) "
                                 "differ")
            if self.bidirectional and self.bidirectional_merge == "concat":
                raise ValueError("decoder_init: 'encoder_final' needs encoder states as wide as the decoder's: "
                                 "bidirectional_merge: sum (or bidirectional: false)")
        if not self.attentional_bias and self.architecture != "rnnsearch":
            raise ValueError(f"attentional_bias: a setting of rnnsearch's attentional layer, not of {self.architecture}")
        if self.selective_gate and self.architecture == "encdec":
            raise ValueError("selective_gate: gates the memory that attention reads; encdec has no attention")
        if self.source_prediction is not None and (self.architecture != "rnnsearch"
                                                   or self.input_feeding != "attentional"):
            raise ValueError("source_prediction: predicts the source from the attentional vector z_j (004 Eq. 6); "
                             "it needs architecture rnnsearch with input_feeding: attentional")
