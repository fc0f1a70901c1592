"""The dataset registry and `paragen fetch` against a loopback server and the local mirror."""

import hashlib

import pytest

from paragen.cli import main
from paragen.data import registry
from paragen.data.registry import DatasetSource, ManualPlacementRequired, fetch_dataset, load_registry

from conftest import MIRROR
from loopback import Server



def test_registry_is_parsed_once_and_each_caller_gets_its_own_dict(monkeypatch):
    """Validating params.yaml reads the registry once per real dataset; parsing sources.yaml each time cost about
    a second a command. Parsed once, a caller that drops or adds an entry must still not change what the next
    caller reads."""
    parses = []
    real_load = registry.yaml.safe_load
    monkeypatch.setattr(registry.yaml, "safe_load", lambda text: parses.append(1) or real_load(text))
    registry._packaged_registry.cache_clear()
    try:
        first = load_registry()
        first.pop("pwkp")
        first["toy"] = first["lcsts"]
        second = load_registry()
    finally:
        registry._packaged_registry.cache_clear()
    assert len(parses) == 1
    assert "pwkp" in second and "toy" not in second and second is not first


def test_every_dataset_is_documented_and_every_file_verifiable():
    sources = load_registry()
    assert {"turkcorpus", "asset", "pwkp", "wikilarge", "ew_sew", "lcsts", "gigaword", "ppdb",
            "dress_outputs"} <= set(sources)
    for name, source in sources.items():
        assert source.licence and source.citation and source.expected, name
        for file in source.files:
            # a digest, or (where none is published: Hwang et al.'s release) a size, its digest recorded on fetch
            assert file.manual or file.sha256 or file.git_blob or file.size, f"{name}/{file.path} is not verifiable"
        if any(f.manual for f in source.files):
            assert source.manual, f"{name} needs placement instructions"
    assert sources["pwkp"].expected == {"train": 89042, "valid": 205, "test": 100}
    assert sources["lcsts"].expected["test"] == 725 and sources["wikilarge"].expected["train"] == 296402


@pytest.fixture
def fake_registry(monkeypatch):
    server = Server()
    body = b"line one\nline two\n"
    server.files["/set/a.txt"] = body
    source = DatasetSource.model_validate({
        "title": "t", "citation": "c", "licence": "l", "homepage": "h", "manual": "Apply at EXAMPLE.",
        "expected": {"test": 2},
        "files": [
            {"path": "a.txt", "urls": [server.url + "/set/a.txt"], "sha256": hashlib.sha256(body).hexdigest(),
             "split": "eval"},
            {"path": "train.txt", "urls": [], "split": "train"},
        ]})
    monkeypatch.setattr(registry, "load_registry", lambda: {"toy": source})
    yield server
    server.close()


def test_fetch_eval_scope_downloads_and_marks_completion(fake_registry, tmp_path):
    marker = fetch_dataset("toy", [], "eval", tmp_path, progress=False)
    assert (tmp_path / "toy" / "a.txt").read_text() == "line one\nline two\n"
    assert marker.exists() and marker.name == ".complete-eval.json"
    fetch_dataset("toy", [], "eval", tmp_path, progress=False)  # verified copy kept: no second request
    assert len(fake_registry.requests) == 1


def test_manual_files_are_named_with_instructions(fake_registry, tmp_path):
    with pytest.raises(ManualPlacementRequired) as error:
        fetch_dataset("toy", [], "all", tmp_path, progress=False)
    assert str(tmp_path / "toy" / "train.txt") in str(error.value) and "Apply at EXAMPLE." in str(error.value)
    assert (tmp_path / "toy" / "a.txt").exists()  # what could be fetched was fetched
    assert not (tmp_path / "toy" / ".complete-all.json").exists()
    (tmp_path / "toy" / "train.txt").write_text("placed by hand\n")
    assert fetch_dataset("toy", [], "all", tmp_path, progress=False).exists()


def test_unknown_dataset_lists_the_known_ones(capsys):
    assert main(["fetch", "nope"]) == 2
    assert "allowed values" in capsys.readouterr().err


@pytest.mark.skipif(not (MIRROR / "turkcorpus").is_dir(), reason=f"public-data mirror not found at {MIRROR}")
def test_fetch_evaluation_sets_from_the_real_mirror(tmp_path):
    for name in ("turkcorpus", "asset", "pwkp", "wikilarge", "dress_outputs", "ppdb"):
        fetch_dataset(name, [str(MIRROR)], "eval", tmp_path, progress=False)
    assert len((tmp_path / "turkcorpus" / "test.8turkers.tok.turk.7").read_text().splitlines()) == 359
    with pytest.raises(ManualPlacementRequired, match="PART_II.txt"):
        fetch_dataset("lcsts", [str(MIRROR)], "eval", tmp_path, progress=False)
    assert (tmp_path / "lcsts" / "PART_III.txt").exists()


def test_training_sets_download_over_http_and_prepare(monkeypatch, tmp_path):
    """True-format fixtures served on loopback: PWKP parallel text (CRLF, a duplicate) and LCSTS PART I."""
    from paragen.data.prepare import prepare_dataset

    server = Server()
    files = {
        "pwkp/train.src": b"the cat sat .\r\nit is big .\r\nthe cat sat .\r\n",
        "pwkp/train.dst": b"cat sat .\r\nit is big .\r\ncat sat .\r\n",
        "lcsts/PART_I.txt": ("<doc id=0>\n    <summary>\n        \u4eca\u5929\u5929\u6c14\n    </summary>\n"
                             "    <short_text>\n        \u4eca\u5929\u5929\u6c14\u5f88\u597d\n    </short_text>\n"
                             "</doc>\n").encode("utf-8"),
    }
    for path, body in files.items():
        server.files["/" + path] = body
    server.truncate_once.add("/pwkp/train.src")  # the transfer breaks off once and must resume

    def entry(dataset: str, name: str) -> dict:
        body = files[f"{dataset}/{name}"]
        return {"path": name, "urls": [f"{server.url}/{dataset}/{name}"], "split": "train",
                "sha256": hashlib.sha256(body).hexdigest()}

    common = {"title": "t", "citation": "c", "licence": "l", "homepage": "h", "expected": {"train": 1}}
    sources = {"pwkp": DatasetSource.model_validate({**common, "files": [entry("pwkp", "train.src"),
                                                                           entry("pwkp", "train.dst")]}),
               "lcsts": DatasetSource.model_validate({**common, "files": [entry("lcsts", "PART_I.txt")]})}
    monkeypatch.setattr(registry, "load_registry", lambda: sources)
    try:
        for name in sources:
            fetch_dataset(name, [], "all", tmp_path / "raw", progress=False)
    finally:
        server.close()
    resumed_at = len(files["pwkp/train.src"]) // 2
    assert ("/pwkp/train.src", f"bytes={resumed_at}-") in server.requests  # resumed after the broken transfer
    pwkp = prepare_dataset("pwkp", ["train"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    assert pwkp["train"]["pairs"] == 2 and "1 duplicate pairs removed" in pwkp["train"]["notes"]
    assert any("CRLF" in note for note in pwkp["train"]["notes"])
    lcsts = prepare_dataset("lcsts", ["train"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    assert lcsts["train"]["pairs"] == 1
    assert (tmp_path / "out/lcsts/train.tgt").read_text(encoding="utf-8") == "\u4eca\u5929\u5929\u6c14\n"


def _tar_gz(members: dict[str, bytes]) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def test_an_archive_entry_is_downloaded_unpacked_and_its_members_verified(monkeypatch, tmp_path):
    server = Server()
    train = b"a b c\n"
    archive = _tar_gz({"release/train.txt": train, "release/README": b"ignored\n"})
    server.files["/release.tar.gz"] = archive
    source = DatasetSource.model_validate({
        "title": "t", "citation": "c", "licence": "l", "homepage": "h", "expected": {"train": 1},
        "files": [{"path": "release.tar.gz", "urls": [server.url + "/release.tar.gz"], "split": "train",
                   "sha256": hashlib.sha256(archive).hexdigest(),
                   "extract": [{"member": "release/train.txt", "path": "train.txt",
                                "sha256": hashlib.sha256(train).hexdigest()}]}]})
    monkeypatch.setattr(registry, "load_registry", lambda: {"toy": source})
    (tmp_path / "raw" / "toy").mkdir(parents=True)
    (tmp_path / "raw" / "toy" / "notes.txt").write_text("kept")
    try:
        fetch_dataset("toy", [], "all", tmp_path / "raw", progress=False)
    finally:
        server.close()
    assert (tmp_path / "raw" / "toy" / "train.txt").read_bytes() == train
    assert (tmp_path / "raw" / "toy" / "notes.txt").read_text() == "kept"
    assert not (tmp_path / "raw" / "toy" / "README").exists()


def test_gigaword_release_archive_in_its_true_layout_unpacks_and_prepares(tmp_path):
    """The real registry entry's member list, on a summary.tar.gz built in the release's layout."""
    import gzip

    from paragen.data.prepare import prepare_dataset
    from paragen.data.registry import unpack_members

    articles = b"australia 's current account deficit shrunk by a record #.## billion dollars\n"
    titles = b"australian current account deficit narrows sharply\n"
    archive = tmp_path / "raw" / "gigaword" / "summary.tar.gz"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(_tar_gz({
        "sumdata/train/train.article.txt.gz": gzip.compress(articles),
        "sumdata/train/train.title.txt.gz": gzip.compress(titles),
        "sumdata/train/valid.article.filter.txt": articles, "sumdata/train/valid.title.filter.txt": titles,
        "sumdata/Giga/input.txt": articles, "sumdata/DUC2004/input.txt": b"not wanted\n"}))
    entry = next(f for f in load_registry()["gigaword"].files if f.path == "summary.tar.gz")
    unpack_members(archive, archive.parent, entry.extract)
    assert (archive.parent / "train.article.txt").read_bytes() == articles
    assert not (archive.parent / "train.article.txt.gz").exists()
    prepared = prepare_dataset("gigaword", ["train"], tmp_path / "raw", tmp_path / "out", check_counts=False)
    assert prepared["train"]["pairs"] == 1


def test_an_unpacked_member_that_differs_from_its_digest_is_refused(tmp_path, caplog):
    """The member's own sha256 (not the archive's) is checked after extraction; the error names the archive and
    the member. A member that matches is unpacked and logged with the archive's name."""
    import logging

    from paragen.data.fetch import HashMismatch
    from paragen.data.registry import ArchiveMember, unpack_members

    archive = tmp_path / "release.tar.gz"
    archive.write_bytes(_tar_gz({"release/train.txt": b"a b c\n"}))
    actual = hashlib.sha256(b"a b c\n").hexdigest()
    wrong = hashlib.sha256(b"something else\n").hexdigest()
    member = ArchiveMember(member="release/train.txt", path="train.txt", sha256=wrong)
    expected = f"{archive}:release/train.txt: sha256 mismatch: expected {wrong}, got {actual}"
    with pytest.raises(HashMismatch) as error:
        unpack_members(archive, tmp_path / "out", [member])
    assert str(error.value) == expected
    with caplog.at_level(logging.INFO, logger="paragen.data.registry"):
        unpack_members(archive, tmp_path / "ok", [member.model_copy(update={"sha256": actual})])
    assert (tmp_path / "ok" / "train.txt").read_bytes() == b"a b c\n"
    assert f"{tmp_path / 'ok' / 'train.txt'}: unpacked from release.tar.gz" in caplog.messages


def test_a_digest_nobody_publishes_is_recorded_and_said_whole(tmp_path, caplog):
    """A file with no published sha256: its digest goes to .recorded-digests.json and one warning says where, with
    its size check ("matched (6 bytes)" when a size is published, "not published either" when none is)."""
    import json
    import logging

    from paragen.data.registry import RECORDED_DIGESTS, SourceFile, record_digest

    (tmp_path / "train.txt").write_bytes(b"a b c\n")
    sha256 = hashlib.sha256(b"a b c\n").hexdigest()
    with caplog.at_level(logging.WARNING, logger="paragen.data.registry"):
        assert record_digest(tmp_path, SourceFile(path="train.txt", size=6)) == sha256
        record_digest(tmp_path, SourceFile(path="train.txt"))
    tail = (f", and its sha256 {sha256} is recorded in {tmp_path / RECORDED_DIGESTS} (later fetches are checked "
            "against it; put it in sources.yaml to pin it for everyone)")
    head = f"{tmp_path / 'train.txt'}: no sha256 is published for this file; "
    assert caplog.messages == [head + "its size matched (6 bytes)" + tail,
                               head + "its size is not published either" + tail]
    recorded = json.loads((tmp_path / RECORDED_DIGESTS).read_text())
    assert recorded == {"train.txt": {"sha256": sha256, "size": 6}}
