"""Paths the fixtures do not reach: the streaming Kineto reader's piece boundaries (JSON string
escapes, multi-byte UTF-8 and separator-like text wherever a read stops), files larger than one
32 MiB piece, the nsys reader's fallbacks for odd schemas, and the per-rank table of the text
report. Expected values come from the generated timeline itself, or from the exact stdlib-json
path reading the same events."""
from __future__ import annotations

import gzip
import json
import sqlite3

import numpy as np
import pytest

from traceattrib.ingest import kineto, read
from traceattrib.ingest.kineto import arrow, exact, stream

from conftest import FIXTURES
from harness import run_cli
from tracegen import Event, Raw, Timeline, kineto_text, write_nsys

# names that are hard on a byte-level JSON reader: escapes, multi-byte UTF-8 (raw and \u-escaped,
# with surrogate pairs), text that looks like Kineto's event separator or fields, long names
TRICKY = [
    'quote " backslash \\ slash / end\\',
    "newline \n tab \t carriage \r formfeed \f",
    "sep \n  },\n  { inside a name",
    '"pid": "x", "ts": 1234567890123.456, "tid": "y"',
    "utf8 é ✓ 你好 😀 ",
    "x" * 3000 + "é",
    "{[(<>)]}, \"\" '' ``",
]


def tricky_timeline(n: int = 400) -> Timeline:
    ev = []
    for i in range(n):
        t = i * 10_000
        name = TRICKY[i % len(TRICKY)] + f" #{i}"
        if i % 3 == 1:  # the same text \u-escaped (ASCII only, surrogate pairs for astral chars)
            name = Raw(json.dumps(name, ensure_ascii=True))
        ev += [Event("launch", "cudaLaunchKernel", t, t + 1_000, corr=i + 1),
               Event("kernel", name, t + 2_000, t + 2_000 + (i * 37) % 5_000, stream=7 + i % 2, corr=i + 1)]
    return Timeline(ev)


def kernel_rows(trace) -> list[tuple]:
    k = trace.kernels
    return sorted(zip(k["start_ns"].tolist(), k["end_ns"].tolist(), k["name"].astype(str).tolist(),
                      k["correlation"].tolist(), k["stream"].tolist()))


def expected_rows(tl: Timeline, base_ns: int = 0) -> list[tuple]:
    out = []
    for e in tl.events:
        if e.kind == "kernel":
            name = json.loads(e.name) if isinstance(e.name, Raw) else e.name
            out.append((base_ns + e.start, base_ns + e.end, name, e.corr, e.stream))
    return sorted(out)


@pytest.mark.parametrize("gz", [False, True], ids=["json", "json.gz"])
def test_escapes_across_piece_boundaries(tmp_path, monkeypatch, gz):
    """Small pieces put a read boundary inside every kind of string escape and UTF-8 sequence."""
    tl = tricky_timeline()
    text = kineto_text(tl, base_us=5110374980015).encode("utf-8")
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(text, compresslevel=1) if gz else text)
    want = expected_rows(tl, 5110374980015 * 1000)
    assert len(text) > 200_000 and any("sep \n  },\n  {" in r[2] for r in want)
    sizes = [8_191, 8_192, 9_973, 12_289, 65_537]  # larger than the largest event (3.3 kB)
    for size in sizes:
        monkeypatch.setattr(stream, "CHUNK_BYTES", size)
        assert kernel_rows(kineto.read(str(p))) == want, f"CHUNK_BYTES={size}"


def test_compact_layout_piece_boundaries(tmp_path, monkeypatch):
    """Any JSON layout (here one line, as json.dump writes) is cut into pieces the same way."""
    tl = tricky_timeline(150)
    p = tmp_path / "t.json"
    p.write_text(kineto_text(tl, layout="compact"), encoding="utf-8")
    want = expected_rows(tl)
    for size in (4_096, 5_003, 1 << 20):
        monkeypatch.setattr(stream, "CHUNK_BYTES", size)
        assert kernel_rows(kineto.read(str(p))) == want, f"CHUNK_BYTES={size}"


BIG_NAMES = ["nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", TRICKY[0], TRICKY[4],
             "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>"]


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """A Kineto-layout trace larger than one 32 MiB piece (about 40 MiB, 80,000 kernels), written
    with one template per event kind (the same layout tracegen writes; 20x faster)."""
    n = 80_000
    base = 5110374980015
    head, _, tail = kineto_text(Timeline([Event("kernel", "x", 0, 1)])).partition('"traceEvents": [')
    tail = tail[tail.index("\n  ],"):]
    blocks = []
    rows = []
    for i in range(n):
        t = i * 5_000
        name = BIG_NAMES[i % 4] + "_" + "p" * (i % 200)
        end = t + 1_000 + 1 + i % 3_000
        rows.append((base * 1000 + t + 1_000, base * 1000 + end, name, i + 1, 7))
        blocks.append(f'  {{\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, '
                      f'"tid": 4242, '
                      f'"ts": {base + t // 1000}.{t % 1000:03d}, "dur": 0.800, "args": {{"External id": {i}, '
                      f'"correlation": {i + 1}}}\n  }}')
        blocks.append(f'  {{\n    "ph": "X", "cat": "kernel", "name": {json.dumps(name, ensure_ascii=False)}, '
                      f'"pid": 0, '
                      f'"tid": 7, "ts": {base + (t + 1_000) // 1000}.{(t + 1_000) % 1000:03d}, '
                      f'"dur": {(end - t - 1_000) // 1000}.{(end - t - 1_000) % 1000:03d}, "args": {{"device": 0, '
                      f'"stream": 7, "correlation": {i + 1}, "grid": [1, 1, 1], "block": [128, 1, 1]}}\n  }}')
    p = tmp_path_factory.mktemp("big") / "big.json"
    p.write_text(head + '"traceEvents": [\n' + ",\n".join(blocks) + tail, encoding="utf-8")
    return p, sorted(rows)


def test_file_over_one_piece(big_trace):
    p, want = big_trace
    assert p.stat().st_size > stream.CHUNK_BYTES + (4 << 20)
    got = kineto.read(str(p))
    assert len(got.kernels) == len(want) == 80_000
    assert kernel_rows(got) == want
    assert len(got.launches) == 80_000 and got.launches["correlation"].is_unique


def test_file_over_one_piece_gzip(big_trace, tmp_path):
    p, want = big_trace
    gz = tmp_path / "big.json.gz"
    gz.write_bytes(gzip.compress(p.read_bytes(), compresslevel=1))
    k = kineto.read(str(gz)).kernels
    d = np.sort((k["end_ns"] - k["start_ns"]).to_numpy())
    assert d.tolist() == sorted(r[1] - r[0] for r in want)


# --- nsys: odd schemas -----------------------------------------------------------------------------

def nsys_timeline() -> Timeline:
    ev = []
    for i in range(30):
        t = 10_000_000 + i * 100_000
        ev += [Event("launch", "cudaLaunchKernel", t, t + 2_000, corr=i + 1),
               Event("kernel", f"void gemm_kernel<{i % 3}>(float*, int)", t + 5_000, t + 25_000, corr=i + 1,
                     graph=i % 2 == 0),
               Event("step", f"decode_step_{i}", t, t + 90_000)]
    return Timeline(ev)


def _export(tmp_path, sql: str = "", name: str = "t.sqlite"):
    tl = nsys_timeline()
    p = write_nsys(tl, tmp_path / name)
    if sql:
        con = sqlite3.connect(p)
        con.executescript(sql)
        con.commit()
        con.close()
    return p, tl


def test_nsys_baseline(tmp_path):
    p, tl = _export(tmp_path)
    t = read(str(p))
    assert kernel_rows(t) == expected_rows(tl)
    assert t.meta["profiler_version"] == "2025.3.2.0" and t.meta["gpus"] == ["NVIDIA H200"]
    assert int(t.kernels["graph_id"].notna().sum()) == 15  # graphNodeId without graphId marks graph kernels
    assert sorted(t.ranges["name"].astype(str)) == sorted(f"decode_step_{i}" for i in range(30))


def test_nsys_without_demangled_name_uses_short_name(tmp_path):
    from traceattrib.ingest import read_file

    p, _ = _export(tmp_path, "alter table CUPTI_ACTIVITY_KIND_KERNEL drop column demangledName;")
    names = set(read(str(p)).kernels["name"].astype(str))
    assert names == {"void gemm_kernel<0>", "void gemm_kernel<1>", "void gemm_kernel<2>"}
    # a lean read (the analyses') keeps shortName where it is the only name
    assert set(read_file(str(p), lean=True).kernels["name"].astype(str)) == names


def test_nsys_literal_text_names(tmp_path):
    """Very old exports store names as text in the kernel table, not StringIds ids."""
    p, tl = _export(tmp_path, "update CUPTI_ACTIVITY_KIND_KERNEL set demangledName = "
                              "(select value from StringIds where id = demangledName);")
    assert kernel_rows(read(str(p))) == expected_rows(tl)


def test_nsys_registered_nvtx_strings_and_no_domain(tmp_path):
    p, _ = _export(tmp_path, "insert into StringIds select 100000 + rowid, text from NVTX_EVENTS; "
                             "update NVTX_EVENTS set textId = 100000 + rowid, text = NULL; "
                             "alter table NVTX_EVENTS drop column domainId;")
    r = read(str(p)).ranges
    assert sorted(r["name"].astype(str)) == sorted(f"decode_step_{i}" for i in range(30))
    assert set(r["domain"].astype(str)) == {""}


def test_nsys_older_metadata_and_gpu_tables(tmp_path):
    p, _ = _export(tmp_path, "alter table META_DATA_EXPORT rename to EXPORT_META_DATA; "
                             "drop table TARGET_INFO_GPU; "
                             "create table TARGET_INFO_CUDA_GPU (deviceId integer, name text); "
                             "insert into TARGET_INFO_CUDA_GPU values (0, 'NVIDIA A100-SXM4-80GB ');")
    m = read(str(p)).meta
    assert m["profiler_version"] == "2025.3.2.0" and m["gpus"] == ["NVIDIA A100-SXM4-80GB"]
    p2, _ = _export(tmp_path, "drop table META_DATA_EXPORT;", name="nometa.sqlite")
    assert read(str(p2)).meta["profiler_version"] is None


def test_nsys_real_values_and_without_rowid_tables(tmp_path):
    """Integer columns holding REALs, and a WITHOUT ROWID table, take the plain (row) path."""
    p, tl = _export(tmp_path, "update CUPTI_ACTIVITY_KIND_KERNEL set start = start * 1.0 where rowid % 4 = 0; "
                              "create table r2 (start integer not null, end integer not null, eventClass integer, "
                              "globalTid integer, correlationId integer primary key, nameId integer, "
                              "returnValue integer) without rowid; "
                              "insert into r2 select start, end, eventClass, globalTid, correlationId, nameId, "
                              "returnValue from CUPTI_ACTIVITY_KIND_RUNTIME; "
                              "drop table CUPTI_ACTIVITY_KIND_RUNTIME; "
                              "alter table r2 rename to CUPTI_ACTIVITY_KIND_RUNTIME;")
    t = read(str(p))
    assert kernel_rows(t) == expected_rows(tl)
    assert sorted(t.launches["correlation"]) == list(range(1, 31))


def test_nsys_many_row_chunks(tmp_path, monkeypatch):
    """Tables read as many rowid ranges in parallel (with gaps in the rowids) give the same rows, on
    both engines (ADBC and the stdlib fallback)."""
    from traceattrib.ingest import _sqlite

    p, tl = _export(tmp_path, "delete from CUPTI_ACTIVITY_KIND_KERNEL where rowid in (3, 4, 17);")
    want = [r for r in expected_rows(tl) if r[3] not in (3, 4, 17)]  # rowid i holds correlation i
    monkeypatch.setattr(_sqlite, "PART_ROWS", 4)
    monkeypatch.setattr(_sqlite, "FETCH_ROWS", 3)
    assert kernel_rows(read(str(p))) == want and len(want) == 27
    monkeypatch.setenv("TRACEATTRIB_SQLITE_ENGINE", "sqlite3")
    assert kernel_rows(read(str(p))) == want


# --- the per-rank table of the text report -----------------------------------------------------------

def test_per_rank_table_matches_json():
    """Every cell of the per-rank table is the JSON summary's by_rank value, formatted."""
    from traceattrib.render.fmt import bound, dur, pct

    path = FIXTURES / "tp2_eager_torch"
    text = run_cli("report", path, "--no-cache").out.splitlines()
    d = json.loads(run_cli("report", path, "--format", "json", "--no-cache").out)
    at = text.index("per rank (exposed share of span):")
    header = text[at + 1].split()
    assert header[:5] == ["rank", "kind", "steps", "median", "span"] and header[-3:] == ["idle", "comm", "bound"]
    rows = [line.split() for line in text[at + 2:] if line.strip()][:4]
    main = ["linear", "attention", "communication", "cast"]
    seen = 0
    for rank, kinds in d["summary"]["by_rank"].items():
        for kind, v in kinds.items():
            row = next(r for r in rows if r[0] == rank and r[1] == kind)
            want = [rank, kind, str(v["steps"]), *dur(v["median_span_ns"]).split()] + \
                [pct(v["exposed_share"][b]) for b in main] + [pct(v["idle_share"]), "≤",
                                                               bound(v["speedup_bound_if_removed"]["communication"])]
            assert row == want
            seen += 1
    assert seen == 4 == len(rows)
    # and the table says what the note says: rank 0 waits in communication, rank 1 idles
    r0, r1 = d["summary"]["by_rank"]["0"]["decode"], d["summary"]["by_rank"]["1"]["decode"]
    assert r0["exposed_share"]["communication"] > 0.5 > r1["exposed_share"]["communication"]
    assert r1["idle_share"] > 0.5 > r0["idle_share"]


def test_event_longer_than_one_pyarrow_block(tmp_path, monkeypatch):
    # pyarrow parses a piece in BLOCK_BYTES blocks and refuses an event over two blocks long
    # ("straddling object"): the piece is parsed again as one block, the event read whole
    big = "k" * (2 * arrow.BLOCK_BYTES + (1 << 20)) + ' "quoted" \n é'
    tl = Timeline([Event("launch", "cudaLaunchKernel", 0, 1_000, corr=1),
                   Event("kernel", big, 2_000, 9_000, stream=7, corr=1),
                   Event("launch", "cudaLaunchKernel", 10_000, 11_000, corr=2),
                   Event("kernel", "small", 12_000, 13_000, stream=7, corr=2)])
    p = tmp_path / "t.json"
    p.write_text(kineto_text(tl))
    assert p.stat().st_size > 2 * arrow.BLOCK_BYTES

    def no_stdlib(*a, **k):
        raise AssertionError("pyarrow refused the piece: the stdlib path read it")
    monkeypatch.setattr(exact, "loads", no_stdlib)
    assert kernel_rows(read(str(p))) == expected_rows(tl)
