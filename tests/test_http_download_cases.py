"""`paragen.data.fetch.http_download` against a scripted `urlopen` (each call answers from a list: a response, or
an error to raise): how many attempts it makes and what each retry says, a server that ignores the Range
request, an answer shorter than announced, 416 and other HTTP errors, and what it passes to `urlopen` and to the
progress bar. Expected values are worked out by hand from the scripts below.
"""

from __future__ import annotations

import http.client
import logging
import urllib.error
import urllib.request
from types import SimpleNamespace

import pytest

from paragen.data import fetch
from paragen.data.fetch import FetchError, http_download

URL = "http://data.example.org/f.txt"


class Response:
    """What urlopen returns: ``status``, ``headers`` and ``read`` over ``body``."""

    def __init__(self, body: bytes, status: int = 200, length: int | None = None, announced: bool = True):
        self.body, self.status = body, status
        self.headers = http.client.HTTPMessage()  # looked up without regard to case, as a real answer's
        if announced:
            self.headers["Content-Length"] = str(len(body) if length is None else length)

    def read(self, n: int) -> bytes:
        chunk, self.body = self.body[:n], self.body[n:]
        return chunk

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def answers(monkeypatch):
    """Script urlopen: append responses or exceptions to ``answers.script``; ``answers.calls`` records each
    request's Range header and timeout."""
    script: list = []
    calls: list = []

    def urlopen(request, timeout):
        calls.append((request.headers.get("Range"), timeout))
        answer = script.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return SimpleNamespace(script=script, calls=calls)


def test_four_attempts_by_default_each_retry_said(answers, tmp_path, caplog):
    """A connection reset every time: the first attempt and 3 retries, each of the first three said as "no data
    received", then one error naming the attempts and the last error; every request waits at most 60 s."""
    reset = ConnectionResetError(104, "Connection reset by peer")
    answers.script.extend([reset] * 4)
    with caplog.at_level(logging.WARNING, logger="paragen.data.fetch"), pytest.raises(FetchError) as error:
        http_download(URL, tmp_path / "f.txt", progress=False)
    assert str(error.value) == f"{URL}: download failed after 4 attempts: [Errno 104] Connection reset by peer"
    assert caplog.messages == [f"{URL}: no data received ([Errno 104] Connection reset by peer); retrying ({k} of 3)"
                               for k in (1, 2, 3)]
    assert answers.calls == [(None, 60.0)] * 4


def test_a_retry_after_received_bytes_says_how_many(answers, tmp_path, caplog):
    """5 bytes already in the part file, the server resets, then sends the rest (status 206): the retry asks for
    bytes 5 onward, the warning gives the 5 bytes, and the file is whole."""
    (tmp_path / "f.txt.part").write_bytes(b"hello")
    answers.script.extend([ConnectionResetError(104, "Connection reset by peer"), Response(b" world", 206)])
    with caplog.at_level(logging.WARNING, logger="paragen.data.fetch"):
        part = http_download(URL, tmp_path / "f.txt", progress=False)
    assert part.read_bytes() == b"hello world"
    assert caplog.messages == [f"{URL}: transfer interrupted at 5 bytes ([Errno 104] Connection reset by peer); "
                               "retrying (1 of 3)"]
    assert [r for r, _ in answers.calls] == ["bytes=5-", "bytes=5-"]


def test_a_server_that_ignores_the_range_rewrites_the_file(answers, tmp_path):
    (tmp_path / "f.txt.part").write_bytes(b"hel")
    answers.script.append(Response(b"hello world", 200))
    assert http_download(URL, tmp_path / "f.txt", progress=False).read_bytes() == b"hello world"


def test_an_answer_shorter_than_announced_is_retried_and_said(answers, tmp_path, caplog):
    """Content-Length 11, 5 bytes sent: an incomplete read of 6 more bytes expected, retried from byte 5."""
    answers.script.extend([Response(b"hello", 200, length=11), Response(b" world", 206)])
    with caplog.at_level(logging.WARNING, logger="paragen.data.fetch"):
        part = http_download(URL, tmp_path / "f.txt", progress=False)
    assert part.read_bytes() == b"hello world"
    assert caplog.messages == [f"{URL}: transfer interrupted at 5 bytes (IncompleteRead(0 bytes read, 6 more "
                               "expected)); retrying (1 of 3)"]


def test_416_means_the_part_file_is_complete_and_other_errors_fail(answers, tmp_path):
    (tmp_path / "f.txt.part").write_bytes(b"hello")
    answers.script.append(urllib.error.HTTPError(URL, 416, "Range Not Satisfiable", {}, None))
    assert http_download(URL, tmp_path / "f.txt", progress=False).read_bytes() == b"hello"
    answers.script.append(urllib.error.HTTPError(URL, 404, "Not Found", {}, None))
    with pytest.raises(FetchError) as error:
        http_download(URL, tmp_path / "f.txt", progress=False)
    assert str(error.value) == f"{URL}: HTTP 404 Not Found"


def test_the_bar_is_made_for_bytes_starting_at_the_resumed_offset(answers, tmp_path, monkeypatch):
    bars = []
    real = fetch.progress_bar
    monkeypatch.setattr(fetch, "progress_bar", lambda **kwargs: bars.append(kwargs) or real(**kwargs))
    (tmp_path / "f.txt.part").write_bytes(b"hello")
    answers.script.append(Response(b" world", 206))
    http_download(URL, tmp_path / "f.txt", progress=False)
    assert bars == [{"enabled": False, "total": 11, "initial": 5, "unit": "B", "unit_scale": True, "desc": "f.txt"}]


def test_an_answer_without_a_length_is_read_to_its_end(answers, tmp_path):
    answers.script.append(Response(b"hello world", 200, announced=False))
    assert http_download(URL, tmp_path / "f.txt", progress=False).read_bytes() == b"hello world"
