"""Load-time and peak-memory benchmark: traceattrib's readers beside HTA's TraceAnalysis.

    python bench/make_inputs.py && python bench/bench_load.py [--runs 3] [--only sqlite|json]

Every measurement runs in a fresh interpreter. The child imports its library, then times the load
call alone (perf_counter); the parent takes the child's peak RSS from os.wait4 (ru_maxrss, the
whole process: interpreter + imports + load). A child that only imports gives the baseline.
Each figure is the median of --runs runs. Files are read warm from the page cache (each input is
read once before timing). Writes bench/RESULTS.md and bench/out/results.json.

Loaders:
  traceattrib          traceattrib.ingest.read(path)   (no cache) - SQLite, .json (two layouts), .json.gz
  HTA 0.5.0            TraceAnalysis(trace_dir=DIR)    DIR holds the same .json (or .json.gz) alone
  traceinsight 0.6.1   the same API (HTA's successor package, same `hta` module)
HTA takes a directory and picks up files ending in .json or .gz; its default parser backend reads the
whole file with json.loads. Each runs in its own venv ($HTA_PYTHON, $TRACEINSIGHT_PYTHON):
    python3 -m venv /tmp/htavenv && /tmp/htavenv/bin/pip install holistictraceanalysis==0.5.0
    python3 -m venv /tmp/tivenv && /tmp/tivenv/bin/pip install traceinsight==0.6.1
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
HTA_PY = os.environ.get("HTA_PYTHON", "/tmp/htavenv/bin/python")  # holistictraceanalysis==0.5.0
TI_PY = os.environ.get("TRACEINSIGHT_PYTHON", "/tmp/tivenv/bin/python")  # traceinsight==0.6.1 (HTA renamed)

CHILD = r'''
import json, sys, time
tool, path = sys.argv[1], sys.argv[2]
if tool == "ours":
    import traceattrib.ingest as ingest
    import traceattrib.ingest.kineto, traceattrib.ingest.nsys  # the readers import on first use: untimed here
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
    for name, py, pkgs in (("traceattrib venv", OURS_PY, ["traceattrib", "numpy", "pandas", "pyarrow", "msgspec", "duckdb",
                                                          "adbc-driver-sqlite"]),
                           ("HTA venv", HTA_PY, ["HolisticTraceAnalysis", "numpy", "pandas"]),
                           ("traceinsight venv", TI_PY, ["traceinsight", "numpy", "pandas"])):
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


LOADERS = [("traceattrib", "ours"), ("HTA 0.5.0", "hta"), ("traceinsight 0.6.1", "hta")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hta-runs", type=int, help="runs per HTA measurement (default: --runs)")
    ap.add_argument("--only", choices=["sqlite", "json"])
    ap.add_argument("--no-hta", action="store_true")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    a = ap.parse_args()
    d = a.dir
    pythons = {"traceattrib": OURS_PY, "HTA 0.5.0": HTA_PY, "traceinsight 0.6.1": TI_PY}
    inputs = [("nsys SQLite", d / "big_nsys.sqlite", None),
              ("torch JSON, Kineto layout", d / "big_torch.pt.trace.json", d / "hta_json"),
              ("torch JSON, one line (json.dump)", d / "big_torch_oneline.json", d / "hta_oneline"),
              ("torch JSON.gz, Kineto layout", d / "big_torch.pt.trace.json.gz", d / "hta_gz")]
    for _, p, hd in inputs:
        for q in (p, hd):
            if q is not None and not q.exists():
                sys.exit(f"{q} is missing: run python bench/make_inputs.py first")
    cases = []  # (input label, input path for size, loader label, tool, arg)
    for inp, p, hta_dir in inputs:
        if (a.only == "json") == (hta_dir is None) and a.only:
            continue
        cases.append((inp, p, "traceattrib", "ours", str(p)))
        if hta_dir is not None and not a.no_hta:
            for label, tool in LOADERS[1:]:
                cases.append((inp, p, label, tool, str(hta_dir)))

    results = {}
    print("baselines (interpreter + imports, no load):", flush=True)
    base = {}
    for label, tool in LOADERS:
        if tool == "hta" and (a.no_hta or a.only == "sqlite"):
            continue
        print(f"  {label}", flush=True)
        base[label] = measure(pythons[label], tool, "-", a.runs)
    for inp, p, loader, tool, arg in cases:
        print(f"{inp} ({size(p)}) - {loader}", flush=True)
        warm(Path(arg))
        runs = a.hta_runs or a.runs if tool == "hta" else a.runs
        la0 = os.getloadavg()[0]
        results[(inp, loader)] = measure(pythons[loader], tool, arg, runs)
        results[(inp, loader)]["size"] = size(p)
        results[(inp, loader)]["loadavg"] = [la0, os.getloadavg()[0]]

    # Markdown
    hta_labels = [lab for lab, t in LOADERS if t == "hta"]
    rows = ["| Input | Size | Loader | Load time (s) | Peak RSS (MiB) | Peak above baseline (MiB) | "
            + " | ".join(f"{h} time / ours | {h} peak / ours" for h in hta_labels) + " |",
            "|---|---|---|---:|---:|---:|" + "---:|---:|" * len(hta_labels)]
    for (inp, loader), r in results.items():
        ratios = []
        for h in hta_labels:
            hr = results.get((inp, h))
            if loader == "traceattrib" and hr:
                ratios += [f"**{hr['load_s'] / r['load_s']:.1f}x**", f"**{hr['peak_rss_mib'] / r['peak_rss_mib']:.1f}x**"]
            else:
                ratios += ["", ""]
        b = base[loader]["peak_rss_mib"]
        rows.append(f"| {inp} | {r['size']} | {loader} | {r['load_s']:.2f} | {r['peak_rss_mib']:.0f} | "
                    f"{r['peak_rss_mib'] - b:.0f} | " + " | ".join(ratios) + " |")
    table = "\n".join(rows)
    rows_info = "\n".join(f"- {inp}, {loader}: {json.dumps(r['rows'])}; load runs "
                          f"{', '.join(f'{x:.2f}' for x in r['load_s_all'])} s; peak runs "
                          f"{', '.join(f'{x:.0f}' for x in r['peak_rss_mib_all'])} MiB; load average "
                          f"{r['loadavg'][0]:.1f} -> {r['loadavg'][1]:.1f}"
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
child process (`os.wait4` ru_maxrss: interpreter + imports + load). Median of {a.runs} runs each
({a.hta_runs or a.runs} for HTA); page cache warm. Ratios are HTA / traceattrib on the same file (HTA reads
no SQLite). The machine is shared: the load average before and after each measurement is listed below.

Inputs (`bench/make_inputs.py`, deterministic): `big_nsys.sqlite` = fixtures/llama_eager_nsys.sqlite
repeated 153x shifted in time (1,001,844 kernels, 2,114,154 runtime calls); `big_torch.pt.trace.json`
= fixtures/llama_eager_torch.pt.trace.json.gz's events repeated 18x shifted in time, in Kineto's layout
(879,844 events, 117,864 kernels); `big_torch_oneline.json` = the same document on one line as Python's
`json.dump` writes it (what trace mergers and trimming scripts produce), numbers verbatim; `.json.gz` is
the Kineto-layout bytes gzipped.

Rows loaded and every run:
{rows_info}

Baselines:
{base_info}

Machine: {m['nproc']} cores (`nproc`), {m['ram']} RAM, {m['cpu']}, {m['os']}.
{ver}
"""
    # the load section only: the report and many-ranks sections after it are kept
    old = a.results.read_text() if a.results.exists() else ""
    j = old.find("\n## ")
    a.results.write_text(md.rstrip() + "\n" + (old[j:] if j >= 0 else ""))
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "results.json").write_text(json.dumps(
        {"machine": m, "versions": v, "baselines": base,
         "results": [{"input": i, "loader": lab, **r} for (i, lab), r in results.items()]}, indent=1))
    print()
    print(table)
    print(f"\nwrote {a.results}")


if __name__ == "__main__":
    main()
