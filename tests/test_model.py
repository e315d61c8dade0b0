"""The table model's compact columns: a numeric column of one value throughout a large table is
held as that value, with the same values and dtypes, and the table and frames made from it stay
writable."""
from __future__ import annotations

import gc
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import traceattrib as ta
from traceattrib.model import COMPACT_ROWS, compact

from conftest import FIXTURES


def _table(n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "start_ns": np.arange(n, dtype=np.int64) * 10,
        "pid": np.full(n, 4242, np.int64),
        "rank": np.zeros(n, np.int32),
        "flag": np.zeros(n, bool),
        "graph_id": pd.array([pd.NA] * n, dtype="Int64"),
        "graph_node_id": pd.array(np.arange(n), dtype="Int64"),
        "name": pd.Categorical(["k"] * n),
    })


def _zero_stride(s: pd.Series) -> bool:
    a = s.array._data if isinstance(s.dtype, pd.Int64Dtype) else s.to_numpy()
    return a.strides == (0,)


def test_constant_columns_are_held_as_one_value():
    df = _table(COMPACT_ROWS)
    c = compact(df)
    pd.testing.assert_frame_equal(c, df)
    # nullable integers stay as they are: pandas' cumulative ops write into their values
    assert [col for col in c.columns if _zero_stride(c[col])] == ["pid", "rank", "flag"]
    small = compact(df.iloc[:COMPACT_ROWS - 1])
    assert not any(_zero_stride(small[col]) for col in ("pid", "rank", "flag"))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(0, COMPACT_ROWS - 1), st.integers(-2**40, 2**40), st.sampled_from(["loc", "iloc", "derived"]))
def test_a_compact_table_takes_writes(row, value, how):
    """A write into one row of a compact column changes that row only, whether made through
    .loc, .iloc or a frame derived from the table while the table lives."""
    df = _table(COMPACT_ROWS)
    c = compact(df)
    target = c.assign(extra=1) if how == "derived" else c
    if how == "iloc":
        target.iloc[row, target.columns.get_loc("pid")] = value
    else:
        target.loc[row, "pid"] = value
    want = np.full(COMPACT_ROWS, 4242, np.int64)
    want[row] = value
    assert (target["pid"].to_numpy() == want).all()
    if how == "derived":
        assert (c["pid"].to_numpy() == 4242).all()  # the table itself unchanged


def test_a_loaded_trace_is_compact_and_analyzes_the_same():
    """The eager nsys fixture (6,548 kernels, one process on one GPU): its kernels' process,
    device and rank and the torch-only columns are held as one value each; the report equals
    the one from the same tables made contiguous again."""
    t = ta.load(str(FIXTURES / "llama_eager_nsys.sqlite"), use_cache=False)
    held = {c for c in t.kernels.columns if _zero_stride(t.kernels[c])}
    assert {"pid", "device", "rank", "op_id", "comm_in_nelems", "given_step"} <= held
    assert "start_ns" not in held and "correlation" not in held
    plain = type(t)(**{n: tab.copy(deep=True) for n, tab in t.tables().items()}, meta=dict(t.meta))
    assert not any(_zero_stride(plain.kernels[c]) for c in ("pid", "rank"))
    a, b = ta.analyze(t), ta.analyze(plain)
    pd.testing.assert_frame_equal(a.steps, b.steps)
    pd.testing.assert_frame_equal(a.kernel_totals, b.kernel_totals)


def test_frames_made_from_a_loaded_table_stay_writable():
    """A column subset that outlives its table, a small table's filled column, a pickled table and
    a cumulative op on a nullable column: each writes or runs as on a plain table."""
    def subset():
        t = ta.load(str(FIXTURES / "llama_eager_nsys.sqlite"), use_cache=False)
        assert _zero_stride(t.kernels["device"])
        return t.kernels[["start_ns", "device"]]
    s = subset()
    gc.collect()
    s.loc[0, "device"] = 7
    assert s["device"].iloc[0] == 7 and (s["device"].to_numpy()[1:] == s["device"].iloc[1]).all()
    t = ta.load(str(FIXTURES / "hf_generate_torch.pt.trace.json.gz"), use_cache=False)
    assert len(t.memops) < COMPACT_ROWS
    t.memops.loc[0, "given_step"] = 3
    assert t.memops["given_step"].iloc[0] == 3
    assert t.kernels["graph_id"].cummax().isna().all() == t.kernels["graph_id"].isna().all()
    k = pickle.loads(pickle.dumps(ta.load(str(FIXTURES / "llama_eager_nsys.sqlite"), use_cache=False).kernels))
    k.loc[0, "rank"] = 2
    assert k["rank"].iloc[0] == 2


@pytest.mark.parametrize("n", [0, 1, COMPACT_ROWS])
def test_empty_and_tiny_tables_as_they_are(n):
    df = _table(n)
    pd.testing.assert_frame_equal(compact(df), df)


@pytest.mark.parametrize("name, unnamed", [("device 0", True), ("device 12", True), ("AMD Instinct MI300X", False),
                                           ("NVIDIA H100 80GB HBM3", False), ("device", False), ("my device 2", False)])
def test_unnamed_gpu_placeholder_is_told_from_gpu_names(name, unnamed):
    from traceattrib.model import is_unnamed_gpu, unnamed_gpu
    assert is_unnamed_gpu(name) is unnamed
    assert is_unnamed_gpu(unnamed_gpu(7)) and unnamed_gpu(7) == "device 7"


def test_named_gpus_keep_names_in_order_and_drop_placeholders():
    from traceattrib.model import named_gpus
    assert named_gpus(["NVIDIA H200", "device 3", "", "NVIDIA H200", "my device 2"]) == \
        ["NVIDIA H200", "NVIDIA H200", "my device 2"]
    assert named_gpus(["device 0", "device 1"]) == []


@pytest.mark.parametrize("gpus, text", [
    (["NVIDIA H200", "NVIDIA H200"], "2x NVIDIA H200"),
    (["device 1", "device 0"], "GPU unnamed (device 0, device 1)"),
    (["NVIDIA H200", "device 3"], "NVIDIA H200, GPU unnamed (device 3)"),
    (["", "NVIDIA H200"], "NVIDIA H200"),  # an empty name says nothing: left out, not an unnamed device
    (["", "device 1"], "GPU unnamed (device 1)"),
    ([""], "GPU unknown"),
    ([], "GPU unknown")])
def test_gpu_text_names_gpus_and_placeholders(gpus, text):
    from traceattrib.render.fmt import gpu_text
    assert gpu_text(gpus) == text
