"""Load-time and peak-memory benchmark: traceattrib's readers beside HTA's TraceAnalysis.

    python bench/make_inputs.py && python bench/bench_load.py [--runs 3] [--only sqlite|json]

Every measurement runs in a fresh interpreter. The child imports its library, then times the load
call alone (perf_counter); the parent takes the child's peak RSS from os.wait4 (ru_maxrss, the
whole process: interpreter + imports + load). A child that only imports gives the baseline.
Each figure is the median of --runs runs. Files are read warm from the page cache (each input is
read once before timing). Writes bench/RESULTS.md and bench/out/results.json.

Loaders:
  traceattrib  traceattrib.ingest.read(path)          (no cache) - SQLite, .json, .json.gz
  HTA          TraceAnalysis(trace_dir=DIR)            DIR holds the same .json (or .json.gz) alone
HTA 0.5.0 takes a directory and picks up files ending in .json or .gz; its default parser backend
(ParserBackend.JSON) reads the whole file with json.loads. It runs in its own venv (--hta-python).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench"))
OURS_PY = os.environ.get("TRACEATTRIB_PYTHON", sys.executable)
HTA_PY = os.environ.get("HTA_PYTHON", "/tmp/htavenv/bin/python")

CHILD = r'''
import json, sys, time
tool, path = sys.argv[1], sys.argv[2]
if tool == "ours":
    import traceattrib.ingest as ingest
else:
    import logging
    from hta.trace_analysis import TraceAnalysis
    from hta.configs.config import logger
    logger.setLevel(logging.ERROR)
res = {}
if path != "-":
    t0 = time.perf_counter()
    if tool == "ours":
        t = ingest.read(path)
        res["rows"] = {"kernels": len(t.kernels), "launches": len(t.launches), "ranges": len(t.ranges)}
    else:
        ta = TraceAnalysis(trace_dir=path)
        res["rows"] = {"events": int(sum(len(df) for df in ta.t.traces.values()))}
    res["load_s"] = time.perf_counter() - t0
print("RESULT " + json.dumps(res))
'''


def run_child(python: str, tool: str, path: str, env: dict) -> dict:
    """Run one child; its own peak RSS comes from wait4 (ru_maxrss is per child there, unlike
    RUSAGE_CHILDREN, which keeps the maximum over every child reaped so far)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen([python, "-c", CHILD, tool, path], stdout=subprocess.PIPE, stderr=errf,
                             env=env, cwd="/tmp")
        out = p.stdout.read()  # to EOF; the child is reaped by wait4 below, not by Popen
        p.stdout.close()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = code = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        errf.seek(0)
        err = errf.read()
    lines = [ln for ln in out.decode().splitlines() if ln.startswith("RESULT ")]
    if code != 0 or not lines:
        raise RuntimeError(f"{tool} {path} failed ({code}):\n{err.decode()[-3000:]}")
    res = json.loads(lines[-1][7:])
    res["peak_rss_mib"] = ru.ru_maxrss / 1024  # KiB on Linux
    res["process_s"] = wall
    return res


def measure(python: str, tool: str, path: str, runs: int) -> dict:
    env = dict(os.environ, TRACEATTRIB_CACHE_DIR="/tmp/traceattrib-bench-nocache", PYTHONHASHSEED="0")
    samples = []
    for i in range(runs):
        r = run_child(python, tool, path, env)
        samples.append(r)
        what = f"{r['load_s']:.2f} s" if "load_s" in r else "imports only"
        print(f"    run {i + 1}: {what}, peak {r['peak_rss_mib']:.0f} MiB", flush=True)
    med = {"runs": runs, "rows": samples[-1].get("rows")}
    for k in ("load_s", "peak_rss_mib", "process_s"):
        vals = [s[k] for s in samples if k in s]
        if vals:
            med[k] = statistics.median(vals)
            med[k + "_all"] = vals
    return med


def warm(path: Path) -> None:
    for f in ([path] if path.is_file() else sorted(path.iterdir())):
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


_VERSIONS = r"""
import json, platform, sqlite3, sys
from importlib.metadata import PackageNotFoundError, version
v = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
for pkg in sys.argv[1:]:
    try:
        v[pkg] = version(pkg)
    except PackageNotFoundError:
        pass
print(json.dumps(v))
"""


def versions() -> dict:
    out = {}
    for name, py, pkgs in (("traceattrib venv", OURS_PY, ["traceattrib", "numpy", "pandas", "pyarrow"]),
                           ("HTA venv", HTA_PY, ["HolisticTraceAnalysis", "numpy", "pandas"])):
        try:
            out[name] = json.loads(subprocess.run([py, "-c", _VERSIONS, *pkgs], capture_output=True, check=True,
                                                  text=True).stdout)
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            out[name] = {"error": str(e)}
    return out


def machine() -> dict:
    mem = ""
    with open("/proc/meminfo") as f:
        for ln in f:
            if ln.startswith("MemTotal"):
                mem = f"{int(ln.split()[1]) / 2**20:.1f} GiB"
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return {"nproc": nproc, "ram": mem, "cpu": cpu, "os": platform.platform(),
            "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")}


def git_rev() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "traceattrib"],
                               capture_output=True, text=True).stdout.strip()
        return rev + (" + uncommitted reader changes" if dirty else "")
    except OSError:
        return "?"


def size(p: Path) -> str:
    b = p.stat().st_size if p.is_file() else sum(f.stat().st_size for f in p.iterdir())
    return f"{b / 2**20:.0f} MiB"


def fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=["sqlite", "json"])
    ap.add_argument("--no-hta", action="store_true")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    a = ap.parse_args()
    d = a.dir
    sqlite_p, json_p, gz_p = d / "big_nsys.sqlite", d / "big_torch.pt.trace.json", d / "big_torch.pt.trace.json.gz"
    for p in (sqlite_p, json_p, gz_p, d / "hta_json", d / "hta_gz"):
        if not p.exists():
            sys.exit(f"{p} is missing: run python bench/make_inputs.py first")

    cases = []  # (input label, input path for size, loader label, python, tool, arg)
    if a.only != "json":
        cases.append(("nsys SQLite", sqlite_p, "traceattrib", OURS_PY, "ours", str(sqlite_p)))
    if a.only != "sqlite":
        cases.append(("torch JSON", json_p, "traceattrib", OURS_PY, "ours", str(json_p)))
        if not a.no_hta:
            cases.append(("torch JSON", json_p, "HTA", HTA_PY, "hta", str(d / "hta_json")))
        cases.append(("torch JSON.gz", gz_p, "traceattrib", OURS_PY, "ours", str(gz_p)))
        if not a.no_hta:
            cases.append(("torch JSON.gz", gz_p, "HTA", HTA_PY, "hta", str(d / "hta_gz")))

    results = {}
    print("baselines (interpreter + imports, no load):", flush=True)
    base = {}
    for tool, py, label in (("ours", OURS_PY, "traceattrib"), ("hta", HTA_PY, "HTA")):
        if tool == "hta" and (a.no_hta or a.only == "sqlite"):
            continue
        print(f"  {label}", flush=True)
        base[label] = measure(py, tool, "-", a.runs)
    for inp, p, loader, py, tool, arg in cases:
        print(f"{inp} ({size(p)}) - {loader}", flush=True)
        warm(Path(arg))
        results[(inp, loader)] = measure(py, tool, arg, a.runs)
        results[(inp, loader)]["size"] = size(p)

    # Markdown
    rows = ["| Input | Size | Loader | Load time (s) | Peak RSS (MiB) | Peak above baseline (MiB) "
            "| HTA time / ours | HTA peak / ours |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for (inp, loader), r in results.items():
        hta = results.get((inp, "HTA"))
        tr = pr = ""
        if loader == "traceattrib" and hta:
            tr = f"**{hta['load_s'] / r['load_s']:.1f}x**"
            pr = f"**{hta['peak_rss_mib'] / r['peak_rss_mib']:.1f}x**"
        b = base[loader]["peak_rss_mib"]
        rows.append(f"| {inp} | {r['size']} | {loader} | {r['load_s']:.2f} | {r['peak_rss_mib']:.0f} | "
                    f"{r['peak_rss_mib'] - b:.0f} | {tr} | {pr} |")
    table = "\n".join(rows)
    rows_info = "\n".join(f"- {inp}, {loader}: {json.dumps(r['rows'])}; load runs "
                          f"{', '.join(f'{x:.2f}' for x in r['load_s_all'])} s; peak runs "
                          f"{', '.join(f'{x:.0f}' for x in r['peak_rss_mib_all'])} MiB"
                          for (inp, loader), r in results.items())
    base_info = "\n".join(f"- {k}: {v['peak_rss_mib']:.0f} MiB peak RSS, {v['process_s']:.2f} s process wall "
                          f"(interpreter + imports)" for k, v in base.items())
    m = machine()
    v = versions()
    ver = "\n".join(f"- {k}: " + ", ".join(f"{a_} {b_}" for a_, b_ in vv.items()) for k, vv in v.items())
    md = f"""# Load benchmark

Generated by `python bench/make_inputs.py && python bench/bench_load.py` on {m['date']} (traceattrib {git_rev()}).

{table}

Load time: the load call alone, in a fresh interpreter after its imports (`traceattrib.ingest.read(path)`,
no cache; `TraceAnalysis(trace_dir=DIR)` with DIR holding the same file alone). Peak RSS: the whole
child process (`os.wait4` ru_maxrss: interpreter + imports + load). Median of {a.runs} runs each; page
cache warm. Ratios are HTA / traceattrib on the same file (HTA reads no SQLite).

Inputs (`bench/make_inputs.py`, deterministic): `big_nsys.sqlite` = fixtures/llama_eager_nsys.sqlite
repeated 153x shifted in time (1,001,844 kernels, 2,114,154 runtime calls); `big_torch.pt.trace.json`
= fixtures/llama_eager_torch.pt.trace.json.gz's events repeated 18x shifted in time, in Kineto's layout
(879,844 events, 117,864 kernels); `.json.gz` is the same bytes gzipped.

Rows loaded and every run:
{rows_info}

Baselines:
{base_info}

Machine: {m['nproc']} cores (`nproc`), {m['ram']} RAM, {m['cpu']}, {m['os']}.
{ver}
"""
    a.results.write_text(md)
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "results.json").write_text(json.dumps(
        {"machine": m, "versions": v, "baselines": base,
         "results": [{"input": i, "loader": l, **r} for (i, l), r in results.items()]}, indent=1))
    print()
    print(table)
    print(f"\nwrote {a.results}")


if __name__ == "__main__":
    main()
