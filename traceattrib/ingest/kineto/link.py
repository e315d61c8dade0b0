"""Kernel -> CPU linkage for torch traces: the launch call of each GPU op (its correlation id), the
innermost CPU op enclosing that call on its thread, and that op's ancestors (the op chain
"aten::to > aten::_to_copy > aten::copy_"). Vectorized over threads and nesting levels."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...intervals import nest_order, pack_keys
from ...model import categorical_from


def _op_evidence(start, end, pid, tid, names, intypes, is_op, launch_idx, corr, gpu_idx, is_comm=None):
    """For each GPU op (gpu_idx order): the op chain string, the input types of the innermost op,
    the event row of the innermost op (-1 none) and of the innermost op of the chain that carries
    collective args (`is_comm`, e.g. record_param_comms; -1 none)."""
    n_gpu = gpu_idx.size
    oi = np.flatnonzero(is_op)
    if not n_gpu or not oi.size or not launch_idx.size:
        blank = categorical_from(np.zeros(n_gpu, np.int64), np.array([""], dtype=object))
        none = np.full(n_gpu, -1, np.int64)
        return blank, blank, none, none
    # the launch call of each GPU op
    lcorr = corr[launch_idx]
    lorder = np.argsort(lcorr, kind="stable")
    pos = np.searchsorted(lcorr[lorder], corr[gpu_idx])
    pos = np.minimum(pos, lorder.size - 1)
    found = lcorr[lorder][pos] == corr[gpu_idx]
    lidx = launch_idx[lorder][pos]
    # ops grouped by thread, sorted by (thread, start, -end): enclosing ops come first
    thread, lth = pack_keys([pid[oi], tid[oi]], [pid[lidx], tid[lidx]])
    order, okey, depth = nest_order(start[oi], end[oi], thread)
    oi = oi[order]
    othread, ostart, oend = thread[order], start[oi], end[oi]
    parent = _parents(othread, okey, depth)
    # innermost op enclosing each launch: last op starting at/before the launch on its thread,
    # walked up through parents until it contains the launch
    lts = start[lidx]
    j = _last_at_or_before(othread, ostart, lth, lts)
    for _ in range(int(depth.max()) + 2 if depth.size else 1):
        bad = (j >= 0) & (oend[np.maximum(j, 0)] < lts)
        if not bad.any():
            break
        j = np.where(bad, parent[np.maximum(j, 0)], j)
    j = np.where(found & (j >= 0) & (othread[np.maximum(j, 0)] == lth), j, -1)
    # chains: unique innermost ops, then walk their ancestors (vectorized over depth levels)
    inv, uj = pd.factorize(j)  # hashing: distinct ops in first-seen order (sorting costs more)
    name_codes = np.asarray(names.codes)[oi]
    name_cats = np.asarray(names.categories, dtype=object)
    maxd = int(depth.max()) + 1 if depth.size else 1
    levels = np.full((uj.size, maxd), -1, dtype=np.int64)
    comm_at = np.full(uj.size, -1, dtype=np.int64)  # sorted-order index of the nearest comm op
    ocomm = np.zeros(oi.size, bool) if is_comm is None else np.asarray(is_comm)[oi]
    cur = uj.copy()
    for d in range(maxd):
        ok = cur >= 0
        levels[ok, d] = name_codes[cur[ok]]
        take = ok & (comm_at < 0) & ocomm[np.maximum(cur, 0)]
        comm_at[take] = cur[take]
        cur = np.where(ok, parent[np.maximum(cur, 0)], -1)
    # text once per distinct chain of names, not per launching op
    lev_inv, first = _distinct_rows(levels)
    chain_text = np.array([" > ".join(name_cats[c] for c in row[::-1] if c >= 0) for row in levels[first]],
                          dtype=object)
    chains = categorical_from(lev_inv[inv], chain_text)
    type_vals = np.append(np.asarray(intypes.categories, dtype=object), "")
    blank = type_vals.size - 1
    type_codes = np.where(uj >= 0, np.asarray(intypes.codes)[oi[np.maximum(uj, 0)]], blank)
    type_codes = np.where(type_codes < 0, blank, type_codes)
    types = categorical_from(type_codes[inv], type_vals)
    op_row = np.where(uj >= 0, oi[np.maximum(uj, 0)], -1)[inv]
    comm_row = np.where(comm_at >= 0, oi[np.maximum(comm_at, 0)], -1)[inv]
    return chains, types, op_row, comm_row

def _distinct_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, first row of each code) for a 2-D int array: rows hashed column by
    column (pd.factorize), the codes re-numbered after each column so they never overflow."""
    code = np.zeros(a.shape[0], np.int64)
    for d in range(a.shape[1]):
        col = a[:, d]
        code, _ = pd.factorize(code * (int(col.max()) + 2) + (col + 1) if col.size else code)
    code = code.astype(np.int64)
    # factorize numbers codes in order of first appearance: a code is new where the running max grows
    first = np.flatnonzero(np.diff(np.maximum.accumulate(code), prepend=-1) > 0) if code.size else code
    return code, first


def _parents(thread: np.ndarray, key: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Index of the enclosing op (sorted order) for ops sorted by (thread, start, -end); `key`:
    nest_order's (thread, start) key of each."""
    n = key.size
    parent = np.full(n, -1, dtype=np.int64)
    for d in range(1, int(depth.max()) + 1 if n else 0):
        child = np.flatnonzero(depth == d)
        cand = np.flatnonzero(depth == d - 1)
        if not child.size or not cand.size:
            continue
        # the last depth d-1 op at or before the child, on the same thread: one search, as the
        # key orders by (thread, start)
        k = np.searchsorted(key[cand], key[child], side="right") - 1
        k = np.where(k >= 0, cand[np.maximum(k, 0)], -1)
        parent[child] = np.where((k >= 0) & (thread[np.maximum(k, 0)] == thread[child]), k, -1)
    return parent

def _last_at_or_before(thread_sorted: np.ndarray, start_sorted: np.ndarray, q_thread: np.ndarray,
                       q_start: np.ndarray) -> np.ndarray:
    """For queries (thread, t): index of the last element with the same thread and start <= t, else -1.

    The elements must be sorted by (thread, start)."""
    if not start_sorted.size:
        return np.full(q_start.size, -1, np.int64)
    res = np.full(q_start.size, -1, np.int64)
    lo = np.searchsorted(thread_sorted, q_thread, side="left")
    hi = np.searchsorted(thread_sorted, q_thread, side="right")
    # within each thread's slice, binary search on start: do it per thread (few threads; found
    # by hashing, as sorting the queries would cost more than the searches)
    for th in pd.unique(q_thread):
        qm = np.flatnonzero(q_thread == th)
        a, b = int(lo[qm[0]]), int(hi[qm[0]])
        if b <= a:
            continue
        k = np.searchsorted(start_sorted[a:b], q_start[qm], side="right") - 1
        ok = k >= 0
        out = np.where(ok, a + k, -1)
        res[qm] = out
    return res
