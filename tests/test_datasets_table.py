from pathlib import Path

from paragen.report.datasets import collect, to_csv, to_markdown


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_rows_counts_lengths_coverage_and_absent_splits(tmp_path):
    pwkp = tmp_path / "pwkp"
    _write(pwkp / "train.src", ["a b c", "a b"])
    _write(pwkp / "train.tgt", ["a b", "b"])
    _write(pwkp / "test.src", ["a b c d"])
    _write(pwkp / "test.tgt", ["a z"])
    lcsts = tmp_path / "lcsts"
    _write(lcsts / "test.src", ["今天 天气"])
    _write(lcsts / "test.tgt", ["天气"])
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
    _write(out, ["a b", "c"])
    rows = {r.split: r for r in collect_system_outputs(tmp_path)}
    assert rows["WikiLarge/Dress.lower"].pairs == 2 and rows["WikiLarge/Dress.lower"].paper == 359
    assert rows["WikiSmall/Hybrid"].pairs is None and "not fetched" in rows["WikiSmall/Hybrid"].note
