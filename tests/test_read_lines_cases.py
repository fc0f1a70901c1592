"""`paragen.data.corpus.read_lines` at the edges of what it accepts, in-process (the CLI tests of these refusals
run `paragen` in a subprocess, which a mutation run cannot reach): the bounded read of a long line, lines of
exactly the limit in characters and in bytes, NUL bytes, carriage returns, the byte-order mark, a line ending in
X, and each refusal's words. Limits here are 2 characters; "😀" is one character of 4 UTF-8 bytes, so the read
bound is 4 x 2 + 3 = 11 bytes.
"""

from __future__ import annotations

import pytest

from paragen.data.corpus import CorpusError, read_lines

BOM = "\ufeff"


def written(tmp_path, data: bytes):
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    return path


def refusal(path, **kwargs) -> str:
    with pytest.raises(CorpusError) as error:
        read_lines(path, **kwargs)
    return str(error.value)


def test_a_line_of_exactly_the_limit_is_read_in_characters_and_in_bytes(tmp_path):
    """Two 4-byte characters and CRLF (10 bytes, inside the 11-byte read), two more with LF (9 bytes), two plain
    ones; then a file holding only two 4-byte characters without a newline (8 bytes, exactly 4 x limit)."""
    path = written(tmp_path, "😀😀\r\n😀😀".encode() + b"\nab\n")
    assert read_lines(path, max_chars=2) == ["😀😀", "😀😀", "ab"]
    assert read_lines(written(tmp_path, "😀😀".encode()), max_chars=2) == ["😀😀"]


def test_a_line_over_the_byte_bound_is_refused_before_it_is_read_whole(tmp_path):
    """11 a's and a newline (12 bytes): the 11-byte read ends without the newline, so the line is refused as
    longer than the limit, with the caller's reason; 9 a's at the end of the file (9 bytes > 8) the same."""
    assert refusal(written(tmp_path, b"a" * 11 + b"\n"), max_chars=2, why=" (a reason)") == \
        f"{tmp_path / 'f.txt'}:1: line longer than 2 characters (a reason)"
    assert refusal(written(tmp_path, b"ok\n" + b"a" * 9), max_chars=2) == \
        f"{tmp_path / 'f.txt'}:2: line longer than 2 characters"


def test_a_line_inside_the_byte_bound_but_over_the_limit_gives_its_length(tmp_path):
    path = written(tmp_path, b"abc\n")
    assert refusal(path, max_chars=2, why=" (a reason)") == \
        f"{path}:1: line has 3 characters; at most 2 are accepted per line (a reason)"
    assert refusal(path, max_chars=2) == f"{path}:1: line has 3 characters; at most 2 are accepted per line"


def test_the_default_limit_is_a_million_characters(tmp_path):
    path = written(tmp_path, b"a" * 1_000_000 + b"\n" + b"b" * 1_000_001 + b"\n")
    assert refusal(path) == f"{path}:2: line has 1,000,001 characters; at most 1,000,000 are accepted per line"


@pytest.mark.parametrize("data, byte", [(b"\0ab\n", 1), (b"a\0b\0\n", 2)])
def test_a_nul_byte_is_refused_at_its_first_position(tmp_path, data, byte):
    path = written(tmp_path, b"fine\n" + data)
    assert refusal(path) == f"{path}:2: NUL byte at byte {byte} of the line: not a text file"


def test_a_carriage_return_inside_a_line_is_refused(tmp_path):
    path = written(tmp_path, b"one\rtwo\r")
    assert refusal(path) == (f"{path}:1: carriage return inside the line (CR-only line endings?): convert the file "
                             "to LF or CRLF line endings, one sentence per line")


def test_a_byte_order_mark_is_dropped_from_the_first_line_only(tmp_path):
    path = written(tmp_path, f"{BOM}a\n{BOM}b\n".encode())
    assert read_lines(path) == ["a", f"{BOM}b"]


def test_a_line_ending_in_x_keeps_it(tmp_path):
    assert read_lines(written(tmp_path, b"BOX\nXX\n")) == ["BOX", "XX"]


def test_streamed_lines_say_no_reason_unless_given_one(tmp_path):
    from paragen.data.corpus import iter_lines

    path = written(tmp_path, b"abc\n")
    with pytest.raises(CorpusError) as error:
        list(iter_lines(path, max_chars=2))
    assert str(error.value) == f"{path}:1: line has 3 characters; at most 2 are accepted per line"
