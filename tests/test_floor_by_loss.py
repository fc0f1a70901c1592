"""``floor_by_loss``: while the validation metric sits at its floor (0), a falling validation loss is the gain, so a
run on tiny data neither stops nor keeps epoch 1's weights before the metric can move. Logs written by hand; each
expected epoch is worked out in the comment beside it."""

from __future__ import annotations

from paragen.config import TrainingConfig
from paragen.training.stopping import TrainState, trained_with, training_outcome

# BLEU stays 0 for three epochs while the loss falls, then rises: the run of the own-data trial that stopped at 3
LOG = [{"epoch": 1, "valid_metric": 0.0, "valid_loss": 5.0},
       {"epoch": 2, "valid_metric": 0.0, "valid_loss": 4.0},
       {"epoch": 3, "valid_metric": 0.0, "valid_loss": 3.5},
       {"epoch": 4, "valid_metric": 2.1, "valid_loss": 3.2},
       {"epoch": 5, "valid_metric": 1.0, "valid_loss": 3.1},
       {"epoch": 6, "valid_metric": 3.0, "valid_loss": 3.0},
       {"epoch": 7, "valid_metric": 2.0, "valid_loss": 3.0},
       {"epoch": 8, "valid_metric": 2.5, "valid_loss": 3.0}]


def test_without_it_the_zero_floor_stops_the_run_at_epoch_3_keeping_epoch_1():
    rule = TrainingConfig(max_epochs=8, patience=2)
    outcome = training_outcome(LOG, rule)
    # epoch 1: 0 > -inf, best; epochs 2 and 3 tie at 0: two bad epochs, patience 2 stops at 3
    assert (outcome.best_epoch, outcome.epochs_run) == (1, 3)


def test_with_it_the_loss_carries_the_run_until_the_metric_moves():
    rule = TrainingConfig(max_epochs=8, patience=2, floor_by_loss=True)
    outcome = training_outcome(LOG, rule)
    # epochs 1-3: metric 0, loss 5 > 4 > 3.5: each a gain (best 3); epoch 4: 2.1 > 0, best; 5: 1.0, bad (1);
    # 6: 3.0 > 2.1, best; 7: bad (1); 8: bad (2) and the cap: best epoch 6 of 8
    assert (outcome.best_epoch, outcome.epochs_run) == (6, 8)


def test_once_the_metric_has_moved_a_zero_is_a_bad_epoch_whatever_the_loss():
    state = TrainState()
    assert state.record(1, 0.0, 4.0, True) and state.record(2, 1.5, 3.0, True)
    assert not state.record(3, 0.0, 1.0, True)  # the metric left its floor at epoch 2: the loss no longer counts
    assert (state.best_epoch, state.bad_epochs) == (2, 1)
    assert not state.record(4, 0.0, None, True)  # no loss logged: the metric alone, as without the setting


def test_the_small_preset_sets_it_and_a_report_judges_a_run_by_the_rule_it_trained_under():
    from conftest import ROOT
    from paragen.config import load_config

    assert load_config(ROOT / "params.yaml").training["small"].floor_by_loss
    current = TrainingConfig(max_epochs=8, patience=2, floor_by_loss=True)
    recorded = [{"stopping": {"max_epochs": 8, "patience": 2, "min_epochs": 0, "floor_by_loss": False}}]
    assert trained_with(recorded, current).floor_by_loss is False
    assert trained_with([{"stopping": {"max_epochs": 8, "patience": 2, "min_epochs": 0}}], current).floor_by_loss


def test_a_selected_epoch_whose_validation_outputs_are_mostly_empty_says_so():
    rule = TrainingConfig(max_epochs=3, patience=2)
    log = [{**row, "valid_empty": 30.0, "valid_repeated": 0.0, "valid_lines": 30.0} for row in LOG[:3]]
    assert training_outcome(log, rule).describe() == (
        "best epoch 1 of 3 run; stopped early (2 epochs without a validation gain); at the selected epoch 30 of 30 "
        "validation outputs empty")
    healthy = [{**row, "valid_empty": 1.0, "valid_repeated": 0.0, "valid_lines": 30.0} for row in LOG[:3]]
    assert "empty" not in training_outcome(healthy, rule).describe()  # 1 of 30 (3 %) is under the 5 % share
    older = [{**row, "valid_empty": float("nan"), "valid_repeated": float("nan"), "valid_lines": float("nan")}
             for row in LOG[:3]]
    assert training_outcome(older, rule).degenerate is None  # a log from before the counts: nothing claimed
