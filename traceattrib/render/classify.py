"""`traceattrib classify` and `traceattrib explain` output."""
from __future__ import annotations

import json

import pandas as pd

from .. import classify
from ..model import Trace
from .fmt import ms, pct, trunc

WIDTH = 100


def kernel_table(trace: Trace, rules) -> pd.DataFrame:
    """Kernels grouped by (name, bucket, rule): total_ns, count, share of all kernel time."""
    k = trace.kernels
    c = classify.classify_kernels(k, rules)
    d = (k["end_ns"] - k["start_ns"]).to_numpy()
    df = pd.DataFrame({"name": k["name"].astype(str).to_numpy(), "bucket": c["bucket"].astype(str).to_numpy(),
                       "rule": c["rule"].astype(str).to_numpy(), "d": d})
    g = df.groupby(["name", "bucket", "rule"]).agg(total_ns=("d", "sum"), count=("d", "size")).reset_index()
    tot = g["total_ns"].sum()
    g["share"] = g["total_ns"] / tot if tot else 0.0
    return g.sort_values("total_ns", ascending=False, ignore_index=True)


def render_classify(trace: Trace, rules, top: int, fmt: str) -> str:
    g = kernel_table(trace, rules)
    shown = g if top <= 0 else g.head(top)
    if fmt == "json":
        rows = [{"name": r.name, "bucket": r.bucket, "rule": r.rule, "total_ns": int(r.total_ns),
                 "count": int(r.count), "share": float(r.share)} for r in shown.itertuples()]
        return json.dumps(rows, indent=1) + "\n"
    by_b = g.groupby("bucket")["total_ns"].sum()
    tot = by_b.sum()
    out = ["bucket totals: " + ", ".join(f"{b} {pct(by_b.get(b, 0) / tot if tot else 0)}"
                                         for b in classify.BUCKETS if b in by_b.index)]
    out.append(f"unclassified (other): {pct(by_b.get('other', 0) / tot if tot else 0)} of kernel time")
    out.append(f"{'total ms':>10}{'share':>8}{'count':>7}  {'bucket':<14}{'rule':<22}name")
    for r in shown.itertuples():
        out.append(trunc(f"{ms(r.total_ns):>10}{pct(r.share):>8}{r.count:>7}  {r.bucket:<14}"
                         f"{trunc(r.rule, 21):<22}{r.name}", WIDTH))
    if top > 0 and len(g) > top:
        out.append(f"... {len(g) - top} more kernel names (--top 0 lists all)")
    return "\n".join(out) + "\n"


def render_explain(names: list[str], rules, op: str, input_types: str, fmt: str) -> str:
    df = classify.explain(names, rules, op=op, op_input_types=input_types)
    if fmt == "json":
        rows = [{"name": r.name, "bucket": r.bucket, "rule": r.rule} for r in df.itertuples()]
        return json.dumps(rows, indent=1) + "\n"
    return "".join(f"{r.bucket:<14}{r.rule:<24}{r.name}\n" for r in df.itertuples())
