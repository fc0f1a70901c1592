"""``paragen report`` refuses before writing anything when a file its figures cannot do without is missing."""

import json
from pathlib import Path

import pytest

from conftest import write_test_outputs


def test_a_missing_copy_trace_is_refused_before_any_table_file_is_rewritten(tmp_path, monkeypatch, tiny_config):
    """Before: the table's md/csv/tex and provenance were rewritten, then read_trace stopped at the missing copy
    trace, leaving new tables beside old figures. Now nothing is written and the message names the file."""
    from paragen.config import ConfigError
    from paragen.report import build

    monkeypatch.chdir(tmp_path)
    Path("results/metrics").mkdir(parents=True)
    for experiment in ("t_encdec", "t_copynet", "t_wean"):
        Path(f"results/metrics/{experiment}.json").write_text(json.dumps(
            {"metric": "exact", "score": 0, "count": 10, "by_tag": {"x->x": {"top1": 50.0}}}))
        Path(f"runs/{experiment}").mkdir(parents=True)
        Path(f"runs/{experiment}/train_log.csv").write_text("epoch,valid_metric\n1,10.0\n2,20.0\n")
    write_test_outputs(tiny_config, "copynet_synthetic")
    table = Path("results/tables/copynet_synthetic.md")
    table.parent.mkdir(parents=True, exist_ok=True)
    table.write_text("the committed table\n")
    with pytest.raises(ConfigError, match=r"runs/t_copynet/copy_trace\.json\); nothing was written") as refused:
        build.build_table_report(tiny_config, "copynet_synthetic")
    assert "--tables-only" in str(refused.value)
    assert table.read_text() == "the committed table\n"
    assert not Path("results/tables/copynet_synthetic.csv").exists()
    build.build_table_report(tiny_config, "copynet_synthetic", figures=False)  # the tables alone need no trace
    assert "| CopyNet |" in table.read_text()
