"""`traceattrib info`: what a trace holds."""
from __future__ import annotations

import json
import re

from ..model import Trace
from .fmt import dur, trace_line


def describe(trace: Trace) -> dict:
    m = trace.meta
    lo, hi = trace.span_ns()
    r = trace.ranges
    ann = {}
    if len(r):
        # collapse numbered names (decode_step_3 -> decode_step_#) so a long run reads as one line
        norm = r["name"].astype(str).map(lambda s: re.sub(r"\d+", "#", s))
        g = r.assign(norm=norm).groupby(["source", "norm"], observed=True).size().sort_values(ascending=False)
        ann = {f"{src}: {name}": int(n) for (src, name), n in g.head(15).items()}
    graph_kernels = int(trace.kernels["graph_id"].notna().sum()) if len(trace.kernels) else 0
    return {
        "path": m.get("path"), "format": m.get("format"), "profiler": m.get("profiler"),
        "profiler_version": m.get("profiler_version"), "schema_version": m.get("schema_version"),
        "gpus": m.get("gpus"), "devices": m.get("devices"), "ranks": m.get("ranks"),
        "world_size": m.get("world_size"), "cached": m.get("cached"),
        "counts": {name: len(t) for name, t in trace.tables().items()},
        "graph_kernels": graph_kernels,
        "streams": int(trace.kernels[["device", "stream"]].drop_duplicates().shape[0]) if len(trace.kernels) else 0,
        "start_ns": lo, "end_ns": hi, "span_ns": hi - lo,
        "annotations": ann, "notes": m.get("notes", []),
    }


def _devices(ids: list, names: list) -> str:
    """'0-7: NVIDIA H100 80GB HBM3' style: ids grouped by GPU name."""
    groups: dict[str, list] = {}
    for i, g in zip(ids, names):
        groups.setdefault(g, []).append(i)
    parts = []
    for g, idx in groups.items():
        run = len(idx) > 2 and idx == list(range(idx[0], idx[-1] + 1))
        ids_txt = f"{idx[0]}-{idx[-1]}" if run else ",".join(map(str, idx))
        parts.append(f"{ids_txt}: {g}")
    return "; ".join(parts) or "none"


def render_info(trace: Trace, fmt: str = "text") -> str:
    d = describe(trace)
    if fmt == "json":
        return json.dumps(d, indent=1, default=str) + "\n"
    out = [trace_line(trace.meta)]
    out.append(f"format      {d['format']} · {d['profiler']} {d['profiler_version'] or '(version not recorded)'}"
               + (f" · schema {d['schema_version']}" if d["schema_version"] else ""))
    out.append(f"devices     {_devices(d['devices'] or [], d['gpus'] or [])}")
    if d["ranks"] and len(d["ranks"]) > 1 or d.get("world_size"):
        out.append(f"ranks       {d['ranks']} (world size {d['world_size'] or '?'})")
    c = d["counts"]
    out.append(f"kernels     {c['kernels']:,} on {d['streams']} stream(s)"
               + (f", {d['graph_kernels']:,} inside CUDA graphs" if d["graph_kernels"] else ""))
    out.append(f"memops      {c['memops']:,}")
    out.append(f"api calls   {c['launches']:,}")
    out.append(f"ranges      {c['ranges']:,}")
    if c["graphs"]:
        out.append(f"graph execs {c['graphs']:,} (whole-graph rows, no per-kernel detail)")
    out.append(f"time span   {dur(d['span_ns'])} (ns {d['start_ns']} .. {d['end_ns']})")
    if d["annotations"]:
        out.append("annotations (numbers collapsed to #):")
        out += [f"  {n:>6}  {k}" for k, n in d["annotations"].items()]
    else:
        out.append("annotations none (steps will come from CUDA graphs or detection)")
    for n in d["notes"]:
        out.append(f"note: {n}")
    if not c["kernels"] and not c["memops"] and not c["graphs"]:
        out.append("note: no GPU activity in this trace; `traceattrib report` needs kernels")
    return "\n".join(out) + "\n"
