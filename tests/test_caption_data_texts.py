"""Caption sentences read from files (:mod:`paragen.report.captions`): which data files a caption quotes, the
overlap a real dataset's splits were allowed, and the per-row wall time with its resumptions. Expected text is
written out by hand from the files each test writes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from paragen.config import HeadlineSyntheticDataset, RealDataset, SyntheticDataset
from paragen.report.captions import caption_data_files, describe_hardware, overlap_text

from conftest import write_lines, write_trained_run


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


def _headline() -> HeadlineSyntheticDataset:
    """A headline stand-in with its default evaluation (ROUGE among its metrics), validated."""
    return HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=1, valid_pairs=1, test_pairs=1)


def _prepared(filename: str, records: dict[str, dict]) -> None:
    """data/prepared/<dataset>/<filename> holding each dataset's record as JSON."""
    for name, record in records.items():
        write_lines(Path(f"data/prepared/{name}/{filename}"), [json.dumps(record)])


def _overlap(sources: int, pairs: int, guarded: bool = True) -> dict:
    return {"sources": sources, "pairs": pairs, "guarded": guarded}


def test_overlap_of_each_real_dataset_after_generated_data_joined_by_sentences(tmp_path, monkeypatch):
    """Rows: generated rule data first (skipped, not the end of the list), then "a" with two allowed overlaps
    (joined by "; "), "b" with one, "c" whose prepare.json records no overlap at all. Datasets joined by ". "."""
    monkeypatch.chdir(tmp_path)
    records = {"a": {"overlap": {"train/valid": _overlap(1200, 3), "train/test": _overlap(4, 0)}},
               "b": {"overlap": {"valid/test": _overlap(2, 2), "train/test": _overlap(9, 9, guarded=False)}},
               "c": {"splits": {}}}
    _prepared("prepare.json", records)
    config = _config({"rules": SyntheticDataset.model_construct(), **{n: RealDataset.model_construct(recipe=None)
                                                                       for n in records}},
                     {"e0": "rules", "ea": "a", "eb": "b", "ec": "c"})
    assert overlap_text(config, ["e0", "ea", "eb", "ec"]) == (
        " Overlap between splits: a: 1,200 valid lines share a source sentence with train (3 identical pairs); "
        "4 test lines share a source sentence with train (0 identical pairs) (allowed by datasets.a.max_overlap). "
        "b: 2 test lines share a source sentence with valid (2 identical pairs) (allowed by datasets.b.max_overlap).")
    assert overlap_text(config, ["ec"]) == ""


def test_wall_time_in_minutes_each_resumption_and_a_first_row_without_records_skipped(tmp_path):
    """"Old" (no sessions.json) comes first and is skipped, not the end of the list. "Long" ran five epochs of
    200, 200, 200, 200 and 90 s = 890 s = 14.83 min, shown 14.8 (a slip dividing by 61 gives 14.6); it was resumed
    twice, at epochs 3 and 5, on one device."""
    old = write_trained_run(tmp_path / "old", [10.0], None)
    long = write_trained_run(tmp_path / "long", [200.0, 200.0, 200.0, 200.0, 90.0],
                             [{"first_epoch": 1, "device": "GPU A"}, {"first_epoch": 3, "device": "GPU A"},
                              {"first_epoch": 5, "device": "GPU A"}])
    assert describe_hardware({"Old": old, "Long": long}) == (
        " Trained on GPU A; wall time per row (training and per-epoch validation, summed over epochs): Long 14.8 min, "
        "resumed at epoch 3, 5.")


def test_the_headline_ceiling_follows_rows_on_other_data(tmp_path, monkeypatch):
    """A row on rule data (no generation statistics here: no rule ceiling) comes first and is skipped, not the end
    of the rows. Gold headlines "c1 c2 c3", "r4 c5", "c6", "c7 c8" against themselves: ROUGE-1 and ROUGE-L 100 on
    each; ROUGE-2 100 on the three with a bigram and 0 on the one-word "c6", mean 75.0."""
    from paragen.report.captions import ceiling_text

    monkeypatch.chdir(tmp_path)
    write_lines(Path("data/prepared/hs/test.tgt"), ["c1 c2 c3", "r4 c5", "c6", "c7 c8"])
    config = _config({"rules": SyntheticDataset.model_construct(), "hs": _headline()}, {"e0": "rules", "e1": "hs"})
    assert ceiling_text(config, ["e0", "e1"]) == (
        " Ceiling (the gold headlines scored against themselves): ROUGE-1 100.0 / ROUGE-2 75.0 / ROUGE-L 100.0 "
        "(1 one-word headlines score 0 on ROUGE-2).")


def test_rule_ceilings_of_every_rule_dataset_after_other_data(tmp_path, monkeypatch):
    """Rows: a headline stand-in first (skipped), rule data r1 (x->0 at 50, xy->x at 100, x->x without a ceiling:
    only x->0 is named, its 0 written ∅), r2 (xy->xy at 66.66, shown 66.7), r3 whose statistics have no per-type
    part. Both datasets' types are named, in row order."""
    from paragen.report.captions import rule_ceiling_text

    monkeypatch.chdir(tmp_path)
    stats = {"r1": {"by_type": {"x->0": {"test_ceiling": 50.0}, "xy->x": {"test_ceiling": 100.0}, "x->x": {}}},
             "r2": {"by_type": {"xy->xy": {"test_ceiling": 66.66}}}, "r3": {"rules": []}}
    _prepared("generation.json", stats)
    config = _config({"hs": HeadlineSyntheticDataset.model_construct(),
                      **{n: SyntheticDataset.model_construct() for n in stats}},
                     {"e0": "hs", "e1": "r1", "e2": "r2", "e3": "r3"})
    assert rule_ceiling_text(config, ["e0", "e1", "e2", "e3"]) == (
        " Ceiling (best expected exact match of a model that knows every rule; where x and y sit side by side a test "
        "source splits more than one way and is right only by chance): x → ∅ 50.0, xy → xy 66.7; 100 on the other "
        "types.")
    assert rule_ceiling_text(config, ["e3"]) == ""


def test_embeddings_of_each_row_that_starts_from_vectors(tmp_path, monkeypatch):
    """Rows: A's experiment is not configured, B starts from vectors but fell back to random (its reason), C's
    model starts from random by design, D found 1,234 of 5,678 words in vectors.txt, E has no record yet. Only B
    and D are named, joined by "; "; rows none of which has a record give nothing."""
    from paragen.report.captions import describe_embeddings

    monkeypatch.chdir(tmp_path)
    write_lines(Path("runs/e_random/embeddings.json"),
                [json.dumps({"source": "random", "found": 0, "vocabulary": 10, "reason": "no vectors file"})])
    write_lines(Path("runs/e_glove/embeddings.json"),
                [json.dumps({"source": "data/raw/glove/vectors.txt", "found": 1234, "vocabulary": 5678})])
    models = {"pre": SimpleNamespace(pretrained_embeddings="glove"),
              "plain": SimpleNamespace(pretrained_embeddings=None)}
    experiments = {"e_random": "pre", "e_plain": "plain", "e_glove": "pre", "e_missing": "pre"}
    config = SimpleNamespace(models=models,
                             experiments={e: SimpleNamespace(model=m) for e, m in experiments.items()})
    rows = {"A": "e_none", "B": "e_random", "C": "e_plain", "D": "e_glove", "E": "e_missing"}
    assert describe_embeddings(config, rows) == (
        " Embeddings: B: random initial embeddings (no vectors file); D: embeddings initialised from vectors.txt for "
        "1,234 of 5,678 words.")
    assert describe_embeddings(config, {"A": "e_none", "C": "e_plain", "E": "e_missing"}) == ""


def test_two_headline_stand_ins_each_get_their_ceiling_joined_by_a_semicolon(tmp_path, monkeypatch):
    """hs_a's gold: "a b", "c d" (every score 100, no one-word headline); hs_b's: "a b", "c" (ROUGE-2 100 and 0,
    mean 50.0; one one-word headline)."""
    from paragen.report.captions import ceiling_text

    spec = _headline()
    monkeypatch.chdir(tmp_path)
    write_lines(Path("data/prepared/hs_a/test.tgt"), ["a b", "c d"])
    write_lines(Path("data/prepared/hs_b/test.tgt"), ["a b", "c"])
    config = _config({"hs_a": spec, "hs_b": spec}, {"ea": "hs_a", "eb": "hs_b"})
    assert ceiling_text(config, ["ea", "eb"]) == (
        " Ceiling (the gold headlines scored against themselves): ROUGE-1 100.0 / ROUGE-2 100.0 / ROUGE-L 100.0 "
        "(0 one-word headlines score 0 on ROUGE-2); ROUGE-1 100.0 / ROUGE-2 50.0 / ROUGE-L 100.0 (1 one-word "
        "headlines score 0 on ROUGE-2).")


def test_the_summary_rounds_minutes_to_whole_ones_half_up(tmp_path):
    """600 + 30 s = 10.5 min, shown 11 (a slip dividing by 61 gives 10.3, shown 10); a run without sessions.json
    first is skipped, not counted."""
    from paragen.report.captions import hardware_summary

    old = write_trained_run(tmp_path / "old", [10.0], None)
    run = write_trained_run(tmp_path / "run", [600.0, 30.0], [{"first_epoch": 1, "device": "GPU A"}])
    assert hardware_summary({"Old": old, "Run": run}) == " Trained on GPU A: 11 min of training over 1 run(s)."


def test_the_summary_names_the_rows_each_device_trained_when_there_are_several(tmp_path):
    """Three rows: "Gpu" on GPU A (600 s), "Cpu" on CPU B (60 s), "Split" started on CPU B and resumed on GPU A at
    epoch 2 (60 + 60 s): 13 min in all (780 s). Each device lists its rows in table order; one device alone is
    named without rows (every row is then its)."""
    from paragen.report.captions import hardware_summary

    gpu = write_trained_run(tmp_path / "gpu", [600.0], [{"first_epoch": 1, "device": "GPU A"}])
    cpu = write_trained_run(tmp_path / "cpu", [60.0], [{"first_epoch": 1, "device": "CPU B"}])
    split = write_trained_run(tmp_path / "split", [60.0, 60.0], [{"first_epoch": 1, "device": "CPU B"},
                                                                 {"first_epoch": 2, "device": "GPU A"}])
    assert hardware_summary({"Gpu": gpu, "Cpu": cpu, "Split": split}) == (
        " Trained on CPU B (Cpu, Split) and GPU A (Gpu, Split): 13 min of training over 3 run(s).")
    assert hardware_summary({"Gpu": gpu}) == " Trained on GPU A: 10 min of training over 1 run(s)."
