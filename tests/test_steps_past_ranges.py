"""Steps from host ranges are widened to the whole iteration (the forward's range, then sampling
and host work up to the next forward): the report says how many steps ran past their ranges and
by how much, per step (outside_ns, JSON outside_range_ns) and in the `steps:` line."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from msgspec import UNSET

from traceattrib import analyze, classify, steps
from traceattrib.ingest import read
from traceattrib.render.fmt import steps_line
from traceattrib.render.jsonout import step_list

from conftest import FIXTURES


def _plain_outside(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(outside_ns of find_steps, the same by a loop over steps: the step's GPU end minus the last
    end of the ops launched inside its range, plus its start before the range opened)."""
    t = read(str(FIXTURES / name))
    buckets = classify.classify_kernels(t.kernels, classify.load_rules())["bucket"]
    st = steps.find_steps(t, kernel_buckets=buckets)
    ops, tab = st.ops, st.table
    launch = ops["launch_start_ns"].to_numpy()
    when = np.where(launch >= 0, launch, ops["start_ns"].to_numpy())
    want = []
    for i, r in tab.iterrows():
        mine = ops["step"].to_numpy() == i
        own = mine & (when >= r["cpu_start_ns"]) & (when <= r["cpu_end_ns"])
        last = ops["end_ns"].to_numpy()[own].max() if own.any() else r["start_ns"]
        begin = max(r["start_ns"], min(r["cpu_start_ns"], r["end_ns"]))
        want.append((begin - r["start_ns"]) + (r["end_ns"] - max(last, begin)))
    return tab["outside_ns"].to_numpy(), np.array(want)


@pytest.mark.parametrize("name", ["serve_piecewise_torch.pt.trace.json.gz", "serve_piecewise_nsys.sqlite"])
def test_vllm_ranges_hold_the_forward_and_the_step_the_iteration(name):
    """vLLM's execute_model ranges end before the logits' sampling: every step runs past its
    range by the sampling's GPU work, a small part of the step."""
    got, want = _plain_outside(name)
    assert (got == want).all()
    assert (got > 0).all()
    rep = analyze(read(str(FIXTURES / name)))
    p = rep.summary.past_ranges
    assert p.steps == p.of_steps == len(rep.steps) == 11
    assert p.median_outside_ns == np.median(rep.steps["outside_ns"])
    assert p.median_outside_ns < 0.2 * rep.steps["span_ns"].median()
    assert "every step runs past its range (widened to the whole iteration" in steps_line(rep)
    assert [s["outside_range_ns"] for s in step_list(rep)] == list(rep.steps["outside_ns"])


def test_ranges_around_the_whole_iteration_say_nothing():
    """prefill / decode_step_N ranges that hold the whole iteration: nothing outside them."""
    got, want = _plain_outside("llama_eager_torch.pt.trace.json.gz")
    assert (got == 0).all() and (want == 0).all()
    rep = analyze(read(str(FIXTURES / "llama_eager_torch.pt.trace.json.gz")))
    assert "past" not in steps_line(rep)
    assert rep.summary.past_ranges is UNSET


def test_ranges_around_half_the_forward():
    """The same trace with every step range ending halfway: the steps are the same iterations
    (same spans, same kinds), and the second half of each is outside its range."""
    t = read(str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"))
    base = analyze(t)
    r = t.ranges.copy()
    hit = r["name"].astype(str).str.match(r"^(prefill|decode_step_\d+)$").to_numpy()
    r["end_ns"] = np.where(hit, r["start_ns"] + (r["end_ns"] - r["start_ns"]) // 2, r["end_ns"])
    rep = analyze(dataclasses.replace(t, ranges=r))
    assert list(rep.steps["span_ns"]) == list(base.steps["span_ns"])
    assert list(rep.steps["kind"]) == list(base.steps["kind"])
    p = rep.summary.past_ranges
    assert p.steps == p.of_steps == 25
    out = rep.steps["outside_ns"].to_numpy()
    assert (out > 0).all() and (out < rep.steps["span_ns"].to_numpy()).all()
    assert p.max_outside_ns == out.max()
    assert "every step runs past its range" in steps_line(rep)


def test_steps_not_from_ranges_have_no_range_to_run_past():
    """Detected steps (no ranges): outside_ns -1, JSON null, nothing in the steps line."""
    rep = analyze(read(str(FIXTURES / "hf_generate_torch.pt.trace.json.gz")))
    assert rep.evidence == "detected"
    assert (rep.steps["outside_ns"] == -1).all()
    assert all(s["outside_range_ns"] is None for s in step_list(rep))
    assert "past" not in steps_line(rep)
