"""Typed, validated view of ``params.yaml``: the single source of truth.

Every stage of both workflow engines is derived from this object (see
:mod:`paragen.pipeline`), so a typo in ``params.yaml`` must stop the run at
load time with the offending key and the allowed values, never half-way
through a training run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Mapping

import yaml
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, NonNegativeInt, ValidationError,
                      model_validator)

from paragen.data.corpus import MAX_LINE_CHARS

Architecture = Literal["encdec", "rnnsearch", "copynet", "wean", "transformer"]
AttentionScore = Literal["dot", "general", "concat", "bahdanau"]
WeanScore = Literal["dot", "general", "concat"]
PositiveInt = Annotated[int, Field(gt=0)]
IntRange = Annotated[tuple[PositiveInt, PositiveInt],
                     BeforeValidator(lambda value: tuple(value) if isinstance(value, list) else value)]
"""A [min, max] pair; YAML writes it as a list."""
Fraction = Annotated[float, Field(gt=0.0, lt=1.0)]


def _unique(values: list) -> list:
    repeated = sorted({v for v in values if values.count(v) > 1}, key=str)
    if repeated:
        raise ValueError(f"{repeated} listed more than once")
    return values


SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""What a dataset, model, training, decoding, experiment, rules, system, table or suite name may be: it becomes
part of file paths (``runs/<experiment>``) and stage commands, so no ``/``, ``.``, spaces or shell characters."""


def _safe_name(name: str) -> str:
    if not SAFE_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a usable name: use letters, digits, '_' and '-' only, starting with a "
                         "letter or digit (names become file paths and command arguments)")
    return name


Name = Annotated[str, AfterValidator(_safe_name)]


def _published_file(name: str) -> str:
    """A ``tables.*.paper`` value: the stem of a file in ``paragen/paper_results`` (checked at load time)."""
    from importlib import resources

    known = sorted(p.name[:-5] for p in resources.files("paragen.paper_results").iterdir() if p.name.endswith(".yaml"))
    if name not in known:
        raise ValueError(f"no published-number file {name!r} in paragen/paper_results; allowed values: {known}")
    return name


class ConfigError(ValueError):
    """``params.yaml`` does not match the schema; the message names each bad key."""


class _Strict(BaseModel):
    """Base model that rejects unknown keys and loose types, so a mistake never passes silently.

    Strict types: ``batch_size: true`` is not the integer 1, ``"3"`` is not a number, ``1`` is not a
    boolean (an integer is still a valid float).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class SyntheticDataset(_Strict):
    """CopyNet §5.1 rule dataset: N rules x M instances, split 50/50 per rule."""

    kind: Literal["synthetic"]
    rules: PositiveInt = Field(description="number of transformation rules (paper: 200)")
    instances_per_rule: Annotated[int, Field(ge=2)] = Field(description="paper: 200")
    symbols: PositiveInt = Field(1000, description="size of the regular-symbol vocabulary")
    rule_length: IntRange = Field(
        (5, 20), description="min/max regular symbols in one rule (both sides together)"
    )
    variable_length: IntRange = Field(
        (1, 15), description="min/max symbols a variable x or y is filled with"
    )
    valid_fraction: Fraction = Field(0.1, description="slice of train held out for validation")
    separate_variables: bool = Field(
        True, description="x and y never adjacent in a source pattern (at least one regular symbol between "
        "them, as in every example of §5.1), and an instance whose fillers still split two ways is redrawn; "
        "false: the variables anywhere (paragen before issue 25), where adjacent x y cannot be told apart")
    target_from_source: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.5, description="chance that a target regular symbol is one of the rule's own source symbols (§5.1's "
        "examples: 7 of their 13 target symbols are; 0: independent draws, paragen before issue 25)")
    seed: int = 1

    @model_validator(mode="after")
    def _ranges_ordered(self) -> "SyntheticDataset":
        for name in ("rule_length", "variable_length"):
            low, high = getattr(self, name)
            if low > high:
                raise ValueError(f"{name}: minimum {low} exceeds maximum {high}")
        if self.rule_length[0] < 2:
            raise ValueError("rule_length: minimum must be >= 2 (one symbol per side)")
        return self


class Evaluation(_Strict):
    """How a real dataset's test outputs are scored (``paragen evaluate``)."""

    metrics: list[Literal["bleu", "sari", "rouge", "oddgen"]] = Field(
        ["bleu"], min_length=1, description="oddgen: 004 §6.1's odd-generation counts against the first reference")
    lowercase: bool = Field(True, description="BLEU/SARI on lowercased 13a tokens, as the published tables")
    rouge_unit: Literal["word", "char"] = Field("char", description="ROUGE tokens (LCSTS: characters)")
    rouge_perl_exceptions: Literal["wordnet", "none"] = Field(
        "wordnet", description="ROUGE-1.5.5's -m: 'wordnet' maps words through WordNet 2.0's exception lists before "
        "Porter stemming (went -> go); 'none' is Porter alone, as published ROUGE-1.5.5 setups without a readable "
        "WordNet-2.0.exc.db scored (the headline suites use it: it reproduces published Gigaword scores)")
    rouge_perl: bool = Field(False, description="ROUGE with the official Perl ROUGE-1.5.5 and SPM's options "
                             "(-n 2 -m -w 1.2; words only) instead of rouge-score (`paragen rouge-perl-check`)")

    @model_validator(mode="after")
    def _perl_scores_words(self) -> "Evaluation":
        if self.rouge_perl and self.rouge_unit != "word":
            raise ValueError("rouge_perl: ROUGE-1.5.5 scores words; set rouge_unit: word")
        return self


class HeadlineSyntheticDataset(_Strict):
    """The headline suite's stand-in (paragen.data.headline_synthetic): a lossy headline task with known
    word alignments. NOT a paper's setup."""

    kind: Literal["headline_synthetic"]
    train_pairs: PositiveInt
    valid_pairs: PositiveInt
    test_pairs: PositiveInt
    content_words: PositiveInt = Field(500, description="content word types (kept in the headline)")
    filler_words: PositiveInt = Field(100, description="filler word types (always dropped)")
    source_length: IntRange = Field((10, 30), description="min/max source tokens")
    content_share: Fraction = Field(0.4, description="probability that a source token is a content word")
    max_target_length: PositiveInt = Field(12, description="the headline keeps at most this many content words")
    rewrite_fraction: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.3, description="share of content word types the headline rewrites through a fixed word-to-word map")
    seed: int = 1
    evaluation: Evaluation = Field(
        default_factory=lambda: Evaluation(metrics=["rouge", "oddgen"], rouge_unit="word"),
        description="how `paragen evaluate` scores the test outputs (the words c<i>/r<i> are ROUGE words)")

    @model_validator(mode="after")
    def _range_ordered(self) -> "HeadlineSyntheticDataset":
        low, high = self.source_length
        if low > high:
            raise ValueError(f"source_length: minimum {low} exceeds maximum {high}")
        return self


class AlignmentFilter(_Strict):
    """Which of Hwang et al. (2015)'s scored EW-SEW pairs to keep (recipe ew_sew_hwang; WEAN 000 §3.1.1)."""

    classes: Annotated[list[Literal["good", "good_partial", "remaining"]], AfterValidator(_unique)] = Field(
        ["good", "good_partial"], min_length=1, description="match classes (one release file each)")
    min_score: float = Field(0.45, description="keep pairs whose similarity score is greater than this")
    deduplicate: bool = Field(False, description="remove repeated pairs (WEAN says so for PWKP only)")
    drop_identical: bool = Field(False, description="remove pairs whose two sides are identical")

    def cli_options(self) -> tuple[str, ...]:
        return ("--classes", ",".join(self.classes), "--min-score", str(self.min_score),
                *(("--deduplicate",) if self.deduplicate else ()), *(("--drop-identical",) if self.drop_identical else ()))


class RealDataset(_Strict):
    """A real dataset entering the DAG: fetch -> prepare -> segment -> vocabulary (issue 3).

    ``recipe`` names the preparation (``paragen prepare RECIPE``; default: the dataset's own name),
    so one prepared dataset can be segmented several ways (LCSTS +C and +W); ``fetch`` lists the
    registry entries it is built from (``paragen fetch``).
    """

    kind: Literal["real"]
    recipe: str | None = Field(None, description="preparation recipe; default: the dataset's name")
    fetch: list[str] = Field(min_length=1, description="registry datasets to fetch (sources.yaml)")
    fetch_scope: Literal["all", "eval"] = Field("all", description="eval: only validation/test/reference files")
    splits: list[str] = Field(min_length=1)
    test_splits: Annotated[list[str], AfterValidator(_unique)] = Field(
        ["test"], min_length=1, description="the splits an experiment decodes and scores (004: test_ours, "
        "test_rush, test_zhou); each must be one of splits")
    segmentation: Literal["bpe", "char", "jieba", "word"] = "word"
    merges: PositiveInt = Field(5000, description="BPE merge operations (segmentation: bpe)")
    lowercase: bool = False
    strip_specials: bool = Field(False, description="lowercase and drop special characters (003 §4.1: WikiLarge, Turk)")
    drop_longer_target: bool = False
    max_line_chars: PositiveInt = Field(MAX_LINE_CHARS, description="prepare drops pairs with a longer line, "
                                        "counting them in the log (scoring refuses such lines)")
    alignment_filter: AlignmentFilter | None = Field(
        None, description="recipe ew_sew_hwang: the classes and score threshold of Hwang et al.'s pairs to keep")
    vocab_size: PositiveInt | None = Field(None, description="tokens besides the 4 special symbols; null keeps all")
    shared_vocab: bool = True
    evaluation: Evaluation = Field(default_factory=Evaluation)

    @model_validator(mode="after")
    def _test_splits_are_splits(self) -> "RealDataset":
        if "test_splits" in self.model_fields_set:
            for split in self.test_splits:
                if split not in self.splits:
                    raise ValueError(f"test_splits: {split!r} is not one of its splits; allowed values: {self.splits}")
        return self


class VocabConfig(_Strict):
    """How the token vocabulary of a dataset is built from its training split."""

    max_size: PositiveInt | None = Field(None, description="keep the most frequent N tokens")
    min_count: PositiveInt = 1


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


class CriticConfig(_Strict):
    """DCSS's critic loss (003 Eq. 4) as a second objective of the one trainer."""

    rules: str = Field(description="a name under rules: (lexical rules within the vocabulary)")
    variant: Literal["report", "fixed"] = Field(
        "report", description="report: Eq. 4 as stated; fixed: only where the simple word is in the target (§5.5)")
    mode: Literal["alternate", "sum"] = Field(
        "alternate", description="alternate: one batch of sequence loss, one of critic loss (Zhao et al.'s code); "
        "sum: L_seq + weight * L_critic on every batch (the report's plan)")
    weight: Annotated[float, Field(gt=0.0)] = Field(1.0, description="lambda: the critic term's weight")


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
    """One model configuration; ``architecture`` picks the composition (DESIGN.md §4)."""

    architecture: Architecture
    embedding_size: PositiveInt = 150
    hidden_size: PositiveInt = 300
    encoder_layers: PositiveInt = 1
    decoder_layers: PositiveInt = Field(1, description="stacked decoder cells (WEAN §3.1.3: 2)")
    bidirectional: bool = True
    share_embeddings: bool = Field(False, description="encoder and decoder read one embedding table (WEAN §2.4)")
    cell: Literal["gru", "lstm"] = "gru"
    attention: AttentionScore = "bahdanau"
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
    dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
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


class TrainingConfig(_Strict):
    """Optimiser and stopping rule; the paper settings live in params.yaml."""

    optimizer: Literal["adam"] = "adam"
    learning_rate: Annotated[float, Field(gt=0.0)] = Field(1e-3, description="the rate, or the schedule's peak")
    schedule: Literal["constant", "inverse_sqrt", "halve_after"] = Field(
        "constant", description="inverse_sqrt: Vaswani et al.'s warm-up then 1/sqrt(step) decay (003); halve_after: "
        "x0.5 per epoch after halve_after_epoch (004)")
    warmup_steps: PositiveInt = Field(4000, description="inverse_sqrt: optimiser steps of linear warm-up")
    halve_after_epoch: PositiveInt = Field(9, description="halve_after: the last epoch at the full rate")
    adam_betas: Annotated[tuple[Annotated[float, Field(ge=0.0, lt=1.0)], Annotated[float, Field(ge=0.0, lt=1.0)]],
                          BeforeValidator(lambda value: tuple(value) if isinstance(value, list) else value)] = Field(
        (0.9, 0.999), description="Adam's beta1, beta2 (Vaswani et al.: 0.9, 0.98)")
    adam_eps: Annotated[float, Field(gt=0.0)] = Field(1e-8, description="Adam's epsilon (Vaswani et al.: 1e-9)")
    batch_size: PositiveInt = 64
    max_epochs: PositiveInt = 20
    patience: PositiveInt = Field(5, description="epochs without validation gain before stopping")
    min_epochs: NonNegativeInt = Field(
        0, description="no early stop before this epoch: a model whose validation metric is still flat at its "
        "floor (e.g. ROUGE-2 0 before it emits any right bigram) has not plateaued, it has not started")
    clip_norm: Annotated[float, Field(gt=0.0)] = 5.0
    valid_metric: Literal["exact_match", "bleu", "sari", "rouge2", "neg_loss"] = Field(
        "exact_match", description="model selection on the validation set (greedy decoding); never the test set")
    critic: CriticConfig | None = Field(None, description="DCSS's critic loss beside the sequence loss (003)")
    log_metrics: list[Literal["exact_match", "bleu", "sari", "rouge2"]] = Field(
        default_factory=list, description="also logged per epoch from the same greedy validation outputs, as "
        "valid_<metric> columns of train_log.csv (003 Figure 1 plots SARI and BLEU)")
    valid_max_length: PositiveInt = 100
    seed: int = 1
    threads: PositiveInt | None = Field(None, description="torch CPU threads; default: all")
    amp: bool = Field(True, description="bf16 autocast on CUDA (ignored on CPU)")

    @model_validator(mode="after")
    def _floor_within_cap(self) -> TrainingConfig:
        if self.min_epochs > self.max_epochs:
            raise ValueError(f"min_epochs ({self.min_epochs}) must not exceed max_epochs ({self.max_epochs})")
        return self


class DecodingConfig(_Strict):
    """Beam search settings; beam_size 1 is greedy search."""

    beam_size: PositiveInt = 10
    max_length: PositiveInt = 100
    length_penalty: Annotated[float, Field(ge=0.0)] = Field(
        1.0, description="score / length**alpha; 0 disables length normalisation"
    )
    nbest: PositiveInt = 10
    batch_size: PositiveInt = 32
    threads: PositiveInt | None = Field(None, description="torch CPU threads; default: all")
    stopping: Literal["early", "bound", "shrinking"] = Field(
        "bound", description="when a sentence's search ends (paragen.search): early = once `beam` hypotheses "
        "finished; bound = once no live hypothesis can enter the n-best; shrinking = GroundHog's shrinking beam")

    @model_validator(mode="after")
    def _nbest_fits_beam(self) -> "DecodingConfig":
        if self.nbest > self.beam_size:
            raise ValueError(f"nbest ({self.nbest}) cannot exceed beam_size ({self.beam_size})")
        return self


class ExperimentConfig(_Strict):
    """dataset x model x training x decoding: one trained and scored system."""

    dataset: str
    model: str
    training: str
    decoding: str
    gpus: PositiveInt = Field(1, description="GPUs training asks for; more than 1 starts it under torchrun (DDP), "
                              "one process per GPU on one node")
    seed: int | None = Field(None, description="training seed replacing training.<name>.seed; set on the seed "
                             "replicas `seeds:` adds (paragen.seeds), rarely by hand")


class RuleFileConfig(RawFile):
    """A paraphrase rule file (003: PPDB): which registry entry brings it, where it lands, how it is written."""

    format: Literal["pairs", "simpleppdb", "ppdb2", "dmass"] = Field(
        description="pairs: word<TAB>word (weight 1); simpleppdb: 5 columns; ppdb2: ' ||| ' fields; dmass: X=>a=>b=>w")
    title: str = Field(description="what the table captions call it")
    note: str = Field("", description="what a reader must know about these rules (shown in the caption)")


class SystemConfig(_Strict):
    """A table row that needs no training (003 Table 1): its test output is computed, then evaluated."""

    dataset: str = Field(description="a real dataset with a test split: the test source and references")
    method: Literal["identity", "skip", "paraphrase", "oracle"]
    probability: float = Field(0.5, ge=0.0, le=1.0, description="skip: each word dropped with this probability")
    seed: int = Field(1, description="skip: seed of the random stream")
    rules: str | None = Field(None, description="paraphrase: a name under rules:")
    granularity: Literal["word", "phrase", "both"] = Field(
        "both", description="paraphrase: lexical rules (one token each side), phrasal rules, or both")
    input: str = Field("source", description="paraphrase: 'source', or an experiment or system whose test output "
                       "the rules rewrite (003's 'paraphrase nmt')")
    reference: Annotated[int, Field(ge=0)] = Field(0, description="oracle: which reference set (0-based) is output")
    sweep: Annotated[list[Annotated[float, Field(ge=0.0, le=1.0)]], AfterValidator(_unique)] = Field(
        default_factory=list, description="skip: also score these probabilities, each over `seeds` seeds (a table "
        "and a figure of the metrics against p)")
    seeds: PositiveInt = Field(10, description="skip sweep: seeds seed, seed+1, ... per probability (mean ± sd)")

    @model_validator(mode="after")
    def _options_fit_method(self) -> "SystemConfig":
        if self.method == "paraphrase" and self.rules is None:
            raise ValueError("method paraphrase needs rules: (a name under rules:)")
        if self.method != "paraphrase" and (self.rules is not None or self.input != "source"):
            raise ValueError(f"rules and input apply to method paraphrase, not {self.method}")
        if self.sweep and self.method != "skip":
            raise ValueError(f"sweep applies to method skip, not {self.method}")
        return self


def rules_used(model: ModelConfig, training: TrainingConfig) -> list[str]:
    """Names under ``rules:`` a model and its training need: the DMASS memory's, the critic loss's."""
    return list(dict.fromkeys(name for name in (model.dmass and model.dmass.rules,
                                                training.critic and training.critic.rules) if name))


class AlignmentFigure(_Strict):
    """004 Figure 4's heat maps (``paragen align`` matrices): one row's attention beside another row's source-side
    prediction q_j, over source tokens x target tokens, for each chosen sentence."""

    attention: str = Field(description="the row (label) whose attention is drawn (004: EncDec)")
    source_prediction: str = Field(description="the row (label) whose q_j is drawn: an SPM model (004: EncDec+SPM)")
    split: str = Field("test", description="the test split the sentences come from")
    sentences: list[PositiveInt] = Field(min_length=1, description="1-based line numbers of that split")


class OddgenFigure(_Strict):
    """004 Figure 2: sentences with repeated tokens and shorter than the gold headline, per row (the rows'
    evaluation must include oddgen)."""

    rows: list[str] = Field(min_length=1, description="row labels, in the order drawn (004: EncDec, EncDec+SPM)")
    split: str = Field("test", description="the test split counted (004: Test (ours))")


class Comparison(_Strict):
    """A paper's headline comparison between two rows of a table, tested by paired bootstrap resampling of the test
    sentences (Koehn, 2004): is ``row`` better than ``baseline``? (seed k of one against seed k of the other)."""

    row: str = Field(description="the row the paper proposes (e.g. CopyNet)")
    baseline: str = Field(description="the row it is compared with (e.g. RNNSearch)")
    metric: Literal["exact", "bleu", "sari", "rouge"] | None = Field(
        None, description="what is resampled; default: exact match on rule data, else the dataset's first "
        "evaluation metric (ROUGE: ROUGE-2)")
    samples: PositiveInt = Field(1000, description="bootstrap resamples")


class AlignedPairsTable(_Strict):
    """004 Table 4: the (target token, q_j's word) pairs of an SPM row on sampled test pairs, grouped."""

    row: str = Field(description="the row (label) whose q_j aligns: an SPM model (004: EncDec+SPM)")
    split: str = Field("test", description="the test split sampled (004: Test (ours))")
    sample: PositiveInt = Field(500, description="pairs sampled (004 Appendix E: 500)")
    seed: int = 1
    top: PositiveInt = Field(10, description="pairs shown per group, most frequent first")
    paper: str | None = Field(None, description="file under paragen/paper_results with the paper's examples")


class TableConfig(_Strict):
    """One reproduced paper table: which experiment fills which row."""

    suite: Name
    paper: Annotated[str, AfterValidator(_published_file)] = Field(
        description="file under paragen/paper_results holding the published numbers")
    scale: Literal["default", "paper"] | None = None
    title: str
    kind: Literal["scores", "parameters"] = Field(
        "scores", description="scores: metrics of trained systems; parameters: output-layer sizes (WEAN Table 5)")
    rows: dict[str, str] = Field(default_factory=dict, description="row label -> experiment or system name")
    grid: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="parameters tables: row label -> column label -> experiment")
    note: str = Field("", description="appended to the caption (e.g. 'not the paper's setup')")
    see_also: list[str] = Field(default_factory=list, description="committed files REPORT.md links under the table "
                                "(e.g. a study made by a separate command)")
    alignment_figure: AlignmentFigure | None = Field(None, description="heat maps of attention and q_j (004 Figure 4)")
    oddgen_figure: OddgenFigure | None = Field(None, description="odd-generation bar chart (004 Figure 2)")
    aligned_pairs: AlignedPairsTable | None = Field(None, description="SPM's aligned pairs, grouped (004 Table 4)")
    comparisons: list[Comparison] = Field(default_factory=list, description="paired bootstrap tests between rows, "
                                          "shown under the table")

    @model_validator(mode="after")
    def _rows_or_grid(self) -> "TableConfig":
        if self.kind == "scores" and not self.rows:
            raise ValueError("a scores table needs rows (label -> experiment)")
        if self.kind == "parameters" and not self.grid:
            raise ValueError("a parameters table needs a grid (row -> column -> experiment)")
        return self

    def experiments(self) -> list[str]:
        """Every experiment named by rows or grid, in order, deduplicated."""
        named = list(self.rows.values()) + [e for columns in self.grid.values() for e in columns.values()]
        return list(dict.fromkeys(named))


class ParagenConfig(_Strict):
    """The whole of params.yaml."""

    suites: list[Name] = Field(description="suites whose tables are produced")
    scale: Literal["default", "paper"] = Field(
        "default", description="synthetic suite size: the embedded default or the paper's scale"
    )
    seeds: PositiveInt | None = Field(
        None, description="training runs per trained table row (training seeds s, s+1, ...); tables show mean ± sd. "
        "null: 1 at the default scale, 3 at the paper's")
    datasets: dict[Name, Annotated[SyntheticDataset | HeadlineSyntheticDataset | RealDataset,
                                   Field(discriminator="kind")]]
    data: list[Name] = Field(default_factory=list, description="real datasets to fetch, prepare and segment")
    mirrors: list[str] = Field(default_factory=list, description="local directories or URLs tried before upstream")
    vocab: VocabConfig = Field(description="vocabulary settings (required: DVC tracks this key)")
    models: dict[Name, ModelConfig]
    training: dict[Name, TrainingConfig]
    decoding: dict[Name, DecodingConfig]
    experiments: dict[Name, ExperimentConfig]
    rules: dict[Name, RuleFileConfig] = Field(default_factory=dict, description="paraphrase rule files (PPDB)")
    systems: dict[Name, SystemConfig] = Field(default_factory=dict,
                                             description="rows that need no training (003 Table 1 baselines)")
    tables: dict[Name, TableConfig]

    @model_validator(mode="after")
    def _references_resolve(self) -> "ParagenConfig":
        for name, exp in self.experiments.items():
            for field, pool in (
                ("dataset", self.datasets),
                ("model", self.models),
                ("training", self.training),
                ("decoding", self.decoding),
            ):
                value = getattr(exp, field)
                if value not in pool:
                    raise ValueError(
                        f"experiments.{name}.{field}: unknown {field} {value!r}; "
                        f"allowed values: {sorted(pool)}"
                    )
        for name, exp in self.experiments.items():
            dataset = self.datasets[exp.dataset]
            if isinstance(dataset, RealDataset):
                missing = [s for s in ("train", "valid", *dataset.test_splits) if s not in dataset.splits]
                if missing:
                    raise ValueError(f"experiments.{name}.dataset: {exp.dataset!r} lacks split(s) {missing}; "
                                     "training needs train and valid, decoding its test_splits")
                if not dataset.shared_vocab:
                    raise ValueError(f"experiments.{name}.dataset: {exp.dataset!r} has shared_vocab: false; "
                                     "models read one vocabulary for source and target")
        for name in self.data:
            if name not in self.datasets or not isinstance(self.datasets[name], RealDataset):
                real = sorted(n for n, d in self.datasets.items() if isinstance(d, RealDataset))
                raise ValueError(f"data: {name!r} is not a real dataset; allowed values: {real}")
        preparations: dict[str, tuple[str, tuple]] = {}
        for name, dataset in self.datasets.items():
            if isinstance(dataset, RealDataset):
                _check_real_dataset(name, dataset)
                recipe = dataset.recipe or name
                how = (tuple(dataset.fetch), dataset.fetch_scope, tuple(dataset.splits), dataset.strip_specials,
                       dataset.max_line_chars, dataset.alignment_filter)
                first, first_how = preparations.setdefault(recipe, (name, how))
                if first_how != how:
                    raise ValueError(f"datasets.{name}: shares recipe {recipe!r} with datasets.{first} but differs in "
                                     "fetch, fetch_scope, splits, strip_specials, max_line_chars or alignment_filter; "
                                     "they must agree")
        known_suites = {t.suite for t in self.tables.values()}
        for suite in self.suites:
            if suite not in known_suites:
                raise ValueError(f"suites: unknown suite {suite!r}; allowed values: {sorted(known_suites)}")
        self._check_figures()
        self._check_comparisons()
        self._check_systems()
        self._check_rule_references()
        self._check_raw_files()
        for name, table in self.tables.items():
            for exp in table.experiments():
                if exp not in self.experiments and not (table.kind == "scores" and exp in self.systems):
                    allowed = sorted(self.experiments) + (sorted(self.systems) if table.kind == "scores" else [])
                    raise ValueError(f"tables.{name}: unknown experiment or system {exp!r}; allowed values: {allowed}")
        from paragen.seeds import add_replicas

        add_replicas(self)
        return self

    def _check_comparisons(self) -> None:
        """Compared rows are trained rows of their table, on one dataset, with a metric it is scored with."""
        for name, table in self.tables.items():
            for index, comparison in enumerate(table.comparisons):
                key = f"tables.{name}.comparisons[{index}]"
                trained = [label for label, e in table.rows.items() if e in self.experiments]
                for side in ("row", "baseline"):
                    if getattr(comparison, side) not in trained:
                        raise ValueError(f"{key}.{side}: {getattr(comparison, side)!r} is not a trained row of the "
                                         f"table; allowed values: {trained}")
                a, b = (self.experiments[table.rows[getattr(comparison, side)]] for side in ("row", "baseline"))
                if a.dataset != b.dataset:
                    raise ValueError(f"{key}: the rows are trained on different datasets ({a.dataset}, {b.dataset}); "
                                     "paired resampling needs one test set")
                allowed = self.comparison_metrics(a.dataset)
                if comparison.metric is not None and comparison.metric not in allowed:
                    raise ValueError(f"{key}.metric: {comparison.metric!r} is not a metric {a.dataset} is scored "
                                     f"with; allowed values: {allowed}")

    def comparison_metrics(self, dataset: str) -> list[str]:
        """Metrics a paired bootstrap can resample on ``dataset``'s test set (odd-generation counts cannot)."""
        spec = self.datasets[dataset]
        if isinstance(spec, SyntheticDataset):
            return ["exact"]
        return [m for m in spec.evaluation.metrics if m != "oddgen"]

    def comparison_metric(self, table: TableConfig, comparison: Comparison) -> str:
        """The metric a comparison resamples: its own, or the first its dataset allows."""
        return comparison.metric or self.comparison_metrics(self.experiments[table.rows[comparison.row]].dataset)[0]

    def _check_figures(self) -> None:
        """Figure rows name trained rows of their table, on a test split of their dataset; q_j needs an SPM model."""
        for name, table in self.tables.items():
            named = []
            if table.alignment_figure is not None:
                figure = table.alignment_figure
                named += [("alignment_figure.attention", figure.attention, figure.split),
                          ("alignment_figure.source_prediction", figure.source_prediction, figure.split)]
            if table.oddgen_figure is not None:
                named += [("oddgen_figure.rows", row, table.oddgen_figure.split) for row in table.oddgen_figure.rows]
            if table.aligned_pairs is not None:
                named.append(("aligned_pairs.row", table.aligned_pairs.row, table.aligned_pairs.split))
            for key, row, split in named:
                experiment = table.rows.get(row)
                if experiment not in self.experiments:
                    trained = [label for label, e in table.rows.items() if e in self.experiments]
                    raise ValueError(f"tables.{name}.{key}: {row!r} is not a trained row of the table; allowed values: "
                                     f"{trained}")
                splits = self.test_splits(self.experiments[experiment].dataset)
                if split not in splits:
                    raise ValueError(f"tables.{name}.{key.split('.')[0]}.split: {split!r} is not a test split of "
                                     f"{self.experiments[experiment].dataset}; allowed values: {splits}")
                evaluation = self.evaluation(experiment)
                if key == "oddgen_figure.rows" and (evaluation is None or "oddgen" not in evaluation.metrics):
                    raise ValueError(f"tables.{name}.{key}: {row!r} is not scored with oddgen (add it to "
                                     f"datasets.{self.experiments[experiment].dataset}.evaluation.metrics)")
            spm_rows = ([("alignment_figure.source_prediction", table.alignment_figure.source_prediction)]
                        if table.alignment_figure is not None else []) + \
                ([("aligned_pairs.row", table.aligned_pairs.row)] if table.aligned_pairs is not None else [])
            for key, row in spm_rows:
                model = self.experiments[table.rows[row]].model
                if self.models[model].source_prediction is None:
                    raise ValueError(f"tables.{name}.{key}: row {row!r} (model {model}) has no source-side "
                                     "prediction head to draw")

    def test_splits(self, dataset: str) -> list[str]:
        """The splits an experiment on ``dataset`` decodes and scores."""
        spec = self.datasets[dataset]
        return list(spec.test_splits) if isinstance(spec, RealDataset) else ["test"]

    def evaluation(self, name: str) -> "Evaluation | None":
        """How ``paragen evaluate`` scores an experiment or system (None: exact match by ``paragen score``)."""
        spec = self.datasets[self.dataset_of(name)]
        return spec.evaluation if isinstance(spec, (RealDataset, HeadlineSyntheticDataset)) else None

    def _check_rule_references(self) -> None:
        named = [(f"models.{n}.dmass.rules", m.dmass.rules) for n, m in self.models.items() if m.dmass] + \
                [(f"training.{n}.critic.rules", c.critic.rules) for n, c in self.training.items() if c.critic]
        for key, rules in named:
            if rules not in self.rules:
                raise ValueError(f"{key}: unknown rules {rules!r}; allowed values: {sorted(self.rules)}")

    def _check_raw_files(self) -> None:
        """Every file named by registry entry (rule files, pretrained vectors) names a known entry."""
        files = {f"rules.{n}.fetch": spec for n, spec in self.rules.items()}
        files |= {f"models.{n}.pretrained_embeddings.fetch": m.pretrained_embeddings
                  for n, m in self.models.items() if m.pretrained_embeddings}
        if not files:
            return
        from paragen.data.registry import load_registry

        registry = load_registry()
        for key, spec in files.items():
            if spec.fetch not in registry:
                raise ValueError(f"{key}: unknown registry entry {spec.fetch!r}; allowed values: {sorted(registry)}")

    def _check_systems(self) -> None:
        clash = sorted(set(self.systems) & set(self.experiments))
        if clash:
            raise ValueError(f"systems: {clash} also named under experiments:; a row name must say which it is")
        for name, system in self.systems.items():
            dataset = self.datasets.get(system.dataset)
            if not isinstance(dataset, RealDataset) or "test" not in dataset.splits:
                real = sorted(n for n, d in self.datasets.items() if isinstance(d, RealDataset) and "test" in d.splits)
                raise ValueError(f"systems.{name}.dataset: {system.dataset!r} is not a real dataset with a test "
                                 f"split; allowed values: {real}")
            if system.rules is not None and system.rules not in self.rules:
                raise ValueError(f"systems.{name}.rules: unknown rules {system.rules!r}; allowed values: "
                                 f"{sorted(self.rules)}")
            if system.input != "source":
                if system.input not in self.experiments and system.input not in self.systems:
                    raise ValueError(f"systems.{name}.input: {system.input!r} is neither 'source' nor an experiment "
                                     f"or system; allowed values: {['source', *sorted(self.experiments), *sorted(self.systems)]}")
                chain, current = [name], system.input
                while current not in chain and current in self.systems and self.systems[current].input != "source":
                    chain.append(current)
                    current = self.systems[current].input
                if current in chain:
                    raise ValueError(f"systems.{name}.input: the inputs form a cycle: " + " -> ".join(chain + [current]))
                if self.dataset_of(system.input) != system.dataset:
                    raise ValueError(f"systems.{name}.input: {system.input!r} decodes the test set of dataset "
                                     f"{self.dataset_of(system.input)!r}, not {system.dataset!r} (its segmentation and "
                                     "references may differ): rewrite an output of the same dataset")

    def active_tables(self) -> dict[str, TableConfig]:
        """Tables of the enabled suites at the selected scale, in declaration order."""
        return {
            name: t
            for name, t in self.tables.items()
            if t.suite in self.suites and (t.scale is None or t.scale == self.scale)
        }

    def dataset_of(self, name: str) -> str:
        """The dataset of an experiment or of a system."""
        return (self.experiments[name] if name in self.experiments else self.systems[name]).dataset

    def runnable(self, name: str) -> bool:
        """Synthetic experiments always run; real ones only when their dataset is switched on in ``data``;
        a system that rewrites another row's output also needs that row."""
        dataset = self.dataset_of(name)
        if name in self.systems and self.systems[name].input != "source" \
                and not self.runnable(self.systems[name].input):
            return False
        return isinstance(self.datasets[dataset], (SyntheticDataset, HeadlineSyntheticDataset)) or dataset in self.data

    def _active_rows(self) -> list[str]:
        """Runnable rows of the active scores tables, plus the rows whose output a system rewrites."""
        seen: dict[str, None] = {}

        def add(name: str) -> None:
            if name in self.systems and self.systems[name].input != "source":
                add(self.systems[name].input)
            seen.setdefault(name, None)

        for table in self.active_tables().values():
            if table.kind == "scores":
                for row in table.rows.values():
                    if self.runnable(row):
                        add(row)
        return list(seen)

    def trained_and_runnable(self, rows: Iterable[str]) -> list[str]:
        """The rows that are trained experiments (not systems) and can run: what has a training log."""
        return [row for row in rows if row in self.experiments and self.runnable(row)]

    def active_experiments(self) -> list[str]:
        """Experiments the active scores tables need and can run, deduplicated, in table order; each followed by
        its seed replicas (``seeds:``)."""
        from paragen.seeds import replicas

        return [run for name in self._active_rows() if name in self.experiments for run in replicas(self, name)]

    @property
    def seed_count(self) -> int:
        """Training runs per trained row: ``seeds``, or 1 at the default scale and 3 at the paper's."""
        return self.seeds if self.seeds is not None else (3 if self.scale == "paper" else 1)

    def training_of(self, experiment: str) -> TrainingConfig:
        """An experiment's training settings, with its own seed where it has one (a seed replica)."""
        spec = self.experiments[experiment]
        training = self.training[spec.training]
        return training if spec.seed is None else training.model_copy(update={"seed": spec.seed})

    def active_systems(self) -> list[str]:
        """Systems (rows without training) the active tables need and can run, inputs first."""
        return [name for name in self._active_rows() if name in self.systems]


def _check_real_dataset(name: str, dataset: RealDataset) -> None:
    """Names must match a preparation recipe and registry entries (imported lazily: only real data needs them)."""
    from paragen.data.prepare import RECIPES
    from paragen.data.registry import load_registry

    recipe = dataset.recipe or name
    if (dataset.alignment_filter is not None) != (recipe == "ew_sew_hwang"):
        raise ValueError(f"datasets.{name}.alignment_filter: " + (
            "recipe ew_sew_hwang needs one (classes, min_score)" if recipe == "ew_sew_hwang"
            else f"only recipe ew_sew_hwang filters aligned pairs, not {recipe!r}"))
    if recipe not in RECIPES:
        raise ValueError(f"datasets.{name}.recipe: no preparation recipe {recipe!r}; allowed values: {sorted(RECIPES)}")
    registry = load_registry()
    for entry in dataset.fetch:
        if entry not in registry:
            raise ValueError(f"datasets.{name}.fetch: unknown registry entry {entry!r}; allowed values: {sorted(registry)}")
    for split in dataset.splits:
        if split not in RECIPES[recipe].splits:
            raise ValueError(f"datasets.{name}.splits: unknown split {split!r}; allowed values: {list(RECIPES[recipe].splits)}")



DATASET_KINDS = ("synthetic", "headline_synthetic", "real")


def _format_errors(error: ValidationError, source: str) -> str:
    lines = [f"{source}: invalid configuration"]
    for item in error.errors():
        loc = list(item["loc"])
        if len(loc) > 2 and loc[0] == "datasets" and loc[2] in DATASET_KINDS:
            del loc[2]  # pydantic names the union member; params.yaml has no such key
        key = ".".join(str(part) for part in loc) or "(top level)"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key"
        elif item["type"] == "literal_error":
            allowed = item.get("ctx", {}).get("expected", "")
            message = f"got {item.get('input')!r}; allowed values: {allowed}"
        elif item["type"] == "missing":
            message = "required key is missing"
        elif item["type"] in ("int_type", "float_type", "bool_type", "string_type"):
            message = f"{message}, got {item.get('input')!r} ({type(item.get('input')).__name__})"
        lines.append(f"  {key}: {message}")
    return "\n".join(lines)


def parse_config(raw: Mapping[str, Any], source: str = "params.yaml") -> ParagenConfig:
    """Validate an already-loaded mapping (e.g. Snakemake's ``config``)."""
    try:
        return ParagenConfig.model_validate(dict(raw))
    except ValidationError as error:
        raise ConfigError(_format_errors(error, source)) from None


def _yaml_error(path: Path, error: yaml.YAMLError) -> ConfigError:
    """``params.yaml:14:8: not valid YAML: expected ',' or ']' ...`` with the offending line shown."""
    mark, start = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    if context:
        problem += f" ({context}{f' that starts at line {start.line + 1}, column {start.column + 1}' if start else ''})"
    if mark is None:
        return ConfigError(f"{path}: not valid YAML: {problem}")
    lines = mark.buffer.splitlines() if mark.buffer else []
    shown = f"\n    {lines[mark.line]}\n    {' ' * mark.column}^" if mark.line < len(lines) else ""
    return ConfigError(f"{path}:{mark.line + 1}:{mark.column + 1}: not valid YAML: {problem}{shown}")


def read_params(path: str | Path = "params.yaml") -> dict[str, Any]:
    """The raw mapping of a params file; syntax errors name the file, line and column.

    The Snakefile calls this before its ``configfile:`` directive, so a YAML mistake reads the same under
    Snakemake (which would only say "not valid JSON or YAML") as under ``paragen`` and DVC.
    """
    from paragen.safe_yaml import YamlInputError, load_yaml_file

    path = Path(path)
    try:
        raw = load_yaml_file(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except YamlInputError as error:
        raise ConfigError(str(error)) from None
    except yaml.YAMLError as error:
        raise _yaml_error(path, error) from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level, got {type(raw).__name__}")
    # Snakemake's configfile: would act on some keys (``__use_yte__: true`` runs the file as a YTE template,
    # evaluating Python) before paragen validates anything: refuse every key the schema lacks, here, first
    unknown = [key for key in raw if key not in ParagenConfig.model_fields]
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {', '.join(map(repr, unknown))}; allowed keys: "
                          f"{', '.join(ParagenConfig.model_fields)}")
    return raw


def load_config(path: str | Path = "params.yaml") -> ParagenConfig:
    """Read and validate ``params.yaml``."""
    return parse_config(read_params(path), str(path))
