"""``tables:``: which experiment fills which row of which paper table, and its figures and comparisons."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator
from paragen.config.base import Name, PositiveInt, _Strict, _published_file

LEDGER_ENTRY = re.compile(r"[A-Z][0-9]{1,3}")
"""A decision-ledger entry's number (docs/decisions.md), e.g. S22."""



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


class BaselineSanity(_Strict):
    """Whether a baseline works at all (docs/decisions.md X2, X11, T11): its ``metric`` on the test set must reach
    ``fraction`` of a system's (e.g. the in-vocabulary identity) on the same test set, or what is compared with it
    is reported as void, not claimed."""

    system: Name = Field(description="a system (systems:) on the baseline's dataset; in a table: one of its rows")
    metric: Literal["exact", "rouge", "sari", "bleu"] = Field(description="the metric compared")
    fraction: Annotated[float, Field(gt=0.0, le=1.0)] = Field(description="the share of the system's score the "
                                                              "baseline must reach")


class Comparison(_Strict):
    """A paper's headline comparison between two rows of a table, tested by paired bootstrap resampling of the test
    sentences (Koehn, 2004): is ``row`` better than ``baseline``? (seed k of one against seed k of the other)."""

    row: str = Field(description="the row the paper proposes (e.g. CopyNet)")
    baseline: str = Field(description="the row it is compared with (e.g. RNNSearch)")
    metric: Literal["exact", "bleu", "sari", "rouge", "oddgen"] | None = Field(
        None, description="what is resampled; default: exact match on rule data, else the dataset's first "
        "evaluation metric (ROUGE: ROUGE-2; oddgen: the share of sentences without odd generation)")
    samples: PositiveInt = Field(1000, description="bootstrap resamples")
    sanity: BaselineSanity | None = Field(None, description="a bound the baseline must reach on the test set for "
                                          "the comparison to be claimed; below it the line says void")


class Confirmation(_Strict):
    """Seeds that played no part in choosing a design, trained once after it was fixed, reported in their own block.

    A stand-in whose design was picked on some seeds' test results (the headline stand-in, docs/decisions.md H7,
    H13) cannot confirm its claim on those seeds: every trained row is trained again from ``seeds``; the table shows
    the replicas as extra rows ("EncDec (confirmation seeds 4–6)") and the comparisons again on them, with the
    verdict the criterion fixed in advance gives ("confirmed" when the row is better at p < 0.05 in at least
    ``required`` of the confirmation seeds; otherwise "not confirmed"). The rows' own seeds are labelled design seeds.
    """

    seeds: list[int] = Field(min_length=1, description="training seeds of the confirmation runs (not the rows' own "
                             "seeds s … s+N−1)")
    required: PositiveInt = Field(description="comparisons the row must win at p < 0.05 for the claim to count as "
                                  "confirmed (fixed before the seeds run)")

    @model_validator(mode="after")
    def _distinct(self) -> "Confirmation":
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds: {self.seeds} repeats a seed")
        if self.required > len(self.seeds):
            raise ValueError(f"required: {self.required} exceeds the {len(self.seeds)} confirmation seed(s)")
        return self

    def label(self, row: str) -> str:
        """The label of a row's confirmation block: "EncDec (confirmation seeds 4–6)"."""
        return f"{row} (confirmation {seed_span(self.seeds)})"


def seed_span(seeds: list[int]) -> str:
    """"seed 4", "seeds 4–6" (consecutive) or "seeds 4, 7"."""
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"seeds {seeds[0]}–{seeds[-1]}"
    return "seeds " + ", ".join(map(str, seeds))


class AlignedPairsTable(_Strict):
    """004 Table 4: the (target token, q_j's word) pairs of an SPM row on sampled test pairs, grouped."""

    row: str = Field(description="the row (label) whose q_j aligns: an SPM model (004: EncDec+SPM)")
    split: str = Field("test", description="the test split sampled (004: Test (ours))")
    sample: PositiveInt = Field(500, description="pairs sampled (004 Appendix E: 500)")
    seed: int = Field(1, description="seed of the sample")
    top: PositiveInt = Field(10, description="pairs shown per group, most frequent first")
    paper: str | None = Field(None, description="file under paragen/paper_results with the paper's examples")


class Collapse(_Strict):
    """Rows that *collapse* when their validation score stays at or below ``at_most`` at every epoch."""

    rows: list[str] = Field(min_length=1, description="row labels read for a collapse")
    at_most: float = Field(description="the validation score on the reading's metric (the log's valid_<metric>) "
                           "a collapsed run never exceeds")


class Reading(_Strict):
    """How each trained row is read against a floor row, by rules fixed before the runs (docs/decisions.md M6):
    a row above the floor's test score *works*; one below it *overfits* if its validation loss at the best epoch
    is at most ``overfit_loss_gain`` (a fraction) below its value at epoch ``since_epoch`` while its training
    accuracy rose at least ``overfit_accuracy_rise`` points since then, is *under-trained* if its validation loss
    fell more than ``undertrained_loss_fall`` over its last ``last_epochs`` epochs, else *undetermined*; a run that
    hit its epoch cap gets no reading (paragen.report.reading applies them)."""

    floor: str = Field(description="the row (label) whose test score separates working rows from the rest")
    metric: str = Field(description="the column (metric key) compared with the floor")
    since_epoch: PositiveInt = Field(2, description="the epoch the best epoch is compared with")
    overfit_loss_gain: float = Field(0.01, ge=0, description="at most this fraction of validation loss gained")
    overfit_accuracy_rise: float = Field(15.0, ge=0, description="training accuracy points risen at least")
    undertrained_loss_fall: float = Field(0.01, ge=0, description="validation loss fallen by more than this "
                                          "fraction over the last epochs")
    last_epochs: PositiveInt = Field(3, description="how many last epochs the fall is measured over")
    earlier_cap: PositiveInt | None = Field(None, description="the epoch cap of the table these runs replace: a "
                                            "best epoch after it credits a change to the longer training")
    collapse: Collapse | None = Field(None, description="rows also read for a collapse")


class TableConfig(_Strict):
    """One reproduced paper table: which experiment fills which row."""

    suite: Name = Field(description="the suite that builds this table (suites: switches it on)")
    paper: Annotated[str, AfterValidator(_published_file)] = Field(
        description="file under paragen/paper_results holding the published numbers")
    scale: Literal["default", "paper"] | None = Field(None, description="built only at this scale; null: at both")
    title: str = Field(description="the table's heading")
    kind: Literal["scores", "parameters"] = Field(
        "scores", description="scores: metrics of trained systems; parameters: output-layer sizes (WEAN Table 5)")
    rows: dict[str, str] = Field(default_factory=dict, description="row label -> experiment or system name")
    source_row: bool = Field(
        True, description="paper: own: a first row 'source (identity)', the test sources scored as outputs (every "
        "split the rows decode): the baseline a rewrite must beat; false: leave it out. Added unless a row is an "
        "identity system on that dataset already (paragen.config.own_tables)")
    grid: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="parameters tables: row label -> column label -> experiment")
    note: str = Field("", description="appended to the caption (e.g. 'not the paper's setup'); keep the caption "
                      "within ~120 words and put longer explanations under setup")
    setup: str = Field("", description="a longer explanation, printed under the table's setup (not in the caption)")
    see_also: list[str] = Field(default_factory=list, description="committed files REPORT.md links under the table "
                                "(e.g. a study made by a separate command)")
    alignment_figure: AlignmentFigure | None = Field(None, description="heat maps of attention and q_j (004 Figure 4)")
    oddgen_figure: OddgenFigure | None = Field(None, description="odd-generation bar chart (004 Figure 2)")
    aligned_pairs: AlignedPairsTable | None = Field(None, description="SPM's aligned pairs, grouped (004 Table 4)")
    comparisons: list[Comparison] = Field(default_factory=list, description="paired bootstrap tests between rows, "
                                          "shown under the table")
    closest_epochs: list[str] = Field(
        default_factory=list, description="rule data: rows (labels) that also show their closest epoch's test "
        "scores: the checkpoint whose per-type validation exact match is closest to the paper's row, decoded with "
        "the row's beam (its training needs keep_epochs)")
    closest_runs: dict[str, str] = Field(
        default_factory=dict, description="row label (in closest_epochs) -> the experiment whose kept epochs give "
        "that row's closest-epoch row, when the row's own run kept none: the same dataset, model, decoding and "
        "training except max_epochs, patience, keep_epochs and threads (a shorter retrain)")
    heldout_readings: dict[str, str] = Field(
        default_factory=dict, description="row label (in closest_epochs) -> the decision-ledger entry (e.g. S22) that "
        "fixed, before the run, the reading of that row's closest-epoch prediction on test (held-out mean error at "
        "most 5.0 points: supported; not below the selected checkpoint's: not supported; else partly; each seed's "
        "line read on its own); the entry says what was known before. A row without one shows its errors unread")
    confirmation: Confirmation | None = Field(None, description="confirmation seeds: every trained row trained "
                                              "again from seeds that played no part in the design, in its own block")
    columns: list[str] = Field(default_factory=list, description="the published-number file's columns to show, by "
                               "key, in this order (default: all); `paper: own` needs them: the metrics of your data")
    reading: Reading | None = Field(None, description="rules, fixed before the runs, that read each trained row "
                                    "against a floor row (works, overfits, under-trained, undetermined, collapses)")
    not_comparable: dict[str, str] = Field(
        default_factory=dict, description="row label -> why the row is not the paper's system (its cells show both "
        "numbers but no difference, and say why)")

    @model_validator(mode="after")
    def _rows_or_grid(self) -> "TableConfig":
        if self.kind == "scores" and not self.rows:
            raise ValueError("a scores table needs rows (label -> experiment)")
        if self.kind == "parameters" and not self.grid:
            raise ValueError("a parameters table needs a grid (row -> column -> experiment)")
        if self.paper == "own" and not self.columns:
            raise ValueError("columns: a table of your own data (paper: own) names the metrics it shows, e.g. "
                             "[bleu, sari] or [rouge1, rouge2, rougeL]")
        if self.columns:
            from paragen.config.papers import PaperTable

            PaperTable.load(self.paper).with_columns(self.columns)  # unknown keys are refused, with the valid ones
        outside = sorted(set(self.closest_runs) - set(self.closest_epochs))
        if outside:
            raise ValueError(f"closest_runs: {outside} are not rows of closest_epochs; allowed values: "
                             f"{self.closest_epochs}")
        outside = sorted(set(self.heldout_readings) - set(self.closest_epochs))
        if outside:
            raise ValueError(f"heldout_readings: {outside} are not rows of closest_epochs; allowed values: "
                             f"{self.closest_epochs}")
        malformed = sorted(v for v in self.heldout_readings.values() if not LEDGER_ENTRY.fullmatch(v))
        if malformed:
            raise ValueError(f"heldout_readings: {malformed} are not decision-ledger entries (a capital letter and "
                             "a number, e.g. S22)")
        unknown = sorted(set(self.not_comparable) - set(self.rows))
        if unknown:
            raise ValueError(f"not_comparable: {unknown} are not rows of the table; allowed values: {list(self.rows)}")
        if self.reading is not None:
            named = [self.reading.floor] + (self.reading.collapse.rows if self.reading.collapse else [])
            unknown = [row for row in named if row not in self.rows]
            if unknown:
                raise ValueError(f"reading: {unknown} are not rows of the table; allowed values: {list(self.rows)}")
        return self

    def experiments(self) -> list[str]:
        """Every experiment named by rows or grid, in order, deduplicated."""
        named = list(self.rows.values()) + [e for columns in self.grid.values() for e in columns.values()]
        return list(dict.fromkeys(named))

    def closest_run(self, label: str) -> str:
        """The experiment whose kept epochs give row ``label``'s closest-epoch row: its own, or ``closest_runs``'."""
        return self.closest_runs.get(label, self.rows[label])
