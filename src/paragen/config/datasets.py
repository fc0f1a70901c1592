"""``datasets:`` and ``vocab:``: CopyNet's rule data, the headline stand-in, real corpora and how they are scored."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, NonNegativeInt, model_validator

from paragen.data.corpus import MAX_LINE_CHARS
from paragen.data.hwang import HWANG_DEFAULT_CLASSES, HWANG_DEFAULT_MIN_SCORE
from paragen.config.base import Fraction, IntRange, PositiveInt, _Strict, _unique


class SyntheticDataset(_Strict):
    """CopyNet §5.1 rule dataset: N rules x M instances, split 50/50 per rule."""

    kind: Literal["synthetic"] = Field(description="selects this type: CopyNet §5.1's generated rule data")
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
        "false: the variables anywhere (paragen's rule data before 2026-11-24), where adjacent x y cannot be told apart")
    target_from_source: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.5, description="chance that a target regular symbol is one of the rule's own source symbols (§5.1's "
        "examples: 7 of their 13 target symbols are; 0: independent draws, paragen's rule data before 2026-11-24)")
    seed: int = Field(1, description="seed of the generator: the same seed gives the same rules and instances")

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
    rouge_unit: Literal["auto", "word", "char"] = Field(
        "auto", description="ROUGE tokens: auto picks them from the references' script, characters for CJK text (at "
        "least 30 % of characters), words otherwise, as `paragen score` does; word or char forces one (a word unit on "
        "CJK text is refused: rouge-score deletes CJK characters)")
    rouge_perl_exceptions: Literal["wordnet", "none"] = Field(
        "wordnet", description="ROUGE-1.5.5's -m: 'wordnet' maps words through WordNet 2.0's exception lists before "
        "Porter stemming (went -> go); 'none' is Porter alone, as published ROUGE-1.5.5 setups without a readable "
        "WordNet-2.0.exc.db scored (the headline suites use it: it reproduces published Gigaword scores)")
    rouge_perl: bool = Field(False, description="ROUGE with the official Perl ROUGE-1.5.5 and SPM's options "
                             "(-n 2 -m -w 1.2; words only) instead of rouge-score (`paragen rouge-perl-check`)")
    report_protocol: bool = Field(False, description="also score each output under 003's protocol (Table 1 of the "
                                  "simplification report: SARI.py sentence mean against the 8 Turk references, BLEU "
                                  "on the files' tokens against the .simp sentence, the Turk test files as "
                                  "distributed; paragen.simplification.report_protocol); needs turkcorpus fetched")

    @model_validator(mode="after")
    def _perl_scores_words(self) -> "Evaluation":
        if self.rouge_perl and self.rouge_unit == "char":
            raise ValueError("rouge_perl: ROUGE-1.5.5 scores words; set rouge_unit: word (or auto)")
        return self


class HeadlineSyntheticDataset(_Strict):
    """The headline suite's stand-in (paragen.data.headline_synthetic): a lossy headline task with known
    word alignments. NOT a paper's setup."""

    kind: Literal["headline_synthetic"] = Field(description="selects this type: the generated headline stand-in")
    train_pairs: PositiveInt = Field(description="pairs generated for training")
    valid_pairs: PositiveInt = Field(description="pairs generated for validation (model selection)")
    test_pairs: PositiveInt = Field(description="pairs generated for the test table")
    content_words: PositiveInt = Field(500, description="content word types (kept in the headline)")
    filler_words: PositiveInt = Field(100, description="filler word types (always dropped)")
    source_length: IntRange = Field((10, 30), description="min/max source tokens")
    content_share: Fraction = Field(0.4, description="probability that a source token is a content word")
    max_target_length: PositiveInt = Field(12, description="the headline keeps at most this many content words")
    rewrite_fraction: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.3, description="share of content word types the headline rewrites through a fixed word-to-word map")
    merge_fraction: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.0, description="many-to-one: share of content word types merged in groups of merge_size, each group "
        "written as one headline word m<g>")
    merge_size: Annotated[int, Field(ge=2, le=10)] = Field(2, description="content types per merged group")
    context_fraction: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.0, description="one-to-many: share of content word types with two headline forms a<i> / b<i>, chosen by "
        "the source's register marker (xa or xb, its first token; every source gets one when this is above 0)")
    duplicate_share: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.0, description="probability that a source repeats one of its content words at a later, non-adjacent "
        "filler position; the headline mentions the word once (its first occurrence)")
    reverse_share: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.0, description="probability that a source starts with the marker xrev, whose headline lists its kept "
        "content words in reverse order (an alignment that is not monotonic)")
    seed: int = Field(1, description="seed of the generator: the same seed gives the same pairs")
    evaluation: Evaluation = Field(
        default_factory=lambda: Evaluation(metrics=["rouge", "oddgen"], rouge_unit="word"),
        description="how `paragen evaluate` scores the test outputs (the words c<i>/r<i> are ROUGE words)")

    @model_validator(mode="after")
    def _type_shares_fit(self) -> "HeadlineSyntheticDataset":
        total = self.rewrite_fraction + self.merge_fraction + self.context_fraction
        if total > 1.0 + 1e-9:
            raise ValueError(f"rewrite_fraction + merge_fraction + context_fraction is {total:g}: the three draw "
                             "disjoint sets of content word types, so together at most 1")
        return self

    @model_validator(mode="after")
    def _range_ordered(self) -> "HeadlineSyntheticDataset":
        low, high = self.source_length
        if low > high:
            raise ValueError(f"source_length: minimum {low} exceeds maximum {high}")
        return self


class AlignmentFilter(_Strict):
    """Which of Hwang et al. (2015)'s scored EW-SEW pairs to keep (recipe ew_sew_hwang; WEAN 000 §3.1.1)."""

    classes: Annotated[list[Literal["good", "good_partial", "remaining"]], AfterValidator(_unique)] = Field(
        list(HWANG_DEFAULT_CLASSES), min_length=1, description="match classes (one release file each)")
    min_score: float = Field(HWANG_DEFAULT_MIN_SCORE, description="keep pairs whose similarity score is greater than this")
    deduplicate: bool = Field(False, description="remove repeated pairs (WEAN says so for PWKP only)")
    drop_identical: bool = Field(False, description="remove pairs whose two sides are identical")

    def cli_options(self) -> tuple[str, ...]:
        return ("--classes", ",".join(self.classes), "--min-score", str(self.min_score),
                *(("--deduplicate",) if self.deduplicate else ()), *(("--drop-identical",) if self.drop_identical else ()))


class RealDataset(_Strict):
    """A real dataset entering the DAG: fetch -> prepare -> segment -> vocabulary.

    ``recipe`` names the preparation (``paragen prepare RECIPE``; default: the dataset's own name),
    so one prepared dataset can be segmented several ways (LCSTS +C and +W); ``fetch`` lists the
    registry entries it is built from (``paragen fetch``).
    """

    kind: Literal["real"] = Field(description="selects this type: a public dataset fetched and prepared by a recipe")
    recipe: str | None = Field(None, description="preparation recipe; default: the dataset's name")
    fetch: list[str] = Field(min_length=1, description="registry datasets to fetch (sources.yaml)")
    fetch_scope: Literal["all", "eval"] = Field("all", description="eval: only validation/test/reference files")
    splits: list[str] = Field(min_length=1, description="the splits prepare writes (train, valid, test, or the recipe's own names)")
    test_splits: Annotated[list[str], AfterValidator(_unique)] = Field(
        ["test"], min_length=1, description="the splits an experiment decodes and scores (004: test_ours, "
        "test_rush, test_zhou); each must be one of splits")
    segmentation: Literal["bpe", "char", "jieba", "word"] = Field(
        "word", description="tokens the models read and write: whitespace words, subword-nmt BPE units, characters, or "
        "jieba words (Chinese)")
    merges: PositiveInt = Field(5000, description="BPE merge operations (segmentation: bpe)")
    lowercase: bool = Field(False, description="lowercase every side before segmenting")
    strip_specials: bool = Field(False, description="lowercase and drop special characters (003 §4.1: WikiLarge, Turk)")
    drop_longer_target: bool = Field(
        False, description="drop training pairs whose target is longer than the source after segmentation (004 §5.1)")
    copy_task: bool = Field(
        False, description="a sanity check, not a task: after segmentation every split's target and references are "
        "replaced by its source, so a model trained on it shows whether it can copy sentences it never trained on "
        "(docs/datasets.md)")
    train_sample: PositiveInt | None = Field(
        None, description="after segmentation keep this many training pairs, drawn without replacement with "
        "train_sample_seed and kept in their order (a cheaper run of the same task; valid and test unchanged)")
    train_sample_seed: int = Field(1, description="seed of train_sample's draw")
    max_line_chars: PositiveInt = Field(MAX_LINE_CHARS, description="prepare drops pairs with a longer line, "
                                        "counting them in the log (ROUGE scoring refuses such lines)")
    max_overlap: NonNegativeInt = Field(
        0, description="prepare refuses the dataset when more evaluation lines than this have a source sentence that "
        "also appears in training, or in validation for a test split (prepare.json counts them; a table's caption "
        "states any overlap allowed)")
    alignment_filter: AlignmentFilter | None = Field(
        None, description="recipe ew_sew_hwang: the classes and score threshold of Hwang et al.'s pairs to keep")
    vocab_size: PositiveInt | None = Field(None, description="tokens besides the 4 special symbols; null keeps all")
    shared_vocab: bool = Field(True, description="one vocabulary for source and target (vocab.txt); false: vocab.src.txt "
                               "and vocab.tgt.txt")
    evaluation: Evaluation = Field(default_factory=Evaluation, description="how `paragen evaluate` scores the test outputs")

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
    min_count: PositiveInt = Field(1, description="drop tokens seen fewer times in the training split")


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
    if dataset.evaluation.report_protocol and "turkcorpus" not in dataset.fetch:
        raise ValueError(f"datasets.{name}.evaluation.report_protocol: 003's protocol scores against the Turk test "
                         f"files, but the dataset does not fetch turkcorpus (fetch: {dataset.fetch})")
    for split in dataset.splits:
        if split not in RECIPES[recipe].splits:
            raise ValueError(f"datasets.{name}.splits: unknown split {split!r}; allowed values: {list(RECIPES[recipe].splits)}")


DATASET_KINDS = ("synthetic", "headline_synthetic", "real", "local")
