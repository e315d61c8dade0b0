"""`traceattrib report --no-cache` of this tree against an earlier commit, interleaved on one host.

    python bench/make_inputs.py && python bench/bench_before.py [--before 57288fe] [--rounds 8] [--without-new]
        [--cache none|empty|filled] [--load]

The earlier commit is checked out into a temporary worktree; both trees are byte-compiled (as an
installed package runs); each round runs every input once per tree, in turn (each round starting
with the next tree), in fresh processes outside the repository (PYTHONPATH picks the tree), and
times a fixed pure-Python loop first (a slowed host shows there). With --without-new a third
column runs this tree with the analyses the earlier commit did not have (layers and modules, the
integrity checks, the step kinds' physical measurements) replaced by empty results, patched in as
their modules load: what the rest of the code costs against the earlier commit. Prints the median
wall time, CPU time (user + system) and peak RSS per input and tree, and the ratios.
--cache picks what each run finds: none (`--no-cache`, the default), empty (a plain `report` into
an empty cache directory: a first run as users make it, the trace's tables and results written to
the cache) or filled (each tree's cache filled once per input, then two runs per round: the same
`report` again, which prints the stored text, and `report --format json` with the stored texts
removed, which reads the per-rank results back, merges and renders: bench_report's cached rows).
--load times `traceattrib.load(FILE, use_cache=False)` in a fresh process instead (the reader and
the table model alone, bench_load's measure), imports untimed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIR = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench"))
INPUTS = [("nsys SQLite, 1M kernels", "big_nsys.sqlite"), ("torch JSON, 312 MiB", "big_torch.pt.trace.json")]
# the reader and table model alone: imports untimed, as bench_load does
LOAD = ("import sys, time, traceattrib, traceattrib.analysis, traceattrib.cache; t0 = time.perf_counter(); "
        "traceattrib.load(sys.argv[1], use_cache=False); print(time.perf_counter() - t0)")
LOOP = "import time; t = time.perf_counter(); sum(range(30_000_000)); print(time.perf_counter() - t)"

# run as `python -c WITHOUT_NEW report ...`: the analyses 57288fe did not have, made empty
WITHOUT_NEW = r'''
import importlib.abc, importlib.machinery, sys
def layers(m):
    m._layers = lambda *a, **k: (None, None)
def integrity(m):
    import numpy as np, pandas as pd
    m.rank_checks = lambda trace, ops, steps, *a, **k: m.RankChecks(
        table=pd.DataFrame({c: [] for c in m.CHECK_COLUMNS}), flags=np.full(len(steps), "", object))
def kinds(m):
    import numpy as np
    P = sys.modules["traceattrib.steps.physical"]
    def measure(ctx, step, n):
        none = np.full(n, -1, np.int64)
        return P.Physical(none, none, none, none, none, none, none, np.full(n, np.nan), np.zeros(n, bool), none)
    m.measure = measure
PATCH = {"traceattrib.analysis": layers, "traceattrib.integrity": integrity, "traceattrib.steps.kinds": kinds}
class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in PATCH:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            PATCH[name](module)
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Finder())
from traceattrib.cli import run
sys.argv = ["traceattrib", *sys.argv[1:]]
run()  # as `python -m traceattrib` ends (main() alone would add the interpreter teardown, 0.15-0.2 s)
'''


def timed(cmd: list[str], env: dict, inner: bool = False) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS GiB) of one command, from os.wait4; inner: the wall time is the one
    the command prints (LOAD: its imports untimed). Run outside the repository: `python -m` and
    `-c` put the working directory first on sys.path, where a checkout would shadow PYTHONPATH's
    tree."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, cwd=tempfile.gettempdir())
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return (float(out) if inner else wall), ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 2**20


@dataclass
class Run:
    """One timed command of a round: its row label suffix, the command, the cache directory it finds
    (None: an empty one), and what is done untimed before it, given its environment."""

    row: str
    cmd: list[str]
    cache: str | None = None
    prepare: Callable[[dict], object] | None = None
    inner: bool = False


def _runs(a, how: list[str], path: Path, cache: str | None) -> list[Run]:
    """The timed commands of one input and tree in one round."""
    run = [sys.executable, *how]
    if a.load:
        return [Run("", [sys.executable, "-c", LOAD, str(path)], inner=True)]
    if a.cache == "none":
        return [Run("", [*run, "report", "--no-cache", str(path)])]
    text = [*run, "report", str(path)]
    if a.cache == "empty":
        return [Run("", text)]
    # the stored texts go before the first, so that it reads the per-rank results back; the
    # second finds its text stored again
    return [Run(", stored results", [*run, "report", "--format", "json", str(path)], cache,
                lambda env: shutil.rmtree(os.path.join(cache, "reports"), ignore_errors=True)),
            Run(", stored text", text, cache, lambda env: timed(text, env))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="57288fe", help="the earlier commit (default: the code before the typed report)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--without-new", action="store_true", help="also this tree without the later analyses")
    ap.add_argument("--cache", choices=["none", "empty", "filled"], default="none",
                    help="none: --no-cache; empty: a plain `report` into an empty cache directory each run (a "
                         "first run, the cache written); filled: the stored text and the stored results")
    ap.add_argument("--load", action="store_true", help="time traceattrib.load alone (no cache) instead of report")
    a = ap.parse_args()
    files = [(label, DIR / f) for label, f in INPUTS if (DIR / f).exists()]
    if not files:
        raise SystemExit(f"no inputs in {DIR}: run bench/make_inputs.py first")
    with tempfile.TemporaryDirectory(prefix="traceattrib-before-") as tmp:
        old = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), a.before], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for tree in (ROOT, old):
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "traceattrib")], check=True)
            trees = {"this tree": (ROOT, ["-m", "traceattrib"]), a.before: (old, ["-m", "traceattrib"])}
            if a.without_new and not a.load:
                trees["without the new analyses"] = (ROOT, ["-c", WITHOUT_NEW])
            got: dict[tuple[str, str], list] = {}
            loops = []
            filled = {}  # (input, tree) -> its cache directory, filled once
            if a.cache == "filled":
                for label, path in files:
                    for name, (tree, how) in trees.items():
                        filled[label, name] = tempfile.mkdtemp(prefix="traceattrib-cache-", dir=tmp)
                        env = dict(os.environ, PYTHONPATH=str(tree), TRACEATTRIB_CACHE_DIR=filled[label, name])
                        timed([sys.executable, *how, "report", str(path)], env)
            for r in range(a.rounds):
                loops.append(float(subprocess.run([sys.executable, "-c", LOOP], capture_output=True, text=True,
                                                  check=True).stdout))
                # the trees in turn, each round starting with the next one: the first run of a round
                # can be slower or faster than the rest, which then falls on every tree alike
                names = list(trees)
                names = names[r % len(names):] + names[:r % len(names)]
                for label, path in files:
                    for name in names:
                        tree, how = trees[name]
                        for run in _runs(a, how, path, filled.get((label, name))):
                            with tempfile.TemporaryDirectory(prefix="traceattrib-cache-", dir=tmp) as empty:
                                # (the empty one is unused with --no-cache)
                                env = dict(os.environ, PYTHONPATH=str(tree), TRACEATTRIB_CACHE_DIR=run.cache or empty)
                                if run.prepare:
                                    run.prepare(env)
                                got.setdefault((f"{label}{run.row}", name), []).append(
                                    timed(run.cmd, env, run.inner))
                print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    how = "traceattrib.load, no cache" if a.load else {"none": "--no-cache", "empty": "into an empty cache",
                                                        "filled": "from a filled cache"}[a.cache]
    print(f"{a.rounds} interleaved rounds ({how}); loop {min(loops):.2f}-{max(loops):.2f} s")
    print(f"{'input':38s} {'tree':26s} {'wall (median, range)':>24s} {'CPU':>7s} {'peak':>9s} {'vs before':>9s}")
    for label in dict.fromkeys(k[0] for k in got):
        base = statistics.median(x[0] for x in got[(label, a.before)])
        for name in trees:
            runs = got[(label, name)]
            w = sorted(x[0] for x in runs)
            med = statistics.median(w)
            print(f"{label:38s} {name:26s} {med:6.2f} s ({w[0]:.2f}-{w[-1]:.2f}) "
                  f"{statistics.median(x[1] for x in runs):6.2f}s {statistics.median(x[2] for x in runs):6.2f} GiB "
                  f"{100 * (med / base - 1):+8.0f}%")


if __name__ == "__main__":
    main()
