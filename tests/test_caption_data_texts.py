"""Caption sentences read from files (:mod:`paragen.report.captions`): which data files a caption quotes, the
overlap a real dataset's splits were allowed, and the per-row wall time with its resumptions. Expected text is
written out by hand from the files each test writes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from paragen.config import HeadlineSyntheticDataset, RealDataset, SyntheticDataset
from paragen.report.captions import caption_data_files, describe_hardware, overlap_text

from conftest import write_lines


def _config(datasets: dict, rows: dict[str, str]) -> SimpleNamespace:
    return SimpleNamespace(datasets=datasets, experiments={e: SimpleNamespace(dataset=d) for e, d in rows.items()})


def test_each_kind_of_data_names_the_file_its_caption_quotes_once_in_row_order():
    """Rule data: its generation statistics; a headline stand-in: its gold test headlines; a real dataset: the
    prepare.json of its recipe (its own name without one). e5 repeats e1's dataset; "gone" is no experiment."""
    config = _config({"rules": SyntheticDataset.model_construct(),
                      "hs": HeadlineSyntheticDataset.model_construct(),
                      "real": RealDataset.model_construct(recipe=None),
                      "sub": RealDataset.model_construct(recipe="shared")},
                     {"e1": "rules", "e2": "hs", "e3": "real", "e4": "sub", "e5": "rules"})
    assert caption_data_files(config, ["e1", "e2", "gone", "e3", "e4", "e5"]) == [
        "data/prepared/rules/generation.json", "data/prepared/hs/test.tgt", "data/prepared/real/prepare.json",
        "data/prepared/shared/prepare.json"]


def _overlap(sources: int, pairs: int, guarded: bool = True) -> dict:
    return {"sources": sources, "pairs": pairs, "guarded": guarded}


def test_overlap_of_each_real_dataset_after_generated_data_joined_by_sentences(tmp_path, monkeypatch):
    """Rows: generated rule data first (skipped, not the end of the list), then "a" with two allowed overlaps
    (joined by "; "), "b" with one, "c" whose prepare.json records no overlap at all. Datasets joined by ". "."""
    monkeypatch.chdir(tmp_path)
    records = {"a": {"overlap": {"train/valid": _overlap(1200, 3), "train/test": _overlap(4, 0)}},
               "b": {"overlap": {"valid/test": _overlap(2, 2), "train/test": _overlap(9, 9, guarded=False)}},
               "c": {"splits": {}}}
    for name, record in records.items():
        write_lines(Path(f"data/prepared/{name}/prepare.json"), [json.dumps(record)])
    config = _config({"rules": SyntheticDataset.model_construct(), **{n: RealDataset.model_construct(recipe=None)
                                                                       for n in records}},
                     {"e0": "rules", "ea": "a", "eb": "b", "ec": "c"})
    assert overlap_text(config, ["e0", "ea", "eb", "ec"]) == (
        " Overlap between splits: a: 1,200 valid lines share a source sentence with train (3 identical pairs); "
        "4 test lines share a source sentence with train (0 identical pairs) (allowed by datasets.a.max_overlap). "
        "b: 2 test lines share a source sentence with valid (2 identical pairs) (allowed by datasets.b.max_overlap).")
    assert overlap_text(config, ["ec"]) == ""


def _run(folder: Path, sessions: list[dict] | None, walls: list[float]) -> Path:
    folder.mkdir()
    (folder / "train_log.csv").write_text("epoch,train_loss,valid_loss,valid_metric,wall_time_s\n" + "".join(
        f"{i + 1},1.0,1.0,5.0,{w}\n" for i, w in enumerate(walls)), encoding="utf-8")
    if sessions is not None:
        (folder / "sessions.json").write_text(json.dumps(sessions), encoding="utf-8")
    return folder


def test_wall_time_in_minutes_each_resumption_and_rows_without_records_skipped_anywhere(tmp_path):
    """"Old" (no sessions.json) comes first and is skipped, not the end of the list. "Long" ran 600 + 290 s =
    890 s = 14.83 min, shown 14.8 (a slip dividing by 61 gives 14.6); it was resumed twice, at epochs 3 and 5, on
    one device."""
    old = _run(tmp_path / "old", None, [10.0])
    long = _run(tmp_path / "long", [{"first_epoch": 1, "device": "GPU A"}, {"first_epoch": 3, "device": "GPU A"},
                                    {"first_epoch": 5, "device": "GPU A"}], [600.0, 290.0])
    assert describe_hardware({"Old": old, "Long": long}) == (
        " Trained on GPU A; wall time per row (training and per-epoch validation, summed over epochs): Long 14.8 min, "
        "resumed at epoch 3, 5.")
