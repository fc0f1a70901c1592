"""Hwang et al.'s EW-SEW filter checked whole on the served release of test_ew_sew_hwang (two good pairs scored
0.98 and 0.70, two good-partial 0.61 and 0.53, three remaining 0.46, 0.45, 0.44): the defaults, the pairs kept
in class order with their targets, every note word for word, a higher threshold, deduplication only when asked,
and the unknown class's refusal. Expected values are worked out from those seven lines by hand."""

from __future__ import annotations

import pytest

from paragen.data.corpus import CorpusError

from test_ew_sew_hwang import GOOD, _prepare, served  # noqa: F401 (served is the loopback fixture)

COMBINED = ("4 pairs from good + good_partial (Nisioi et al.'s filtered release: about 280K; a later reproduction: "
            "284,677)")


def lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_no_options_means_good_and_good_partial_above_045(served, tmp_path):  # noqa: F811
    """No classes, no min_score: WEAN's filter (good and good-partial, score > 0.45): all four pairs, sources and
    targets in class order, the notes in order."""
    summary = _prepare(tmp_path, {})
    assert summary["train"]["notes"] == ["good: 2 pairs, 2 with a score above 0.45",
                                         "good_partial: 2 pairs, 2 with a score above 0.45", COMBINED]
    out = tmp_path / "out" / "ew_sew_hwang"
    assert lines(out / "train.tgt") == ["the team won the 1990 / 91 title .", "he was born in paris .",
                                        "it is a town in lorraine .", "the river goes north ."]
    assert lines(out / "train.src")[1:] == ["he was born in paris , france .",
                                            "it is a town in the district of lorraine .", "the river flows north ."]


def test_a_higher_threshold_keeps_fewer_pairs_of_each_class(served, tmp_path):  # noqa: F811
    """min_score 0.6: good keeps 0.98 and 0.70, good-partial keeps 0.61 only (0.53 < 0.6): 3 pairs."""
    summary = _prepare(tmp_path, {"min_score": 0.6})
    assert summary["train"]["notes"][:2] == ["good: 2 pairs, 2 with a score above 0.6",
                                             "good_partial: 2 pairs, 1 with a score above 0.6"]
    assert summary["train"]["pairs"] == 3
    assert lines(tmp_path / "out" / "ew_sew_hwang" / "train.tgt")[-1] == "it is a town in lorraine ."


def test_duplicates_are_removed_only_when_asked(served, tmp_path):  # noqa: F811
    """The good file with its first line twice (the size registered for it changes too): kept twice by default,
    once with deduplicate, noted "1 duplicate pairs removed"."""
    from paragen.data import registry

    body = GOOD + GOOD.splitlines(keepends=True)[0]
    served.files["/simplification/aligned-good-0.67.txt"] = body.encode()
    source = registry.load_registry()["ew_sew_hwang"]
    files = [f.model_copy(update={"size": len(body.encode())}) if f.path == "aligned-good-0.67.txt" else f
             for f in source.files]
    registry.load_registry = lambda: {"ew_sew_hwang": source.model_copy(update={"files": files})}
    assert _prepare(tmp_path / "plain", {"classes": ["good"]})["train"]["pairs"] == 3
    summary = _prepare(tmp_path / "dedup", {"classes": ["good"], "deduplicate": True})
    assert summary["train"]["pairs"] == 2 and summary["train"]["notes"][-1] == "1 duplicate pairs removed"


def test_an_unknown_class_is_refused_with_the_allowed_ones(served, tmp_path):  # noqa: F811
    with pytest.raises(CorpusError) as error:
        _prepare(tmp_path, {"classes": ["good", "best"]})
    assert str(error.value) == ("unknown Hwang et al. class 'best' (--classes; params.yaml: "
                                "datasets.<name>.alignment_filter.classes); allowed values: good, good_partial, "
                                "remaining")
