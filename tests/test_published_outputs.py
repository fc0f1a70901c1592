"""Our scorers on the real released outputs must give the published numbers back (needs ../shared/data)."""

import json

import pytest

from paragen.cli import main
from paragen.report.published import score_published_outputs

from conftest import MIRROR

needs_mirror = pytest.mark.skipif(not (MIRROR / "system_outputs").is_dir(),
                                  reason=f"public-data mirror not found at {MIRROR} (set PARAGEN_MIRROR)")


@needs_mirror
def test_turk_sari_and_bleu_match_published_values():
    rows = [r for r in score_published_outputs(MIRROR) if r.test_set == "turk"]
    sari = {r.system: r for r in rows if r.metric == "SARI (legacy)"}
    bleu = {r.system: r for r in rows if r.metric == "BLEU"}
    assert set(sari) == {"SBMT-SARI", "PBMT-R", "Hybrid", "EncDecA", "Dress", "Dress-Ls"}
    for system, row in sari.items():
        assert abs(row.ours - row.published) <= 0.05, (system, row.ours, row.published)
    for system, row in bleu.items():
        assert abs(row.ours - row.published) <= 0.3, (system, row.ours, row.published)


@needs_mirror
def test_pwkp_bleu_matches_wean_table_1_and_sari_mismatch_is_reported(tmp_path, monkeypatch):
    rows = [r for r in score_published_outputs(MIRROR) if r.test_set == "pwkp"]
    assert all(r.reproduced for r in rows if r.metric.startswith("BLEU"))
    assert not any(r.reproduced for r in rows if r.metric.startswith("SARI"))
    monkeypatch.chdir(tmp_path)
    assert main(["published-outputs", "--mirror", str(MIRROR)]) == 0
    table = (tmp_path / "results/tables/published_outputs.md").read_text()
    assert "NOT reproduced" in table and "| Dress | SARI (legacy) | 37.08 | 37.08 |" in table


@needs_mirror
def test_cli_scores_real_turk_files(capsys):
    turk = MIRROR / "turkcorpus/cocoxu_simplification/data/turkcorpus/test.8turkers.tok."
    system = MIRROR / "system_outputs/XingxingZhang_dress/all-system-output/WikiLarge/test/lower"
    args = ["score", "--metric", "sari", "--src", f"{turk}norm", "--hyp", str(system / "Dress-Ls.lower"),
            "--compare", str(system / "Hybrid.lower"), "--bootstrap", "200", "--json"]
    for i in range(8):
        args += ["--ref", f"{turk}turk.{i}"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["score"] == pytest.approx(37.27, abs=0.05)
    assert result["bootstrap"]["p_value"] < 0.05  # Dress-Ls (37.27) vs Hybrid (31.40)


def test_mirror_missing_is_a_clear_error(tmp_path, capsys):
    assert main(["published-outputs", "--mirror", str(tmp_path / "nowhere")]) == 2
    assert "not found in the mirror" in capsys.readouterr().err
