"""`traceattrib export --perfetto`: the trace-event file, checked the way its importers read it
(Perfetto's JSON importer, chrome://tracing), and read back by `traceattrib report`: the same
steps with the same spans and bucket times, on real traces of every kind and on generated ones.

No offline Perfetto importer exists here (trace_processor downloads its binary), so the format is
checked against what Perfetto's importer needs: `check_events` below."""
from __future__ import annotations

import gzip
import json
import re
import tempfile
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from traceattrib import idle
from traceattrib.analysis import analyze
from traceattrib.cli import main
from traceattrib.errors import TraceError
from traceattrib.ingest import read
from traceattrib.render import perfetto
from traceattrib.render.jsonout import summary_dict

from conftest import FIXTURES, PUBLIC, needs_shared
from tracegen import Event, Timeline, kineto_text, timelines

NUMBER = re.compile(r"^\d+(\.\d{1,3})?$")  # a time as written: us, at most three decimals, >= 0
M_NAMES = {"process_name", "process_sort_index", "thread_name", "thread_sort_index"}
_cache: dict[str, tuple] = {}


def exported(tmp_path, src: str, *args) -> tuple[str, dict, object]:
    """The export of `src` through the command line, its parsed JSON and the original report."""
    out = str(tmp_path / "out.json.gz")
    assert main(["export", src, "--perfetto", out, "--no-cache", *args]) == 0
    with gzip.open(out, "rt", encoding="ascii") as f:  # ASCII only: every other character escaped
        text = f.read()
    return out, json.loads(text), text


def original(src: str):
    if src not in _cache:
        _cache[src] = analyze(read(src))
    return _cache[src]


def check_events(doc: dict, text: str) -> list[str]:
    """What Perfetto's JSON importer and chrome://tracing need of the file (problems, [] none)."""
    bad: list[str] = []
    keys = list(doc)
    if keys != ["otherData", "traceEvents"]:
        bad.append(f"top-level keys {keys}: only otherData may come before traceEvents (Perfetto stops at others)")
    if '"displayTimeUnit"' in text:
        bad.append("displayTimeUnit: Perfetto has read it as the unit of ts")
    # "ts" first in every event, as written (Perfetto's tokenizer scans the keys before it)
    body = text[text.index('"traceEvents":[') + 15:]
    for line in body.split("\n"):
        line = line.lstrip(",")
        if line.startswith("{") and not line.startswith('{"ts":'):
            bad.append(f"an event whose first key is not ts: {line[:80]}")
            break
    thread_pid: dict[int, int] = {}
    named_threads, named_procs, used_threads, used_procs = set(), set(), set(), set()
    slices = defaultdict(list)
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if ph not in ("X", "C", "M"):
            bad.append(f"phase {ph!r}")
            continue
        pid, tid = e.get("pid"), e.get("tid")
        if not (isinstance(pid, int) and 0 < pid < 2 ** 32):
            bad.append(f"pid {pid!r}")
        if ph == "M":
            if e["name"] not in M_NAMES or not isinstance(e.get("args"), dict):
                bad.append(f"metadata event {e}")
            if e["name"] == "process_name":
                named_procs.add(pid)
            if e["name"] == "thread_name":
                named_threads.add(tid)
            continue
        if not (isinstance(tid, int) and 0 < tid < 2 ** 32):
            bad.append(f"tid {tid!r}")
            continue
        if thread_pid.setdefault(tid, pid) != pid:
            bad.append(f"tid {tid} in two processes (Perfetto names threads by tid alone)")
        used_threads.add(tid)
        used_procs.add(pid)
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or ts < 0:
            bad.append(f"ts {ts!r}")
        if ph == "C":
            if not e["args"] or not all(isinstance(v, (int, float)) and np.isfinite(v) for v in e["args"].values()):
                bad.append(f"counter {e}")
            continue
        dur = e.get("dur")
        if not isinstance(dur, (int, float)) or dur < 0 or not isinstance(e.get("name"), str):
            bad.append(f"slice {e}")
            continue
        slices[tid].append((round(ts * 1000), round((ts + dur) * 1000)))
    if used_threads - named_threads:
        bad.append(f"threads without a name: {sorted(used_threads - named_threads)[:5]}")
    if used_procs - named_procs:
        bad.append(f"processes without a name: {sorted(used_procs - named_procs)}")
    for tid, iv in slices.items():  # slices of one track nest or follow each other
        iv.sort(key=lambda x: (x[0], -x[1]))
        stack: list[int] = []
        for s, e in iv:
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e > stack[-1]:
                bad.append(f"track {tid}: a slice [{s}, {e}) overlaps another that ends at {stack[-1]}")
                break
            stack.append(e)
    return bad


def times_in_text(text: str) -> list[str]:
    """Every ts and dur value as written."""
    return re.findall(r'"(?:ts|dur)":([^,}]+)', text)


def assert_same_steps(a, b) -> None:
    """The exported file's report finds the original's steps: names, kinds, flags, spans, time and
    exposed time per bucket, idle (exactly: within 1 us asked, 0 ns found)."""
    sa, sb = a.steps.reset_index(drop=True), b.steps.reset_index(drop=True)
    assert len(sa) == len(sb)
    for c in ("rank", "index", "name", "kind", "warmup", "outlier", "layers", "tokens"):
        assert sa[c].astype(str).tolist() == sb[c].astype(str).tolist(), c
    cols = ["span_ns", "busy_ns", "idle_ns", "overlap_ns"] + [f"{x}_{m}" for x in a.buckets
                                                               for m in ("time_ns", "exposed_ns", "count")]
    for c in cols:
        assert np.abs(sa[c].to_numpy(np.int64) - sb[c].to_numpy(np.int64)).max() <= 1000, \
            (c, sa[c].tolist(), sb[c].tolist())
        assert (sa[c].to_numpy(np.int64) == sb[c].to_numpy(np.int64)).all(), c
    assert b.buckets == a.buckets
    # the per-kind summaries agree on every bucket's figures
    da, db = summary_dict(a.summary)["by_kind"], summary_dict(b.summary)["by_kind"]
    assert set(da) == set(db)
    for k in da:
        for f in ("median_span_ns", "mean_exposed_ns", "bucket_share", "speedup_bound_if_removed"):
            assert da[k][f] == pytest.approx(db[k][f], rel=1e-12, abs=1e-9), (k, f)


ROUND_TRIP = ["llama_eager_torch.pt.trace.json.gz", "llama_graph_nsys.sqlite", "tp2_eager_torch",
              "serve_piecewise_noann_nsys.sqlite", "moe_graph_torch.pt.trace.json.gz", "idle_causes_nsys.sqlite"]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_report_on_the_export_finds_the_same_steps(tmp_path, name):
    """Annotated eager torch, graph-level nsys (bucket 'graph'), two ranks on aligned clocks, steps
    from graph cycles, steps whose kinds came from CUDA-graph replays, nsys with idle causes."""
    src = str(FIXTURES / name)
    out, doc, text = exported(tmp_path, src)
    assert check_events(doc, text) == []
    a = original(src)
    b = analyze(read(out))
    assert b.evidence == "given" and b.meta["format"] == "traceattrib"
    assert_same_steps(a, b)
    # each rank's steps start where they did, on the aligned clock
    shift = {int(r): int(round(v)) for r, v in a.comm.offsets_ns.items()}
    want = a.steps["start_ns"].to_numpy() - a.steps["rank"].map(lambda r: shift.get(int(r), 0)).to_numpy()
    assert (b.steps["start_ns"].to_numpy() == want).all()
    # ... and `traceattrib report` on the file says so
    js = tmp_path / "b.json"
    assert main(["report", out, "--format", "json", "-o", str(js), "--no-cache"]) == 0
    rep = json.loads(js.read_text())
    assert rep["evidence"] == "given" and [s["span_ns"] for s in rep["steps"]] == a.steps["span_ns"].tolist()


@needs_shared
def test_overlapping_steps_round_trip(tmp_path):
    """A public trace whose ProfilerStep spans overlap: the steps go to two lanes, and come back."""
    src = str(PUBLIC / "hta_ns_resolution_rank0.json.gz")
    out, doc, text = exported(tmp_path, src)
    assert check_events(doc, text) == []
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert "steps (2)" in names
    assert_same_steps(original(src), analyze(read(out)))


def test_ops_carry_their_bucket_step_layer_and_module(tmp_path):
    src = str(FIXTURES / "layers_eager_torch_stack.pt.trace.json.gz")
    out, doc, text = exported(tmp_path, src)
    a = original(src)
    k = a.kernels
    ops = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["args"].get("gpu_op") == "kernel"]
    assert len(ops) == len(k)
    assert all(e["cat"] == e["args"]["bucket"] for e in ops)
    # matched on (start, name): the file's times are the trace's minus the origin
    origin = doc["otherData"]["traceattrib_export"]["origin_ns"]
    got = pd.DataFrame({"start_ns": [round(e["ts"] * 1000) + origin for e in ops], "name": [e["name"] for e in ops],
                        "bucket": [e["args"]["bucket"] for e in ops], "rule": [e["args"]["rule"] for e in ops],
                        "step": [e["args"].get("step", -1) for e in ops],
                        "layer": [e["args"].get("layer", -99) for e in ops],
                        "module": [e["args"].get("module", "") for e in ops]})
    index = a.steps["index"].to_numpy()
    want = pd.DataFrame({"start_ns": k["start_ns"], "name": k["name"].astype(str), "bucket": k["bucket"].astype(str),
                         "rule": k["rule"].astype(str),
                         "step": np.where(k["step"] >= 0, index[np.maximum(k["step"], 0)], -1),
                         "layer": np.where(k["step"] >= 0, k["layer"], -99),
                         "module": np.where(k["step"] >= 0, k["module"].astype(str), "")})
    order = ["start_ns", "name", "bucket"]
    got = got.sort_values(order, kind="stable").reset_index(drop=True)
    want = want.sort_values(order, kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert (got["module"] != "").sum() > 0.9 * len(got) and set(got["layer"]) >= {-1, 0, 1}


def test_steps_gaps_counters_and_collectives_are_the_reports(tmp_path):
    """The extra tracks hold the JSON report's numbers: each step's span, exposed time and bounds,
    the gaps summing to each step's idle causes, the collectives' bytes and wait + transfer."""
    src = str(FIXTURES / "tp2_eager_torch")
    out, doc, text = exported(tmp_path, src)
    js = tmp_path / "a.json"
    assert main(["report", src, "--format", "json", "-o", str(js), "--no-cache"]) == 0
    rep = json.loads(js.read_text())
    ev = doc["traceEvents"]
    steps = [e for e in ev if e.get("cat") == "step"]
    assert [(e["args"]["rank"], e["name"]) for e in steps] == [(s["rank"], s["name"]) for s in rep["steps"]]
    for e, s in zip(steps, rep["steps"]):
        assert round(e["dur"] * 1000) == s["span_ns"]
        assert e["args"]["speedup_bound_if_removed"] == s["speedup_bound_if_removed"]
        assert e["args"]["buckets"] == s["buckets"] and e["args"]["idle_causes_ns"] == s["idle_causes_ns"]
    # gaps: per step, their ns per cause add up to the step's idle causes
    per: dict = defaultdict(lambda: dict.fromkeys(idle.CAUSES, 0))
    pid_rank = {int(p): r for p, r in doc["otherData"]["traceattrib_export"]["ranks"].items()}
    for e in ev:
        if e.get("cat") == "idle":
            a = e["args"]
            assert round(e["dur"] * 1000) == sum(a[f"{c}_ns"] for c in idle.CAUSES)
            assert e["name"].startswith("idle: ") and a["cause"] in e["name"]
            for c in idle.CAUSES:
                per[(pid_rank[e["pid"]], a["step"])][c] += a[f"{c}_ns"]
    for s in rep["steps"]:
        assert per[(s["rank"], s["index"])] == s["idle_causes_ns"]
    # counters: at each step's start, its exposed time per bucket in ms
    exposed = [e for e in ev if e["ph"] == "C" and e["name"] == "exposed (ms)" and any(e["args"].values())]
    assert len(exposed) == len(rep["steps"])
    assert sorted(round(e["args"]["linear"] * 1e6) for e in exposed) == \
        sorted(s["buckets"]["linear"]["exposed_ns"] for s in rep["steps"])
    # collectives: one slice per call and rank, bytes known, wait + transfer = the call
    calls = [e for e in ev if e.get("cat") == "collective" and e["name"] == "all_reduce"]
    assert len(calls) == 2 * 13 * 8
    assert all(e["args"]["wait_ns"] + e["args"]["transfer_ns"] == round(e["dur"] * 1000) for e in calls)
    by_step: dict = defaultdict(lambda: [0, 0, 0])
    for e in calls:
        v = by_step[(pid_rank[e["pid"]], e["args"]["step"])]
        v[0] += e["args"]["bytes"]
        v[1] += e["args"]["wait_ns"]
        v[2] += e["args"]["transfer_ns"]
    for s in rep["steps"]:
        c = s["collectives"]["all_reduce"]
        assert by_step[(s["rank"], s["index"])] == [c["bytes"], c["wait_ns"], c["transfer_ns"]]
    bw = [e["args"]["busbw_GBps"] for e in calls]
    summary_bw = rep["summary"]["by_kind"]["decode"]["collectives"]["all_reduce"]["busbw_GBps"]
    assert min(bw) <= summary_bw * 1.5 and all(b > 0 for b in bw)
    # flows join each call's two ranks, earlier slice first
    ids = defaultdict(list)
    for e in calls:
        if "bind_id" in e:
            ids[e["bind_id"]].append(e)
    assert len(ids) == 13 * 8 * (1 if len(ids) == 104 else 2) // (1 if len(ids) == 104 else 2)
    for pair in ids.values():
        first, second = sorted(pair, key=lambda e: e["ts"])
        assert first.get("flow_out") and not first.get("flow_in") and second.get("flow_in")
        assert first["pid"] != second["pid"]
    assert {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"} == \
        {"rank 0 · NVIDIA H200", "rank 1 · NVIDIA H200"}


def test_times_are_exact_microseconds(tmp_path):
    """ts and dur as us with at most three decimals, counted from the origin otherData names."""
    out, doc, text = exported(tmp_path, str(FIXTURES / "llama_eager_nsys.sqlite"))
    assert all(NUMBER.match(t) for t in times_in_text(text))
    about = doc["otherData"]["traceattrib_export"]
    assert about["version"] == perfetto.VERSION and about["trace"]["path"] is None
    assert min(e["ts"] for e in doc["traceEvents"] if e["ph"] == "X") == 0


HOSTILE = ["</script><script>x</script>", 'quote " and back\\slash', "\u202eevil bidi", "tab\there",
           "名前 kernel", "nul \x00 byte", "line\nbreak"]


def test_names_come_back_as_they_were(tmp_path):
    """Kernel and step names with markup, quotes, control, bidi and non-ASCII characters are
    written escaped (the file is ASCII) and read back unchanged."""
    ev = []
    t = 10_000
    for i in range(6):
        ev.append(Event("step", f"decode_step_{i}" if i else "prefill", t, t + 90_000))
        for j in range(4):
            s = t + 1000 + j * 20_000
            ev.append(Event("launch", "cudaLaunchKernel", s - 900, s - 100, corr=i * 10 + j + 1))
            ev.append(Event("kernel", HOSTILE[(i + j) % len(HOSTILE)], s, s + 15_000, corr=i * 10 + j + 1))
        t += 100_000
    src = tmp_path / "hostile.json"
    src.write_text(kineto_text(Timeline(ev)))
    out, doc, text = exported(tmp_path, str(src))
    assert check_events(doc, text) == []
    a, b = original(str(src)), analyze(read(out))
    assert sorted(b.kernels["name"].astype(str)) == sorted(a.kernels["name"].astype(str))
    assert set(HOSTILE) <= set(b.kernels["name"].astype(str))
    assert_same_steps(a, b)


# no shrinking: a failing timeline of a few hundred events took hypothesis minutes to shrink
@settings(max_examples=40, deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tl=timelines())
def test_generated_traces_round_trip(tl):
    """Any generated trace that reports: its export passes the format check and reports the same steps."""
    with tempfile.TemporaryDirectory() as d:
        src = f"{d}/t.json"
        with open(src, "w") as f:
            f.write(kineto_text(tl))
        try:
            a = analyze(read(src))
        except TraceError:
            return
        out = f"{d}/out.json"
        perfetto.write(a, out)
        text = open(out, encoding="ascii").read()
        assert check_events(json.loads(text), text) == []
        assert_same_steps(a, analyze(read(out)))


def test_lanes_keep_slices_of_a_track_apart():
    key = np.array([0, 0, 0, 0, 1, 1])
    s = np.array([0, 5, 10, 12, 0, 0])
    e = np.array([10, 8, 20, 15, 5, 5])
    lane, bad = perfetto.lanes(key, s, e)
    assert bad == 0 and lane.tolist() == [0, 1, 0, 1, 0, 1]


def test_command_line_refusals(tmp_path, capsys):
    src = str(FIXTURES / "llama_graph_nsys.sqlite")
    assert main(["export", src]) == 2
    assert "-o DIR" in capsys.readouterr().err
    assert main(["export", src, "--perfetto", str(tmp_path / "x.json"), "--workers", "2"]) == 2
    assert main(["export", src, "--perfetto", str(tmp_path / "no" / "such" / "dir.json.gz"), "--no-cache"]) == 2
    assert "cannot write" in capsys.readouterr().err


@pytest.mark.parametrize("damage", ["version", "ranks", "pid", "truncated", "ts"])
def test_damaged_exports_are_refused_in_one_line(tmp_path, capsys, damage):
    out, doc, text = exported(tmp_path, str(FIXTURES / "llama_graph_nsys.sqlite"))
    if damage == "version":
        text = text.replace('"version": 1', '"version": 99', 1)
    elif damage == "ranks":
        text = text.replace('"ranks": {"1": 0}', '"ranks": {"one": 0}', 1)
    elif damage == "pid":
        text = text.replace('"pid":1,"tid":100003', '"pid":7,"tid":100003', 1)
    elif damage == "ts":
        text = re.sub(r'\{"ts":[0-9.]+,"dur"', '{"ts":"soon","dur"', text, count=3)
    else:
        text = text[: len(text) // 2]
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    assert main(["report", str(bad), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("traceattrib: error:")
