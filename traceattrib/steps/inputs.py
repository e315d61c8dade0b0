"""What every step source needs, computed once per trace: the GPU-op table, which ops are
attention kernels, where the host synchronized, the vocabulary, and whether the trace trained.
Times int64 ns."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..model import Trace
from .arrays import name_matches
from .vocab import Vocab, default_vocab


@dataclass(frozen=True)
class Context:
    """One trace's inputs to step finding. Nothing downstream writes into them.

    ops: the GPU-op table (gpuops.gpu_ops); attention: per op, True for attention kernels (None:
    kernels not classified); syncs: end times of synchronizing API calls (rank, pid, end_ns),
    sorted; training: the trace holds backward kernels or autograd ops; model: per op, True for
    GEMM and attention kernels (None: kernels not classified)."""

    trace: Trace
    ops: pd.DataFrame
    attention: np.ndarray | None
    syncs: pd.DataFrame
    vocab: Vocab
    training: bool
    model: np.ndarray | None = None


def context(trace: Trace, ops: pd.DataFrame, attention: np.ndarray | None, vocab: Vocab | None = None,
            model: np.ndarray | None = None) -> Context:
    """The context of `trace`: ops, `gpuops.gpu_ops(trace)`; attention, `attention_mask(ops, ...)`;
    model, `bucket_mask(ops, ..., ("linear", "attention"))`."""
    vocab = vocab or default_vocab()
    return Context(trace=trace, ops=ops, attention=attention, syncs=sync_ends(trace.launches, vocab.sync),
                   vocab=vocab, training=is_training(trace), model=model)


def attention_mask(ops: pd.DataFrame, kernel_buckets: pd.Series | None) -> np.ndarray | None:
    """Per op: True for attention kernels (from the classification), None when not classified."""
    return bucket_mask(ops, kernel_buckets, ("attention",))


def bucket_mask(ops: pd.DataFrame, kernel_buckets: pd.Series | None, buckets: tuple[str, ...]) -> np.ndarray | None:
    """Per op: True for kernels in one of `buckets` (from the classification), None when not classified."""
    if kernel_buckets is None:
        return None
    b = pd.Categorical(kernel_buckets)
    codes = [b.categories.get_loc(x) for x in buckets if x in b.categories]
    out = np.zeros(len(ops), bool)
    if not codes:
        return out
    hit = np.isin(b.codes, codes)
    m = (ops["kind"] == "kernel").to_numpy()
    out[m] = hit[ops["src"].to_numpy()[m]]
    return out


def sync_ends(launches: pd.DataFrame, sync: re.Pattern) -> pd.DataFrame:
    """End times of synchronizing calls (rank, pid, end_ns), sorted."""
    if not len(launches):
        return pd.DataFrame({"rank": [], "pid": [], "end_ns": []})
    m = name_matches(launches["name"], sync)
    s = pd.DataFrame({c: launches[c].to_numpy()[m] for c in ("rank", "pid", "end_ns")})
    return s.sort_values(["rank", "pid", "end_ns"], ignore_index=True)


TRAINING_WORDS = ("backward", "bwd", "wgrad", "dgrad", "autograd::engine")


def is_training(trace: Trace) -> bool:
    """Backward kernels or autograd ops in the trace: a training step, not prefill or decode."""
    for col in (trace.kernels["name"], trace.kernels["op"]):
        cats = col.cat.categories if hasattr(col, "cat") else pd.Index(col.unique())
        if any(any(w in str(c).lower() for w in TRAINING_WORDS) for c in cats):
            return True
    return False


def trained_ranks(trace: Trace) -> set[int]:
    """The ranks whose kernels include backward kernels or autograd ops (training_kernels)."""
    k = trace.kernels
    if not len(k):
        return set()
    krank = k["rank"].to_numpy()
    return {int(r) for r in np.unique(krank) if training_kernels(k[krank == r])}


def training_kernels(kernels: pd.DataFrame) -> bool:
    """Backward kernels or autograd ops among these kernels (rows of trace.kernels: one rank's)."""
    for col in (kernels["name"], kernels["op"]):
        if hasattr(col, "cat"):  # the names these rows use, not every name of the trace
            codes = col.cat.codes.to_numpy()
            used = col.cat.categories[np.unique(codes[codes >= 0])]
        else:
            used = pd.Index(col.unique())
        if any(any(w in str(c).lower() for w in TRAINING_WORDS) for c in used):
            return True
    return False
