"""End-to-end `traceattrib report` time on the large inputs, and the cached re-load.

    python bench/make_inputs.py && python bench/bench_report.py [--runs 3]

For each input, in fresh processes (wall time of the whole command, imports included):
  report, no cache      `traceattrib report FILE --no-cache`   (parse + classify + steps + attribute + render)
  report, cache filled  `traceattrib report FILE` after one run that filled the cache (the stored text)
  other format, cached  `traceattrib report FILE --format json` with the stored texts removed before
                        each run: the per-rank results come from the cache, merge and render run
and, in-process, `traceattrib.load(FILE)` from a filled cache (the cached load time alone).
Medians of --runs runs. traceattrib's modules are byte-compiled first, as `pip install` does (and
as HTA's are in its venv): where PYTHONDONTWRITEBYTECODE is set (this project's hosts) every run
would otherwise compile them from source, about 0.15 s of each report. Appends a section to
bench/RESULTS.md (replacing an earlier one).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
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
    # the imports `import traceattrib` made before its API was imported on first use stay untimed;
    # the tables the analyses read (lean: what `report` cached), not the Python API's whole read
    code = (f"import time, traceattrib as ta, traceattrib.analysis, traceattrib.cache as c; "
            f"load = lambda p: c.load(p, lean=c.ANALYSIS_LEAN); "
            f"t0 = time.perf_counter(); t = load({str(path)!r}); "
            "assert t.meta['cached']; print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def byte_compile() -> None:
    """traceattrib's modules compiled to __pycache__, as an installed package has them."""
    import compileall

    if not compileall.compile_dir(str(ROOT / "traceattrib"), quiet=1):
        sys.exit("byte-compiling traceattrib failed")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    byte_compile()
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
            other = []
            for _ in range(a.runs):
                shutil.rmtree(os.path.join(cache, "reports"), ignore_errors=True)
                other.append(wall(cmd + ["--format", "json"], env))
            load = [cached_load(path, env) for _ in range(a.runs)]
        rows.append((label, statistics.median(cold), statistics.median(warm), statistics.median(other),
                     statistics.median(load), cold, warm, other, load, os.getloadavg()[0]))
        print(label, rows[-1][1:5], flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    lines = [MARK, "",
             f"`python bench/bench_report.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} cores, traceattrib {commit.strip() or '?'} (byte-compiled, as installed). "
             f"Whole-command wall time, imports included; median of {a.runs}. 'cache filled': the same "
             "command again (its stored text); '--format json, results cached': the per-rank results read "
             "back, merged and rendered.", "",
             "| Input | report, no cache (s) | report, cache filled (s) | --format json, results cached (s) "
             "| cached load alone (s) |",
             "|---|---:|---:|---:|---:|"]
    for label, c, w, o, load_s, *_ in rows:
        lines.append(f"| {label} | {c:.2f} | {w:.2f} | {o:.2f} | {load_s:.2f} |")
    lines += ["", "Runs: " + "; ".join(f"{r[0]}: no cache {', '.join(f'{x:.2f}' for x in r[5])}, "
                                       f"cached {', '.join(f'{x:.2f}' for x in r[6])}, "
                                       f"json {', '.join(f'{x:.2f}' for x in r[7])}, "
                                       f"load {', '.join(f'{x:.2f}' for x in r[8])} (load average {r[9]:.1f})"
                                       for r in rows), ""]
    res = ROOT / "bench" / "RESULTS.md"
    text = res.read_text() if res.exists() else ""
    if text.startswith("# Speed targets"):  # bench_all.py's table of targets: stale once this section changes
        text = text[text.find("\n# ") + 1:] if "\n# " in text else ""
    if MARK in text:  # replace that section only, keep the ones after it
        i = text.index(MARK)
        j = text.find("\n## ", i + len(MARK))
        text = text[:i] + "\n".join(lines) + ("\n" + text[j + 1:] if j >= 0 else "")
    else:
        text = text.rstrip() + "\n\n" + "\n".join(lines)
    res.write_text(text)
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "report_results.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
