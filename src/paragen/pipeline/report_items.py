"""What a reader sees of each table and figure in ``snakemake --report``: the paper it belongs to, the table it
illustrates and a caption saying what it is.

A :class:`ReportItem` travels on the engine-neutral :class:`paragen.pipeline.stage.Stage` (DVC ignores it); the
Snakemake rules flag those outputs with ``report(...)`` (``paragen.pipeline.snakemake_report`` writes the caption files).
Everything here is derived from ``params.yaml`` and the published-number files, never typed per rule: a table's
paper comes from the ``study`` key of its ``paper_results`` file, its subcategory is its title.
"""

from __future__ import annotations

from dataclasses import dataclass

from paragen.config import TableConfig
from paragen.config.papers import STUDIES, PaperTable
from paragen.metrics.randomization import EXHAUSTIVE_MAX_RULES, INTERVAL_MIN_RULES

DATASETS_CATEGORY = "Datasets (all papers)"
"""The datasets table describes the data of every paper at once."""

FORMATS = {"md": "Markdown", "csv": "CSV", "tex": "LaTeX", "png": "PNG", "json": "JSON", "html": "HTML"}


@dataclass(frozen=True)
class ReportItem:
    """One output a person reads (a table file or a figure) and how the report shows it."""

    path: str
    category: str  # the paper
    subcategory: str  # the table it belongs to (its title)
    caption: str  # plain text, one paragraph


def study_category(table: TableConfig) -> str:
    """The report category of a table: the paper named by its published-number file's ``study``."""
    return STUDIES[PaperTable.load(table.paper).study]


def _format(path: str) -> str:
    return FORMATS[path.rsplit(".", 1)[-1]]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def table_items(table: TableConfig, paths: tuple[str, ...], metric: str, published: str) -> tuple[ReportItem, ...]:
    """The files of one reproduced table (same table, one item per format)."""
    category = study_category(table)
    return tuple(ReportItem(path, category, table.title, " ".join(filter(None, (
        _sentence(table.title),
        f"{_format(path)} file. {_sentence(metric[:1].upper() + metric[1:])}",
        *(("Your own data: no paper reports these rows; each cell is the number a run produced, or why it is "
           "missing.",) if table.paper == "own" else (
            f"Published numbers: {published}.",
            "Each cell gives the paper's number, the reproduced number and their difference, or why a number is "
            "missing.")),
        _sentence(table.note))))) for path in paths)


SEEDS_NOTE = (" A row trained from several seeds draws each seed thin and their mean bold (up to the last epoch "
              "every seed reached); with more than two such rows, each row has its own panel and y-range.")
OFF_SCALE_NOTE = (" A line whose peak is more than three times every other line's in its panel is clipped at the top "
                  "edge, each clipped point marked with a triangle and its peak written beside them.")


def valid_curves_item(table: TableConfig, path: str, label: str, rows: list[str], datasets: list[str],
                      seeded: bool = True) -> ReportItem:
    """``seeded``: some row trained from several seeds (the several-seed wording is left out otherwise)."""
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Training curves: {label} after each training epoch, one line per trained row "
        f"({', '.join(rows)}), on the validation split of {', '.join(datasets)}; these select each row's model, "
        "they are not the table's test scores." + (SEEDS_NOTE if seeded else "")))


def loss_curves_item(table: TableConfig, path: str, rows: list[str], spm_rows: list[str],
                     seeded: bool = True) -> ReportItem:
    spm = (f" The rows with source-side prediction ({', '.join(spm_rows)}) count their loss over the target "
           "continued with <tpad> to the source length (004 Eq. 9), whose easy <tpad> positions count as tokens: "
           "their loss is not on the other rows' scale." if spm_rows else "")
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Loss per target token after each training epoch, on a logarithmic axis: on the "
        "training batches, averaged over the epoch, and on the validation split (two panels"
        + ("; with one panel per row, training solid and validation dashed" if seeded else "")
        + f"); one line per trained row ({', '.join(rows)})." + (SEEDS_NOTE if seeded else "")
        + OFF_SCALE_NOTE + spm))


def examples_items(table: TableConfig, paths: tuple[str, ...], rows: list[str]) -> tuple[ReportItem, ...]:
    """The example outputs: the page and the data it is rendered from (the chosen lines as shown)."""
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Example outputs ({_format(path)} file): for a few test lines chosen by a rule the "
        f"file states (rule data: the first line of each rule type; otherwise lines evenly spaced over the test set), "
        f"the source, the reference and the test output of each row ({', '.join(rows)}) as scored.")) for path in paths)


def type_curves_item(table: TableConfig, path: str, rows: list[str], seeded: bool = True) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Exact match on the validation split after each training epoch, one panel per "
        f"rule type, one line per trained row ({', '.join(rows)}); the wide pale level in a row's colour: the "
        "paper's test accuracy of the row. "
        "Each panel has its own y-range. The caption of the table names, per row, the epoch whose five accuracies "
        "come closest to the paper's." + (SEEDS_NOTE if seeded else "")))


def copy_heatmap_item(table: TableConfig, path: str, row: str) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Copy-mode heat map of {row} (in the manner of CopyNet Figure 3): the copy-mode "
        "probability of each source token (rows) at each decoding step (columns), the generate-mode mass "
        "underneath, for the first test line of the rule type whose top-1 output equals the reference and the "
        "first whose output does not. The fillers' source tokens are labelled with their variable (x | token) and "
        "bracketed in red; a wrong output's reference is printed under it."))


def attention_heatmap_item(table: TableConfig, path: str, row: str, copying: str) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Attention heat map of {row}, to read beside {copying}'s copy-mode map: the "
        f"attention weight of each source token (rows) at each decoding step (columns) of {row}'s own top-1 "
        "output, on the same rule type and by the same rule (its first test line whose output equals the "
        "reference and its first whose output does not). A model without a copy mode must generate every repeated "
        "word from its vocabulary; where its attention still falls on the filler it repeats, attention finds the "
        "word even though the output layer has to write it."))


def training_panels_item(table: TableConfig, path: str, row: str, experiment: str) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Per-epoch training log of {row} ({experiment}) laid out as 003 Figure 1: "
        "validation SARI and BLEU, training and validation token accuracy, training and validation loss (on a "
        "logarithmic axis) and the critic term where the run trains with it; each panel scaled to its own values."))


def sweep_items(table: TableConfig, system: str, paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    """The skip row's sweep over its drop probability (a table in two formats and a figure)."""
    figure = (" SARI and BLEU on their own axes; solid: the standard scoring, dashed: 003's protocol (where the "
              "dataset asks for it); the star: the report's published number at the row's p. 003's protocol was "
              "chosen for fitting the report's numbers without training, this one among them, so the dashed line's "
              "agreement with the star is in-sample.")
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The skip row ({system}) at every drop probability p: each word of the test "
        f"source dropped with probability p, scored as the table's rows, mean and standard deviation over seeds "
        f"({_format(path)} {'figure' if path.endswith('.png') else 'file'})."
        + (figure if path.endswith(".png") else ""))) for path in paths)


def datasets_items(paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    return tuple(ReportItem(path, DATASETS_CATEGORY, "Datasets", (
        f"The real datasets switched on, as prepared ({_format(path)} file): per dataset and split the pairs, "
        "references per source, tokens, mean source and target length and vocabulary coverage, beside the papers' "
        "counts; splits not prepared say why.")) for path in paths)


def alignment_heatmap_items(table: TableConfig, paths: tuple[str, str]) -> tuple[ReportItem, ...]:
    """004 Figure 4's heat maps of a table (:attr:`TableConfig.alignment_figure`): one figure per model."""
    figure = table.alignment_figure
    assert figure is not None, "only a table with an alignment_figure draws heat maps"
    lines = f"lines {', '.join(map(str, figure.sentences))} of the {figure.split} split"
    common = ("teacher-forced on the gold target (as 004 §6.2): rows are target tokens, columns source tokens; "
              "rings mark gold links where the data has them.")
    return (ReportItem(paths[0], study_category(table), table.title, (
        f"{_sentence(table.title)} Heat map in the manner of 004 Figure 4 (a): the attention of "
        f"{figure.attention} on {lines}, {common} In brackets: the source token attention weights most.")),
            ReportItem(paths[1], study_category(table), table.title, (
        f"{_sentence(table.title)} Heat map in the manner of 004 Figure 4 (b): the source-side prediction q_j of "
        f"{figure.source_prediction} on the same {lines}, {common} In brackets: the vocabulary word q_j ranks "
        "first.")))


def oddgen_item(table: TableConfig, path: str) -> ReportItem:
    """004 Figure 2's odd-generation counts of a table (:attr:`TableConfig.oddgen_figure`)."""
    figure = table.oddgen_figure
    assert figure is not None, "only a table with an oddgen_figure draws odd-generation counts"
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Odd generation in the manner of 004 Figure 2: per row ({', '.join(figure.rows)}), "
        f"the {figure.split} sentences with a repeated token and those shorter than the gold headline; where a row "
        "has several seeds, the bar is their mean with ± sd and each seed's count is a dot"
        + ("; the design seeds' runs in one panel, the confirmation seeds' (which decide the claim) beside it, on "
           "the same scale." if table.confirmation else ".")))


def comparisons_item(table: TableConfig, path: str) -> ReportItem:
    """The table's paired tests, one CSV line each (the lines under its markdown, as numbers)."""
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The paired tests of the table's comparisons, one line per test (CSV file): each "
        "seed and split; on rule data all types and each rule type by the sign-flip test over rules (exact up to "
        f"{EXHAUSTIVE_MAX_RULES} rules; p, the p of the other direction, the smallest p the rule count allows, the "
        f"per-rule differences, and the rule-resampling interval from {INTERVAL_MIN_RULES} rules on), elsewhere the "
        "paired bootstrap over sentences (p and resamples); scores and difference."))


def scoring_variants_items(table: TableConfig, paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    """003 Table 1's scoring study: every setting's scores, the protocols ranked, the leave-one-out."""
    what = {".csv": "every scoring setting's score on the Turk test", ".md": "the 864 scoring protocols ranked by "
            "how many of the report's six numbers they give back, and the leave-one-out check (the search space "
            "was built after the six numbers had been seen)", "_cv.csv": "the leave-one-out check: each number "
            "predicted by the protocol chosen on the other five"}
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} How the report's rows without training were scored: "
        f"{next(text for end, text in sorted(what.items(), key=lambda kv: -len(kv[0])) if path.endswith(end))} "
        f"({_format(path)} file).")) for path in paths)


def aligned_pairs_items(table: TableConfig, paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    """004 Table 4: the (target token, q_j word) pairs of the SPM row, grouped."""
    pairs = table.aligned_pairs
    assert pairs is not None, "only a table with aligned_pairs writes these files"
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The (target token, aligned source word) pairs of {pairs.row} in the manner of "
        f"004 Table 4 ({_format(path)} file): q_j's argmax word for each target token of {pairs.sample} sampled "
        f"{pairs.split} pairs (seed {pairs.seed}), grouped into identical, inflection (same Porter stem), shorter "
        f"target and others, the {pairs.top} most frequent per group.")) for path in paths)
