"""Human evaluation's bookkeeping case by case (paragen.report.human_eval): the exact sheet and key an export writes,
each refusal's message, the means and paired t-tests on ratings small enough to work out by hand, and the table they
are written as."""

import json
import math
import random

import pytest

from paragen.data.corpus import CorpusError
from paragen.report.human_eval import HumanEvalResult, export_sheet, ingest_sheets, read_sheet, to_markdown

SOURCES = ["s zero", "s one"]
SYSTEMS = {"A": ["a0", "a1"], "B": ["b0", "b1"]}


def test_the_sheet_and_key_are_exactly_the_seeded_shuffle(tmp_path):
    """Items are (sentence, system) pairs in sentence-then-system order, shuffled by random.Random(seed); the sheet has
    blank rating cells and Unix line ends, the key maps each item number back, indented by one space."""
    assert export_sheet(SOURCES, SYSTEMS, tmp_path / "sheet.csv", tmp_path / "key.json") == 4
    items = [(0, "A"), (0, "B"), (1, "A"), (1, "B")]
    random.Random(1).shuffle(items)  # the default seed is 1
    expected = "item,source,output,fluency,adequacy,simplicity\n" + "".join(
        f"{n},{SOURCES[i]},{SYSTEMS[name][i]},,,\n" for n, (i, name) in enumerate(items, start=1))
    assert (tmp_path / "sheet.csv").read_bytes().decode() == expected
    key = {"dimensions": ["fluency", "adequacy", "simplicity"], "scale": [1, 5], "seed": 1,
           "items": {str(n): {"system": name, "sentence": i} for n, (i, name) in enumerate(items, start=1)}}
    assert (tmp_path / "key.json").read_text() == json.dumps(key, indent=1) + "\n"
    export_sheet(SOURCES, SYSTEMS, tmp_path / "all.csv", tmp_path / "all.json", sample=2)  # a sample of every
    assert (tmp_path / "all.csv").read_text() == expected  # sentence draws nothing: the same shuffle


def test_a_misaligned_system_is_named_against_the_source(tmp_path):
    with pytest.raises(CorpusError) as error:
        export_sheet(SOURCES, {"A": ["a0"]}, tmp_path / "sheet.csv", tmp_path / "key.json")
    assert str(error.value) == f"source has {len(SOURCES)} lines but A has 1: files must be aligned line by line"


def _key(tmp_path, items):
    key = {"dimensions": ["fluency", "adequacy", "simplicity"], "scale": [1, 5], "seed": 1,
           "items": {str(n): {"system": s, "sentence": i} for n, (s, i) in enumerate(items, start=1)}}
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key))
    return path, key


def _sheet(tmp_path, name, ratings):
    """A filled sheet: ``ratings`` one (fluency, adequacy, simplicity) per item, in item order."""
    path = tmp_path / name
    path.write_text("item,source,output,fluency,adequacy,simplicity\n" + "".join(
        f"{n},src,out,{f},{a},{s}\n" for n, (f, a, s) in enumerate(ratings, start=1)))
    return path


def test_refusals_name_what_is_wrong(tmp_path):
    key_path, key = _key(tmp_path, [("A", 0)])
    with pytest.raises(CorpusError, match="^at least one filled sheet is needed$"):
        ingest_sheets(key_path, [])
    bad = tmp_path / "bad.csv"
    bad.write_text("item,source,output,fluency,adequacy\n1,src,out,3,3\n")
    with pytest.raises(CorpusError) as error:
        read_sheet(bad, key)
    assert str(error.value) == (f"{bad}:1: missing column(s) ['simplicity']; expected item, source, output, "
                                "fluency, adequacy, simplicity")
    for value in ("abc", "0", "6", ""):
        with pytest.raises(CorpusError, match=rf"fluency must be an integer 1-5, got '{value}'"):
            read_sheet(_sheet(tmp_path, "v.csv", [(value, 3, 3)]), key)
    stranger = tmp_path / "stranger.csv"
    stranger.write_text("item,source,output,fluency,adequacy,simplicity\n99,src,out,3,3,3\n")
    with pytest.raises(CorpusError) as error:
        read_sheet(stranger, key)
    assert str(error.value) == f"{stranger}:2: item '99' is not in the key (a sheet from another export?)"
    assert read_sheet(_sheet(tmp_path, "ends.csv", [(1, 5, 1)]), key) == {
        ("A", 0): {"fluency": 1, "adequacy": 5, "simplicity": 1}}  # both ends of the scale are ratings


def test_means_best_and_the_paired_t_test_by_hand(tmp_path):
    """Three systems, the best (by the mean of all dimensions) first in alphabetical order and not last, one
    sheet. Z is rated on one sentence only, so its test shares one sentence: p = 1 (no test on one pair). The
    t-test against Y shares two sentences; with differences d = (1, 3) in fluency, t = mean(d) / (sd(d) / √2) = 2
    / (√2 / √2) = 2 on one degree of freedom, whose two-sided p is 1 − (2/π)·atan(2) (a Cauchy tail)."""
    key_path, _ = _key(tmp_path, [("C", 0), ("C", 1), ("Y", 0), ("Y", 1), ("Z", 0)])
    sheet = _sheet(tmp_path, "r.csv", [(5, 4, 4), (5, 4, 4), (4, 4, 4), (2, 4, 4), (1, 1, 1)])
    result = ingest_sheets(key_path, [sheet])
    assert result.systems == ["C", "Y", "Z"] and result.best == "C" and result.raters == 1
    assert result.means["C"] == {"fluency": 5.0, "adequacy": 4.0, "simplicity": 4.0, "all": 13 / 3}
    assert result.means["Y"]["fluency"] == 3.0 and result.means["Y"]["all"] == pytest.approx((3 + 4 + 4) / 3)
    assert result.p_values["Y"]["fluency"] == pytest.approx(1 - 2 / math.pi * math.atan(2))
    assert result.p_values["Y"]["adequacy"] == 1.0  # no difference at all: no test, p = 1
    assert result.p_values["Z"] == {"fluency": 1.0, "adequacy": 1.0, "simplicity": 1.0, "all": 1.0}
    assert "C" not in result.p_values


def test_the_table_word_for_word():
    """Distinct means per dimension (a swapped column shows), p printed to 3 significant figures in the order
    fluency / adequacy / simplicity / all, "best" for the best system, systems in the result's order."""
    result = HumanEvalResult(
        systems=["Ref", "Ours"], best="Ours", raters=2,
        means={"Ref": {"fluency": 4.1249, "adequacy": 3.5, "simplicity": 2.0, "all": 3.208333},
               "Ours": {"fluency": 4.6, "adequacy": 3.25, "simplicity": 2.8751, "all": 3.575}},
        p_values={"Ref": {"fluency": 0.012345, "adequacy": 0.5, "simplicity": 1.0, "all": 0.00004567}})
    assert to_markdown(result, "Human evaluation") == (
        "# Human evaluation\n\n"
        "| system | Fluency | Adequacy | Simplicity | All | p vs best (F / A / S / All) |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| Ref | 4.12 | 3.50 | 2.00 | 3.21 | 0.0123 / 0.5 / 1 / 4.57e-05 |\n"
        "| Ours | 4.60 | 3.25 | 2.88 | 3.58 | best |\n"
        "\n"
        "Mean ratings (1-5) over 2 rater sheet(s); 'All' is the mean of the three dimensions. p: paired t-test "
        "(scipy.stats.ttest_rel) of the best system against each other one over the sentences both were rated on, "
        "per-sentence ratings averaged over raters.\n")
