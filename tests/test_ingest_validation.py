"""Damaged and hostile inputs at the readers' edge, generated here from real fixtures.

Each case either raises TraceError (one line naming the file, what is wrong and where) or loads
with a warning in meta["warnings"] that says how many rows were dropped or values set aside, and
tables that are otherwise those of the undamaged file."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import sys

import numpy as np
import pandas as pd
import pytest
from jsonlayout import dump, load, num

from traceattrib.errors import TraceError
from traceattrib.ingest import read

from conftest import FIXTURES

NSYS = FIXTURES / "llama_graph_nsys.sqlite"  # 236 kernels, 24 graph executions
KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"


@pytest.fixture(scope="module")
def nsys_ref():
    return read(str(NSYS))


def damaged(tmp_path, *sql: str, name: str = "t.sqlite"):
    """A copy of the nsys fixture with `sql` applied."""
    p = tmp_path / name
    shutil.copyfile(NSYS, p)
    con = sqlite3.connect(p)
    for q in sql:
        con.execute(q)
    con.commit()
    con.close()
    return p


def loose(table: str) -> list[str]:
    """SQL that rebuilds `table` without its NOT NULL constraints (values and rowids kept)."""
    return [f"create table tmp_loose as select rowid as rid, * from {table}", f"drop table {table}",
            f"create table {table} as select * from tmp_loose order by rid", "drop table tmp_loose"]


def one_line(e: TraceError) -> str:
    msg = str(e)
    assert "\n" not in msg
    return msg


# -- nsys -----------------------------------------------------------------------------------------

def test_end_before_start_rows_dropped_with_count(tmp_path, nsys_ref):
    p = damaged(tmp_path, f'update {KERNEL} set "end" = start - 5 where rowid in (3, 7, 11)')
    t = read(str(p))
    assert len(t.kernels) == len(nsys_ref.kernels) - 3
    w = " ".join(t.meta["warnings"])
    assert f"{KERNEL}: dropped 3 of 236 rows" in w and "3 with end < start" in w and "first at rowid 3" in w
    assert w in " ".join(t.meta["notes"])


def test_null_times_dropped(tmp_path, nsys_ref):
    p = damaged(tmp_path, *loose(KERNEL), f"update {KERNEL} set start = null where rid in (1, 2)")
    t = read(str(p))
    assert len(t.kernels) == len(nsys_ref.kernels) - 2
    assert any("2 with a NULL time" in w for w in t.meta["warnings"])


def test_times_beyond_int64_ns_range_dropped(tmp_path, nsys_ref):
    p = damaged(tmp_path, f'update {KERNEL} set "end" = 9223372036854775807 where rowid = 4')
    t = read(str(p))
    assert len(t.kernels) == len(nsys_ref.kernels) - 1
    assert any("beyond 2**62 ns" in w for w in t.meta["warnings"])
    assert int(t.kernels["end_ns"].max()) == int(nsys_ref.kernels["end_ns"].max())


@pytest.mark.parametrize("sql,what", [
    (f"alter table {KERNEL} drop column deviceId", "has no column deviceId"),
    (f"alter table {KERNEL} rename column start to startNs", "has no column start"),
])
def test_dropped_or_renamed_column(tmp_path, sql, what):
    with pytest.raises(TraceError) as e:
        read(str(damaged(tmp_path, sql)))
    assert what in one_line(e.value) and KERNEL in str(e.value) and "t.sqlite" in str(e.value)


@pytest.mark.parametrize("value", ["'abc'", "1.5", "x'00ff'"])
def test_non_integer_in_integer_column(tmp_path, value):
    p = damaged(tmp_path, f"update {KERNEL} set streamId = {value} where rowid = 9")
    with pytest.raises(TraceError) as e:
        read(str(p))
    msg = one_line(e.value)
    assert f"table {KERNEL}, column streamId: 1 value(s) are not integers, first at rowid 9" in msg


def test_device_id_out_of_range(tmp_path):
    p = damaged(tmp_path, f"update {KERNEL} set deviceId = 4294967296 where rowid = 2")
    with pytest.raises(TraceError) as e:
        read(str(p))
    assert "column deviceId" in one_line(e.value) and "4294967296" in str(e.value)


def test_bad_strings_in_string_table(tmp_path, nsys_ref):
    con = sqlite3.connect(f"file:{NSYS}?mode=ro", uri=True)
    ids = [r[0] for r in con.execute(f"select distinct demangledName from {KERNEL} limit 3")]
    con.close()
    p = damaged(tmp_path, *loose("StringIds"),
                f"update StringIds set value = x'4b45524e454cff' where id = {ids[0]}",  # invalid UTF-8
                f"update StringIds set value = x'eda080' where id = {ids[1]}",  # an encoded lone surrogate
                f"update StringIds set value = null where id = {ids[2]}")
    t = read(str(p))
    assert len(t.kernels) == len(nsys_ref.kernels)
    names = set(t.kernels["name"].astype(str))
    assert "KERNEL\ufffd" in names and "" in names
    assert any("not valid UTF-8" in w for w in t.meta["warnings"])
    json.dumps(t.meta)


def test_blob_in_metadata_table(tmp_path):
    p = damaged(tmp_path, "update META_DATA_EXPORT set value = x'00ff32' where name = 'EXPORT_PRODUCT_VERSION'")
    t = read(str(p))
    assert isinstance(t.meta["profiler_version"], str)
    json.dumps(t.meta)


def test_empty_kernel_tables(tmp_path):
    p = damaged(tmp_path, f"delete from {KERNEL}", "delete from CUPTI_ACTIVITY_KIND_MEMCPY",
                "delete from CUPTI_ACTIVITY_KIND_MEMSET", "delete from CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
    with pytest.raises(TraceError) as e:
        read(str(p))
    assert "no GPU activity" in one_line(e.value)
    assert len(read(str(p), require_gpu=False).kernels) == 0


def test_corrupt_page_in_string_table(tmp_path):
    p = damaged(tmp_path)
    con = sqlite3.connect(p)
    page_size = con.execute("pragma page_size").fetchone()[0]
    root = con.execute("select rootpage from sqlite_master where name = 'StringIds'").fetchone()[0]
    con.close()
    with open(p, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)
    with pytest.raises(TraceError) as e:
        read(str(p))
    assert "StringIds" in one_line(e.value) and "cannot be read" in str(e.value)


def _snapshot(folder) -> dict:
    return {f: hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in sorted(os.listdir(folder))}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
@pytest.mark.parametrize("read_only_dir", [False, True])
def test_wal_database_read_with_its_log(tmp_path, nsys_ref, read_only_dir):
    """Rows committed to the -wal file but not checkpointed are read, and nothing is written."""
    live = tmp_path / "live"
    live.mkdir()
    src = live / "t.sqlite"
    shutil.copyfile(NSYS, src)
    con = sqlite3.connect(src)
    con.execute("pragma journal_mode=wal")
    con.execute("pragma wal_autocheckpoint=0")
    con.execute(f"delete from {KERNEL} where rowid % 2 = 0")
    con.commit()
    # the writer is still open: copy the database and its log as a crashed or live process leaves them
    snap = tmp_path / "snap"
    snap.mkdir()
    shutil.copyfile(src, snap / "t.sqlite")
    shutil.copyfile(str(src) + "-wal", snap / "t.sqlite-wal")
    con.close()
    assert (snap / "t.sqlite-wal").stat().st_size > 0
    before = _snapshot(snap)
    if read_only_dir:
        os.chmod(snap, stat.S_IRUSR | stat.S_IXUSR)
    try:
        t = read(str(snap / "t.sqlite"))
    finally:
        os.chmod(snap, stat.S_IRWXU)
    assert len(t.kernels) == len(nsys_ref.kernels) // 2
    assert _snapshot(snap) == before  # no -shm, no checkpoint, no change


# -- torch JSON -----------------------------------------------------------------------------------

TORCH = FIXTURES / "llama_graph_torch.pt.trace.json.gz"


@pytest.fixture(scope="module")
def torch_doc():
    d = load(TORCH)
    return dict(d, traceEvents=d["traceEvents"][:3000])


@pytest.fixture(scope="module")
def torch_ref(torch_doc, tmp_path_factory):
    p = tmp_path_factory.mktemp("ref") / "ref.json"
    p.write_bytes(dump(torch_doc, indent=2))
    return read(str(p))


def write(tmp_path, doc, name="t.json") -> str:
    p = tmp_path / name
    p.write_bytes(dump(doc))
    return str(p)


def kernel_positions(doc) -> list[int]:
    return [i for i, e in enumerate(doc["traceEvents"]) if e.get("cat") == "kernel" and e.get("ph") == "X"]


def edited(doc, i: int, **fields) -> dict:
    ev = list(doc["traceEvents"])
    ev[i] = dict(ev[i], **fields)
    return dict(doc, traceEvents=ev)


def test_header_objects_of_the_wrong_type(tmp_path, torch_doc, torch_ref):
    d = dict(torch_doc, deviceProperties="H100", distributedInfo=[1, 2])
    t = read(write(tmp_path, d))
    w = " ".join(t.meta["warnings"])
    assert "deviceProperties is a string" in w and "distributedInfo is a list" in w
    assert t.meta["gpus"] == [f"device {d}" for d in t.meta["devices"]]
    pd.testing.assert_frame_equal(t.kernels, torch_ref.kernels)


@pytest.mark.parametrize("rank,expect", [(num("1"), 1), ("1", 1), (num(str(2 ** 70)), 0), ("one", 0)])
def test_rank_as_text_or_huge(tmp_path, torch_doc, rank, expect):
    d = dict(torch_doc, distributedInfo={"rank": rank, "world_size": num("2")})
    t = read(write(tmp_path, d))
    assert t.meta["rank"] == expect and (t.kernels["rank"] == expect).all()
    assert bool(t.meta.get("warnings")) == (expect == 0)


def test_args_of_the_wrong_type(tmp_path, torch_doc, torch_ref):
    k = kernel_positions(torch_doc)
    d = edited(edited(torch_doc, k[0], args="oops"), k[1], args=[1, 2])
    t = read(write(tmp_path, d))
    assert len(t.kernels) == len(torch_ref.kernels)
    assert any("2 events have args that are not an object" in w for w in t.meta["warnings"])


def test_entries_that_are_not_objects(tmp_path, torch_doc, torch_ref):
    ev = list(torch_doc["traceEvents"])
    ev[5:5] = [num("5"), "text", [1, 2], None]
    t = read(write(tmp_path, dict(torch_doc, traceEvents=ev)))
    assert any(w.startswith("4 traceEvents entries are not JSON objects") and "traceEvents[5]" in w
               for w in t.meta["warnings"])
    for name, table in torch_ref.tables().items():
        pd.testing.assert_frame_equal(table, t.tables()[name], obj=name)


def test_times_as_numeric_text_are_read(tmp_path, torch_doc, torch_ref):
    k = kernel_positions(torch_doc)
    e = torch_doc["traceEvents"][k[0]]
    d = edited(torch_doc, k[0], ts=e["ts"][len("\x00num:"):], dur=e["dur"][len("\x00num:"):])
    t = read(write(tmp_path, d))
    pd.testing.assert_frame_equal(t.kernels, torch_ref.kernels)


@pytest.mark.parametrize("field,value,why", [
    ("ts", "abc", "with ts NaN, infinite or out of range"),
    ("ts", num("NaN"), "with ts NaN, infinite or out of range"),
    ("dur", num("Infinity"), "with dur NaN, infinite or out of range"),
    ("ts", num("1e30"), "with ts NaN, infinite or out of range"),
    ("ts", num("100000000000000000.5"), "with ts NaN, infinite or out of range"),  # past int64 ns
    ("ts", None, "without ts"),
])
def test_unplaceable_times_dropped(tmp_path, torch_doc, torch_ref, field, value, why):
    k = kernel_positions(torch_doc)
    if value is None:
        ev = list(torch_doc["traceEvents"])
        ev[k[2]] = {a: b for a, b in ev[k[2]].items() if a != field}
        d = dict(torch_doc, traceEvents=ev)
    else:
        d = edited(torch_doc, k[2], **{field: value})
    t = read(write(tmp_path, d))
    assert len(t.kernels) == len(torch_ref.kernels) - 1
    assert any(f"dropped 1 events that cannot be placed on the timeline (1 {why}; first is traceEvents[{k[2]}])"
               in w for w in t.meta["warnings"]), t.meta.get("warnings")
    assert np.isfinite(t.kernels["start_ns"].to_numpy(float)).all()


@pytest.mark.parametrize("value,ok", [("123456", True), (num("1" * 31), False), (num(str(2 ** 70)), False),
                                      ("x1", False), (num("1.5"), False), (True, False)])
def test_ids_as_text_or_out_of_range(tmp_path, torch_doc, torch_ref, value, ok):
    k = kernel_positions(torch_doc)
    e = torch_doc["traceEvents"][k[3]]
    d = edited(torch_doc, k[3], args=dict(e["args"], correlation=value))
    t = read(write(tmp_path, d))
    assert len(t.kernels) == len(torch_ref.kernels)
    corr = set(t.kernels["correlation"])
    if ok:
        assert 123456 in corr and not t.meta.get("warnings")
    else:  # unknown, then found again from the kernel's ac2g flow event
        pd.testing.assert_frame_equal(t.kernels, torch_ref.kernels)
        assert any("1 values in integer fields are not integers" in w and f"traceEvents[{k[3]}].args.correlation"
                   in w for w in t.meta["warnings"]), t.meta.get("warnings")


def test_invalid_utf8_and_lone_surrogates_in_names(tmp_path, torch_doc, torch_ref):
    k = kernel_positions(torch_doc)
    d = edited(edited(torch_doc, k[0], name="\x00BAD1"), k[1], name="\x00BAD2")
    data = dump(d).replace(b'"\\u0000BAD1"', b'"bad\xff\xfename"').replace(b'"\\u0000BAD2"', b'"half \\ud800 pair"')
    p = tmp_path / "t.json"
    p.write_bytes(data)
    t = read(str(p))
    names = set(t.kernels["name"].astype(str))
    assert "bad\ufffd\ufffdname" in names and "half \ufffd pair" in names
    assert any("not valid UTF-8 or hold lone surrogates" in w for w in t.meta["warnings"])
    assert len(t.kernels) == len(torch_ref.kernels)


def test_deeply_nested_json(tmp_path, torch_doc):
    k = kernel_positions(torch_doc)
    data = dump(edited(torch_doc, k[0], extra="\x00DEEP")).replace(b'"\\u0000DEEP"', b"[" * 100000 + b"]" * 100000)
    p = tmp_path / "t.json"
    p.write_bytes(data)
    with pytest.raises(TraceError) as e:
        read(str(p))
    assert "nested too deeply" in one_line(e.value) and "t.json" in str(e.value)


def test_device_out_of_int32_range(tmp_path, torch_doc):
    k = kernel_positions(torch_doc)
    e = torch_doc["traceEvents"][k[4]]
    d = edited(torch_doc, k[4], args=dict(e["args"], device=num(str(2 ** 40))))
    with pytest.raises(TraceError) as err:
        read(write(tmp_path, d))
    assert f"traceEvents[{k[4]}].args.device" in one_line(err.value)


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_truncated_file(tmp_path, torch_doc, cut):
    data = dump(torch_doc)
    p = tmp_path / "t.json"
    p.write_bytes(data[:int(len(data) * cut)])
    with pytest.raises(TraceError) as e:
        read(str(p))
    assert "t.json" in one_line(e.value)


# -- .nsys-rep ------------------------------------------------------------------------------------

def test_nsys_report_without_nsys_names_the_command(tmp_path, monkeypatch):
    rep = tmp_path / "run1.nsys-rep"
    rep.write_bytes(b"\x00not sqlite")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("NSYS", raising=False)
    with pytest.raises(TraceError) as e:
        read(str(rep))
    msg = one_line(e.value)
    assert "nsys export --type sqlite" in msg and "run1.sqlite" in msg and str(rep) in msg


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for nsys")
def test_nsys_report_exported_once_and_cached(tmp_path, monkeypatch, nsys_ref):
    log = tmp_path / "calls.log"
    fake = tmp_path / "fake-nsys"
    # a stand-in for `nsys export --type sqlite --force-overwrite true --output OUT REPORT`
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\nwhile [ $# -gt 1 ]; do\n"
                    f"  if [ \"$1\" = --output ]; then out=$2; fi\n  shift\ndone\ncp {NSYS} \"$out\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("NSYS", str(fake))
    rep = tmp_path / "run1.nsys-rep"
    rep.write_bytes(b"\x00not sqlite")
    for _ in range(2):
        t = read(str(rep))
        assert len(t.kernels) == len(nsys_ref.kernels) and t.meta["path"] == str(rep)
    calls = log.read_text().splitlines()
    assert len(calls) == 1 and calls[0].startswith("export --type sqlite") and calls[0].endswith(str(rep))
