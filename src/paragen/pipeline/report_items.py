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

DATASETS_CATEGORY = "Datasets (all papers)"
"""The datasets table describes the data of every paper at once."""

FORMATS = {"md": "Markdown", "csv": "CSV", "tex": "LaTeX", "png": "PNG"}


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


def valid_curves_item(table: TableConfig, path: str, label: str, rows: list[str], datasets: list[str]) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Training curves: {label} after each training epoch, one line per trained row "
        f"({', '.join(rows)}), on the validation split of {', '.join(datasets)}; these select each row's model, "
        "they are not the table's test scores."))


def type_curves_item(table: TableConfig, path: str, rows: list[str]) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Exact match on the validation split after each training epoch, one panel per "
        f"rule type, one line per trained row ({', '.join(rows)}); dashed: the paper's test accuracy of the row. "
        "The caption of the table names, per row, the epoch whose five accuracies come closest to the paper's."))


def copy_heatmap_item(table: TableConfig, path: str, row: str) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Copy-mode heat map of {row} (in the manner of CopyNet Figure 3): the copy-mode "
        "probability of each source token at each decoding step, the generate-mode mass underneath, for the first "
        "test line whose top-1 output equals the reference and the first whose output does not."))


def training_panels_item(table: TableConfig, path: str, row: str, experiment: str) -> ReportItem:
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Per-epoch training log of {row} ({experiment}) laid out as 003 Figure 1: "
        "validation SARI and BLEU, training and validation token accuracy, training and validation loss."))


def sweep_items(table: TableConfig, system: str, paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    """The skip row's sweep over its drop probability (a table in two formats and a figure)."""
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The skip row ({system}) at every drop probability p: each word of the test "
        f"source dropped with probability p, scored as the table's rows, mean and standard deviation over seeds "
        f"({_format(path)} {'figure' if path.endswith('.png') else 'file'})."))
        for path in paths)


def datasets_items(paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    return tuple(ReportItem(path, DATASETS_CATEGORY, "Datasets", (
        f"The real datasets switched on, as prepared ({_format(path)} file): per dataset and split the pairs, "
        "references per source, tokens, mean source and target length and vocabulary coverage, beside the papers' "
        "counts; splits not prepared say why.")) for path in paths)


def alignment_heatmap_item(table: TableConfig, path: str) -> ReportItem:
    """004 Figure 4's heat maps of a table (:attr:`TableConfig.alignment_figure`)."""
    figure = table.alignment_figure
    assert figure is not None, "only a table with an alignment_figure draws heat maps"
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Heat maps in the manner of 004 Figure 4: the attention of {figure.attention} "
        f"beside the source-side prediction q_j of {figure.source_prediction}, source tokens against target tokens, "
        f"for lines {', '.join(map(str, figure.sentences))} of the {figure.split} split."))


def oddgen_item(table: TableConfig, path: str) -> ReportItem:
    """004 Figure 2's odd-generation counts of a table (:attr:`TableConfig.oddgen_figure`)."""
    figure = table.oddgen_figure
    assert figure is not None, "only a table with an oddgen_figure draws odd-generation counts"
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} Odd generation in the manner of 004 Figure 2: per row ({', '.join(figure.rows)}), "
        f"the {figure.split} sentences with a repeated token and those shorter than the gold headline."))


def comparisons_item(table: TableConfig, path: str) -> ReportItem:
    """The table's paired tests, one CSV line each (the lines under its markdown, as numbers)."""
    return ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The paired bootstrap tests of the table's comparisons, one line per test (CSV "
        "file): each seed and split, on rule data each rule type and all types resampling rules, then the test "
        "resampling sentences; scores, difference, its 95 % interval where the test gives one, p and resamples."))


def aligned_pairs_items(table: TableConfig, paths: tuple[str, ...]) -> tuple[ReportItem, ...]:
    """004 Table 4: the (target token, q_j word) pairs of the SPM row, grouped."""
    pairs = table.aligned_pairs
    assert pairs is not None, "only a table with aligned_pairs writes these files"
    return tuple(ReportItem(path, study_category(table), table.title, (
        f"{_sentence(table.title)} The (target token, aligned source word) pairs of {pairs.row} in the manner of "
        f"004 Table 4 ({_format(path)} file): q_j's argmax word for each target token of {pairs.sample} sampled "
        f"{pairs.split} pairs (seed {pairs.seed}), grouped into identical, inflection (same Porter stem), shorter "
        f"target and others, the {pairs.top} most frequent per group.")) for path in paths)
