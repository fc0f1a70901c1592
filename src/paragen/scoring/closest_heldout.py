"""The closest-epoch hypothesis as a prediction that can fail (issue 67).

The closest-epoch row (:mod:`paragen.training.closest_choice`) picks the epoch whose per-type validation exact match
is closest to the paper's row and decodes it on the test set. Validation and test are instances of the same rules,
so a checkpoint chosen for being close on validation is close on test as well: that the test scores come closer to
the paper than the selected checkpoint's follows from the choice, and cannot test the hypothesis "the paper's model
is ours trained this long".

Here each copying type t is left out in turn: the epoch e_t is chosen on validation from the *other* types alone
(:func:`paragen.training.closest_epoch.held_out_epochs`), and the hypothesis predicts that the test score of type t
at e_t equals the paper's number for t. The held-out error |test_t(e_t) − paper_t| is what the hypothesis is read
by, beside the selected checkpoint's error |test_t(selected) − paper_t|. Test scores come from files already scored
where e_t is the decoded closest epoch or the selected epoch, else from decoding the kept checkpoint of e_t; a
checkpoint that is not here is recorded as missing, never guessed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

from paragen import artifacts
from paragen.config import ConfigError, ParagenConfig
from paragen.config.papers import PaperTable
from paragen.config.seeds import base_of, same_seed_run
from paragen.data.corpus import read_lines
from paragen.data.synthetic import tag_column
from paragen.metrics.exact import accuracy_by_tag
from paragen.training.closest_choice import selected_epoch
from paragen.training.closest_epoch import held_out_epochs
from paragen.training.kept_epochs import epoch_checkpoint
from paragen.training.train_log import read_log

Decoder = Callable[[int], "Sequence[Sequence[str]] | None"]
"""Epoch -> the top-1 output of each test line decoded from that epoch's kept checkpoint, or None when it is
not here."""


def _type_scores(path: str) -> dict[str, float]:
    """Per rule type, the top-1 exact match of a scored decode (``paragen score --tags``)."""
    metrics = json.loads(Path(path).read_text(encoding="utf-8"))
    return {tag: float(row["top1"]) for tag, row in metrics["by_tag"].items()}


def main_run(config: ParagenConfig, table_name: str, label: str, run: str) -> str:
    """The run of the table's own row ``label`` with the same seed as ``run`` (``run`` itself unless the closest
    row comes from a retrain, ``closest_runs``): its selected checkpoint is what the table's cells show."""
    table = config.tables[table_name]
    return run if table.closest_run(label) == table.rows[label] else same_seed_run(config, run, table.rows[label])


def held_out_prediction(config: ParagenConfig, table_name: str, run: str, decode: Decoder) -> dict[str, Any]:
    """Per copying type of the paper's row: the epoch chosen with that type left out, the test score there, the
    paper's number, the held-out error, and the selected checkpoint's score and error."""
    table = config.tables[table_name]
    base = base_of(config, run)
    label = next((row for row in table.closest_epochs if table.closest_run(row) == base), None)
    if label is None:
        raise ConfigError(f"{table_name}: {run} is not a run of a row in its closest_epochs ({table.closest_epochs})")
    paper = PaperTable.load(table.paper)
    log = read_log(Path(artifacts.run_dir(run)) / "train_log.csv")
    chosen = json.loads(Path(artifacts.closest_choice_path(run)).read_text(encoding="utf-8"))
    closest = _type_scores(artifacts.closest_metrics_path(run))
    own = main_run(config, table_name, label, run)
    selected = _type_scores(artifacts.metrics_path(own))
    selected_here = selected_epoch(log) if own == run else None  # a retrain's own selection is not the table's
    data = artifacts.experiment_data(config, run)
    tags = read_lines(Path(data.directory) / "test.tag")
    references = [line.split() for line in read_lines(Path(data.directory) / "test.tgt")]
    decoded: dict[int, dict[str, float] | None] = {}
    types: dict[str, dict[str, Any]] = {}
    for key, choice in held_out_epochs(log, paper.rows[label], {c.key: tag_column(c.key) for c in paper.columns}).items():
        epoch, published = choice.epoch, paper.rows[label][key]
        entry: dict[str, Any] = {"epoch": epoch, "distance_others": choice.distance, "paper": published,
                                 "selected": selected[key], "selected_error": abs(selected[key] - published)}
        if epoch == chosen["epoch"]:
            test, source = closest[key], "the closest-epoch decode"
        elif epoch == selected_here:
            test, source = selected[key], "the selected checkpoint"
        else:
            if epoch not in decoded:
                outputs = decode(epoch)
                decoded[epoch] = None if outputs is None else {
                    tag: float(row["top1"]) for tag, row in accuracy_by_tag(
                        [[list(o)] for o in outputs], references, tags).items()}
            scores = decoded[epoch]
            test, source = (None, None) if scores is None else (scores[key], f"epoch {epoch} decoded here")
        if test is None:
            entry["checkpoint"] = str(epoch_checkpoint(artifacts.run_dir(run), epoch))
            entry["missing"] = "the run's epoch weights were not kept, or not copied to this machine"
        else:
            entry.update(test=test, error=abs(test - published), source=source)
        types[key] = entry
    return {"table": table_name, "row": label, "run": run, "selected_run": own, "epochs_run": len(log),
            "closest_epoch": chosen["epoch"], "decoded_epochs": sorted(e for e, s in decoded.items() if s),
            "types": types}
