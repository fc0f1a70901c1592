"""Where every artifact of the DAG lives (docs/architecture.md, principle 3), one function per kind of file.

``data/raw/<entry>/``, ``data/prepared/<dataset>/``, ``data/segmented/<dataset>.<scheme>/``, ``data/vocab/``,
``runs/<experiment>/``, ``results/{metrics,tables,figures}``. The stages (:mod:`paragen.pipeline`) declare these
paths as inputs and outputs, the commands write them and the report reads them: one definition for all three, so
a path cannot drift between the DAG and the code that fills it. ``docs/output.md`` describes each file.
"""

from __future__ import annotations

from dataclasses import dataclass

from paragen.config import ConfigError, HeadlineSyntheticDataset, ParagenConfig, RealDataset
from paragen.data.synthetic import SPLITS, STATISTICS_FILE


def prepared(dataset: str, split: str, suffix: str) -> str:
    return f"data/prepared/{dataset}/{split}.{suffix}"


def generation_statistics(dataset: str) -> str:
    """``paragen generate``'s report on a rule dataset (per type counts, lengths, test ceiling; the rules)."""
    return f"data/prepared/{dataset}/{STATISTICS_FILE}"


def vocab_path(dataset: str) -> str:
    return f"data/vocab/{dataset}.txt"


def run_dir(experiment: str) -> str:
    return f"runs/{experiment}"


def metrics_path(experiment: str) -> str:
    return f"results/metrics/{experiment}.json"


def headline_path(experiment: str) -> str:
    """The few numbers ``dvc metrics show`` lists per experiment (the full result stays in ``metrics_path``)."""
    return f"results/metrics/{experiment}.headline.json"


def copy_trace_path(experiment: str) -> str:
    return f"{run_dir(experiment)}/copy_trace.json"


def attention_trace_path(experiment: str) -> str:
    """An RNNSearch run's attention along its first correct and first wrong test output per rule type."""
    return f"{run_dir(experiment)}/attention_trace.json"


def attention_heatmap_path(table: str) -> str:
    return f"results/figures/{table}_attention_heatmap.png"


MATRIX_TABLE = "matrix"
"""The mechanism x task matrix's table name: results/tables/matrix.{md,csv,tex}."""
MATRIX_FIGURE = "results/figures/matrix_ranks.png"
"""The matrix's heat map of ranks."""


def matrix_comparison_path(experiment: str, baseline: str) -> str:
    """The matrix's paired test of a cell's run against its column's baseline run (its own file: a table may test
    the same two runs on another metric)."""
    return f"results/matrix/{experiment}.vs.{baseline}.json"


def table_outputs(table: str) -> tuple[str, ...]:
    return tuple(f"results/tables/{table}.{ext}" for ext in ("md", "csv", "tex"))


def table_page_path(table: str) -> str:
    """The table's Markdown rendered as an HTML page: what the Snakemake report can show (it offers Markdown, CSV and
    LaTeX as downloads only)."""
    return f"results/tables/{table}.html"


def closest_dir(experiment: str) -> str:
    """The closest-epoch decode of a run (paragen.training.closest_choice): its test.hyp and test.nbest.jsonl."""
    return f"{run_dir(experiment)}/closest"


def closest_hyp_path(experiment: str, split: str = "test") -> str:
    """The closest-epoch decode's output on a test split (as :func:`hyp_path` for the selected checkpoint)."""
    return f"{closest_dir(experiment)}/{split}.hyp"


def closest_nbest_path(experiment: str, split: str = "test") -> str:
    return f"{closest_dir(experiment)}/{split}.nbest.jsonl"


def closest_choice_path(experiment: str) -> str:
    """Which epoch the closest-epoch decode chose, and how close it is to the paper's row on validation."""
    return f"results/metrics/{experiment}.closest_epoch.json"


def heldout_path(experiment: str) -> str:
    """The closest-epoch hypothesis read as a prediction per held-out type (``paragen closest-heldout``)."""
    return f"results/metrics/{experiment}.heldout.json"


def closest_metrics_path(experiment: str) -> str:
    """The closest-epoch decode's test scores (as metrics_path for the selected checkpoint)."""
    return f"results/metrics/{experiment}.closest.json"


def provenance_dir(table: str) -> str:
    """What a table's report read outside results/, kept beside it (paragen.report.provenance): a directory its
    report stage owns whole."""
    return f"results/provenance/{table}"


def figure_paths(table: str, copying: bool, panels: tuple[str, ...] = (), by_type: bool = False,
                 attending: bool = False) -> tuple[str, ...]:
    """Validation curves, the copy heat map (CopyNet rows) and beside it RNNSearch's attention (``attending``), the
    loss curves, 003 Figure 1's panels per experiment in ``panels``, and (rule data) the per-rule-type validation
    curves, last."""
    paths = [f"results/figures/{table}_valid_curves.png"]
    if copying:
        paths.append(f"results/figures/{table}_copy_heatmap.png")
    if attending:
        paths.append(attention_heatmap_path(table))
    paths.append(loss_curves_path(table))
    return (tuple(paths) + tuple(training_panels_path(table, e) for e in panels)
            + ((type_curves_path(table),) if by_type else ()))


def examples_path(table: str) -> str:
    """Example outputs of a table's rows on a few test lines (:mod:`paragen.report.examples`)."""
    return f"results/tables/{table}_examples.md"


def examples_data_path(table: str) -> str:
    """The example outputs as data (the chosen lines as shown), from which the page and REPORT.md render them."""
    return f"results/tables/{table}_examples.json"


def loss_curves_path(table: str) -> str:
    return f"results/figures/{table}_loss_curves.png"


def type_curves_path(table: str) -> str:
    return f"results/figures/{table}_type_curves.png"


def training_panels_path(table: str, experiment: str) -> str:
    return f"results/figures/{table}_{experiment}_training.png"


REPORT_PATH = "results/REPORT.md"


PUBLISHED_OUTPUTS_CSV = "results/tables/published_outputs.csv"
"""Committed rescoring of the DRESS release (``paragen published-outputs``); baseline rows read it."""


@dataclass(frozen=True)
class ExperimentData:
    """Where an experiment's splits and vocabulary live, and which files prove they are complete."""

    directory: str  # {train,valid,test}.{src,tgt}, plus test.tag (synthetic), test.align (headline) or <split>.ref.k
    vocab: str
    real: bool
    train_deps: tuple[str, ...]
    test_deps: tuple[str, ...]
    evaluated: bool = False  # scored by `paragen evaluate` with the dataset's evaluation (else exact match)
    gold: str | None = None  # gold links of the test split (headline stand-in): `paragen align` scores against them


def experiment_data(config: ParagenConfig, experiment: str) -> ExperimentData:
    """Synthetic data sits in ``data/prepared/<dataset>``; real data in its segmented directory.

    ``experiment`` may also name a system (a row without training): it reads the same test files."""
    dataset = config.dataset_of(experiment)
    spec = config.datasets[dataset]
    if isinstance(spec, RealDataset):
        directory = segmented_dir(dataset, spec.segmentation)
        vocab = f"{segmented_vocab_dir(dataset, spec.segmentation)}/vocab.txt"
        return ExperimentData(directory, vocab, True, (directory,), (directory,), evaluated=True)
    if isinstance(spec, HeadlineSyntheticDataset):
        return ExperimentData(
            f"data/prepared/{dataset}", vocab_path(dataset), False,
            tuple(prepared(dataset, split, s) for split in ("train", "valid") for s in ("src", "tgt")),
            (prepared(dataset, "test", "src"), prepared(dataset, "test", "tgt")), evaluated=True,
            gold=prepared(dataset, "test", "align"))
    return ExperimentData(
        f"data/prepared/{dataset}", vocab_path(dataset), False,
        tuple(prepared(dataset, split, s) for split in ("train", "valid") for s in ("src", "tgt")),
        (prepared(dataset, "test", "src"), prepared(dataset, "test", "tgt"), prepared(dataset, "test", "tag"),
         prepared(dataset, "test", "rule"), generation_statistics(dataset)))


def output_vocabulary(config: ParagenConfig, dataset: str) -> str:
    """The vocabulary a model of a real dataset writes its words from: ``vocab.txt``, or ``vocab.tgt.txt`` when
    source and target have their own; only a dataset with a training split has one."""
    spec = config.datasets[dataset]
    if not isinstance(spec, RealDataset) or "train" not in spec.splits:
        raise ConfigError(f"datasets.{dataset}: no vocabulary (only a real dataset with a train split has one)")
    return f"{segmented_vocab_dir(dataset, spec.segmentation)}/{'vocab.txt' if spec.shared_vocab else 'vocab.tgt.txt'}"


def generated_files(config: ParagenConfig, dataset: str) -> tuple[str, ...]:
    """What ``paragen generate`` writes: per split the pairs and a tag (rule data) or gold links (headline data)."""
    if isinstance(config.datasets[dataset], HeadlineSyntheticDataset):
        return tuple(prepared(dataset, split, suffix) for split in SPLITS for suffix in ("src", "tgt", "align"))
    return (*(prepared(dataset, split, suffix) for split in SPLITS for suffix in ("src", "tgt", "tag", "rule")),
            generation_statistics(dataset))


def fetch_marker(entry: str, scope: str) -> str:
    return f"data/raw/{entry}/.complete-{scope}.json"


def prepared_dir(recipe: str) -> str:
    """Where ``paragen prepare RECIPE`` (or ``prepare-local``) writes: a directory its stage owns whole and both
    engines declare as an output, so no file an earlier configuration wrote there can be read later."""
    return f"data/prepared/{recipe}"


def segmented_dir(dataset: str, scheme: str) -> str:
    """Where ``paragen segment RECIPE --name DATASET --scheme SCHEME`` writes (a directory output, like
    :func:`prepared_dir`)."""
    return f"data/segmented/{dataset}.{scheme}"


def segmented_vocab_dir(dataset: str, scheme: str) -> str:
    """Where ``paragen vocab-build`` writes a real dataset's vocabularies: beside, not inside, the segmented
    directory, which the segment stage owns whole."""
    return f"data/vocab/{dataset}.{scheme}"


def hyp_path(row: str, split: str = "test") -> str:
    """The output of an experiment (decoded) or a system (computed) on a test split."""
    return f"{run_dir(row)}/{split}.hyp"


def nbest_path(row: str, split: str = "test") -> str:
    return f"{run_dir(row)}/{split}.nbest.jsonl"


def alignment_path(experiment: str) -> str:
    """``paragen align``'s accuracy against the gold links (headline stand-in): small, committed, merged into the
    experiment's table row by the report."""
    return f"results/metrics/{experiment}.alignment.json"


def comparison_path(experiment: str, baseline: str) -> str:
    """``paragen compare``'s paired bootstrap test of one experiment against another: small, committed."""
    return f"results/metrics/{experiment}.vs.{baseline}.json"


def alignment_matrices_path(experiment: str) -> str:
    """``paragen align``'s attention and q_j matrices of the sentences a table's heat maps show."""
    return f"{run_dir(experiment)}/alignment_examples.json"


def sweep_outputs(name: str) -> tuple[str, str, str]:
    """(table .md, table .csv, figure .png) of a skip system's sweep over its drop probability."""
    return f"results/tables/{name}_sweep.md", f"results/tables/{name}_sweep.csv", f"results/figures/{name}_sweep.png"


def aligned_pairs_path(experiment: str) -> str:
    return f"{run_dir(experiment)}/aligned_pairs.json"


def comparisons_csv_path(table: str) -> str:
    """One line per paired test of a table's comparisons (:func:`paragen.report.comparisons.comparison_records`)."""
    return f"results/tables/{table}_comparisons.csv"


def aligned_pairs_outputs(table: str) -> tuple[str, str]:
    return f"results/tables/{table}_aligned_pairs.md", f"results/tables/{table}_aligned_pairs.csv"


def heatmap_paths(table: str) -> tuple[str, str]:
    """004 Figure 4 as two figures: one row's attention, another's source-side prediction q_j."""
    return (f"results/figures/{table}_alignment_attention.png", f"results/figures/{table}_alignment_prediction.png")


def oddgen_figure_path(table: str) -> str:
    return f"results/figures/{table}_oddgen.png"


def embeddings_path(experiment: str) -> str:
    """How a run's embeddings started (pretrained vectors or random, and why): its table caption says it."""
    return f"{run_dir(experiment)}/embeddings.json"


SCORING_VARIANTS_TABLE = "simplification_scoring_variants"
"""``paragen scoring-variants``' table: its scores (``.csv``), and the ranking and leave-one-out drawn from them
(``.md``, ``_cv.csv``)."""


def scoring_variants_outputs() -> tuple[str, str, str]:
    """(scores CSV, Markdown, leave-one-out CSV) of ``paragen scoring-variants``."""
    stem = f"results/tables/{SCORING_VARIANTS_TABLE}"
    return f"{stem}.csv", f"{stem}.md", f"{stem}_cv.csv"
