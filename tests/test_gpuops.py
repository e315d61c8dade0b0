"""The GPU-op table (traceattrib.gpuops): each op's launch call."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import gpuops
from traceattrib.gpuops import launch_rows
from traceattrib.model import constant


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=40), st.lists(st.integers(0, 70), max_size=40), st.sampled_from([1, 1000]))
def test_launch_rows_finds_the_first_call_of_each_correlation(calls, ops, scale):
    # the lookup table (dense distinct ids in order: scale 1, sorted and deduplicated) and the
    # sorted search (sparse ids, repeats, any order) agree with a plain first-match join
    for corr in (calls, sorted(set(calls))):
        lk = np.array(corr, np.int64) * scale
        ok = np.array(ops, np.int64) * scale
        launches = pd.DataFrame({"rank": np.zeros(lk.size, np.int64), "pid": 7, "correlation": lk})
        o = pd.DataFrame({"rank": np.zeros(ok.size, np.int64), "pid": 7, "correlation": ok})
        first = {}
        for i, c in enumerate(lk.tolist()):
            first.setdefault(c, i)
        want = [first.get(c, -1) for c in ok.tolist()]
        assert launch_rows(o, launches).tolist() == want
        # beyond the lookup table's size limit the sorted search answers the same
        with mock.patch.object(gpuops, "LOOKUP_MAX", 0):
            assert launch_rows(o, launches).tolist() == want


@st.composite
def op_tables(draw):
    """Kernels, memory ops and graph executions of one or two ranks (columns of one value held as
    model.compact keeps them, some of other dtypes), with launch calls for some of them."""
    def table(n: int, names: bool) -> pd.DataFrame:
        rank = draw(st.sampled_from([0, 1, None]))
        cols = {"start_ns": np.array([draw(st.integers(0, 9)) for _ in range(n)], np.int64)}
        cols["end_ns"] = cols["start_ns"] + 1
        for c, dtype in (("device", np.int32), ("stream", np.int64), ("pid", np.int64), ("correlation", np.int64)):
            v = draw(st.integers(0, 3))
            cols[c] = constant(v, n, dtype) if draw(st.booleans()) else \
                np.array([draw(st.integers(0, 3)) for _ in range(n)], dtype)
        cols["rank"] = constant(rank, n, np.int32) if rank is not None else \
            np.array([draw(st.integers(0, 1)) for _ in range(n)], np.int32)
        if names:
            cols["name"] = pd.Categorical([draw(st.sampled_from("abc")) for _ in range(n)], categories=list("abc"))
        return pd.DataFrame(cols)

    sizes = [draw(st.integers(0, 8)) for _ in range(3)]
    return table(sizes[0], True), table(sizes[1], False), table(sizes[2], False)


@settings(max_examples=200, deadline=None)
@given(op_tables())
def test_gpu_ops_is_the_tables_concatenated_and_sorted(tabs):
    """gpu_ops' rows and columns equal a plain concatenation of kernels, memory ops and graph
    executions stably sorted by (rank, start), whatever columns are held as constants."""
    from traceattrib.gpuops import OP_KINDS, gpu_ops
    from traceattrib.model import CPU_OP_COLUMNS, LAUNCH_COLUMNS, RANGE_COLUMNS, Trace, empty

    kernels, memops, graphs = tabs
    trace = Trace(kernels=kernels, memops=memops, launches=empty(LAUNCH_COLUMNS), ranges=empty(RANGE_COLUMNS),
                  graphs=graphs, cpu_ops=empty(CPU_OP_COLUMNS))
    ops = gpu_ops(trace)
    parts = [(k, t) for k, t in zip(OP_KINDS, (kernels, memops, graphs)) if len(t)]
    if not parts:
        assert not len(ops)
        return
    want = pd.concat([pd.DataFrame({c: np.asarray(t[c]).astype(np.int64) for c in
                                    ("start_ns", "end_ns", "device", "stream", "rank", "pid", "correlation")})
                      .assign(kind=k, src=np.arange(len(t)),
                              name_code=t["name"].cat.codes.to_numpy(np.int64) if k == "kernel" else -1)
                      for k, t in parts], ignore_index=True)
    want = want.sort_values(["rank", "start_ns"], kind="stable").reset_index(drop=True)
    for c in want.columns:
        got = ops[c].astype(str) if c == "kind" else ops[c].to_numpy().astype(np.int64)
        assert list(got) == list(want[c]), c
    assert (ops["launch_row"] == -1).all()
