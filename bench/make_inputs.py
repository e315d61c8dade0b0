"""Build large benchmark inputs by repeating real fixtures shifted in time.

    python bench/make_inputs.py [--out /tmp/traceattrib-bench] [--kernels 1000000] [--json-mib 300]

(a) big_nsys.sqlite: fixtures/llama_eager_nsys.sqlite (6,548 kernels) repeated until it holds at
    least --kernels kernel rows. Copy k of every row of CUPTI_ACTIVITY_KIND_KERNEL, _RUNTIME,
    _MEMCPY, _MEMSET and NVTX_EVENTS has start/end shifted by k x (span + gap) and correlationId
    offset by k x CORR_STRIDE, so the big file is one consistent trace: every kernel still joins
    its launch call, and the NVTX step ranges repeat with it. With --ranks R the file holds R
    processes on R GPUs running at once, as one nsys capture of a multi-GPU job does: process r's
    rows are the copies with the pid in globalPid and globalTid raised by r and deviceId by r
    (big_nsys_rR.sqlite).
(b) big_torch.pt.trace.json (+ .json.gz): the events of fixtures/llama_eager_torch.pt.trace.json.gz
    repeated until the plain JSON is at least --json-mib MiB. Copy k has "ts" shifted by a whole
    number of microseconds (k x period: the decimal digits are untouched, so every ns survives) and
    "External id", "correlation" and flow "id" values offset by k x ID_STRIDE. Metadata events
    (ph "M") are written once. The file keeps Kineto's own layout byte for byte: events separated
    by "\\n  },\\n  {", the header and trailer of the original.

Also writes hta_json/ and hta_gz/ (one rank each, hard links to the same files) because HTA's
TraceAnalysis takes a directory. Deterministic: the same bytes every run (gzip mtime 0).
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import shutil
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NSYS_SRC = ROOT / "fixtures" / "llama_eager_nsys.sqlite"
TORCH_SRC = ROOT / "fixtures" / "llama_eager_torch.pt.trace.json.gz"
DEFAULT_OUT = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench"))

NSYS_TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
               "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS"]
GAP_NS = 1_000_000  # idle time between copies (1 ms)

PRETTY_SEP = b"\n  },\n  {"
PRETTY_END = b"\n  }\n  ]"


def _stride(max_id: int) -> int:
    """A round power of ten above every id, so offset ids stay readable (85930 -> 100000)."""
    return 10 ** max(1, math.ceil(math.log10(max_id + 1)))


PID_UNIT = 1 << 24  # globalPid / globalTid = (vmId << 48) | (pid << 24) | tid


def make_sqlite(out: Path, min_kernels: int, ranks: int = 1) -> Path:
    dst = out / ("big_nsys.sqlite" if ranks == 1 else f"big_nsys_r{ranks}.sqlite")
    tmp = dst.with_name(dst.name + ".tmp")
    tmp.unlink(missing_ok=True)
    shutil.copyfile(NSYS_SRC, tmp)
    con = sqlite3.connect(tmp)
    con.execute("pragma journal_mode=off")
    con.execute("pragma synchronous=off")
    tables = [t for t in NSYS_TABLES
              if con.execute("select 1 from sqlite_master where type='table' and name=?", (t,)).fetchone()]
    lo = min(con.execute(f"select min(start) from {t}").fetchone()[0] for t in tables)
    hi = max(con.execute(f"select max(coalesce(end, start)) from {t}").fetchone()[0] for t in tables)
    period = (hi - lo) + GAP_NS
    max_corr = max(con.execute(f"select coalesce(max(correlationId), 0) from {t}").fetchone()[0]
                   for t in tables if t != "NVTX_EVENTS")
    corr_stride = _stride(max_corr)
    n0 = con.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    copies = -(-min_kernels // (n0 * ranks))  # per process
    for t in tables:
        cols = [r[1] for r in con.execute(f"pragma table_info('{t}')")]
        exprs = []
        for c in cols:
            if c in ("start", "end"):
                exprs.append(f"o.[{c}] + ks.k * {period}")
            elif c == "correlationId":
                exprs.append(f"o.[{c}] + ks.k * {corr_stride}")
            elif c in ("globalPid", "globalTid"):
                exprs.append(f"o.[{c}] + rs.r * {PID_UNIT}")
            elif c == "deviceId" and t != "NVTX_EVENTS":
                exprs.append(f"o.[{c}] + rs.r")
            else:
                exprs.append(f"o.[{c}]")
        rows0 = con.execute(f"select max(rowid) from {t}").fetchone()[0] or 0
        con.execute(f"""
            with recursive ks(k) as (select 0 union all select k + 1 from ks where k < {copies - 1}),
                 rs(r) as (select 0 union all select r + 1 from rs where r < {ranks - 1})
            insert into {t} ({', '.join(f'[{c}]' for c in cols)})
            select {', '.join(exprs)} from ks cross join rs cross join {t} as o
            where o.rowid <= {rows0} and (ks.k > 0 or rs.r > 0) order by ks.k, o.rowid, rs.r""")
    con.commit()
    counts = {t: con.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}
    # every kernel still has its launch call
    orphans = con.execute("""select count(*) from CUPTI_ACTIVITY_KIND_KERNEL where correlationId not in
        (select correlationId from CUPTI_ACTIVITY_KIND_RUNTIME)""").fetchone()[0] if ranks == 1 else 0
    con.close()
    os.replace(tmp, dst)
    print(f"{dst}: {dst.stat().st_size / 2**20:.1f} MiB, {copies} copies of {NSYS_SRC.name} x {ranks} process(es), "
          f"period {period} ns, correlation stride {corr_stride}")
    for t, n in counts.items():
        print(f"  {t}: {n:,} rows")
    print(f"  kernels without a launch call: {orphans}")
    if orphans:
        sys.exit("inconsistent trace")
    return dst


def make_json(out: Path, min_mib: float) -> tuple[Path, Path]:
    with gzip.open(TORCH_SRC, "rb") as f:
        src = f.read()
    open_at = src.index(b'"traceEvents": [') + len(b'"traceEvents": [')
    first = src.index(b"{", open_at)
    last = src.rindex(PRETTY_END)
    head, tail = src[:first + 1], src[last:]  # head ends with the first event's "{"
    pieces = src[first + 1:last].split(PRETTY_SEP)  # each: one event without its outer braces
    body = [p for p in pieces if b'"ph": "M"' not in p]
    ev_hi = 0
    for p in body:  # exact end of the latest event, whole us rounded up
        mt = re.search(rb'"ts": (\d+)', p)
        md = re.search(rb'"dur": (\d+)', p)
        if mt:
            ev_hi = max(ev_hi, int(mt[1]) + (int(md[1]) + 1 if md else 1))
    lo = min(int(m[1]) for m in re.finditer(rb'"ts": (\d+)', src[first:last]))
    period_us = (ev_hi - lo) + GAP_NS // 1000
    ids = [int(m[2]) for m in re.finditer(rb'"(External id|correlation|id)": (\d+)', src[first:last])]
    id_stride = _stride(max(ids))
    block = PRETTY_SEP.join(body)
    target = int(min_mib * 2**20)
    one = len(block) + len(PRETTY_SEP)
    copies = max(1, -(-(target - len(src)) // one) + 1)

    id_re = re.compile(rb'"(External id|correlation|id)": (\d+)')
    ts_re = re.compile(rb'"ts": (\d+)')
    dst = out / "big_torch.pt.trace.json"
    gz = out / "big_torch.pt.trace.json.gz"
    n_events = len(pieces)
    with open(dst, "wb") as fj, open(gz, "wb") as fraw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=fraw, mtime=0, compresslevel=6) as fz:
            def w(b: bytes) -> None:
                fj.write(b)
                fz.write(b)
            w(head)
            w(PRETTY_SEP.join(pieces))  # copy 0: the original events, in order
            for k in range(1, copies):
                dt, di = k * period_us, k * id_stride
                shifted = ts_re.sub(lambda m, dt=dt: b'"ts": %d' % (int(m[1]) + dt), block)
                shifted = id_re.sub(lambda m, di=di: b'"%s": %d' % (m[1], int(m[2]) + di), shifted)
                w(PRETTY_SEP)
                w(shifted)
                n_events += len(body)
            w(tail)
    oneline = make_json_oneline(out, src, first, last, body, copies, period_us, id_stride, id_re, ts_re)
    os.makedirs(out / "hta_json", exist_ok=True)
    os.makedirs(out / "hta_gz", exist_ok=True)
    os.makedirs(out / "hta_oneline", exist_ok=True)
    for d, f in ((out / "hta_json", dst), (out / "hta_gz", gz), (out / "hta_oneline", oneline)):
        for old in d.iterdir():
            old.unlink()
        os.link(f, d / f.name)
    kernels = src.count(b'"cat": "kernel"') * copies
    print(f"{dst}: {dst.stat().st_size / 2**20:.1f} MiB ({dst.stat().st_size:,} bytes), {gz.name}: "
          f"{gz.stat().st_size / 2**20:.1f} MiB; {copies} copies of {TORCH_SRC.name}, {n_events:,} events, "
          f"{kernels:,} kernels, period {period_us} us, id stride {id_stride}")
    return dst, gz


_NUM = "\x00num:"


def _dump_verbatim(v) -> bytes:
    """One-line JSON as Python's json.dump writes it, every number written as its original text."""
    out = json.dumps(v, ensure_ascii=False)
    return re.sub(r'"\\u0000num:([^"]*)"', r"\1", out).encode()


def make_json_oneline(out: Path, src: bytes, first: int, last: int, body: list[bytes], copies: int,
                      period_us: int, id_stride: int, id_re, ts_re) -> Path:
    """big_torch_oneline.json: the same events as big_torch.pt.trace.json, re-saved the way a
    script using json.dump would (one line, ", " and ": " separators), numbers kept verbatim."""
    def parse(b: bytes):
        return json.loads(b, parse_float=lambda x: _NUM + x, parse_int=lambda x: _NUM + x)

    doc = parse(src)
    events = doc["traceEvents"]
    doc["traceEvents"] = ["\x00EVENTS"]
    head, tail = _dump_verbatim(doc).split(b'["\\u0000EVENTS"]')
    line_all = b", ".join(_dump_verbatim(e) for e in events)
    line_body = b", ".join(_dump_verbatim(parse(b"{" + p + b"}")) for p in body)
    dst = out / "big_torch_oneline.json"
    with open(dst, "wb") as f:
        f.write(head + b"[" + line_all)
        for k in range(1, copies):
            dt, di = k * period_us, k * id_stride
            shifted = ts_re.sub(lambda m, dt=dt: b'"ts": %d' % (int(m[1]) + dt), line_body)
            shifted = id_re.sub(lambda m, di=di: b'"%s": %d' % (m[1], int(m[2]) + di), shifted)
            f.write(b", " + shifted)
        f.write(b"]" + tail)
    print(f"{dst}: {dst.stat().st_size / 2**20:.1f} MiB (the same trace on one line, as json.dump writes it)")
    return dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--kernels", type=int, default=1_000_000, help="minimum kernel rows in the SQLite file")
    ap.add_argument("--json-mib", type=float, default=300.0, help="minimum size of the plain JSON (MiB)")
    ap.add_argument("--ranks", type=int, default=1, help="processes on as many GPUs in the SQLite file")
    ap.add_argument("--only", choices=["sqlite", "json"])
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if a.only != "json":
        make_sqlite(a.out, a.kernels, a.ranks)
    if a.only != "sqlite":
        make_json(a.out, a.json_mib)
    print(f"done in {time.perf_counter() - t0:.1f} s -> {a.out}")


if __name__ == "__main__":
    main()
