"""Time and peak memory of whole `traceattrib report` commands as the input grows.

    python bench/make_inputs.py --out DIR_1M --kernels 1000000 --only sqlite    (and 4M, 16M, ...)
    python bench/make_inputs.py --out DIR_1200 --json-mib 1200 --only json      (and 300, 5000, ...)
    python bench/make_inputs.py --out DIR_50M --kernels 50000000 --ranks 8 --only sqlite  (8 GPUs in one file)
    python bench/bench_scale.py DIR_1M/big_nsys.sqlite DIR_4M/big_nsys.sqlite DIR_1200/big_torch.pt.trace.json ...

Each report runs in a fresh process (`--no-cache --format json`); its wall time and peak RSS
(os.wait4's ru_maxrss: the process's largest resident set) are printed as a Markdown table, with
the kernel rows of each input and the peak per kernel.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], out: str) -> tuple[float, int, int]:
    """(wall s, peak RSS bytes, exit status) of one report process writing its JSON to `out`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    with open(out, "wb") as f:
        p = subprocess.Popen([sys.executable, "-m", "traceattrib", "report", "--no-cache", "--format", "json", *args],
                             stdout=f, stderr=subprocess.DEVNULL, env=env, cwd=tempfile.gettempdir())
        _, status, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, ru.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


KERNEL_EVENT = b'"cat": "kernel"'  # how Kineto's own layout writes a kernel event's category


def kernels(path: str) -> int:
    """Kernel rows of an nsys export, or kernel events of a torch JSON in Kineto's layout."""
    if not path.endswith(".sqlite"):
        n, tail = 0, b""
        with open(path, "rb") as f:
            while chunk := f.read(1 << 24):
                block = tail + chunk
                n += block.count(KERNEL_EVENT)
                tail = block[-(len(KERNEL_EVENT) - 1):]  # a match cut by the chunk's end is counted once
        return n
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    print("| input | kernels | report time | peak RSS | peak per kernel |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for path in a.inputs:
            n = kernels(path)
            size = os.path.getsize(path) / 2 ** 30
            out = os.path.join(tmp, "report.json")
            runs = [run([path], out) for _ in range(a.runs)]
            wall = sorted(r[0] for r in runs)[len(runs) // 2]
            peak = max(r[1] for r in runs)
            ok = all(r[2] == 0 for r in runs)
            what = "nsys SQLite" if path.endswith(".sqlite") else "torch JSON"
            print(f"| {what}, {size:.2f} GiB | {n:,} | {wall:.1f} s{'' if ok else ' (failed)'} | "
                  f"{peak / 2 ** 30:.2f} GiB | {peak / n:,.0f} B |", flush=True)


if __name__ == "__main__":
    main()
