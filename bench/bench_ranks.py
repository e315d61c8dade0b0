"""Many ranks: `traceattrib report DIR` on a 64-rank directory in one process and on local Dask
clusters of 1, 2 and 4 worker processes; wall time, peak memory of the client and of each worker.

    python bench/make_ranks.py && python bench/bench_ranks.py [--dir DIR] [--repeat 3] [--out bench/RESULTS.md]

Every measurement runs in a fresh interpreter (`--one`), imports included. Modes:
- merged: what `report DIR` did before per-rank analysis: load the whole directory as one trace,
  then analyze it (`ta.analyze(ta.load(DIR))`), all in one process;
- single: `report DIR` without flags: one rank file after another in this process
  (traceattrib.parallel.analyze_path, no Dask);
- workers=N: `report DIR --workers N`: a LocalCluster of N processes with one thread each (start-up
  included in the wall time, and also given apart).
Each mode runs with the Parquet cache empty (parsing every file) and filled (a cached load per
rank file). Peak memory: ru_maxrss of the client process, and of every worker process (asked
through client.run at the end). The reports of all modes are checked to be identical.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench")) / "ranks64"


def _usage() -> tuple[float, float]:
    """This process's peak RSS (MiB) and CPU time, user + system (s)."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_maxrss / 1024, u.ru_utime + u.ru_stime


def one(cfg: dict) -> dict:
    """One measurement in this (fresh) interpreter."""
    t0 = time.perf_counter()
    import traceattrib as ta
    from traceattrib.parallel import analyze_path, cluster
    from traceattrib.render.text import render

    use_cache = cfg["cache"]
    cache_dir = cfg["cache_dir"]
    res: dict = {}
    if cfg["mode"] == "merged":
        rep = ta.analyze(ta.load(cfg["dir"], use_cache=use_cache, cache_dir=cache_dir), layers=4)
    elif cfg["mode"] == "single":
        rep = analyze_path(cfg["dir"], layers=4, use_cache=use_cache, cache_dir=cache_dir)
    else:
        t1 = time.perf_counter()
        with cluster(workers=cfg["workers"]) as client:
            res["cluster_start_s"] = time.perf_counter() - t1
            rep = analyze_path(cfg["dir"], layers=4, use_cache=use_cache, cache_dir=cache_dir, client=client)
            usage = client.run(_usage).values()
            res["worker_peak_mib"] = sorted(u[0] for u in usage)
            res["worker_cpu_s"] = sum(u[1] for u in usage)
    res["wall_s"] = time.perf_counter() - t0
    res["client_peak_mib"], res["client_cpu_s"] = _usage()
    res["cpu_s"] = res["client_cpu_s"] + res.get("worker_cpu_s", 0.0)
    res["loadavg"] = os.getloadavg()[0]
    res["report_sha1"] = hashlib.sha1(render(rep).encode()).hexdigest()[:12]
    res["steps"] = len(rep.steps)
    return res


def run_one(cfg: dict) -> dict:
    p = subprocess.run([sys.executable, __file__, "--one", json.dumps(cfg)], capture_output=True, text=True,
                       cwd=ROOT)
    if p.returncode:
        raise SystemExit(f"run failed: {cfg}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def baseline() -> float:
    """Peak RSS of an interpreter that only imports traceattrib (MiB)."""
    p = subprocess.run([sys.executable, "-c", "import resource, traceattrib.parallel, traceattrib.render.text; "
                        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"], capture_output=True, text=True)
    return int(p.stdout) / 1024


def main() -> None:
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    a.add_argument("--repeat", type=int, default=3)
    a.add_argument("--workers", default="1,2,4")
    a.add_argument("--growth", default="1,8,16,32,64", help="rank counts for the client-memory growth table")
    a.add_argument("--out", type=Path, default=None, help="append a Markdown section to this file")
    a.add_argument("--one", help=argparse.SUPPRESS)
    args = a.parse_args()
    if args.one:
        print(json.dumps(one(json.loads(args.one))))
        return
    if not args.dir.is_dir():
        raise SystemExit(f"{args.dir}: build it first: python bench/make_ranks.py --out {args.dir}")
    files = sorted(args.dir.glob("*.json.gz"))
    size = sum(f.stat().st_size for f in files)
    modes = [("merged", None), ("single", None)] + [("workers", int(n)) for n in args.workers.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="ta-bench-cache-"))
    rows, shas = [], set()
    runs: dict = {(m, n, c): [] for m, n in modes for c in (False, True)}
    try:
        run_one({"mode": "single", "workers": None, "dir": str(args.dir), "cache": True,
                 "cache_dir": str(tmp / "warm")})  # fill the cache once
        # round robin over the modes, so a noisy neighbour slows every mode alike
        for _ in range(args.repeat):
            for (mode, n, cached), got in runs.items():
                cache_dir = str(tmp / "warm") if cached else str(tmp / "cold")
                if not cached:
                    shutil.rmtree(cache_dir, ignore_errors=True)
                got.append(run_one({"mode": mode, "workers": n, "dir": str(args.dir), "cache": cached,
                                    "cache_dir": cache_dir}))
                r = got[-1]
                print(f"{mode:<8} {n or '':<2} cache={'filled' if cached else 'empty':<6} wall {r['wall_s']:6.2f} s  "
                      f"cpu {r['cpu_s']:6.1f} s  client {r['client_peak_mib']:5.0f} MiB  load {r['loadavg']:.1f}  "
                      f"workers {[round(x) for x in r.get('worker_peak_mib', [])]}", file=sys.stderr, flush=True)
        for (mode, n, cached), got in runs.items():
            shas |= {r["report_sha1"] for r in got}
            rows.append((mode if n is None else f"--workers {n}", cached, got))
        growth = []
        for k in [int(x) for x in args.growth.split(",") if x]:
            k = min(k, len(files))
            d = tmp / f"ranks{k}"
            d.mkdir()
            for f in files[:k]:
                os.link(f, d / f.name) if hasattr(os, "link") else shutil.copy(f, d / f.name)
            cfg = {"dir": str(d), "cache": False, "cache_dir": str(tmp / "cold")}  # parsing: the larger peak
            g = {m: run_one(dict(cfg, mode=m, workers=w)) for m, w in
                 (("merged", None), ("single", None), ("workers", 2))}
            growth.append((k, g))
            print(f"ranks {k}: " + ", ".join(f"{m} {v['client_peak_mib']:.0f} MiB" for m, v in g.items()),
                  file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if len(shas) != 1:
        raise SystemExit(f"reports differ between modes: {shas}")
    base = baseline()
    md = _markdown(args, files, size, rows, growth, base)
    print(md)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + md)


def _markdown(args, files, size, rows, growth, base) -> str:
    import traceattrib

    med = lambda runs, k: statistics.median(r[k] for r in runs)  # noqa: E731
    single = {c: med(r, "wall_s") for lbl, c, r in rows if lbl == "single"}
    out = ["## Many ranks: 64-rank directory, Dask workers", "",
           f"`python bench/make_ranks.py && python bench/bench_ranks.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
           f"**{os.cpu_count()} cores** (so 4 workers share 2 cores), traceattrib {traceattrib.__version__}, "
           f"dask {_ver('dask')}, distributed {_ver('distributed')}. Input: {len(files)} rank files, "
           f"{size / 2**20:.1f} MiB gzipped JSON (`make_ranks.py`: ranks 0-31 copies of the TP=2 eager "
           "capture, 32-63 of the CUDA-graph one, rank ids and clocks rewritten). Whole `report --layers 4` "
           f"in a fresh interpreter, imports included; median of {args.repeat}. Reports identical in every mode.", "",
           "| mode | Parquet cache | wall (s) | vs single | cluster start (s) | CPU, all processes (s) | client peak (MiB) | worker peak (MiB, each) |",
           "|---|---|---:|---:|---:|---:|---:|---|"]
    for label, cached, runs in rows:
        w = med(runs, "wall_s")
        cs = f"{med(runs, 'cluster_start_s'):.1f}" if "cluster_start_s" in runs[0] else ""
        wp = ", ".join(f"{x:.0f}" for x in runs[0].get("worker_peak_mib", []))
        out.append(f"| {label} | {'filled' if cached else 'empty'} | {w:.1f} | {single[cached] / w:.2f}x | {cs} | "
                   f"{med(runs, 'cpu_s'):.1f} | {med(runs, 'client_peak_mib'):.0f} | {wp} |")
    out += ["", f"Peak memory as the rank count grows (first ranks of the same directory, cache not used; an "
                f"interpreter that only imports traceattrib peaks at {base:.0f} MiB). 1 rank is rank 0 alone, the "
                "largest rank file: what one rank costs.", "",
            "| ranks | merged (MiB) | single (MiB) | --workers 2: client (MiB) | --workers 2: max worker (MiB) |",
            "|---:|---:|---:|---:|---:|"]
    for k, g in growth:
        out.append(f"| {k} | {g['merged']['client_peak_mib']:.0f} | {g['single']['client_peak_mib']:.0f} | "
                   f"{g['workers']['client_peak_mib']:.0f} | {max(g['workers']['worker_peak_mib']):.0f} |")
    walls = lambda runs: ", ".join(f"{r['wall_s']:.2f} (load {r['loadavg']:.1f})" for r in runs)  # noqa: E731
    loads = [r["loadavg"] for _, _, runs in rows for r in runs]
    out += ["", f"1-minute load average at the end of each run: {min(loads):.1f} to {max(loads):.1f} "
                f"(median {statistics.median(loads):.1f}) on {os.cpu_count()} cores: other work shared the machine.",
            "", "Runs (wall s): " + "; ".join(
        f"{lbl} {'filled' if c else 'empty'}: {walls(runs)}" for lbl, c, runs in rows),
        "", f"Machine: {os.cpu_count()} cores, {platform.platform()}, python {platform.python_version()}."]
    return "\n".join(out) + "\n"


def _ver(mod: str) -> str:
    try:
        return __import__(mod).__version__
    except Exception:  # noqa: BLE001
        return "absent"


if __name__ == "__main__":
    main()
