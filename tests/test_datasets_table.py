from paragen.report.datasets import collect, to_csv, to_markdown

from conftest import write_lines


def test_rows_counts_lengths_coverage_and_absent_splits(tmp_path):
    pwkp = tmp_path / "pwkp"
    write_lines(pwkp / "train.src", ["a b c", "a b"])
    write_lines(pwkp / "train.tgt", ["a b", "b"])
    write_lines(pwkp / "test.src", ["a b c d"])
    write_lines(pwkp / "test.tgt", ["a z"])
    lcsts = tmp_path / "lcsts"
    write_lines(lcsts / "test.src", ["今天 天气"])
    write_lines(lcsts / "test.tgt", ["天气"])
    rows = {(r.dataset, r.split): r for r in collect(tmp_path)}
    test = rows[("pwkp", "test")]
    assert (test.pairs, test.references, test.tokens, test.mean_source, test.mean_target) == (1, 1, 6, 4.0, 2.0)
    assert test.coverage == 50.0  # "a" is in the training vocabulary, "z" is not
    assert rows[("pwkp", "valid")].pairs is None and "not prepared" in rows[("pwkp", "valid")].note
    assert rows[("lcsts", "test")].tokens == 6 and rows[("lcsts", "test")].mean_target == 2.0  # characters
    assert "licence application" in rows[("lcsts", "train")].note
    assert "training set not mirrored" in rows[("wikilarge", "train")].note
    md = to_markdown(list(rows.values()))
    assert "| pwkp | test | 1 | 100 | 1 | 6 | 4.0 | 2.0 | 50.0 |" in md and "| pwkp | train | 2 | 89,042 |" in md
    assert to_csv(list(rows.values())).splitlines()[0].startswith("dataset,split,pairs,references")


def test_system_outputs_are_listed_with_their_expected_lines(tmp_path):
    from paragen.report.datasets import collect_system_outputs

    out = tmp_path / "dress_outputs" / "WikiLarge" / "test" / "Dress.lower"
    write_lines(out, ["a b", "c"])
    rows = {r.split: r for r in collect_system_outputs(tmp_path)}
    assert rows["WikiLarge/Dress.lower"].pairs == 2 and rows["WikiLarge/Dress.lower"].paper == 359
    assert rows["WikiSmall/Hybrid"].pairs is None and "not fetched" in rows["WikiSmall/Hybrid"].note
