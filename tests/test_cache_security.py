"""The cache never runs code, and is not used where others can write.

The attack as a user on a shared machine would make it: run a command once, then replace the
cache entries with hostile ones (a pickle whose unpickling runs a command, carrying the magic and
SHA-256 that the entry format checks; a Parquet file with a pickled extension type; JSON that is
not an entry), run the same commands again and check that no marker file appears, the output
equals a cold run and the warning is printed. A cache directory others can write, or owned by
another user, is refused unless --shared-cache says it is shared on purpose.
"""
from __future__ import annotations

import glob
import hashlib
import os
import pickle
import shutil
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import cache, store
from traceattrib.cli import main

from conftest import FIXTURES

OLD_MAGIC = b"TAres02\n"  # the pickled entries of earlier versions


class Planted:
    """Unpickling this runs a shell command that creates the marker file."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def run(capsys, *args) -> tuple[int, str, str]:
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def framed(magic: bytes, payload: bytes) -> bytes:
    return magic + hashlib.sha256(payload).digest() + payload


def evil_parquet(path: str, marker: str) -> None:
    """Rewrite a stored table so that its first column claims pyarrow's pickled Python extension
    type (the payload of CVE-2023-47248), with every column and value kept: reading it must not
    unpickle anything."""
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    meta = {b"ARROW:extension:name": b"arrow.py_extension_type",
            b"ARROW:extension:metadata": pickle.dumps(Planted(marker))}
    schema = t.schema.set(0, t.schema.field(0).with_metadata(meta))
    pq.write_table(t.cast(schema), path)


def plant(root: str, marker: str) -> int:
    """Replace every entry under `root` with a hostile one (right names, right magic and hashes),
    and add pickles at the names earlier versions read. Returns how many entries were planted."""
    bomb = pickle.dumps(Planted(marker))
    n = 0
    for f in glob.glob(os.path.join(root, "*", "results-*.bin")) + glob.glob(os.path.join(root, "reports", "*.json")):
        with open(f, "wb") as out:
            out.write(framed(cache.BLOB_MAGIC, bomb))
        with open(f.rsplit(".", 1)[0] + ".pkl", "wb") as out:
            out.write(framed(OLD_MAGIC, bomb))
        n += 1
    for d in glob.glob(os.path.join(root, "????????????????????????")):
        evil_parquet(os.path.join(d, "kernels.parquet"), marker)
        with open(os.path.join(d, "meta.json"), "w") as out:
            out.write('{"__reduce__": ["os.system", ["touch ' + marker + '"]], "py/object": "os.system"}')
        n += 1
    return n


def copy_fixture(tmp_path, name: str) -> str:
    src = FIXTURES / name
    dst = tmp_path / "in" / name
    dst.parent.mkdir(exist_ok=True)
    (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return str(dst)


@pytest.mark.parametrize("command", [
    ["report", "{a}"], ["report", "{a}", "--format", "json"], ["report", "{d}"],
    ["diff", "{a}", "{b}"], ["export", "{a}", "-o", "{out}"], ["info", "{a}"],
])
def test_planted_entries_run_nothing(capsys, tmp_path, command):
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    b = copy_fixture(tmp_path, "llama_eager_torch.pt.trace.json.gz")
    d = copy_fixture(tmp_path, "tp2_eager_torch")
    root = str(tmp_path / "cache")
    marker = tmp_path / "marker"
    args = [x.format(a=a, b=b, d=d, out=tmp_path / "out") for x in command]
    cold = run(capsys, *args, "--no-cache")
    assert cold[0] == 0
    assert run(capsys, *args, "--cache-dir", root)[0] == 0  # fills the cache
    if command[0] == "export":
        shutil.rmtree(tmp_path / "out")
    assert plant(root, str(marker)) > 0
    rc, out, err = run(capsys, *args, "--cache-dir", root)
    assert not marker.exists()
    assert (rc, out) == cold[:2]
    assert "is not what traceattrib writes (damaged, or written by someone else): ignored and rebuilt" in err
    # rebuilt: the next run reads what this one wrote, and says nothing
    assert run(capsys, *args, "--cache-dir", root) == cold
    assert not marker.exists()


def test_pickled_extension_type_in_parquet_is_data(capsys, tmp_path):
    a = copy_fixture(tmp_path, "llama_eager_torch.pt.trace.json.gz")
    root, marker = str(tmp_path / "cache"), tmp_path / "marker"
    assert run(capsys, "info", a, "--cache-dir", root)[0] == 0
    warm = run(capsys, "info", a, "--format", "json", "--cache-dir", root)
    entry, = glob.glob(os.path.join(root, "????????????????????????"))
    for f in glob.glob(os.path.join(entry, "*.parquet")):
        evil_parquet(f, str(marker))
    assert run(capsys, "info", a, "--format", "json", "--cache-dir", root) == warm and '"cached": true' in warm[1]
    assert not marker.exists()


def test_planted_entries_on_dask_workers(capsys, tmp_path):
    pytest.importorskip("distributed")
    d = copy_fixture(tmp_path, "tp2_eager_torch")
    root, marker = str(tmp_path / "cache"), tmp_path / "marker"
    cold = run(capsys, "report", d, "--format", "json", "--no-cache")
    assert run(capsys, "report", d, "--format", "json", "--cache-dir", root, "--workers", "2")[0] == 0
    assert plant(root, str(marker)) >= 2
    rc, out, err = run(capsys, "report", d, "--format", "json", "--cache-dir", root, "--workers", "2")
    assert not marker.exists() and (rc, out) == cold[:2]
    assert err.count("ignored and rebuilt") >= 2  # the workers' tables and results, said here once each


def test_old_pickled_entries_are_never_read(capsys, tmp_path):
    """An entry in the format of earlier versions (pickle, its magic, its hash) is neither read nor
    trusted: it only takes space until pruned or cleared."""
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    root, marker = tmp_path / "cache", tmp_path / "marker"
    cold = run(capsys, "report", a, "--no-cache")
    (root / "reports").mkdir(parents=True)
    for name in ("0" * 32, "f" * 32):
        (root / "reports" / f"{name}.pkl").write_bytes(framed(OLD_MAGIC, pickle.dumps(Planted(str(marker)))))
    assert run(capsys, "report", a, "--cache-dir", root) == cold
    assert run(capsys, "report", a, "--cache-dir", root) == cold
    assert not marker.exists()
    assert run(capsys, "cache", "--cache-dir", root, "--clear")[0] == 0
    assert not glob.glob(str(root / "reports" / "*.pkl"))


def _refused(capsys, tmp_path, root, why: str) -> None:
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    cold = run(capsys, "report", a, "--no-cache")
    before = sorted(os.listdir(root))
    for _ in (1, 2):
        rc, out, err = run(capsys, "report", a, "--cache-dir", root)
        assert (rc, out) == cold[:2]
        assert err == (f"traceattrib: warning: cache {root} {why}: not used; pass --no-cache or fix its "
                       "permissions (or --shared-cache / TRACEATTRIB_CACHE_SHARED=1 for a cache shared on purpose)\n")
    assert sorted(os.listdir(root)) == before  # nothing read, nothing written


def test_world_writable_cache_is_refused(capsys, tmp_path):
    root = tmp_path / "open"
    root.mkdir()
    os.chmod(root, 0o777)
    _refused(capsys, tmp_path, root, "is writable by others")


def test_group_writable_cache_is_refused(capsys, tmp_path):
    root = tmp_path / "group"
    root.mkdir()
    os.chmod(root, 0o770)
    _refused(capsys, tmp_path, root, "is writable by others")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_cache_owned_by_another_user_is_refused(capsys, tmp_path):
    root = tmp_path / "theirs"
    root.mkdir(mode=0o700)
    os.chown(root, 54321, 54321)
    _refused(capsys, tmp_path, root, "is owned by another user (uid 54321)")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_entry_owned_by_another_user_is_rebuilt(capsys, tmp_path):
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    root = tmp_path / "cache"
    cold = run(capsys, "report", a, "--cache-dir", root)
    entry, = glob.glob(str(root / "reports" / "*.json"))
    os.chown(entry, 54321, 54321)
    rc, out, err = run(capsys, "report", a, "--cache-dir", root)
    assert (rc, out) == cold[:2] and "ignored and rebuilt" in err
    assert os.stat(entry).st_uid == os.geteuid()


def test_symlinked_entry_is_not_followed(capsys, tmp_path):
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    root = tmp_path / "cache"
    cold = run(capsys, "report", a, "--cache-dir", root)
    entry, = glob.glob(str(root / "reports" / "*.json"))
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"text": "planted text\\n", "warnings": []}')
    os.remove(entry)
    os.symlink(elsewhere, entry)
    rc, out, err = run(capsys, "report", a, "--cache-dir", root)
    assert (rc, out) == cold[:2] and "planted" not in out and "ignored and rebuilt" in err
    assert elsewhere.read_text() == '{"text": "planted text\\n", "warnings": []}'  # not written through the link


def test_shared_cache_on_purpose_reads_data_only(capsys, tmp_path, monkeypatch):
    a = copy_fixture(tmp_path, "llama_graph_nsys.sqlite")
    root, marker = tmp_path / "team", tmp_path / "marker"
    root.mkdir()
    os.chmod(root, 0o777)
    cold = run(capsys, "report", a, "--no-cache")
    assert run(capsys, "report", a, "--cache-dir", root, "--shared-cache") == cold
    written = glob.glob(str(root / "reports" / "*.json")) + glob.glob(str(root / "*" / "*.parquet"))
    assert written and {stat.S_IMODE(os.stat(f).st_mode) for f in written} == {0o660}  # the group's, not others
    plant(str(root), str(marker))
    rc, out, err = run(capsys, "report", a, "--cache-dir", root, "--shared-cache")
    assert (rc, out) == cold[:2] and not marker.exists() and "ignored and rebuilt" in err
    monkeypatch.setenv("TRACEATTRIB_CACHE_SHARED", "1")  # the variable says the same
    assert run(capsys, "report", a, "--cache-dir", root) == cold
    assert "TRACEATTRIB_CACHE_SHARED" in os.environ  # --shared-cache restored what it changed


def test_entries_are_private(capsys, tmp_path):
    a = copy_fixture(tmp_path, "tp2_eager_torch")
    root = tmp_path / "fresh" / "cache"
    assert run(capsys, "report", a, "--cache-dir", root)[0] == 0
    modes = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            modes[os.path.relpath(p, root)] = stat.S_IMODE(os.lstat(p).st_mode)
    modes["."] = stat.S_IMODE(os.stat(root).st_mode)
    assert len(modes) > 10
    assert {m for p, m in modes.items() if os.path.isdir(os.path.join(root, p))} == {0o700}
    assert {m for p, m in modes.items() if not os.path.isdir(os.path.join(root, p))} == {0o600}


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4096))
def test_any_bytes_with_a_valid_frame_decode_to_nothing_or_results(payload):
    """Whatever the payload under a right magic and hash, reading it never raises: it is a stored
    result or it is dropped with a warning."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for entry, read in ((os.path.join(d, "results-x.bin"), cache.read_results),
                            (os.path.join(d, "reports", "x.json"), cache.read_output)):
            store.write_bytes(entry, framed(cache.BLOB_MAGIC, payload))
            warnings: list[str] = []
            got = read(entry, False, warnings)
            assert got is None and warnings == [cache.damaged(entry)] and not os.path.exists(entry) or \
                got is not None and warnings == []


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["format", "version", "meta", "ranks", "x"]),
                       st.one_of(st.integers(-2**63, 2**63 - 1), st.text(),
                                 st.lists(st.dictionaries(st.text(), st.integers(-2**63, 2**63 - 1))),
                                 st.dictionaries(st.text(), st.binary())), max_size=5))
def test_msgpack_of_the_wrong_shape_is_invalid(doc):
    import msgspec

    from traceattrib import results_codec

    with pytest.raises(results_codec.Invalid):
        results_codec.decode(msgspec.msgpack.encode(doc))
