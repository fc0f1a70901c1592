"""The epoch closest to the paper's row (issue 25), and the readable heat map's source window."""

import math

from paragen.training.closest_epoch import closest_epoch, mean_rows

COLUMNS = {"a": "valid_em_a", "b": "valid_em_b"}


def _row(epoch, a, b):
    return {"epoch": float(epoch), "valid_em_a": a, "valid_em_b": b}


def test_closest_epoch_by_hand():
    rows = [_row(1, 10, 0), _row(2, 40, 20), _row(3, 70, 60), _row(4, 90, 80)]
    paper = {"a": 45.0, "b": 25.0, "c": 99.0}  # c: no log column, left out
    # distances: epoch 1 (35 + 25)/2 = 30; epoch 2 (5 + 5)/2 = 5; epoch 3 (25 + 35)/2 = 30; epoch 4 (45 + 55)/2 = 50
    found = closest_epoch(rows, paper, COLUMNS, best_epoch=4)
    assert (found.epoch, found.distance, found.best_epoch_distance) == (2, 5.0, 50.0)
    assert closest_epoch(rows, paper, COLUMNS).best_epoch_distance is None
    # a tie goes to the earlier epoch: 10 and 30 are both 10 away from 20
    assert closest_epoch([_row(1, 10, 10), _row(2, 30, 30)], {"a": 20.0, "b": 20.0}, COLUMNS).epoch == 1


def test_logs_without_per_type_columns_give_no_epoch():
    assert closest_epoch([{"epoch": 1.0, "valid_metric": 3.0}], {"a": 1.0}, COLUMNS) is None
    assert closest_epoch([_row(1, math.nan, 2)], {"a": 1.0, "b": 2.0}, COLUMNS) is None


def test_mean_rows_average_the_seeds_that_reached_each_epoch():
    means = mean_rows([[_row(1, 10, 0), _row(2, 30, 10)], [_row(1, 20, 4)]])
    assert means == [_row(1, 15, 2), _row(2, 30, 10)]


def test_source_window_keeps_the_fillers_and_at_most_thirty_tokens():
    from paragen.report.figure_heatmaps import source_window

    assert source_window(12, {"x": [3, 5]}) == range(12)
    # 50 tokens, fillers over [20, 30): 10 tokens of fillers, 10 of context either side
    assert source_window(50, {"x": [20, 24], "y": [26, 30]}) == range(10, 40)
    assert source_window(50, {"x": [45, 49]}) == range(20, 50)  # clamped at the end
    assert source_window(50, None) == range(30)
