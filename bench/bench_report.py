"""End-to-end `traceattrib report` time on the large inputs, and the cached re-load.

    python bench/make_inputs.py && python bench/bench_report.py [--runs 3]

For each input, in fresh processes (wall time of the whole command, imports included):
  report, no cache      `traceattrib report FILE --no-cache`   (parse + classify + steps + attribute + render)
  report, cache filled  `traceattrib report FILE` after one run that filled the Parquet cache
and, in-process, `traceattrib.load(FILE)` from a filled cache (the cached load time alone).
Medians of --runs runs. Appends a section to bench/RESULTS.md (replacing an earlier one).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIR = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench"))
INPUTS = [("nsys SQLite, 1,001,844 kernels", DIR / "big_nsys.sqlite"),
          ("torch JSON, 312 MiB", DIR / "big_torch.pt.trace.json"),
          ("torch JSON one line (json.dump), 285 MiB", DIR / "big_torch_oneline.json"),
          ("torch JSON.gz, 20 MiB", DIR / "big_torch.pt.trace.json.gz")]
MARK = "## Report benchmark"


def wall(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def cached_load(path: Path, env: dict) -> float:
    code = (f"import time, traceattrib as ta; t0 = time.perf_counter(); t = ta.load({str(path)!r}); "
            "assert t.meta['cached']; print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    rows = []
    for label, path in INPUTS:
        if not path.exists():
            sys.exit(f"{path} missing: run bench/make_inputs.py first")
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TRACEATTRIB_CACHE_DIR=cache)
            cmd = [sys.executable, "-m", "traceattrib", "report", str(path)]
            cold = [wall(cmd + ["--no-cache"], env) for _ in range(a.runs)]
            wall(cmd, env)  # fills the cache
            warm = [wall(cmd, env) for _ in range(a.runs)]
            load = [cached_load(path, env) for _ in range(a.runs)]
        rows.append((label, statistics.median(cold), statistics.median(warm), statistics.median(load), cold, warm, load))
        print(label, rows[-1][1:4], flush=True)
    lines = [MARK, "",
             f"`python bench/bench_report.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} cores. Whole-command wall time, imports included; median of {a.runs}.", "",
             "| Input | report, no cache (s) | report, cache filled (s) | cached load alone (s) |",
             "|---|---:|---:|---:|"]
    for label, c, w, load_s, *_ in rows:
        lines.append(f"| {label} | {c:.2f} | {w:.2f} | {load_s:.2f} |")
    lines += ["", "Runs: " + "; ".join(f"{r[0]}: no cache {', '.join(f'{x:.2f}' for x in r[4])}, "
                                       f"cached {', '.join(f'{x:.2f}' for x in r[5])}, "
                                       f"load {', '.join(f'{x:.2f}' for x in r[6])}" for r in rows), ""]
    res = ROOT / "bench" / "RESULTS.md"
    text = res.read_text() if res.exists() else ""
    if MARK in text:
        text = text[:text.index(MARK)].rstrip() + "\n\n"
    res.write_text(text + "\n".join(lines))
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "report_results.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
