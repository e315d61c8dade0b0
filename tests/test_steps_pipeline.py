"""The step pipeline's stages on generated traces (tracegen.timelines, written as
torch.profiler JSON or an nsys export and read back): no stage changes what it reads, the op ->
step assignment is the chosen candidate's renumbered over the steps that hold GPU work and agrees
with the step table, and the orchestrator's run (detection in a second thread) equals the plain
`find_steps`."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traceattrib import analysis, classify, steps
from traceattrib.errors import TraceError
from traceattrib.gpuops import gpu_ops
from traceattrib.ingest import read
from traceattrib.model import Trace
from traceattrib.steps import detect, flags, graphs, kinds, sources
from traceattrib.steps.table import step_table

from tracegen import Timeline, kineto_text, timelines, write_nsys

SETTINGS = dict(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RULES = classify.load_rules()


def load(tl: Timeline, fmt: str) -> Trace | None:
    """The timeline as a trace read back, None when it holds no GPU work to read."""
    with tempfile.TemporaryDirectory() as d:
        if fmt == "kineto":
            path = Path(d) / "g.pt.trace.json"
            path.write_text(kineto_text(tl, "compact"), encoding="utf-8")
        else:
            path = write_nsys(tl, Path(d) / "g.sqlite")
        try:
            return read(str(path))
        except TraceError:
            return None


def all_candidates(ctx: steps.Context, detected: steps.Detected) -> list[steps.Candidate]:
    """Every candidate the chooser could take, as the table stage would get it."""
    out = list(steps.candidates(ctx)) + [c for c in (detected.candidate, sources.whole_trace(ctx.ops)) if c is not None]
    return [graphs.add_eager_forwards(c, ctx) if c.source == "cuda_graphs" else c for c in out]


@settings(**SETTINGS)
@given(tl=timelines(), fmt=st.sampled_from(["kineto", "nsys"]))
def test_no_stage_changes_what_it_reads(tl, fmt):
    tr = load(tl, fmt)
    if tr is None:
        return
    ops = gpu_ops(tr)
    ops_before = ops.copy(deep=True)
    attention = steps.attention_mask(ops, classify.classify_kernels(tr.kernels, RULES)["bucket"])
    ctx = steps.context(tr, ops, attention)
    cands = all_candidates(ctx, steps.detection(ops, attention))
    kept = [(c.table.copy(deep=True), c.step.copy()) for c in cands]
    for c in cands:
        try:
            table, step, _ = step_table(c, ctx)
        except TraceError:  # no step holds GPU work
            continue
        table_before = table.copy(deep=True)
        described, _ = kinds.describe(table, step, ctx)
        flags.flag(table.assign(**described))
        pd.testing.assert_frame_equal(table, table_before)
    for c, (table, step) in zip(cands, kept):
        pd.testing.assert_frame_equal(c.table, table)
        np.testing.assert_array_equal(c.step, step)
        assert not c.step.flags.writeable
    pd.testing.assert_frame_equal(ctx.ops, ops_before)
    if attention is not None:
        assert attention.dtype == bool and attention.size == len(ops)


@settings(**SETTINGS)
@given(tl=timelines(), fmt=st.sampled_from(["kineto", "nsys"]))
def test_assignment_is_the_candidates_over_steps_with_gpu_work(tl, fmt):
    tr = load(tl, fmt)
    if tr is None:
        return
    ops = gpu_ops(tr)
    ctx = steps.context(tr, ops, None)
    start, end = ops["start_ns"].to_numpy(np.int64), ops["end_ns"].to_numpy(np.int64)
    for c in all_candidates(ctx, steps.detection(ops, None)):
        has_ops = np.bincount(c.step[c.step >= 0], minlength=len(c.table)) > 0
        try:
            table, step, notes = step_table(c, ctx)
        except TraceError:
            assert not has_ops.any()
            continue
        # the candidate's step renumbered over the steps that hold an op, -1 kept
        np.testing.assert_array_equal(step, np.where(c.step >= 0, np.cumsum(has_ops)[np.maximum(c.step, 0)] - 1, -1))
        assert len(table) == has_ops.sum() and (len(notes) == 1) == (not has_ops.all())
        inside = step >= 0
        n = np.bincount(step[inside], minlength=len(table))
        last = pd.Series(end[inside]).groupby(step[inside]).max().reindex(range(len(table))).to_numpy()
        first = pd.Series(start[inside]).groupby(step[inside]).min().reindex(range(len(table))).to_numpy()
        np.testing.assert_array_equal(table["n_ops"].to_numpy(), n)
        np.testing.assert_array_equal(table["end_ns"].to_numpy(), last)
        assert (table["start_ns"].to_numpy() <= first).all()  # moved back over the host's preparation only
        assert (table["index"].to_numpy() == table.groupby("rank").cumcount().to_numpy()).all()


@settings(**SETTINGS)
@given(tl=timelines(), fmt=st.sampled_from(["kineto", "nsys"]), regex=st.sampled_from([None, None, r"step", r"zzz", "("]))
def test_the_threaded_run_equals_find_steps(tl, fmt, regex):
    """analysis places the steps (detection beside the context), starts the idle causes on the
    placed table, then finishes the steps: the same Steps as find_steps, and the placed table's
    rows and windows are the final table's (what the idle causes read)."""
    tr = load(tl, fmt)
    if tr is None:
        return
    kb = classify.classify_kernels(tr.kernels, RULES)["bucket"]
    ops = gpu_ops(tr)
    ops_before = ops.copy(deep=True)
    try:
        plain = steps.find_steps(tr, regex, kernel_buckets=kb, layers=2, ops=ops)
    except TraceError as e:
        with pytest.raises(TraceError) as threaded:
            analysis._place_steps(tr, ops, kb, regex)
        assert (threaded.value.param, threaded.value.reason, str(threaded.value)) == (e.param, e.reason, str(e))
        return
    ctx, placed = analysis._place_steps(tr, ops, kb, regex)
    threaded = steps.finish(ctx, placed, 2)
    cols = ["rank", "index", "name", "start_ns", "end_ns", "cpu_start_ns", "cpu_end_ns", "outside_ns", "n_ops"]
    pd.testing.assert_frame_equal(placed.table[cols], threaded.table[cols])
    assert placed.ops is threaded.ops
    pd.testing.assert_frame_equal(ops, ops_before)  # the caller's table: read, never written
    for st_ in (plain, threaded):
        pd.testing.assert_frame_equal(st_.ops.drop(columns="step"), ops)
    pd.testing.assert_frame_equal(plain.table, threaded.table)
    pd.testing.assert_frame_equal(plain.ops, threaded.ops)
    assert (plain.evidence, plain.why, plain.notes) == (threaded.evidence, threaded.why, threaded.notes)
    np.testing.assert_array_equal(plain.attention, steps.attention_mask(ops, kb))
    np.testing.assert_array_equal(threaded.attention, plain.attention)


@given(st.integers(3, 12), st.integers(3, 12), st.integers(2, 5), st.integers(2, 5))
@settings(max_examples=60, deadline=None)
def test_a_name_recurring_at_two_periods_is_regular_only_with_both(p1, p2, n1, n2):
    """A once-per-forward kernel whose forward grew (a request joined: more kernels after) recurs
    at two periods: with modes=2 its two most common gaps count together when within a factor of 2
    (the period the larger; each seen twice or more), with one mode only when one of them holds 60%
    of its gaps. Filler kernels each run once; one odd gap among regular ones is no second regime."""
    gaps = [p1] * n1 + [p2] * n2
    pos = np.cumsum([0] + gaps)
    codes = np.arange(1, pos[-1] + 2, dtype=np.int64)  # every other position its own name
    codes[pos] = 0
    one = detect.regular_names(codes)
    two = detect.regular_names(codes, modes=2)
    top = max(n1, n2) if p1 != p2 else n1 + n2
    assert (0 in one["code"].to_numpy()) == (top / (n1 + n2) >= detect.MIN_REGULAR)
    near = p1 == p2 or max(p1, p2) <= 2 * min(p1, p2)
    assert (0 in two["code"].to_numpy()) == (near or top / (n1 + n2) >= detect.MIN_REGULAR)
    if near:
        row = two[two["code"] == 0].iloc[0]
        assert row["period"] == max(p1, p2) and row["share"] == 1.0 and row["count"] == n1 + n2 + 1
    odd = np.cumsum([0] + [p1] * n1 + [p1 + 1] + [p1] * n2)
    codes = np.arange(1, odd[-1] + 2, dtype=np.int64)
    codes[odd] = 0
    row = detect.regular_names(codes, modes=2).set_index("code").loc[0]
    assert row["period"] == p1 and row["share"] == (n1 + n2) / (n1 + n2 + 1)


def test_detection_leaves_out_another_phase_before_and_after_the_pattern():
    """nsys-ai's 2-GPU export: 23 iterations of one pattern, then about 10 of another program
    phase that detection had lumped into a last step of 286 ms (29 ms the others). Kernels more
    than two periods before the first anchor or after the last are in no step; the first and last
    steps begin and end where the pattern's boundaries would be."""
    head, body, tail = list(range(10, 25)), [0, 1, 2, 3, 4] * 10, [5, 6, 7] * 8
    codes = np.array(head + body + tail, np.int64)
    gaps = np.full(codes.size, 100_000, np.int64)           # 100 us before each kernel
    gaps[codes == 0] = 150_000                               # 150 us before each iteration
    start = np.cumsum(gaps + 10_000)
    d = detect.split(codes, start, start + 10_000, None)
    assert d.period == 5 and d.ratio < detect.CLEAR
    assert d.starts.tolist() == list(range(15, 65, 5)) and d.stops.tolist() == list(range(20, 70, 5))
    # a tail of at most two periods stays the last step's
    codes2 = np.array(head + body + [5, 6, 7], np.int64)
    start2 = start[:codes2.size]
    d2 = detect.split(codes2, start2, start2 + 10_000, None)
    assert d2.stops[-1] == codes2.size and d2.starts[0] == 15
    # a trace that ends 2 kernels into a forward puts the boundaries 2 after the anchors: the first
    # step begins 3 before its anchor, a whole period long
    codes3 = np.array(head + body + [0, 1], np.int64)
    start3 = np.cumsum(np.full(codes3.size, 110_000))
    d3 = detect.split(codes3, start3, start3 + 10_000, None)
    assert d3.starts[0] == 12 and (d3.stops - d3.starts == 5).all()
    # boundaries that stand out clearly, and a wider gap inside the other phase: still left out
    gaps[codes == 0], gaps[3] = 1_000_000, 2_000_000
    start4 = np.cumsum(gaps + 10_000)
    d4 = detect.split(codes, start4, start4 + 10_000, None)
    assert d4.ratio >= detect.CLEAR and d4.starts[0] == 15 and d4.stops[-1] == 65


def test_detection_still_refuses_the_layers_of_one_forward_behind_a_long_head():
    """Kernels that run once before the layers (left out as another phase) still count as the
    first step's, so repeating layers whose boundaries do not stand out are not taken as steps."""
    codes = np.array(list(range(10, 25)) + [0, 1, 2, 3, 4] * 10 + [30, 31, 32], np.int64)
    gaps = np.full(codes.size, 100_000, np.int64)
    gaps[codes == 0] = 120_000
    start = np.cumsum(gaps + 10_000)
    assert detect.split(codes, start, start + 10_000, None) is None
