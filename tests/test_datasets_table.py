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


def test_each_note_every_field_and_the_rendered_rows(tmp_path):
    """Every field of a row worked out by hand, and each note: references only (no sources mirrored), the
    turk-mini label, coverage impossible without a training split, and prepare.json's options; the Markdown and CSV
    lines as a reader sees them."""
    import json

    turk = tmp_path / "turk"  # no training split: no vocabulary; two references; test has no sources
    write_lines(turk / "valid.src", ["x y z", "x"])
    write_lines(turk / "valid.tgt", ["x y", "z"])
    write_lines(turk / "test.tgt", ["p q r"])
    for k in range(2):
        write_lines(turk / f"valid.ref.{k}", ["x y", "z"])
    (turk / "prepare.json").write_text(json.dumps({"options": {"lowercase": True}}))
    mini = tmp_path / "turk_mini"
    write_lines(mini / "train.src", ["a a b", "c"])
    write_lines(mini / "train.tgt", ["a", "c d"])
    rows = {(r.dataset, r.split): r for r in collect(tmp_path)}
    valid = rows[("turk", "valid")]
    # 2 pairs, 2 references, tokens 3 (targets) + 4 (sources), mean source 4/2, mean target 3/2, no coverage
    assert (valid.pairs, valid.references, valid.tokens, valid.mean_source, valid.mean_target, valid.coverage,
            valid.paper) == (2, 2, 7, 2.0, 1.5, None, 2000)
    assert valid.note == "coverage needs the training split; options: {'lowercase': True}"
    test = rows[("turk", "test")]
    assert (test.pairs, test.references, test.tokens, test.mean_source, test.mean_target) == (1, 1, 3, None, 3.0)
    assert test.note == ("references only (sources not mirrored); coverage needs the training split; "
                         "options: {'lowercase': True}")
    train = rows[("turk_mini", "train")]
    # vocabulary from train.src + train.tgt: a, b, c, d; every target token covered
    assert (train.pairs, train.tokens, train.mean_source, train.mean_target, train.coverage, train.paper) == (
        2, 7, 2.0, 1.5, 100.0, None)
    assert train.note == "turk-mini stand-in suite: NOT the papers' setup (Turk tune + ASSET valid as training data)"
    assert "needs the local mirror" in rows[("turk_mini", "test")].note
    assert rows[("gigaword", "train")].note.startswith("the Rush et al. release must be placed by hand")
    md = to_markdown([valid, test]).splitlines()
    assert md[-2] == ("| turk | valid | 2 | 2,000 | 2 | 7 | 2.0 | 1.5 | — | coverage needs the training split; "
                      "options: {'lowercase': True} |")
    assert md[-1].startswith("| turk | test | 1 | 359 | 1 | 3 | — | 3.0 | — | references only")
    csv_lines = to_csv([valid]).splitlines()
    assert csv_lines[1] == ("turk,valid,2,2,7,2.0,1.5,,2000,"
                            "coverage needs the training split; options: {'lowercase': True}")


def test_system_output_rows_absent_reasons_and_the_character_vocabulary(tmp_path):
    """Every field of a fetched and of an absent system-output row; each absent split's reason word for word; LCSTS's
    coverage counted in characters against its 4,000 most frequent (a 4,001st character is outside)."""
    from paragen.report.datasets import collect_system_outputs

    raw = tmp_path / "raw"
    write_lines(raw / "dress_outputs" / "WikiSmall" / "test" / "Dress", ["a b", "c", "d"])  # 4 tokens, 3 lines
    write_lines(raw / "dress_outputs" / "WikiLarge" / "test" / "Hybrid.lower", [])
    rows = {r.split: r for r in collect_system_outputs(raw)}
    assert rows["WikiSmall/Dress"].__dict__ == dict(
        dataset="dress_outputs", split="WikiSmall/Dress", pairs=3, references=None, tokens=4, mean_source=None,
        mean_target=4 / 3, coverage=None, paper=100, note="system output (one per sentence)")
    assert rows["WikiLarge/Hybrid.lower"].mean_target is None and rows["WikiLarge/Hybrid.lower"].pairs == 0
    assert rows["WikiLarge/Dress.lower"].__dict__ == dict(
        dataset="dress_outputs", split="WikiLarge/Dress.lower", pairs=None, references=None, tokens=None,
        mean_source=None, mean_target=None, coverage=None, paper=359,
        note="not fetched (`paragen fetch dress_outputs`)")
    assert "| dress_outputs | WikiSmall/Dress | 3 | 100 | — | 4 | — | 1.3 | — |" in to_markdown(list(rows.values()))

    prepared = tmp_path / "prepared"
    common = "".join(chr(0x4E00 + i) for i in range(4000))  # 4,000 characters seen twice, one seen once
    write_lines(prepared / "lcsts" / "train.src", [common])
    write_lines(prepared / "lcsts" / "train.tgt", [common + chr(0x4E00 + 4000)])
    write_lines(prepared / "lcsts" / "test.src", ["x"])
    write_lines(prepared / "lcsts" / "test.tgt", [chr(0x4E00 + 4000) + chr(0x4E00)])
    found = {(r.dataset, r.split): r for r in collect(prepared)}
    assert found[("lcsts", "test")].coverage == 50.0
    reasons = {key: row.note for key, row in found.items() if row.pairs is None}
    assert reasons[("gigaword", "valid")] == ("the Rush et al. release must be placed by hand "
                                              "(see `paragen fetch gigaword`)")
    assert reasons[("lcsts", "valid")] == "LCSTS PART I/II need a licence application (see `paragen fetch lcsts`)"
    assert reasons[("turk_mini", "train")] == ("built from turkcorpus and asset: needs the local mirror "
                                               "(`paragen evalsets`)")
    assert reasons[("pwkp", "train")] == ("training set not mirrored here: `paragen fetch pwkp` downloads it where "
                                          "the internet is reachable")
    assert reasons[("pwkp", "test")] == "not prepared (run `paragen prepare`)"


def test_the_markdown_header_word_for_word_and_an_absent_row():
    """The table's heading, sentence and column lines as a reader sees them, and a row of an absent split: "absent"
    in the pairs column with its paper count kept (pwkp test: 100 pairs in the paper)."""
    from paragen.report.datasets import Row

    absent = Row("pwkp", "test", None, None, None, None, None, None, 100, "not prepared (run `paragen prepare`)")
    assert to_markdown([absent]).splitlines() == [
        "# Datasets", "",
        "Generated by `paragen datasets-table` from `data/prepared/`. Lengths and tokens are words, characters for "
        "LCSTS; the target length counts the first reference. Coverage: share of target tokens in the paper-size "
        "vocabulary of the training split.", "",
        "| dataset | split | pairs | paper | refs/source | tokens | mean src len | mean tgt len | coverage % | note |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        "| pwkp | test | absent | 100 | — | — | — | — | — | not prepared (run `paragen prepare`) |"]


def test_default_folders_empty_targets_ppdb_pairs_and_absent_paper_counts(tmp_path, monkeypatch):
    """From the working folder's data/prepared and data/raw when no folder is given; an empty target file gives no
    mean length (not a division by zero); PPDB's one split "pairs" needs no training split for coverage (so no
    such note); an absent split keeps its paper count (pwkp train: 89,042 pairs in the paper)."""
    from paragen.report.datasets import collect_system_outputs

    monkeypatch.chdir(tmp_path)
    write_lines(tmp_path / "data" / "prepared" / "pwkp" / "test.tgt", [])
    write_lines(tmp_path / "data" / "prepared" / "ppdb" / "pairs.src", ["big"])
    write_lines(tmp_path / "data" / "prepared" / "ppdb" / "pairs.tgt", ["large"])
    write_lines(tmp_path / "data" / "raw" / "dress_outputs" / "WikiSmall" / "test" / "Dress", ["a"])
    rows = {(r.dataset, r.split): r for r in collect()}
    empty = rows[("pwkp", "test")]
    assert (empty.pairs, empty.tokens, empty.mean_target, empty.coverage) == (0, 0, None, None)
    assert rows[("ppdb", "pairs")].note == "" and rows[("ppdb", "pairs")].paper == 210372
    assert rows[("pwkp", "train")].paper == 89042 and rows[("pwkp", "train")].pairs is None
    assert {r.split: r.pairs for r in collect_system_outputs()}["WikiSmall/Dress"] == 1


def test_words_except_for_character_level_data_and_unix_line_ends():
    """pwkp counts words ("abc de": 2), LCSTS characters; the CSV ends lines with \\n alone."""
    from paragen.report.datasets import Row, tokens

    assert tokens("abc de", "pwkp") == ["abc", "de"] and tokens("今天", "lcsts") == ["今", "天"]
    row = Row("pwkp", "test", 1, 1, 2, 2.0, 2.0, None, 100, "")
    assert to_csv([row]) == ("dataset,split,pairs,references,tokens,mean_source,mean_target,coverage,paper,note\n"
                             "pwkp,test,1,1,2,2.0,2.0,,100,\n")


def test_write_datasets_table_writes_both_files_from_the_default_folders(tmp_path, monkeypatch):
    """`paragen datasets-table`'s writer: results/tables/datasets.md and .csv from data/prepared and data/raw of the
    working folder. PPDB's pair "big" -> "large": 1 pair, 2 tokens, lengths 1.0; a DRESS output of two one-word
    lines: 2 lines (paper: 100), 2 tokens, length 1.0."""
    from paragen.report.datasets import write_datasets_table

    monkeypatch.chdir(tmp_path)
    write_lines(tmp_path / "data" / "prepared" / "ppdb" / "pairs.src", ["big"])
    write_lines(tmp_path / "data" / "prepared" / "ppdb" / "pairs.tgt", ["large"])
    write_lines(tmp_path / "data" / "raw" / "dress_outputs" / "WikiSmall" / "test" / "Dress", ["a", "b"])
    rows = write_datasets_table()
    assert {(r.dataset, r.split): r.pairs for r in rows}[("ppdb", "pairs")] == 1
    md = (tmp_path / "results" / "tables" / "datasets.md").read_text(encoding="utf-8").splitlines()
    assert "| ppdb | pairs | 1 | 210,372 | 1 | 2 | 1.0 | 1.0 | — |  |" in md
    assert ("| dress_outputs | WikiSmall/Dress | 2 | 100 | — | 2 | — | 1.0 | — | system output (one per sentence) |"
            in md)
    csv_lines = (tmp_path / "results" / "tables" / "datasets.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0] == "dataset,split,pairs,references,tokens,mean_source,mean_target,coverage,paper,note"
    assert "ppdb,pairs,1,1,2,1.0,1.0,,210372," in csv_lines
