"""Build a many-rank torch.profiler directory from the TP=2 fixtures, for `bench_ranks.py` and tests.

    python bench/make_ranks.py [--out /tmp/traceattrib-bench/ranks64] [--ranks 64] [--source both]

Rank k is a copy of one rank file of fixtures/tp2_eager_torch or fixtures/tp2_graph_torch (source
both: ranks 0..n/2-1 from eager, the rest from CUDA graphs; or one source for all), taken in
pairs so that ranks 2j and 2j+1 are rank 0 and rank 1 of the same real capture. Each copy has:
- distributedInfo rewritten: rank k, world_size n, the default process group of n ranks;
- every "ts" shifted by j x --shift-us whole microseconds for pair j (only the integer part of
  the number changes, so every nanosecond digit survives), as clocks of different hosts would be.
Every rank runs the same program: a prefill and 12 decode steps with 8 all-reduces each (2 per
layer, 4 layers), so the ranks issue their collectives in the same order; the eager and graph
halves differ in step time and file size, as ranks of a real job can. Deterministic output
(gzip mtime 0).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"eager": ROOT / "fixtures" / "tp2_eager_torch", "graph": ROOT / "fixtures" / "tp2_graph_torch"}
DEFAULT_OUT = Path(os.environ.get("TRACEATTRIB_BENCH_DIR", "/tmp/traceattrib-bench")) / "ranks64"

_TS = re.compile(rb'"ts": (\d+)')
_DIST = re.compile(rb'"distributedInfo": (\{.*?\}),\n')


def rewrite(src: bytes, rank: int, world: int, shift_us: int) -> bytes:
    """One rank file's JSON text as rank `rank` of `world`, timestamps shifted by shift_us."""
    m = _DIST.search(src)
    if not m:
        raise ValueError("no distributedInfo line in the source trace")
    dist = json.loads(m[1])
    dist.update(rank=rank, world_size=world)
    for pg in dist.get("pg_config", []):
        if pg.get("pg_desc") == "default_pg":
            pg.update(pg_size=world, ranks=list(range(world)))
    out = src[:m.start(1)] + json.dumps(dist).encode() + src[m.end(1):]
    if shift_us:
        out = _TS.sub(lambda t: b'"ts": %d' % (int(t[1]) + shift_us), out)
    return out


def build(out: Path, ranks: int = 64, source: str = "both", shift_us: int = 1000, level: int = 1) -> list[Path]:
    """Write `ranks` rank files rank00000.pt.trace.json.gz ... into out; returns their paths."""
    if ranks < 2 or ranks % 2:
        raise ValueError("--ranks must be an even number >= 2")
    srcs = {name: [gzip.decompress((d / f"rank{r}.pt.trace.json.gz").read_bytes()) for r in (0, 1)]
            for name, d in SOURCES.items()}
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("rank*.pt.trace.json.gz"):
        old.unlink()
    paths = []
    for k in range(ranks):
        pair = k // 2
        name = source if source != "both" else ("eager" if k < ranks // 2 else "graph")
        data = rewrite(srcs[name][k % 2], k, ranks, pair * shift_us)
        p = out / f"rank{k:05d}.pt.trace.json.gz"
        with open(p, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", compresslevel=level, mtime=0) as gz:
            gz.write(data)
        paths.append(p)
    return paths


def main() -> None:
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--out", type=Path, default=DEFAULT_OUT)
    a.add_argument("--ranks", type=int, default=64)
    a.add_argument("--source", choices=("both", "eager", "graph"), default="both")
    a.add_argument("--shift-us", type=int, default=1000, help="time shift between rank pairs (us)")
    args = a.parse_args()
    paths = build(args.out, args.ranks, args.source, args.shift_us)
    size = sum(p.stat().st_size for p in paths)
    print(f"{args.out}: {len(paths)} rank files, {size / 2**20:.1f} MiB", file=sys.stderr)


if __name__ == "__main__":
    main()
