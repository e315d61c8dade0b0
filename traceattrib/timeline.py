"""The steps a viewer shows op by op, and their ops: what the HTML report's step view draws.

A report of 10,000 steps cannot carry every op; per rank and step kind it keeps the first
summarized step, the step of median span and the slowest step (`shown_rows`), and for those the
GPU ops with their bucket and stream (`ops`). Times int64 ns.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .stats import steady

COLUMNS = ["rank", "step", "op", "start_ns", "end_ns", "device", "stream", "bucket", "name"]
WHY = ("first", "median", "slowest")  # why a step is shown, in the order they are picked


def shown_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Rows of the step table shown in detail: per rank and kind the first summarized step, the
    median-span one (the lower middle) and the slowest; columns row (position in `table`), why."""
    rows, why = [], []
    if not len(table):
        return pd.DataFrame({"row": np.array([], np.int64), "why": np.array([], object)})
    pos = pd.Series(np.arange(len(table)), index=table.index)
    for (_, _), k in table.groupby(["rank", "kind"], sort=True):
        s = steady(k)
        span = s["span_ns"].to_numpy()
        order = np.argsort(span, kind="stable")
        picks = {"first": s.index[np.argmin(s["start_ns"].to_numpy())],
                 "median": s.index[order[(len(order) - 1) // 2]],
                 "slowest": k.index[np.argmax(k["span_ns"].to_numpy())]}
        for w in WHY:
            r = int(pos[picks[w]])
            if r not in rows:
                rows.append(r)
                why.append(w)
    return pd.DataFrame({"row": np.array(rows, np.int64), "why": np.array(why, object)})


def ops(op_table: pd.DataFrame, bucket_codes: np.ndarray, buckets: tuple[str, ...], kernels: pd.DataFrame,
        memops: pd.DataFrame, table: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    """The GPU ops of the step table's rows `rows` (COLUMNS): op_table is steps.Steps.ops (step =
    row into `table`), bucket_codes its ops' buckets as indices into `buckets`; names from the
    kernels (their name) and memops (their kind) tables."""
    step = op_table["step"].to_numpy()
    m = np.isin(step, rows) & (step >= 0)
    o = op_table[m]
    kind = o["kind"].astype(str).to_numpy()
    src = o["src"].to_numpy()
    name = np.full(len(o), "", dtype=object)
    k = kind == "kernel"
    if k.any():
        name[k] = kernels["name"].iloc[src[k]].astype(str).to_numpy()  # only the shown rows: names are categorical
    mm = kind == "memop"
    if mm.any():
        name[mm] = memops["kind"].iloc[src[mm]].astype(str).to_numpy()
    name[kind == "graph"] = "CUDA graph"
    return pd.DataFrame({
        "rank": table["rank"].to_numpy()[step[m]].astype(np.int64), "step": table["index"].to_numpy()[step[m]],
        "op": kind.astype(object), "start_ns": o["start_ns"].to_numpy(np.int64), "end_ns": o["end_ns"].to_numpy(np.int64),
        "device": o["device"].to_numpy(np.int64), "stream": o["stream"].to_numpy(np.int64),
        "bucket": np.asarray(buckets, dtype=object)[bucket_codes[m]], "name": name})[COLUMNS]
