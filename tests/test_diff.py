"""The noise-aware diff (traceattrib.diff): intervals on repeated captures of one workload
(fixtures/repeat_*: the same eager code run twice, the same with CUDA-graph decode twice), the
gate, a one-step side, the comparability checks, runs from directories, and the bootstrap itself."""
from __future__ import annotations

import copy
import dataclasses
import gzip
import json
import shutil

import msgspec
import numpy as np
import pytest

from traceattrib.cli import main, spread_runs
from traceattrib.diff import bootstrap as bs
from traceattrib.diff import diff
from traceattrib.diff.runs import runs_of, world_size
from traceattrib.errors import TraceError
from traceattrib.parallel import analyze_path
from traceattrib.render import contract
from traceattrib.render import diff as rdiff
from traceattrib.stats import p90

from conftest import FIXTURES, ROOT

A1, A2 = (str(FIXTURES / f"repeat_eager_a{i}.pt.trace.json.gz") for i in (1, 2))
B1, B2 = (str(FIXTURES / f"repeat_graph_b{i}.pt.trace.json.gz") for i in (1, 2))


@pytest.fixture(scope="module")
def reps():
    return {n: analyze_path(p, use_cache=False) for n, p in (("a1", A1), ("a2", A2), ("b1", B1), ("b2", B2))}


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def trimmed(rep, kind: str, keep: int):
    """The report with only the first `keep` steady steps of `kind` (a side too short to tell)."""
    st = rep.steps
    k = st[(st["kind"] == kind) & ~st["warmup"]]
    drop = k.index[keep:].union(st.index[(st["kind"] == kind) & st["warmup"]])
    return dataclasses.replace(rep, steps=st.drop(drop))


# --- verdicts on the fixture pairs ------------------------------------------------------------------

def test_same_code_twice_is_no_change_beyond_noise(reps):
    for b, a in (("a1", "a2"), ("a2", "a1"), ("b1", "b2"), ("b2", "b1")):
        d = diff(reps[b], reps[a], fail_if_slower=[("median", 5)])
        k = d.kinds["decode"]
        assert k.verdict == "unchanged", (b, a, k.median)
        assert k.median.ci[0] < 0 < k.median.ci[1]
        assert not d.gate.tripped and d.gate.outcome == "within" and d.gate.kind == "decode"
        assert d.checks == [] and not d.refused
        text = rdiff.render_text(d)
        assert "no change beyond noise" in text.splitlines()[3]
        assert "one run per side: the interval holds step-to-step noise only" in text
    # a1 -> a2 is 2.6% faster in median (host noise on the capture machine): inside a wide interval
    k = diff(reps["a1"], reps["a2"]).kinds["decode"]
    assert k.median.change == pytest.approx(-0.0259, abs=5e-4)
    assert k.median.ci == pytest.approx([-0.110, 0.027], abs=2e-3)


def test_cuda_graphs_pooled_over_runs_is_a_significant_cut(reps):
    d = diff([reps["a1"], reps["a2"]], [reps["b1"], reps["b2"]], fail_if_slower=[("median", 5)])
    k = d.kinds["decode"]
    assert (k.runs_before, k.runs_after, k.steps_before, k.steps_after) == (2, 2, 44, 46)
    assert k.verdict == "lower" and k.p90.verdict == "lower"
    assert k.median.change == pytest.approx(-0.863, abs=1e-3) and k.median.ci[1] < -0.85
    assert k.median.ci[0] <= k.median.change <= k.median.ci[1]
    assert k.contributions[0].part == "launch idle" and k.idle_causes["launch"].verdict == "lower"
    assert [c.code for c in d.checks] == ["capture"] and d.checks[0].before == ["eager"]
    assert d.checks[0].after == ["graphs"] and not d.refused
    # each side's noise: run medians, run-to-run SD against a run median's step-to-step SE
    sb = k.spread_before
    assert sb.run_medians_ns == pytest.approx([4199586, 4090632]) and sb.run_steps == [20, 24]
    assert sb.between_runs == pytest.approx(0.0185, abs=1e-3) and sb.dominant in ("runs", "steps")
    assert not d.gate.tripped
    # the other way round it is 6x slower: the gate trips, and says so last
    back = diff([reps["b1"], reps["b2"]], [reps["a1"], reps["a2"]], fail_if_slower=[("median", 5)])
    assert back.gate.tripped and back.gate.outcome == "tripped" and back.gate.ci[0] > 5
    last = rdiff.render_text(back).rstrip().splitlines()[-1]
    assert last.startswith("gate: TRIPPED: decode median +632") and "95% CI" in last


def test_a_one_step_side_is_too_few_to_tell(reps):
    d = diff(trimmed(reps["a1"], "decode", 1), reps["a2"], fail_if_slower=[("median", 5)])
    k = d.kinds["decode"]
    assert k.verdict == "too_few" and k.median.ci is None and k.steps_before == 1
    assert all(p.exposed.verdict == "too_few" and p.exposed.ci is None for p in k.buckets.values())
    text = rdiff.render_text(d)
    assert "decode: 1 step before, 24 after, too few to tell" in text
    assert "prefill: 1 step on each side, too few to tell" in text
    assert not d.gate.tripped and d.gate.outcome == "too_few"
    assert text.rstrip().splitlines()[-1].startswith("gate: passed, undecided: decode median: too few steps")
    # 4 steady steps: still too few; 5: an interval
    assert diff(trimmed(reps["a1"], "decode", 4), reps["a2"]).kinds["decode"].verdict == "too_few"
    assert diff(trimmed(reps["a1"], "decode", 5), reps["a2"]).kinds["decode"].median.ci is not None


def test_one_step_side_from_the_command_line(capsys):
    rc, out, _ = run(capsys, "diff", A1, A2, "--steps", r"^(prefill|decode_step_3)$", "--fail-if-slower", "5")
    assert rc == 0
    assert "decode: 1 step on each side, too few to tell" in out
    assert "prefill: 1 step on each side, too few to tell" in out


# --- the gate -------------------------------------------------------------------------------------

def test_gate_trips_only_when_the_whole_interval_is_above_the_limit(reps):
    base = diff(reps["a2"], reps["a1"])
    ci = base.kinds["decode"].median.ci  # +2.7%, 95% CI about -2.6% to +12%
    for pct, tripped in ((ci[0] * 100 - 1, True), (ci[0] * 100 + 0.1, False), (0.0, False)):
        g = diff(reps["a2"], reps["a1"], fail_if_slower=[("median", pct)]).gate
        assert g.tripped is tripped, (pct, ci)
    # per bucket and p90: each (part, limit) on each kind, the deciding one first
    g = diff([reps["b1"], reps["b2"]], [reps["a1"], reps["a2"]],
             fail_if_slower=[("median", 1000), ("idle", 5), ("communication", 5), ("p90", 5)]).gate
    outcomes = {(c.kind, c.part): c.outcome for c in g.checks}
    assert outcomes[("decode", "median")] == "within" and outcomes[("decode", "idle")] == "tripped"
    assert outcomes[("decode", "communication")] == "no_baseline" and outcomes[("prefill", "p90")] == "too_few"
    assert g.tripped and g.part == "idle"  # 57x more idle: highest above its limit


def test_gate_in_json_and_exit_status(capsys):
    rc, out, err = run(capsys, "diff", "--before", B1, B2, "--after", A1, A2, "--format", "json",
                       "--fail-if-slower", "5", "--fail-if-slower", "communication=5")
    assert rc == 1 and err.startswith("traceattrib: gate tripped: decode median +632")
    g = json.loads(out)["gate"]
    assert {"tripped", "kind", "part", "change", "ci", "threshold", "outcome", "checks"} <= set(g)
    assert g["tripped"] and g["kind"] == "decode" and g["threshold"] == 0.05 and g["ci"][0] > 5


# --- comparable captures -----------------------------------------------------------------------------

def _with_meta(rep, **meta):
    return dataclasses.replace(rep, meta=dict(rep.meta, **meta))


def _with_steps(rep, **cols):
    return dataclasses.replace(rep, steps=rep.steps.assign(**cols))


@pytest.mark.parametrize("change, code, severity", [
    (lambda r: _with_meta(r, gpus=["NVIDIA A100-SXM4-80GB"]), "gpu", "refuse"),
    (lambda r: _with_meta(r, gpus=["NVIDIA H200"] * 2, ranks=[0, 1]), "gpu_count", "refuse"),
    (lambda r: _with_meta(r, ranks=[0, 1]), "ranks", "refuse"),
    (lambda r: _with_steps(r, layers=8), "layers", "refuse"),
    (lambda r: _with_steps(r, tokens=np.where(r.steps["kind"] == "decode", 16, 2048)), "tokens", "note"),
    (lambda r: _with_meta(r, profiler="Nsight Systems"), "profiler", "note"),
    (lambda r: dataclasses.replace(r, summary=msgspec.structs.replace(r.summary, evidence="detected")),
     "evidence", "note"),
])
def test_each_check(reps, change, code, severity):
    # tokens per step known before only (unknown values never differ) unless the case sets them after
    before = _with_steps(reps["a1"], tokens=np.where(reps["a1"].steps["kind"] == "decode", 8, 1024))
    d = diff(before, change(reps["a2"]))
    got = [(c.code, c.severity) for c in d.checks]
    assert (code, severity) in got, got
    assert d.refused is (severity == "refuse")
    assert diff(before, change(reps["a2"]), allow_mismatch=True).refused is False
    if severity == "refuse":
        line = rdiff.refusal(d)
        assert "\n" not in line and "--allow-mismatch" in line
    else:
        assert rdiff.render_text(d).splitlines()[2].startswith("differs, may be the point of the change: ")


def test_unknown_values_never_differ(reps):
    # tokens unknown on one side (no shapes in the trace), layers unknown on the other
    a = _with_steps(reps["a1"], tokens=-1)
    b = _with_steps(reps["a2"], tokens=8, layers=-1)
    assert diff(a, b).checks == []


@pytest.mark.parametrize("before, after", [(["device 0"], ["NVIDIA H200"]), (["device 0"], ["device 1"]),
                                           (["NVIDIA H200", "device 1"], ["NVIDIA A100-SXM4-80GB"])])
def test_an_unnamed_gpu_is_an_unknown_model(reps, before, after):
    # a trace that does not name its device (meta holds model.unnamed_gpu's placeholder) is not
    # "another GPU": the model is unknown, so nothing refuses; a named pair that differs still does
    d = diff(_with_meta(reps["a1"], gpus=before), _with_meta(reps["a2"], gpus=after))
    assert [c.code for c in d.checks if c.code.startswith("gpu")] == ([] if len(before) == len(after) else ["gpu_count"])
    named = diff(_with_meta(reps["a1"], gpus=["NVIDIA H200"]), _with_meta(reps["a2"], gpus=["NVIDIA A100-SXM4-80GB"]))
    assert [c.code for c in named.checks] == ["gpu"] and named.refused


def test_runs_of_one_side_that_differ_are_checked(reps):
    other = _with_meta(reps["a2"], gpus=["NVIDIA A100-SXM4-80GB"])
    d = diff([reps["a1"], other], [reps["b1"]])
    gpu = next(c for c in d.checks if c.code == "gpu")
    assert gpu.before == ["NVIDIA H200", "NVIDIA A100-SXM4-80GB"] and gpu.after == ["NVIDIA H200"] and d.refused
    assert "NVIDIA H200 / NVIDIA A100-SXM4-80GB (its runs differ) before" in rdiff.refusal(d)


def test_a_kind_on_one_side_only_is_said(reps):
    st = reps["a2"].steps
    d = diff(reps["a1"], dataclasses.replace(reps["a2"], steps=st[st["kind"] != "prefill"]))
    assert list(d.kinds) == ["decode"]
    assert [(c.code, c.kind, c.before, c.after) for c in d.checks] == [("steps", "prefill", ["1"], ["0"])]
    assert "prefill steps only before (1 before, 0 after): not compared" in rdiff.render_text(d)


@pytest.mark.parametrize("before, after, code, before_value, after_value", [
    ("llama_graph_nsys.sqlite", "llama_graph_nsys_node.sqlite", "graph_trace", "whole_graphs", "kernels"),
    ("llama_eager_nsys.sqlite", "llama_graph_nsys_node.sqlite", "capture", "eager", "graphs"),
    ("serve_eager_noann_torch.pt.trace.json.gz", "serve_piecewise_torch.pt.trace.json.gz", "capture", "eager",
     "partial"),
])
def test_capture_modes_from_real_traces(capsys, before, after, code, before_value, after_value):
    rc, out, _ = run(capsys, "diff", str(FIXTURES / before), str(FIXTURES / after), "--format", "json", "--no-cache")
    assert rc == 0
    checks = [c for c in json.loads(out)["checks"] if c["code"] == code]
    assert checks and checks[0]["before"] == [before_value] and checks[0]["after"] == [after_value]


def test_refusal_is_one_line_and_exit_2(capsys, tmp_path):
    # the same trace, its GPU renamed: another GPU makes the comparison meaningless
    a100 = tmp_path / "a100.pt.trace.json.gz"
    with gzip.open(A2, "rb") as f:
        data = f.read().replace(b'"name": "NVIDIA H200"', b'"name": "NVIDIA A100-SXM4-80GB"')
    a100.write_bytes(gzip.compress(data))
    rc, out, err = run(capsys, "diff", A1, str(a100))
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("traceattrib: error: the captures differ, a comparison would be meaningless: GPU: "
                          "NVIDIA H200 before, NVIDIA A100-SXM4-80GB after (another GPU)")
    rc, out, err = run(capsys, "diff", A1, str(a100), "--allow-mismatch")
    assert rc == 0 and out.splitlines()[2] == ("differs, compared anyway (--allow-mismatch): GPU: NVIDIA H200 "
                                               "before, NVIDIA A100-SXM4-80GB after (another GPU)")
    rc, _, err = run(capsys, "diff", A1, str(FIXTURES / "layers_eager_torch_plain.pt.trace.json.gz"))
    assert rc == 2 and "layers per step: 4 before, 8 after (another model depth)" in err


# --- runs: several files per side, directories of runs --------------------------------------------

def test_directories_of_runs(capsys, tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    for src in (A1, A2):
        shutil.copy(src, before)
    for src in (B1, B2):
        shutil.copy(src, after)
    (before / "notes.txt").write_text("not a trace")
    assert runs_of(str(before)) == [str(before / n) for n in ("repeat_eager_a1.pt.trace.json.gz",
                                                              "repeat_eager_a2.pt.trace.json.gz")]
    rc, out, _ = run(capsys, "diff", str(before), str(after), "--format", "json")
    assert rc == 0
    d = json.loads(out)
    assert len(d["before"]) == 2 and d["kinds"]["decode"]["runs_after"] == 2
    rc2, out2, _ = run(capsys, "diff", "--before", A1, A2, "--after", B1, B2, "--format", "json")
    assert rc2 == 0 and json.loads(out2)["kinds"] == d["kinds"]  # the same pooled steps, the same seed


def test_rank_directories_stay_one_run(tmp_path):
    tp2 = str(FIXTURES / "tp2_eager_torch")
    assert runs_of(tp2) == [tp2]  # every file names a world of 2: one run's ranks
    assert world_size(str(FIXTURES / "tp2_eager_torch" / "rank0.pt.trace.json.gz")) == 2
    assert world_size(A1) is None
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copytree(tp2, runs / "run1")
    shutil.copytree(tp2, runs / "run2")
    shutil.copy(A1, runs)
    assert runs_of(str(runs)) == [str(runs / "repeat_eager_a1.pt.trace.json.gz"), str(runs / "run1"),
                                  str(runs / "run2")]
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(FIXTURES / "tp2_eager_torch" / "rank0.pt.trace.json.gz", mixed)
    shutil.copy(A1, mixed)
    with pytest.raises(TraceError, match="per-rank files .* beside single-process traces"):
        runs_of(str(mixed))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TraceError, match="holds no traces"):
        runs_of(str(empty))


def test_rank_directory_diff_pools_ranks_within_a_step(capsys):
    rc, out, _ = run(capsys, "diff", str(FIXTURES / "tp2_eager_torch"), str(FIXTURES / "tp2_graph_torch"),
                     "--format", "json")
    assert rc == 0
    k = json.loads(out)["kinds"]["decode"]
    # 24 and 23 steady rank-steps: 12 steps of two ranks each (after: one step counted on one rank
    # only, the other's is warm-up), the unit resampled
    assert (k["steps_before"], k["steps_after"]) == (12, 12) and k["median"]["ci"] is not None


def test_run_options_take_several_values():
    assert spread_runs(["--before", "a", "b", "--after", "c", "--format", "md", "d"]) == \
        ["--before", "a", "--before", "b", "--after", "c", "--format", "md", "d"]
    assert spread_runs(["--before", "--after", "c"]) == ["--before", "--after", "c"]
    assert spread_runs(["x", "--before", "a", "--", "--after"]) == ["x", "--before", "a", "--", "--after"]
    assert spread_runs(["--before"]) == ["--before"]


# --- the statistics ----------------------------------------------------------------------------------

def test_point_estimates_are_the_reports_figures(reps):
    for r in reps.values():
        d = diff(r, r)
        for kind, k in d.kinds.items():
            a = r.summary.by_kind[kind].attribution
            assert k.median.before == a.median_span_ns and k.p90.before == a.p90_span_ns
            assert k.mean.before == pytest.approx(a.mean_span_ns)
            for b, row in k.buckets.items():
                if b in a.mean_exposed_ns:
                    assert row.exposed.before == pytest.approx(a.mean_exposed_ns[b])
            if k.median.ci is not None:  # the same steps on both sides: no change, both ways
                assert k.verdict == "unchanged" and k.median.change == 0


def test_order_stats_are_numpys():
    rng = np.random.default_rng(1)
    x = rng.lognormal(size=(200, 37))
    x[rng.random(x.shape) < 0.3] = np.nan
    x[:, 0] = 1.0  # every row holds a value
    med, hi = bs.order_stats(x)
    for row, m, h in zip(x, med, hi):
        v = row[~np.isnan(row)]
        assert m == np.median(v) and h == p90(v)


def test_hierarchical_resamples_draw_runs_then_their_steps():
    # run 0: 3 steps of 1 ms, run 1: 7 steps of 2 ms; a resample is (0, 0), (1, 1) or (0, 1): its
    # pooled steps are 6, 14 or 10, so its mean is 1, 2 or 1.7 exactly, and its median 1, 2 or 2
    span = np.array([1.0] * 3 + [2.0] * 7)[:, None]
    s = bs.Sample(run=np.array([0] * 3 + [1] * 7), span=span, sums=span.copy(), count=np.ones(10, np.int64),
                  runs=2)
    st = bs.resample(s, np.random.default_rng(0), 4000)
    assert set(np.round(st.means[:, 0], 12)) == {1.0, 2.0, 1.7}
    assert set(st.median) == {1.0, 2.0}
    shares = [np.mean(np.isclose(st.means[:, 0], v)) for v in (1.0, 1.7, 2.0)]
    assert shares == pytest.approx([0.25, 0.5, 0.25], abs=0.03)


def test_resampling_is_seeded_and_blockwise(monkeypatch, reps):
    one = diff(reps["a1"], reps["b1"])
    assert msgspec.json.encode(one) == msgspec.json.encode(diff(reps["a1"], reps["b1"]))
    # a kind's intervals do not depend on the other kinds present
    st = reps["a1"].steps
    only = diff(dataclasses.replace(reps["a1"], steps=st[st["kind"] == "decode"]), reps["b1"])
    assert only.kinds["decode"].median == one.kinds["decode"].median
    # many steps are resampled a block of resamples at a time; the statistics stay in range
    monkeypatch.setattr(bs, "ELEMENTS", 1000)
    small = diff(reps["a1"], reps["b1"]).kinds["decode"].median
    assert small.ci[0] <= small.change <= small.ci[1] and small.ci == pytest.approx(one.kinds["decode"].median.ci,
                                                                                    abs=0.01)


def test_many_steps_and_ranks_stay_fast():
    import time

    rng = np.random.default_rng(0)
    n, ranks = 5000, 8
    span = rng.lognormal(15, 0.1, (n, ranks))
    s = bs.Sample(run=np.repeat(np.arange(4), n // 4), span=span, sums=np.column_stack([span.sum(1)] * 12),
                  count=np.full(n, ranks), runs=4)
    t = time.perf_counter()
    st = bs.resample(s, np.random.default_rng(1))
    assert st.median.shape == (2000,) and st.means.shape == (2000, 12)
    assert time.perf_counter() - t < 60  # about 5 s on one shared core


# --- JSON and its contract -----------------------------------------------------------------------------

def test_readme_diff_contract_is_written_from_the_types():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert contract.readme_block(readme, contract.DIFF_MARKERS) == contract.text(contract.diff_root()), \
        "README.md's diff JSON contract differs from the types: run python -m traceattrib.render.contract --readme"


@pytest.mark.parametrize("args", [
    [A1, A2, "--fail-if-slower", "5"],
    ["--before", A1, A2, "--after", B1, B2, "--fail-if-slower", "communication=5"],
    [str(FIXTURES / "llama_eager_nsys.sqlite"), str(FIXTURES / "llama_graph_torch.pt.trace.json.gz")],
    [str(FIXTURES / "tp2_eager_torch"), str(FIXTURES / "tp2_graph_torch")],
], ids=["one-run", "runs-and-gate", "nsys-vs-torch", "ranks"])
def test_diff_json_holds_exactly_the_contract(capsys, args):
    rc, out, _ = run(capsys, "diff", *args, "--format", "json")
    assert rc in (0, 1)
    doc = json.loads(out)
    root = contract.diff_root()
    assert contract.check(doc, root) == []
    extra = copy.deepcopy(doc)
    extra["kinds"]["decode"]["median"]["surprise"] = 1
    assert contract.check(extra, root) == ["$.kinds.decode.median.surprise: not in the contract"]


def test_modules_and_layers_compared_when_names_are_known(capsys):
    """The eager capture (modules from frames) against its CUDA-graph twin (modules by kernel
    position from the prefill): the projections run the same GEMMs, the model's own launches
    (position updates) are gone under the graph."""
    eager = analyze_path(str(FIXTURES / "layers_eager_torch_stack.pt.trace.json.gz"), use_cache=False)
    graph = analyze_path(str(FIXTURES / "layers_graph_torch.pt.trace.json.gz"), use_cache=False)
    k = diff(eager, graph).kinds["decode"]
    assert set(k.modules) >= {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "attention"}
    up = k.modules["up_proj"]
    # the mean per step against the report's median per step: the same steady steps, six alike
    assert up.before == pytest.approx(next(m.time_ns for m in eager.summary.by_kind["decode"].inside.modules
                                           if m.name == "up_proj"), rel=0.01)
    assert up.verdict == "unchanged" and abs(up.change) < 0.01
    assert k.modules["model"].verdict == "lower" and k.modules["model"].change < -0.5
    assert sorted(k.layers, key=int) == [str(i) for i in range(8)]
    assert k.layers["3"].before == pytest.approx(1.67 * k.layers["0"].before, rel=0.03)
    text = rdiff.render_text(diff(eager, graph))
    line = next(x for x in text.splitlines() if x.startswith("modules that moved beyond noise (mean per step): "))
    assert line.count("95% CI") == 3 and line.endswith(" more")


def test_modules_named_by_position_are_not_compared():
    a1, a2 = (analyze_path(p, use_cache=False) for p in (A1, A2))
    k = diff(a1, a2).kinds["decode"]
    assert a1.summary.by_kind["decode"].inside.layer_evidence.names_known is False
    assert k.modules is None and k.layers is not None and len(k.layers) == 4
    assert all(c.verdict in ("unchanged", "lower", "higher") for c in k.layers.values())
