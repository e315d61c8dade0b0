"""Plots (matplotlib, headless): stacked bars of every step by bucket, and one step's timeline.

Colours are fixed per bucket and the same in every picture.
"""
from __future__ import annotations

import numpy as np

from ..analysis import Report

COLORS = {
    "linear": "#4C72B0", "attention": "#DD8452", "communication": "#C44E52", "cast": "#8172B3",
    "norm": "#55A868", "elementwise": "#64B5CD", "memory": "#937860", "other": "#8C8C8C",
    "graph": "#CCB974", "overlapped": "#DA8BC3", "idle": "#EEEEEE",
}


def _subplots(figsize):
    """A figure without pyplot: no GUI backend, nothing global, works headless and in notebooks."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=110)
    return fig, fig.add_subplot()


def steps_figure(rep: Report, title: str | None = None):
    """One stacked bar per step: exposed time per bucket, overlapped, idle (ms); sums to the span."""
    st = rep.steps
    n = len(st)
    fig, ax = _subplots((min(4 + 0.28 * n, 18), 4.8))
    x = np.arange(n)
    bottom = np.zeros(n)
    layers = [(b, st[f"{b}_exposed_ns"].to_numpy() / 1e6) for b in rep.buckets]
    layers += [("overlapped", st["overlap_ns"].to_numpy() / 1e6), ("idle", st["idle_ns"].to_numpy() / 1e6)]
    for name, vals in layers:
        if not vals.any():
            continue
        ax.bar(x, vals, bottom=bottom, color=COLORS[name], label=name, width=0.8,
               edgecolor="#999999" if name == "idle" else None, linewidth=0.3)
        bottom += vals
    labels = [f"{r}:{i}" if st["rank"].nunique() > 1 else str(i) for r, i in zip(st["rank"], st["index"])]
    ax.set_xticks(x, labels, fontsize=7, rotation=90 if n > 40 else 0)
    for i, (k, w, o) in enumerate(zip(st["kind"], st["warmup"], st["outlier"])):
        tag = {"prefill": "P", "mixed": "M"}.get(k, "")
        tag += "w" if w else ("o" if o else "")
        if tag:
            ax.text(i, bottom[i], tag, ha="center", va="bottom", fontsize=7)
    ax.set_xlabel("step (P = prefill, M = mixed, w = warm-up, o = outlier)")
    ax.set_ylabel("ms (exposed time per bucket; bars sum to the step span)")
    ax.set_title(title or f"{rep.meta.get('path', '')}: time per step by bucket", fontsize=10)
    ax.legend(fontsize=8, ncol=4, loc="upper right", framealpha=0.9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def timeline_figure(rep: Report, step: int, rank: int | None = None, title: str | None = None):
    """One step's GPU ops, one row per (device, stream), coloured by bucket; x in ms from step start."""
    st = rep.steps
    ranks = sorted(st["rank"].unique())
    rank = ranks[0] if rank is None else rank
    row = st[(st["rank"] == rank) & (st["index"] == step)]
    if not len(row):
        from ..errors import TraceError
        raise TraceError(f"{{step}} {step}: no such step (steps are 0..{int(st['index'].max())})", "step")
    sid = int(row.index[0])
    t0 = int(row["start_ns"].iloc[0])
    parts = []
    for tab in (rep.kernels, rep.memops, rep.graphs):  # a whole-graph execution is one op of its own
        if tab is not None and len(tab):
            m = tab["step"].to_numpy() == sid
            parts.append(tab.loc[m, ["start_ns", "end_ns", "device", "stream", "bucket"]])
    import pandas as pd

    ops = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    lanes = sorted({(int(d), int(s)) for d, s in zip(ops["device"], ops["stream"])}) if len(ops) else []
    fig, ax = _subplots((12, 1.2 + 0.45 * max(len(lanes), 1)))
    for li, (d, s) in enumerate(lanes):
        m = (ops["device"] == d) & (ops["stream"] == s)
        o = ops[m]
        for b, g in o.groupby(o["bucket"].astype(str)):
            spans = list(zip((g["start_ns"] - t0) / 1e6, (g["end_ns"] - g["start_ns"]) / 1e6))
            ax.broken_barh(spans, (li - 0.4, 0.8), facecolors=COLORS.get(b, COLORS["other"]))
    ax.set_yticks(range(len(lanes)), [f"GPU{d} stream {s}" for d, s in lanes], fontsize=8)
    ax.set_xlabel("ms from step start")
    name = row["name"].iloc[0]
    ax.set_title(title or f"step {step} ({name}, {row['kind'].iloc[0]}): "
                 f"span {row['span_ns'].iloc[0] / 1e6:.3f} ms", fontsize=10, loc="left")
    present = [b for b in COLORS if len(ops) and (ops["bucket"].astype(str) == b).any()]
    from matplotlib.patches import Patch

    if present:
        ax.legend(handles=[Patch(color=COLORS[b], label=b) for b in present], fontsize=8,
                  ncol=min(len(present), 8), loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_xlim(0, row["span_ns"].iloc[0] / 1e6)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def save(fig, path: str) -> None:
    fig.savefig(path, bbox_inches="tight")


def layers_figure(rep: Report, kind: str, title: str | None = None):
    """A layer x bucket heatmap of a kind's steps: per layer the median time per step of each
    bucket's ops in it (ms), the layer's type beside its index."""
    ins = rep.summary.by_kind[kind].inside
    buckets = [b for b in rep.buckets if any(b in lt.buckets for lt in ins.layers)]
    grid = np.array([[lt.buckets.get(b, 0.0) / 1e6 for b in buckets] for lt in ins.layers])
    fig, ax = _subplots((2.6 + 1.1 * len(buckets), 1.4 + 0.32 * len(ins.layers)))
    im = ax.imshow(grid, aspect="auto", cmap="viridis")
    ax.set_xticks(np.arange(len(buckets)), buckets, fontsize=8)
    ax.set_yticks(np.arange(len(ins.layers)), [f"{lt.index} {lt.type}" for lt in ins.layers], fontsize=7)
    top = grid.max() if grid.size else 0.0
    for (i, j), v in np.ndenumerate(grid):
        if v > 0:
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=6,
                    color="black" if v > 0.6 * top else "white")
    ax.set_xlabel("bucket")
    ax.set_ylabel("layer (type)")
    fig.colorbar(im, ax=ax, label="ms per step (median)")
    ax.set_title(title or f"{rep.meta.get('path', '')}: {kind} step, time per layer and bucket", fontsize=9)
    fig.tight_layout()
    return fig
