"""Cluster-request arithmetic the mutation run of pipeline/resources.py (``bash bench/mutation.sh resources``) found
unpinned: each expected figure below is worked out by hand from the formula the function's docstring states, on
numbers chosen so that the surviving mutant (named in each docstring) gives another answer."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from paragen.config import DecodingConfig, ModelConfig, load_config
from paragen.pipeline import resources
from paragen.pipeline.resources import (Resources, StageRate, TrainEstimate, _beam_factor, data_resources,
                                        data_stage_request, decode_resources, measured_gpu_rates, parameters, serial)
from conftest import ROOT
from test_local_data import local_params


@pytest.mark.parametrize("beam, max_length, factor", [
    (20, 160, 4.0),  # 2 x 2; "/" between the two factors gives 1.0, beam/11 gives 3.64
    (5, 40, 1.0),  # both floors at 1.0; a floor of 2.0 on either side gives 2.0
    (10, 81, 81 / 80),  # 1.0125; max_length/81 gives 1.0
])
def test_decoding_time_scales_with_the_beam_and_the_length_above_the_measured_ones(beam, max_length, factor):
    """Decoding was measured at beam 10 and up to 80 tokens: the factor is max(1, beam/10) x max(1, length/80)."""
    assert _beam_factor(DecodingConfig(beam_size=beam, max_length=max_length, nbest=1)) == pytest.approx(factor)


def test_a_decode_request_from_its_lines_and_beam(tmp_path, monkeypatch):
    """9,045 test lines at beam 20, length 160 (factor 4): 2 x 9,045 x 4 / 30 lines a second = 2,412 s = 40.2 min,
    plus 10 min start-up = 50.2, rounded up to 60. Mutants: lines divided by the factor (20 min), the safety
    factor divided by the lines (10 min), seconds / 61 (49.5 -> 50)."""
    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    raw["decoding"]["wide"] = {"beam_size": 20, "max_length": 160}
    raw["experiments"]["m_encdec"]["decoding"] = "wide"
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    (tmp_path / "mydata/test.src").write_text("a b\n" * 9045)
    monkeypatch.chdir(tmp_path)
    assert decode_resources(load_config("params.yaml"), "m_encdec").runtime == 60


def test_a_data_stage_request_by_hand_and_its_cap():
    """1,659 s and 700 MB per million pairs, one million pairs: 5 + 2 x 1,659 / 60 = 60.3 min -> 70 (seconds / 61
    gives 59.4 -> 60; steps of 11 give 66; x 60 instead of / 60 gives hours); 2,000 + 1.5 x 700 = 3,050 MB -> 4,000
    (steps of 1,001 give 4,004). A cap of 30 gives 30 (a mutant that never caps gives 70); no cap keeps 70 (a
    mutant that always caps fails on None)."""
    rate = StageRate(seconds_per_million_pairs=1659, mb_per_million_pairs=700)
    assert data_stage_request(rate, 1.0) == Resources(gpus=0, mem_mb=4000, runtime=70)
    assert data_stage_request(rate, 1.0, None).runtime == 70
    assert data_stage_request(rate, 1.0, 30).runtime == 30
    assert data_stage_request(rate, 1.0, 80).runtime == 70


def test_a_huge_local_dataset_asks_for_at_most_max_runtime(tmp_path, monkeypatch):
    """250 million pairs a split: every data stage's estimate is days; max_runtime 120 caps each request at 120
    (a mutant that drops the config's cap asks for the estimate)."""
    shutil.copy(ROOT / "tests/fixtures/tiny_params.yaml", tmp_path / "params.yaml")
    local_params(tmp_path)
    raw = yaml.safe_load((tmp_path / "params.yaml").read_text())
    raw["max_runtime"] = 120
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(resources, "split_pairs", lambda config, dataset, split: 250_000_000)
    requests = data_resources(load_config("params.yaml"), "mine")
    assert [r.runtime for r in (requests.prepare, requests.segment, requests.vocab)] == [120, 120, 120]


def test_rates_are_read_from_the_folder_given(tmp_path):
    """A GPU rate file in the folder passed in is read (a mutant reading results/train_speed/ instead finds only the
    CPU file there, which is skipped, and returns nothing)."""
    (tmp_path / "gpu.json").write_text(json.dumps({"device": "NVIDIA H100", "date": "2026-11-25", "results": [
        {"name": "syn_copynet", "train_tokens_per_s": 9000.0, "target_length": 20.0, "batch": 64,
         "architecture": "copynet"}]}))
    rates = measured_gpu_rates(tmp_path)
    assert list(rates) == ["syn_copynet"] and rates["syn_copynet"].tokens_per_s == 9000.0


def test_one_job_for_several_stages_and_none_for_no_stage():
    """The most GPUs (2) and memory (5,000) any stage asks for, the sum of the wall times (30 + 20 + 50)."""
    assert serial([Resources(1, 2000, 30), Resources(0, 5000, 20), Resources(2, 1000, 50)]) == Resources(2, 5000, 100)
    with pytest.raises(ValueError, match="^no stages to run$"):
        serial([])


@pytest.mark.parametrize("epoch_seconds, jobs", [
    (3000, 5),  # (120 - 10) x 60 / (2 x 3,000) = 1.1 -> 1 epoch a job -> 5 jobs (a mutant wanting 2 a job: None)
    (1666, 5),  # 6,600 / 3,332 = 1.98 -> 1 a job -> 5 (x 61 instead of x 60: 2.01 -> 2 a job -> 3 jobs)
    (4000, None),  # 6,600 / 8,000 = 0.83: not one epoch fits a 120-minute job
])
def test_jobs_a_capped_training_takes(epoch_seconds, jobs):
    """Five epochs at the doubled rate, 120-minute jobs less 10 minutes of start-up each."""
    estimate = TrainEstimate(pairs=1000, epoch_seconds=epoch_seconds, epochs=5, minutes=10_000, basis="projected")
    assert estimate.jobs(120) == jobs


def test_parameters_of_a_transformer_and_of_lstm_and_gru_encoders_by_hand():
    """Transformer, d 8, 2 heads of 4, feed-forward 16, 2 + 2 layers, 10 words: feed-forward 2 x 8 x 16 = 256;
    encoder 2 x (4 x 8 x 8 + 256) = 1,024; decoder 2 x (8 x 8 x 8 + 256) = 1,536; output 10 x 8 = 80; two
    embedding tables 2 x 10 x 8 = 160: 2,800.
    RNNSearch, embedding 4, hidden 6, bidirectional (memory 12), one layer a side, 10 words: LSTM (4 gates):
    encoder 2 x 4 x 6 x (4 + 6) = 480, decoder 4 x 6 x (4 + 12 + 6) = 528, attention 2 x 12 x 6 = 144, output
    10 x 6 = 60, tables 2 x 10 x 4 = 80: 1,292; GRU (3 gates): 360 + 396 + 144 + 60 + 80 = 1,040."""
    transformer = ModelConfig(architecture="transformer", embedding_size=8, heads=2, key_size=4, feedforward_size=16,
                              encoder_layers=2, decoder_layers=2)
    assert parameters(transformer, 10) == 2800
    rnn = dict(architecture="rnnsearch", embedding_size=4, hidden_size=6, bidirectional=True, encoder_layers=1,
               decoder_layers=1)
    assert parameters(ModelConfig(cell="lstm", **rnn), 10) == 1292
    assert parameters(ModelConfig(cell="gru", **rnn), 10) == 1040


def test_snakemakes_resource_names():
    """Snakemake's standard names, which the SLURM executor plugin reads: ``gpu``, ``mem_mb``, ``runtime``."""
    assert Resources(gpus=2, mem_mb=3000, runtime=40).snakemake() == {"gpu": 2, "mem_mb": 3000, "runtime": 40}


def test_parameters_of_a_unidirectional_two_layer_and_a_summed_bidirectional_encoder_by_hand():
    """GRU RNNSearch, embedding 4, hidden 6, 10 words, two embedding tables (80).
    One direction, 2 + 2 layers (memory 6): encoder 3 x 6 x (4 + 6) = 180 plus a layer 3 x 6 x (6 + 6) = 216;
    decoder 3 x 6 x (4 + 6 + 6) = 288 plus a layer 3 x 6 x 2 x 6 = 216; attention 2 x 6 x 6 = 72; output 60:
    1,112 (two directions regardless, memory 12: 1,008 + 612 + 144 + 60 + 80 = 1,904). Both directions summed,
    one layer a side (memory 6, not 12): 2 x 3 x 6 x (4 + 6) = 360, 288, 72, 60, 80: 860 (memory 12 as if
    concatenated: 1,040)."""
    rnn = dict(architecture="rnnsearch", cell="gru", embedding_size=4, hidden_size=6)
    assert parameters(ModelConfig(bidirectional=False, encoder_layers=2, decoder_layers=2, **rnn), 10) == 1112
    assert parameters(ModelConfig(bidirectional=True, bidirectional_merge="sum", **rnn), 10) == 860


def test_parameters_of_a_two_layer_bidirectional_encoder_encdec_wean_and_shared_tables_by_hand():
    """GRU, embedding 4, hidden 6, 10 words, both directions concatenated (memory 12), one decoder layer.
    RNNSearch with 2 encoder layers: encoder 2 x 3 x 6 x (4 + 6) = 360 plus a layer 2 x 3 x 6 x (12 + 6) = 648,
    decoder 3 x 6 x (4 + 12 + 6) = 396, attention 2 x 12 x 6 = 144, output 10 x 6 = 60, two tables 80: 1,688 (the
    layer divided by the directions instead: 162, total 1,202). One encoder layer: 360 + 396 + 144 + 60 + 80 =
    1,040; Enc-Dec has no attention: 896 (a mutant with attention 1 there: 897); WEAN's output layer scores the
    embeddings, 10 x 4 = 40: 1,020; shared embeddings, one table (40): 1,000."""
    gru = dict(cell="gru", embedding_size=4, hidden_size=6, bidirectional=True, decoder_layers=1)
    assert parameters(ModelConfig(architecture="rnnsearch", encoder_layers=2, **gru), 10) == 1688
    assert parameters(ModelConfig(architecture="encdec", encoder_layers=1, **gru), 10) == 896
    assert parameters(ModelConfig(architecture="wean", encoder_layers=1, **gru), 10) == 1020
    assert parameters(ModelConfig(architecture="rnnsearch", encoder_layers=1, share_embeddings=True, **gru), 10) == 1000


def test_host_memory_by_hand():
    """4,000 MB base + a million pairs at 1,477 bytes each (the measured epoch batches' 1,477 MB a million pairs):
    1,477 MB + the 1,040-parameter GRU at 16 bytes (16,640 bytes: 0 MB) = 5,477 (dividing the pairs' bytes by
    11**6 gives 833: 4,833)."""
    model = ModelConfig(architecture="rnnsearch", cell="gru", embedding_size=4, hidden_size=6, bidirectional=True)
    assert resources._host_mb(10**6, model, 10) == 5477


def test_a_training_request_uses_the_rates_it_is_given(tmp_path, monkeypatch):
    """t_copynet measured at 0.001 target tokens a second (its own batch and architecture): one epoch of any size
    takes far longer than max_runtime, so the request is capped there; without those rates (the committed GPU
    rates hold no t_copynet) it is the projection, far below the cap."""
    from paragen.pipeline.resources import MeasuredRate, train_resources

    config = load_config(ROOT / "tests/fixtures/tiny_params.yaml")
    spec = config.experiments["t_copynet"]
    slow = {"t_copynet": MeasuredRate(tokens_per_s=0.001, target_length=10.0,
                                      batch=config.training[spec.training].batch_size,
                                      architecture=config.models[spec.model].architecture, device="test", date="-")}
    assert train_resources(config, "t_copynet", slow).runtime == config.max_runtime
    assert train_resources(config, "t_copynet", {}).runtime < config.max_runtime


@pytest.mark.parametrize("gpus, mem_mb, runtime", [(-1, 1000, 10), (0, 0, 10), (1, 1000, 0)])
def test_each_field_of_a_request_is_checked_on_its_own(gpus, mem_mb, runtime):
    """One bad field at a time (a mutant joining the checks with "and" needs two); 0 GPUs is a CPU job."""
    with pytest.raises(ValueError) as error:
        Resources(gpus=gpus, mem_mb=mem_mb, runtime=runtime)
    assert str(error.value) == (f"resources must be positive (gpus may be 0): Resources(gpus={gpus}, "
                                f"mem_mb={mem_mb}, runtime={runtime})")
    assert Resources(gpus=0, mem_mb=1, runtime=1).gpus == 0


def test_line_counts_of_a_local_file(tmp_path):
    """Newline bytes: 3 for three lines, 1 for one line, and at least 1 for an empty file (a floor of 2 would
    give 2 for the one-line file)."""
    for name, text, lines in (("three", b"a\nb\nc\n", 3), ("one", b"a\n", 1), ("empty", b"", 1)):
        (tmp_path / name).write_bytes(text)
        assert resources._line_count(tmp_path / name) == lines


def test_two_gpus_split_an_odd_batch_as_the_projection_says(monkeypatch):
    """Batch 3 on 2 GPUs: each process's share is ceil(3 / 2) = 2, so a target token costs
    64 / (7,000 x 2) / 2 s against 64 / (7,000 x 3) s on one GPU: the GPU part of an epoch is 3/4 of one GPU's
    (an even batch gives the same on both, which is why a mutant dropping the GPU count survived). The host's
    batching (155.2 s a million pairs) is the same on both and taken out."""
    raw = yaml.safe_load((ROOT / "tests/fixtures/tiny_params.yaml").read_text())
    raw["training"]["tiny"]["batch_size"] = 3
    monkeypatch.setattr(resources, "split_pairs", lambda config, dataset, split: 1_000_000)
    gpu_parts = []
    for gpus in (1, 2):
        raw["experiments"]["t_copynet"]["gpus"] = gpus
        from paragen.config import parse_config

        estimate = resources.train_estimate(parse_config(raw), "t_copynet", {})
        gpu_parts.append(estimate.epoch_seconds - 155.2)
    assert gpu_parts[1] / gpu_parts[0] == pytest.approx(0.75)


def test_vocabulary_sizes_by_hand():
    """Headline stand-in: 50 content + 20 filler + ceil(50 x 0.3) = 15 rewritten + 4 specials = 89 (a minus for
    any plus gives 81, 59 or 19). A real dataset of words without a size: the 50,000 assumed + 4 = 50,004; with
    BPE and no size: 5,000 merges + a 1,000-symbol alphabet + 4 = 6,004 (an "or" would give BPE's to the words)."""
    from types import SimpleNamespace

    from paragen.config import HeadlineSyntheticDataset, RealDataset
    from paragen.pipeline.resources import vocabulary_size

    headline = HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=1, valid_pairs=1, test_pairs=1,
                                        content_words=50, filler_words=20, rewrite_fraction=0.3)
    words = RealDataset(kind="real", fetch=["pwkp"], splits=["train"], segmentation="word")
    bpe = RealDataset(kind="real", fetch=["pwkp"], splits=["train"], segmentation="bpe")
    config = SimpleNamespace(datasets={"h": headline, "w": words, "b": bpe})
    assert [vocabulary_size(config, name) for name in ("h", "w", "b")] == [89, 50004, 6004]


def test_synthetic_sizes_and_the_projected_token_time_by_hand():
    """Rule data, 3 rules x 5 instances: half = 15 // 2 = 7 (7.5 with "/"), validation round(7 x 0.2) = 1, train
    6, test 7; its vocabulary 200 symbols + 4 = 204; a real one of 10,000 words: 10,004 (10,000 - 4 with a minus,
    50,004 with "and"). A token's projected GPU time at a batch of 64: a Transformer runs its decoder layers in
    parallel, 64 / (7,000 x 64) = 1/7,000 s whatever its 2 layers; a 2-layer RNN decoder 2/7,000; one GPU unless
    told."""
    from types import SimpleNamespace

    from paragen.config import RealDataset, SyntheticDataset
    from paragen.pipeline.resources import gpu_seconds_per_target_token, split_pairs, vocabulary_size

    rules = SyntheticDataset(kind="synthetic", rules=3, instances_per_rule=5, symbols=200, valid_fraction=0.2)
    words = RealDataset(kind="real", fetch=["pwkp"], splits=["train"], segmentation="word", vocab_size=10_000)
    config = SimpleNamespace(datasets={"r": rules, "w": words})
    assert [split_pairs(config, "r", split) for split in ("train", "valid", "test")] == [6, 1, 7]
    assert (vocabulary_size(config, "r"), vocabulary_size(config, "w")) == (204, 10_004)
    transformer = ModelConfig(architecture="transformer", embedding_size=8, heads=2, key_size=4, decoder_layers=2)
    rnn = ModelConfig(architecture="rnnsearch", decoder_layers=2)
    assert gpu_seconds_per_target_token(transformer, 64) == pytest.approx(1 / 7000)
    assert gpu_seconds_per_target_token(rnn, 64) == pytest.approx(2 / 7000)
    assert gpu_seconds_per_target_token(rnn, 3) == pytest.approx(2 * 64 / (7000 * 3))  # two GPUs: 2 x 64 / (7,000 x 4)


def test_headline_split_sizes_and_a_recipe_without_a_count():
    """The headline stand-in's splits are its own settings (3, 2, 1); a recipe with no count for a split is
    refused naming the dataset, the recipe and the split (turk_mini's recipe has no "valid_zl")."""
    from types import SimpleNamespace

    from paragen.config import HeadlineSyntheticDataset, RealDataset
    from paragen.pipeline.resources import split_pairs

    headline = HeadlineSyntheticDataset(kind="headline_synthetic", train_pairs=3, valid_pairs=2, test_pairs=1)
    turk = RealDataset(kind="real", fetch=["turkcorpus"], splits=["train"], recipe="turk_mini", segmentation="word")
    config = SimpleNamespace(datasets={"h": headline, "t": turk})
    assert [split_pairs(config, "h", split) for split in ("train", "valid", "test")] == [3, 2, 1]
    with pytest.raises(ValueError) as error:
        split_pairs(config, "t", "valid_zl")
    assert str(error.value) == ("datasets.t: recipe 'turk_mini' has no paper count or estimate of its 'valid_zl' "
                                "split to size cluster requests with; add one to its Recipe in paragen/data/prepare.py")
