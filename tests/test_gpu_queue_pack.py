"""Packing a GPU call's results into size-limited parts and reading them back (paragen.pipeline.queue_pack): the
budget decides which items come back, in order; every part, the joined stream and each member are checked before
anything is written; a member may write only under runs/, results/ and logs/."""

import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from paragen.config import ConfigError
from paragen.pipeline.queue_pack import Budget, PackItem, member_paths, pack, read_pack

KiB = 1024


def files(root: Path, sizes: dict[str, int]) -> None:
    """Random (incompressible) files, so a member's size is its content's plus a little."""
    for name, size in sizes.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(os.urandom(size))


def test_items_come_back_in_order_while_they_fit_and_the_rest_is_listed_as_left(tmp_path):
    files(tmp_path, {"runs/a/x.bin": 100 * KiB, "runs/b/y.bin": 300 * KiB, "runs/c/z.bin": 50 * KiB})
    items = [PackItem("a", "outputs", ["runs/a/x.bin"]), PackItem("b", "resume", ["runs/b"], {"run": "b"}),
             PackItem("c", "weights", ["runs/c/z.bin", "runs/c/absent.pt"])]
    budget = Budget(total=350 * KiB, part=128 * KiB, parts=6)
    manifest = pack(items, tmp_path, tmp_path / "out", budget, {"format": 1})
    assert [i["name"] for i in manifest["items"]] == ["a", "c"]  # b (300 KiB) would pass 350 KiB after a
    assert [(i["name"], i["run"]) for i in manifest["left"]] == [("b", "b")]
    assert manifest["left"][0]["bytes"] > 300 * KiB
    sizes = [p["bytes"] for p in manifest["parts"]]
    assert len(sizes) == 2 and sizes[0] == 128 * KiB and sum(sizes) == manifest["stream_bytes"]  # ~152 KiB in two
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", "pack.part00", "pack.part01"]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == manifest
    members = read_pack(tmp_path / "out", manifest, tmp_path / "members")
    with tarfile.open(members["c"]) as tar:
        assert tar.getnames() == ["runs/c/z.bin"]  # a path that is not there is left out
        assert tar.extractfile("runs/c/z.bin").read() == (tmp_path / "runs/c/z.bin").read_bytes()
    assert member_paths(members["a"]) == ["runs/a/x.bin"]


@pytest.fixture
def packed(tmp_path):
    files(tmp_path, {"runs/a/x.bin": 200 * KiB})
    manifest = pack([PackItem("a", "outputs", ["runs/a/x.bin"])], tmp_path, tmp_path / "out",
                    Budget(total=1024 * KiB, part=128 * KiB, parts=6), {"format": 1})
    return tmp_path / "out", manifest


def test_an_altered_part_stops_the_unpacking_naming_it_before_anything_is_written(packed, tmp_path):
    out, manifest = packed
    data = bytearray((out / "pack.part01").read_bytes())
    data[10] ^= 1
    (out / "pack.part01").write_bytes(bytes(data))
    with pytest.raises(ConfigError, match=r"pack\.part01: \d+ bytes whose sha256 differs .*truncated or altered"):
        read_pack(out, manifest, tmp_path / "members")
    assert not (tmp_path / "members").exists()


def test_a_missing_part_is_named(packed, tmp_path):
    out, manifest = packed
    (out / "pack.part00").unlink()
    with pytest.raises(ConfigError, match=r"pack\.part00: part missing \(the call returned \['manifest.json', "
                                          r"'pack.part01'\]\)"):
        read_pack(out, manifest, tmp_path / "members")


def test_a_manifest_cannot_point_outside_the_returned_folder(packed, tmp_path):
    out, manifest = packed
    manifest["parts"][0]["name"] = "../secret"
    with pytest.raises(ConfigError, match=r"part name '\.\./secret' is not a plain file name"):
        read_pack(out, manifest, tmp_path / "members")


def test_parts_in_another_order_do_not_give_the_stream(packed, tmp_path):
    out, manifest = packed
    manifest["parts"] = [manifest["parts"][1], manifest["parts"][0]]
    with pytest.raises(ConfigError, match="the parts joined do not give the manifest's stream"):
        read_pack(out, manifest, tmp_path / "members")


def member(tmp_path: Path, entries) -> Path:
    path = tmp_path / "m.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for entry in entries:
            tar.addfile(entry, io.BytesIO(b"x") if entry.isfile() else None)
    return path


def test_a_member_writes_only_run_folders_results_and_logs(tmp_path):
    def file(name):
        info = tarfile.TarInfo(name)
        info.size = 1
        return info

    assert member_paths(member(tmp_path, [file("runs/a/test.hyp"), file("logs/train_a.log")])) == \
        ["runs/a/test.hyp", "logs/train_a.log"]
    for name in ("src/paragen/__init__.py", "params.yaml", "../runs/x", "/runs/x", "runs/../src/x.py"):
        with pytest.raises(ConfigError, match="is outside runs, results, logs"):
            member_paths(member(tmp_path, [file(name)]))
    link = tarfile.TarInfo("runs/a/link")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    with pytest.raises(ConfigError, match="'runs/a/link' is not a plain file or folder"):
        member_paths(member(tmp_path, [link]))
