"""``training:``, ``decoding:``, ``experiments:``, ``rules:`` and ``systems:``: what runs, with which settings."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, NonNegativeInt, model_validator
from paragen.config.base import PositiveInt, _Strict, _unique
from paragen.config.models import ModelConfig, RawFile



class CriticConfig(_Strict):
    """DCSS's critic loss (003 Eq. 4) as a second objective of the one trainer."""

    rules: str = Field(description="a name under rules: (lexical rules within the vocabulary)")
    variant: Literal["report", "fixed"] = Field(
        "report", description="report: Eq. 4 as stated; fixed: only where the simple word is in the target (§5.5)")
    mode: Literal["alternate", "sum"] = Field(
        "alternate", description="alternate: one batch of sequence loss, one of critic loss (Zhao et al.'s code); "
        "sum: L_seq + weight * L_critic on every batch (the report's plan)")
    weight: Annotated[float, Field(gt=0.0)] = Field(1.0, description="lambda: the critic term's weight")


class TrainingConfig(_Strict):
    """Optimiser and stopping rule; the paper settings live in params.yaml."""

    optimizer: Literal["adam"] = Field("adam", description="the optimiser (all four papers use Adam)")
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
    batch_size: PositiveInt = Field(64, description="sentence pairs per optimiser step (length-bucketed)")
    max_epochs: PositiveInt = Field(20, description="epochs at most; early stopping may end sooner")
    patience: PositiveInt = Field(5, description="epochs without validation gain before stopping")
    min_epochs: NonNegativeInt = Field(
        0, description="no early stop before this epoch: a model whose validation metric is still flat at its "
        "floor (e.g. ROUGE-2 0 before it emits any right bigram) has not plateaued, it has not started")
    floor_by_loss: bool = Field(
        False, description="while the validation metric is still 0 (its floor: tiny data, the first epochs), an epoch "
        "whose validation loss falls counts as a gain for early stopping and model selection, so a run does not stop, "
        "or keep its first epoch's weights, before the metric can move (the `small` preset sets it)")
    clip_norm: Annotated[float, Field(gt=0.0)] = Field(5.0, description="gradients rescaled to at most this L2 norm")
    valid_metric: Literal["exact_match", "bleu", "sari", "rouge2", "neg_loss"] = Field(
        "exact_match", description="model selection on the validation set (greedy decoding); never the test set")
    critic: CriticConfig | None = Field(None, description="DCSS's critic loss beside the sequence loss (003)")
    log_metrics: list[Literal["exact_match", "bleu", "sari", "rouge2"]] = Field(
        default_factory=list, description="also logged per epoch from the same greedy validation outputs, as "
        "valid_<metric> columns of train_log.csv (003 Figure 1 plots SARI and BLEU)")
    keep_epochs: list[PositiveInt] | Literal["all"] = Field(
        default_factory=list, description="epochs whose weights are kept as runs/<experiment>/epochs/epoch<k>.pt "
        "besides best.pt and last.pt (`all`: every epoch), to decode an epoch other than the selected one")
    valid_max_length: PositiveInt = Field(100, description="longest greedy output when validating, in tokens")
    seed: int = Field(1, description="seed of initialisation, batch order and dropout (exact resumption replays it)")
    threads: PositiveInt | None = Field(None, description="torch CPU threads; default: all")
    amp: bool = Field(True, description="bf16 autocast on CUDA (ignored on CPU)")
    compile: Literal["off", "default", "reduce-overhead"] = Field(
        "off", description="torch.compile the recurrent decoder's teacher-forced step (dynamic shapes; "
        "reduce-overhead: CUDA graphs on CUDA) while training; validation runs eagerly. Compilations and their time "
        "go to the log and sessions.json. Dropout masks come from inductor's generator, so switching it restarts a "
        "run. Off until a GPU run shows it faster (docs/speed.md); on CPU it needs a C++ compiler")

    @model_validator(mode="after")
    def _floor_within_cap(self) -> TrainingConfig:
        if self.min_epochs > self.max_epochs:
            raise ValueError(f"min_epochs ({self.min_epochs}) must not exceed max_epochs ({self.max_epochs})")
        return self


class DecodingConfig(_Strict):
    """Beam search settings; beam_size 1 is greedy search."""

    beam_size: PositiveInt = Field(10, description="hypotheses kept per sentence (1: greedy)")
    max_length: PositiveInt = Field(100, description="longest output in tokens")
    length_penalty: Annotated[float, Field(ge=0.0)] = Field(
        1.0, description="score / length**alpha; 0 disables length normalisation"
    )
    nbest: PositiveInt = Field(10, description="outputs kept per sentence, best first: scores read the first, and rule data's top-5 and "
                            "top-10 are reported only where this keeps that many")
    batch_size: PositiveInt = Field(32, description="sentences decoded together")
    threads: PositiveInt | None = Field(None, description="torch CPU threads; default: all")
    stopping: Literal["early", "bound", "shrinking"] = Field(
        "bound", description="when a sentence's search ends (paragen.decoding.search): early = once `beam` hypotheses "
        "finished; bound = once no live hypothesis can enter the n-best; shrinking = GroundHog's shrinking beam")

    @model_validator(mode="after")
    def _nbest_fits_beam(self) -> "DecodingConfig":
        if self.nbest > self.beam_size:
            raise ValueError(f"nbest ({self.nbest}) cannot exceed beam_size ({self.beam_size})")
        return self


class ExperimentConfig(_Strict):
    """dataset x model x training x decoding: one trained and scored system."""

    dataset: str = Field(description="a name under datasets:")
    model: str = Field(description="a name under models:")
    training: str = Field(description="a name under training:")
    decoding: str = Field(description="a name under decoding:")
    gpus: PositiveInt = Field(1, description="GPUs training asks for; more than 1 starts it under torchrun (DDP), "
                              "one process per GPU on one node")
    seed: int | None = Field(None, description="training seed replacing training.<name>.seed; set on the seed "
                             "replicas `seeds:` adds (paragen.config.seeds), rarely by hand")


class RuleFileConfig(RawFile):
    """A paraphrase rule file (003: PPDB): which registry entry brings it, where it lands, how it is written."""

    format: Literal["pairs", "simpleppdb", "ppdb2", "dmass"] = Field(
        description="pairs: word<TAB>word (weight 1); simpleppdb: 5 columns; ppdb2: ' ||| ' fields; dmass: X=>a=>b=>w")
    title: str = Field(description="what the table captions call it")
    note: str = Field("", description="what a reader must know about these rules (shown in the caption)")


class SystemConfig(_Strict):
    """A table row that needs no training (003 Table 1): its test output is computed, then evaluated."""

    dataset: str = Field(description="a real dataset with a test split, your own (`kind: local`) included: the "
                         "test source and references; an identity system is scored on each of its test_splits")
    method: Literal["identity", "skip", "paraphrase", "oracle"] = Field(
        description="identity: the source unchanged; skip: words dropped at random; paraphrase: rules applied; oracle: "
        "a reference scored against the others (leave-one-out)")
    probability: float = Field(0.5, ge=0.0, le=1.0, description="skip: each word dropped with this probability")
    seed: int = Field(1, description="skip: seed of the random stream")
    rules: str | None = Field(None, description="paraphrase: a name under rules:")
    granularity: Literal["word", "phrase", "both"] = Field(
        "both", description="paraphrase: lexical rules (one token each side), phrasal rules, or both")
    input: str = Field("source", description="paraphrase: 'source', or an experiment or system whose test output "
                       "the rules rewrite (003's 'paraphrase nmt')")
    reference: Annotated[int, Field(ge=0)] | Literal["leave_one_out"] = Field(
        0, description="oracle: which reference set (0-based) is output, or leave_one_out: each reference k in turn "
        "scored against the other references, the scores averaged over k (a reference is never scored against "
        "itself)")
    sweep: Annotated[list[Annotated[float, Field(ge=0.0, le=1.0)]], AfterValidator(_unique)] = Field(
        default_factory=list, description="skip: also score these probabilities, each over `seeds` seeds (a table "
        "and a figure of the metrics against p)")
    seeds: PositiveInt = Field(10, description="skip sweep: seeds seed, seed+1, ... per probability (mean ± sd)")
    vocabulary_only: bool = Field(
        False, description="identity: every source word outside the dataset's (target) vocabulary written as <unk>: "
        "what a model that emits only its vocabulary's words reaches by copying perfectly (a ceiling, not a system)")

    @model_validator(mode="after")
    def _options_fit_method(self) -> "SystemConfig":
        if self.method == "paraphrase" and self.rules is None:
            raise ValueError("method paraphrase needs rules: (a name under rules:)")
        if self.method != "paraphrase" and (self.rules is not None or self.input != "source"):
            raise ValueError(f"rules and input apply to method paraphrase, not {self.method}")
        if self.sweep and self.method != "skip":
            raise ValueError(f"sweep applies to method skip, not {self.method}")
        if self.vocabulary_only and self.method != "identity":
            raise ValueError(f"vocabulary_only applies to method identity, not {self.method}")
        return self


def rules_used(model: ModelConfig, training: TrainingConfig) -> list[str]:
    """Names under ``rules:`` a model and its training need: the DMASS memory's, the critic loss's."""
    return list(dict.fromkeys(name for name in (model.dmass and model.dmass.rules,
                                                training.critic and training.critic.rules) if name))
