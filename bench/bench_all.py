"""Every speed target in one run: the report benchmark, the load benchmark, then a table of targets.

    python bench/make_inputs.py && python bench/bench_all.py [--runs 3] [--hta-runs 1]

Runs `bench_report.py` then `bench_load.py` (both HTA versions), one after the other, and puts a
"Speed targets" section at the top of bench/RESULTS.md that reads their results (bench/out/*.json;
`bench_load.py` or `bench_report.py` run alone drop it, as its figures would no longer match):
  - `traceattrib report` on the 1M-kernel nsys SQLite, no cache: under 4 s (median);
  - the 320 MB torch JSON, Kineto layout and one line (json.dump): loaded at least 10x faster
    than HTA (0.5.0 and traceinsight 0.6.1), at no more than a quarter of their peak memory;
  - a cached re-report: under 1 s.
The machine is shared: a loop of pure Python (`sum(range(30_000_000))`) is timed before and after
each part and written beside the targets, so a run on a slowed host can be told from a slower
traceattrib.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
MARK = "# Speed targets"
REPORT_S = 4.0  # report on the 1M-kernel SQLite, no cache
RATIO = 10.0  # JSON load time, HTA / ours
MEMORY = 4.0  # peak RSS, HTA / ours
CACHED_S = 1.0  # cached re-report


def calibrate() -> float:
    """Seconds of a fixed pure-Python loop in a fresh interpreter (0.5-0.6 s on a quiet 2 GHz core)."""
    code = "import time; t = time.perf_counter(); sum(range(30_000_000)); print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def run(script: str, args: list[str]) -> tuple[float, float, float]:
    """(calibration before, wall seconds, calibration after) of one benchmark script."""
    before = calibrate()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], check=True)
    return before, time.perf_counter() - t0, calibrate()


def targets(report: list, load: dict) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) rows from bench_report's and bench_load's result files; met is None
    for a figure measured beside the targets."""
    rows = []
    by_input = {r[0]: r for r in report}
    sq = next(r for k, r in by_input.items() if k.startswith("nsys SQLite"))
    runs = ", ".join(f"{x:.2f}" for x in sq[5])
    rows.append((f"`report` on the 1M-kernel nsys SQLite, no cache, under {REPORT_S:.0f} s (median)",
                 f"{sq[1]:.2f} s (runs {runs})", sq[1] < REPORT_S))
    res = {(r["input"], r["loader"]): r for r in load["results"]}
    for inp in ("torch JSON, Kineto layout", "torch JSON, one line (json.dump)", "torch JSON.gz, Kineto layout"):
        target = ".gz" not in inp  # the targets are the two plain layouts; .json.gz is measured beside them
        ours = res.get((inp, "traceattrib"))
        for hta in ("HTA 0.5.0", "traceinsight 0.6.1"):
            other = res.get((inp, hta))
            if ours is None or other is None:
                continue
            t = other["load_s"] / ours["load_s"]
            m = other["peak_rss_mib"] / ours["peak_rss_mib"]
            rows.append((f"{inp}: load at least {RATIO:.0f}x faster than {hta}",
                         f"**{t:.1f}x** ({ours['load_s']:.2f} s against {other['load_s']:.2f} s)", t >= RATIO if target else None))
            rows.append((f"{inp}: peak memory at most 1/{MEMORY:.0f} of {hta}'s",
                         f"1/{m:.1f} ({ours['peak_rss_mib']:.0f} MiB against {other['peak_rss_mib']:.0f} MiB; "
                         f"limit {other['peak_rss_mib'] / MEMORY:.0f} MiB)", m >= MEMORY if target else None))
    worst = max(r[2] for r in report)
    rows.append((f"cached re-report under {CACHED_S:.0f} s (every input)", f"{worst:.2f} s at most", worst < CACHED_S))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hta-runs", type=int, default=1, help="runs per HTA measurement (each takes 30-45 s)")
    a = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rep = run("bench_report.py", ["--runs", str(a.runs)])
    load = run("bench_load.py", ["--runs", str(a.runs), "--hta-runs", str(a.hta_runs)])
    rows = targets(json.loads((OUT / "report_results.json").read_text()),
                   json.loads((OUT / "results.json").read_text()))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    met = all(r[2] for r in rows if r[2] is not None)
    lines = [MARK, "",
             f"`python bench/bench_all.py` started {started}, traceattrib {commit}, {os.cpu_count()} cores: the report "
             "and load benchmarks below, one after the other, in this one run. "
             f"**{'Every target met.' if met else 'Not every target met.'}**", "",
             "| Target | Measured | Met |", "|---|---|---|"]
    lines += [f"| {t} | {m} | {'(not a target)' if ok is None else 'yes' if ok else '**no**'} |" for t, m, ok in rows]
    lines += ["", "Host speed, a fixed pure-Python loop timed before and after each part (0.5-0.6 s on a quiet "
              f"core): report benchmark {rep[0]:.2f} -> {rep[2]:.2f} s ({rep[1] / 60:.1f} min), load benchmark "
              f"{load[0]:.2f} -> {load[2]:.2f} s ({load[1] / 60:.1f} min).", ""]
    # on top of the file, which bench_load.py has just rewritten from its title on (dropping any
    # earlier targets: they would not match its new figures)
    res = ROOT / "bench" / "RESULTS.md"
    res.write_text("\n".join(lines) + "\n" + res.read_text())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
