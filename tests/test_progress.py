"""paragen.progress: a log line instead of a terminal bar when stderr is a log file."""

from __future__ import annotations

import logging

from paragen.progress import progress_bar


def _run(interval_s, enabled=True, items=4):
    bar = progress_bar(range(items), enabled=enabled, interval_s=interval_s, desc="decode", unit="batch")
    for _ in bar:
        bar.set_postfix(loss="0.5")  # tqdm refreshes on every postfix: the sink must still rate-limit
    bar.close()


def test_in_a_log_file_each_refresh_is_one_readable_line(caplog):
    # pytest's captured stderr is not a terminal, as under Snakemake or SLURM
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        _run(interval_s=0)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "decode: 0/4 batch (0 %), 00:00 elapsed, ? left"
    assert "decode: 2/4 batch (50 %), 00:00 elapsed, 00:00 left, loss=0.5" in lines
    assert not any("\r" in line for line in lines)


def test_at_most_one_line_an_interval_besides_the_last(caplog):
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        _run(interval_s=3600, items=50)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("decode: 0/50 batch (0 %)")
    # the last state is written when the bar closes, even within the interval (a log file then says it finished)
    assert len(lines) == 2 and lines[1].startswith("decode: 50/50 batch (100 %)")


def test_a_bar_closed_early_logs_where_it_stopped_once(caplog):
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        bar = progress_bar(range(4), enabled=True, interval_s=0, desc="decode", unit="batch")
        for index in bar:
            if index == 2:
                break
        bar.close()
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(",")[0] for line in lines] == ["decode: 0/4 batch (0 %)", "decode: 1/4 batch (25 %)",
                                                      "decode: 2/4 batch (50 %)"]


def test_disabled_means_silent(caplog):
    with caplog.at_level(logging.INFO, logger="paragen.progress"):
        _run(interval_s=0, enabled=False)
    assert caplog.records == []
