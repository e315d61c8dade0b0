"""Inside the step: layers and modules against the truth the capture measured without traceattrib.

The layers_* / moe_* / hybrid_* fixtures (fixtures/capture/layers_model.py) come with
<name>.truth.json: per layer the GPU-op time of the trace's decode steps summed from the trace's
own module frames or NVTX ranges, the CUDA-event time of an unprofiled run, and the odd layer
(layer 3, its MLP twice as wide)."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import traceattrib as ta
from traceattrib import layers

from conftest import FIXTURES, PUBLIC, summary_of
from harness import run_cli

TORCH = ".pt.trace.json.gz"
# fixture -> (its file, the source its decode steps' layers come from, names known)
CASES = {
    "layers_eager_torch_stack": (TORCH, "names", True),
    "layers_eager_torch_plain": (TORCH, "position", False),
    "layers_eager_nsys_nvtx": (".sqlite", "nvtx", True),
    "layers_graph_torch": (TORCH, "position", True),
    "layers_graph_nsys": (".sqlite", "position", False),
    "moe_eager_torch_stack": (TORCH, "names", True),
    "moe_graph_torch": (TORCH, "position", True),
    "hybrid_eager_torch_stack": (TORCH, "names", True),
    "hybrid_graph_torch": (TORCH, "position", True),
}
# graph-replayed decode -> its eager twin (the same model, captured eagerly with names)
TWINS = {"layers_graph_torch": "layers_eager_torch_stack", "moe_graph_torch": "moe_eager_torch_stack",
         "hybrid_graph_torch": "hybrid_eager_torch_stack"}
# the truth's module leaf names -> ours
LEAF = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "o_proj": "o_proj",
        "gate_proj": "gate_proj", "up_proj": "up_proj", "down_proj": "down_proj", "experts": "experts",
        "gate": "router", "in_proj": "linear_attention.in_proj", "out_proj": "linear_attention.out_proj",
        "self_attn": "attention", "linear_attn": "linear_attention", "input_layernorm": "input_norm",
        "post_attention_layernorm": "post_attention_norm"}
BIG_US = 50.0  # modules at least this long per step are compared (shorter ones: a few kernels' jitter)

_cache: dict[str, dict] = {}


def decode(name: str) -> dict:
    """The decode kind's summary of a fixture's report (as the JSON report writes it)."""
    if name not in _cache:
        _cache[name] = summary_of(ta.analyze(ta.load(str(FIXTURES / f"{name}{CASES[name][0]}"))))["by_kind"]["decode"]
    return _cache[name]


def truth(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.truth.json").read_text())


def truth_modules(t: dict) -> dict[str, float]:
    """Per module (our name), its GPU-op time per decode step summed over the layers (µs)."""
    out: Counter = Counter()
    for layer, mods in t["profiled"]["per_layer_module_gpu_op_us_median"].items():
        if layer == "outside_layers":
            continue
        for path, us in mods.items():
            leaf = path.split(".")[-1]
            if leaf in LEAF:
                out[LEAF[leaf]] += us
    return dict(out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_layers_match_truth(name):
    d, t = decode(name), truth(name)
    ev = d["layer_evidence"]
    assert ev["source"] == CASES[name][1]
    assert ev["names_known"] is CASES[name][2]
    assert ev["layers"] == t["model"]["args"]["layers"] == 8
    ours = {str(lt["index"]): lt["time_ns"] / 1e3 for lt in d["layers"]}
    summed = t["profiled"]["per_layer_gpu_op_us_median"]
    events = t["unprofiled"]["per_layer_cuda_event_us_median"]
    assert set(ours) == set(summed) == set(events)
    for i in summed:
        assert ours[i] == pytest.approx(summed[i], rel=0.03), f"layer {i}"
        assert ours[i] == pytest.approx(events[i], rel=0.10), f"layer {i} against the unprofiled run"


@pytest.mark.parametrize("name", sorted(CASES))
def test_odd_layer_found(name):
    d, t = decode(name), truth(name)
    slow = d["slow_layers"]
    assert slow and slow[0]["index"] == t["odd_layer"]["index"] == 3
    assert len(slow) == 1, "only the wider layer stands out against the layers of its kind"
    assert slow[0]["ratio"] == pytest.approx(t["odd_layer"]["ratio_profiled_gpu_op_sum"], rel=0.05)
    if CASES[name][2]:  # its wider MLP is what differs
        assert {m["name"] for m in slow[0]["modules"]} & {"gate_proj", "up_proj", "experts"}


@pytest.mark.parametrize("name", [n for n, c in sorted(CASES.items()) if c[2]])
def test_module_names_and_times(name):
    d, t = decode(name), truth(name)
    ours = {m["name"]: m["time_ns"] / 1e3 for m in d["modules"]}
    assert all(m["source"] == CASES[name][1] for m in d["modules"])
    want = truth_modules(t)
    assert len(want) >= 7
    for mod, us in want.items():
        if us >= BIG_US:
            assert ours.get(mod, 0.0) == pytest.approx(us, rel=0.10), mod


@pytest.mark.parametrize("graph", sorted(TWINS))
def test_graph_decode_matches_its_eager_twin(graph):
    """The same modules with the same kernels each; the GEMMs' times within 10% (the eager twin's
    elementwise ops run at other speeds than replayed ones: its own truth says attention 192 µs
    against 216 µs in the hybrid's graph)."""
    g, e = decode(graph), decode(TWINS[graph])
    gm = {m["name"]: m for m in g["modules"]}
    em = {m["name"]: m for m in e["modules"]}
    big = [m for m, v in em.items() if v["time_ns"] >= BIG_US * 1e3]
    assert len(big) >= 7 and set(big) <= set(gm)
    for m in big:
        assert gm[m]["count"] == em[m]["count"], m
        if m.endswith("_proj") or m == "experts":
            assert gm[m]["time_ns"] == pytest.approx(em[m]["time_ns"], rel=0.10), m
    assert g["layer_evidence"]["reference"] == "prefill"
    assert gm.get("other", {"time_ns": 0})["time_ns"] < 0.001 * g["median_span_ns"]


# a fixture with module frames -> the config of its model (fixtures/layers_*.config.json)
SHAPED = {"layers_eager_torch_stack": "layers_dense", "moe_eager_torch_stack": "layers_moe",
          "layers_graph_torch": "layers_dense", "moe_graph_torch": "layers_moe"}


def without_frames(name: str, tmp_path) -> str:
    """The fixture's trace as record_shapes without with_stack writes it: no Python frames."""
    import gzip

    doc = json.loads(gzip.decompress((FIXTURES / f"{name}{TORCH}").read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "python_function"]
    out = tmp_path / f"{name}{TORCH}"
    out.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return str(out)


def shaped_decode(name: str, tmp_path, config: str | None = None) -> dict:
    from traceattrib import sol

    cfg = str(FIXTURES / f"{config or SHAPED[name]}.config.json")
    rep = ta.analyze(ta.load(without_frames(name, tmp_path)), sol_options=sol.Options(model=cfg))
    return summary_of(rep)["by_kind"]["decode"]


@pytest.mark.parametrize("name", sorted(SHAPED))
def test_gemms_named_by_their_shapes(name, tmp_path):
    """Shapes but no module frames, and the model's config: every projection gets the name the
    frames give it, with the same kernels and time (q and o, k and v, gate and up share a shape:
    their order in the layer tells them apart; layer 3's wider MLP matches no config shape and is
    named by the side that is the hidden size; MoE layers alternate with dense ones, so the layers
    are cut where each layer's first projection is). Graph-replayed decodes take the names by
    position from the prefill that shapes named."""
    got, want = shaped_decode(name, tmp_path), decode(name)
    ev = got["layer_evidence"]
    graph = "graph" in name
    assert ev["source"] == ("position" if graph else "shapes") and ev["names_known"]
    assert ev["reference"] == ("prefill" if graph else "")
    assert [lt["time_ns"] for lt in got["layers"]] == pytest.approx([lt["time_ns"] for lt in want["layers"]], rel=1e-3)
    gm = {m["name"]: m for m in got["modules"]}
    projections = [m for m in want["modules"] if m["name"].endswith("_proj") or m["name"] in ("experts", "lm_head")
                   and m["time_ns"] >= BIG_US * 1e3]
    assert {m["name"] for m in projections} >= {"q_proj", "k_proj", "v_proj", "o_proj", "down_proj", "lm_head"}
    for m in projections:
        assert m["name"] in gm, m["name"]
        if m["name"] != "experts":  # the frames count the experts' activation in: 1% more
            assert gm[m["name"]]["count"] == m["count"], m["name"]
        assert gm[m["name"]]["time_ns"] == pytest.approx(m["time_ns"], rel=0.02), m["name"]
    assert got["slow_layers"][0]["index"] == 3


def test_a_config_of_another_model_names_nothing(tmp_path):
    """A config whose projections have none of the trace's shapes: the layers and names come from
    position, as without a config."""
    got = shaped_decode("layers_eager_torch_stack", tmp_path, config="serve_like")
    assert got["layer_evidence"]["source"] == "position" and not got["layer_evidence"]["names_known"]
    assert got["layer_evidence"]["layers"] == 8


def _spec(**kw):
    from traceattrib.sol import model_from_config

    cfg = {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 2, "num_attention_heads": 32,
           "num_key_value_heads": 8, "vocab_size": 128256, "model_type": "llama"} | kw
    return model_from_config(cfg)


def test_projections_split_over_tensor_parallel_ranks():
    """Column-parallel projections split N, row-parallel ones K; the vocabulary is sharded."""
    p = layers.projections(_spec(), 4)
    shape = {n: (int(k), int(nn)) for n, k, nn in zip(p.name, p.k, p.n)}
    assert shape["q_proj"] == (4096, 1024) and shape["k_proj"] == (4096, 256) and shape["o_proj"] == (1024, 4096)
    assert shape["qkv_proj"] == (4096, 1536) and shape["gate_up_proj"] == (4096, 7168)
    assert shape["down_proj"] == (3584, 4096) and shape["lm_head"] == (4096, 32064)


def _named(calls: list[tuple[int, int, int]], p, layer=None) -> list[str]:
    """name_gemms over GEMM kernels given as (K, N, call id), all in layer 0 unless given."""
    kn = np.array(calls, np.int64).reshape(-1, 3)
    lay = np.zeros(len(kn), np.int64) if layer is None else np.array(layer, np.int64)
    return list(layers.name_gemms(kn, lay, p))


def test_name_gemms_fused_and_separate_forms():
    p = layers.projections(_spec(), 1)
    h, i, q, kv = 4096, 14336, 4096, 1024
    # vLLM style: fused qkv and gate_up, split-K kernels of one call counted once
    assert _named([(h, q + 2 * kv, 0), (q, h, 1), (h, 2 * i, 2), (h, 2 * i, 2), (i, h, 3)], p) == \
        ["qkv_proj", "o_proj", "gate_up_proj", "gate_up_proj", "down_proj"]
    # Hugging Face style: q and o share a shape (heads fill the hidden size), k and v, gate and up
    assert _named([(h, q, 0), (h, kv, 1), (h, kv, 2), (q, h, 3), (h, i, 4), (h, i, 5), (i, h, 6)], p) == \
        ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    # a layer twice as wide as the config: two GEMMs of the fused form's shape are the separate pair
    assert _named([(h, 2 * i, 0), (h, 2 * i, 1), (2 * i, h, 2)], p) == ["gate_proj", "up_proj", "down_proj"]
    # ... and in an engine that fuses gate and up, the wider layer's one call is its gate_up_proj
    assert _named([(h, 2 * i, 0), (i, h, 1), (h, 4 * i, 2), (2 * i, h, 3)], p, layer=[0, 0, 1, 1]) == \
        ["gate_up_proj", "down_proj", "gate_up_proj", "down_proj"]
    # outside the layers only the lm_head is named; unknown GEMMs stay unnamed
    assert _named([(h, 128256, 0), (h, q, 1), (-1, -1, -1), (7, 9, 2)], p, layer=[-1, 0, 0, 0]) == \
        ["lm_head", "q_proj", "", ""]


def test_layer_types():
    moe = decode("moe_eager_torch_stack")["layer_evidence"]["types"]
    assert moe == {"attention + mlp": [0, 2, 4, 6], "attention + moe": [1, 3, 5, 7]}
    hyb = decode("hybrid_graph_torch")["layer_evidence"]["types"]
    assert hyb["linear attention + mlp"] == [0, 2, 4, 6]
    assert sorted(i for k, v in hyb.items() if k.startswith("attention + mlp") for i in v) == [1, 3, 5, 7]


def test_unknown_names_are_positions():
    d = decode("layers_graph_nsys")
    names = [m["name"] for m in d["modules"]]
    assert all(n.startswith("op ") or n == "outside" for n in names)
    assert any(n.endswith(": linear") for n in names)


def test_steps_carry_layer_times(tmp_path):
    rep = ta.analyze(ta.load(str(FIXTURES / f"layers_eager_torch_stack{TORCH}")))
    from traceattrib.render.jsonout import to_dict

    doc = to_dict(rep)
    dec = [s for s in doc["steps"] if s["kind"] == "decode"]
    assert dec and all(len(s["layers_ns"]) == 8 for s in dec)
    med = np.median([s["layers_ns"][3] for s in dec])
    assert med == pytest.approx(decode("layers_eager_torch_stack")["layers"][3]["time_ns"], rel=0.02)
    for s in dec:  # a layer's union never exceeds the step
        assert sum(s["layers_ns"]) <= s["span_ns"]


def test_report_text_through_the_cli():
    r = run_cli("report", str(FIXTURES / f"moe_graph_torch{TORCH}"))
    assert r.rc == 0, r
    assert ("inside the decode step: 8 layers of 2 types (names by kernel position from the prefill step)"
            in r.out.replace("\n  ", " "))
    assert "layer 3 takes 1.67x the median attention + moe layer: experts" in r.out.replace("\n  ", " ")
    assert "module experts:" in r.out  # a module joins what to fix first


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/traces is absent")
@pytest.mark.parametrize("trace, kind, n, source, first", [
    ("tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz", "prefill", 36, "names", "gate_up_proj"),
    ("tracelens_h100_qwen15_05b_hf_eager.json.gz", "prefill", 24, "names", "attention"),
])
def test_public_traces(trace, kind, n, source, first):
    d = summary_of(ta.analyze(ta.load(str(PUBLIC / trace))))["by_kind"][kind]
    assert d["layer_evidence"]["layers"] == n
    assert d["layer_evidence"]["source"] == source
    assert d["modules"][0]["name"] == first


# the public configs of the models these traces ran (Hugging Face Qwen/Qwen1.5-0.5B, Qwen/Qwen3-8B)
PUBLIC_CONFIGS = {
    "tracelens_h100_qwen15_05b_hf_eager.json.gz": ("prefill", 0.05, {
        "model_type": "qwen2", "hidden_size": 1024, "intermediate_size": 2816, "num_hidden_layers": 24,
        "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936, "torch_dtype": "bfloat16"}),
    "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz": ("prefill", 0.001, {
        "model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288, "num_hidden_layers": 36,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
        "torch_dtype": "bfloat16"}),
}


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/traces is absent")
@pytest.mark.parametrize("trace", sorted(PUBLIC_CONFIGS))
def test_public_traces_named_by_shapes(trace, tmp_path):
    """Other people's traces without their Python frames, and their model's config: the same
    projections as the frames name (Hugging Face's q, k, v and o all one shape; SGLang's fused
    qkv_proj and gate_up_proj), each within a few percent (the frames also hold a Linear's
    non-GEMM kernels: 2.6% in the HF trace)."""
    import gzip

    from traceattrib import sol

    kind, rel, cfg = PUBLIC_CONFIGS[trace]
    doc = json.loads(gzip.decompress((PUBLIC / trace).read_bytes()))
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "python_function"]
    path = tmp_path / trace
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    got = summary_of(ta.analyze(ta.load(str(path)), sol_options=sol.Options(model=str(tmp_path))))["by_kind"][kind]
    want = summary_of(ta.analyze(ta.load(str(PUBLIC / trace))))["by_kind"][kind]
    assert got["layer_evidence"]["source"] == "shapes"
    assert got["layer_evidence"]["layers"] == want["layer_evidence"]["layers"]
    gm = {m["name"]: m["time_ns"] for m in got["modules"]}
    projections = {m["name"]: m["time_ns"] for m in want["modules"] if m["name"].endswith("_proj")}
    assert len(projections) >= 3
    for name, ns in projections.items():
        assert gm.get(name, 0.0) == pytest.approx(ns, rel=rel), name


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="../shared/traces is absent")
def test_thin_layers_say_nothing():
    """The vLLM graph-capture trace: the layers it finds hold under 1% of the step; no section."""
    d = summary_of(ta.analyze(ta.load(str(PUBLIC / "tracelens_mi300_vllm_graph_capture.json.gz"))))
    assert all(k.get("layers") is None for k in d["by_kind"].values())


# --- the pieces, on generated sequences ---------------------------------------------------------

def test_anchors_with_two_attention_runs_per_layer():
    """Decode runs the cache write and attention as two runs 4 ops apart; the layer is 64 ops."""
    runs = np.array([36, 40, 100, 104, 164, 168, 228, 232])
    assert layers._layer_anchors(runs).tolist() == [36, 100, 164, 228]
    assert layers._layer_anchors(np.array([35, 96, 157, 218])).tolist() == [35, 96, 157, 218]
    assert layers._layer_anchors(np.array([5])) is None
    assert layers._layer_anchors(np.array([1, 2, 30, 31, 90, 200])) is None


def test_segment_repeats():
    layer = [7, 1, 1, 2, 3]  # norm, linear, linear, attention, elementwise
    toks = np.array([9, 9] + layer * 4 + [8], np.int64)
    att = toks == 2
    seg = layers._segment(toks, att)
    assert seg.tolist() == [-1, -1] + [i for i in range(4) for _ in layer] + [-1]
    assert (layers._segment(toks, np.zeros_like(att)) == -1).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=40), st.lists(st.integers(0, 5), max_size=40))
def test_align_is_an_order_keeping_match(ref, cur):
    r, c = np.array(ref, np.int64), np.array(cur, np.int64)
    anchor = np.array([True, False, False, True, False, False])
    at = layers._align(r, c, anchor)
    got = at[at >= 0]
    assert (np.diff(got) > 0).all()
    assert (r[got] == c[at >= 0]).all()
    # and of the greatest weight (an anchor 4, any other op 1), as a plain dynamic program says
    w = np.where(anchor[c], layers.ANCHOR_WEIGHT, 1) if c.size else c
    best = np.zeros((r.size + 1, c.size + 1), int)
    for i in range(r.size):
        for j in range(c.size):
            best[i + 1, j + 1] = max(best[i, j + 1], best[i + 1, j], best[i, j] + w[j] if r[i] == c[j] else 0)
    assert w[at >= 0].sum() == best[-1, -1]


def test_align_keeps_layers_in_line():
    """A prefill layer with two extra ops in its mixer against a decode layer without them: every
    GEMM of the decode aligns with the GEMM of the same layer."""
    lin, el, att = 0, 1, 2
    pre = [lin, el, el, el, att, el, lin, lin]  # q, 3 chunk ops, attention, o, mlp
    dec = [lin, el, att, lin, lin]
    ref = np.array(pre * 4, np.int64)
    cur = np.array(dec * 4, np.int64)
    at = layers._align(ref, cur, np.array([True, False, False]))
    assert ((at[cur == lin] // len(pre)) == (np.flatnonzero(cur == lin) // len(dec))).all()


def _from_names_plain(a, per_step, toks, evidence):
    """The per-step loop _from_names replaces: the first evidence covering half a step's ops labels it."""
    from traceattrib.layers.position import _fill
    from traceattrib.layers.rules import NO_STEP
    labeled = {}
    for s, rows in enumerate(per_step):
        if not rows.size:
            continue
        for name, lay, mod in evidence:
            got = mod[rows] >= 0
            if got.mean() >= 0.5:
                a.source[s] = name
                a.layer[rows] = _fill(np.where(got, lay[rows], NO_STEP))
                a.module[rows] = np.where(got, mod[rows], -1)
                labeled[s] = (toks[rows], a.layer[rows], a.module[rows])
                break
    return labeled


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 4), st.integers(-1, 3), st.integers(-1, 3), st.integers(0, 5)),
                max_size=60), st.integers(1, 6))
def test_from_names_equals_the_per_step_loop(rows, nsteps):
    from traceattrib.layers.assign import Assignment, _from_names
    from traceattrib.layers.rules import NO_STEP
    step = np.array([min(r[0], nsteps - 1) for r in rows], np.int64)
    mr = np.array([r[1] for r in rows], np.int64)
    mf = np.array([r[2] for r in rows], np.int64)
    lay = np.array([r[3] for r in rows], np.int64)
    toks = np.arange(len(rows), dtype=np.int64)
    order = np.flatnonzero(step >= 0)[np.argsort(step[step >= 0], kind="stable")]
    bounds = np.searchsorted(step[order], np.arange(nsteps + 1))
    per_step = [order[bounds[s]:bounds[s + 1]] for s in range(nsteps)]
    ev = (("nvtx", lay, mr), ("names", lay + 1, mf))
    def fresh():
        return Assignment(layer=np.full(len(rows), NO_STEP, np.int64), module=np.full(len(rows), -1, np.int64),
                          modules=[], source=np.full(nsteps, "none", object), layer_type=None, types=[],
                          reference=np.full(nsteps, "", object))
    a, b = fresh(), fresh()
    got, want = _from_names(a, per_step, step, toks, ev), _from_names_plain(b, per_step, toks, ev)
    assert sorted(got) == sorted(want)
    for s in want:
        for x, y in zip(got[s], want[s]):
            np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.layer, b.layer)
    np.testing.assert_array_equal(a.module, b.module)
    np.testing.assert_array_equal(a.source, b.source)


def _types_plain(layer, fine, per_step):
    """The per-step, per-layer loop _types replaces: a row per (step, layer), typed by its kernels."""
    rows, sigs = [], []
    for s, r in enumerate(per_step):
        lay, f = layer[r], fine[r]
        for lv in np.unique(lay[lay >= 0]):
            rows.append((s, int(lv)))
            sigs.append(f[lay == lv].tobytes())
    codes = {}
    return [(s, lv, codes.setdefault(sig, len(codes))) for (s, lv), sig in zip(rows, sigs)], len(codes)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 5), st.integers(-2, 2), st.integers(-1, 2)), max_size=80),
       st.integers(0, 6), st.booleans())
def test_types_equal_the_per_layer_loop(rows, nsteps, repeat):
    from traceattrib.layers.assign import _types
    step = np.array([min(r[0], nsteps - 1) for r in rows], np.int64)
    layer = np.array([r[1] for r in rows], np.int64)
    fine = np.array([r[2] for r in rows], np.int64)
    order = np.flatnonzero(step >= 0)[np.argsort(step[step >= 0], kind="stable")]
    bounds = np.searchsorted(step[order], np.arange(nsteps + 1))
    per_step = [order[bounds[s]:bounds[s + 1]] for s in range(nsteps)]
    if repeat:  # steps with one sequence, as decode steps have
        for s in range(1, nsteps):
            if per_step[s].size == per_step[0].size:
                layer[per_step[s]], fine[per_step[s]] = layer[per_step[0]], fine[per_step[0]]
    got, names = _types(layer, None, [], step, fine, per_step)
    want, ntypes = _types_plain(layer, fine, per_step)
    assert list(zip(got["step"], got["layer"], got["type"])) == want
    assert len(names) == ntypes


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["prefill", "decode", "unknown"])), min_size=1,
                max_size=30), st.data())
def test_reference_is_the_first_labeled_step_of_rank_and_kind(steps, data):
    from traceattrib.layers.position import _references
    ranks = np.array([r for r, _ in steps])
    kinds = np.array([k for _, k in steps], dtype=object)
    labeled = {s: None for s in data.draw(st.permutations(range(len(steps))))[:data.draw(st.integers(0, len(steps)))]}
    ref = _references(labeled, ranks, kinds)
    for s in range(len(steps)):
        same = [r for r in labeled if ranks[r] == ranks[s]]
        want = next((r for r in same if kinds[r] == kinds[s]), same[0] if same else None)
        assert ref(s) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["prefill", "decode"]), st.booleans()), max_size=12), st.integers(0, 5),
       st.data())
def test_module_rows_per_kind_are_the_sums_of_its_steps(steps, npairs, data):
    import pandas as pd

    from traceattrib.layers.times import _per_kind
    n = len(steps)
    table = pd.DataFrame({"kind": pd.Categorical([k for k, _ in steps]), "warmup": [w for _, w in steps],
                          "rank": np.full(n, 2)})
    count = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n * npairs, max_size=n * npairs)),
                     np.int64).reshape(n, npairs)
    time = np.where(count > 0, np.arange(n * npairs, dtype=np.int64).reshape(n, npairs) * 10 ** 9 + 7, 0)
    nm = 3
    pairs = np.arange(npairs, dtype=np.int64) * 2 + nm
    got = _per_kind(table, time, count, pairs, nm, pd.Index(["a", "b", "c"], dtype=object))
    want = {}
    for i, (k, w) in enumerate(steps):
        for j in range(npairs):
            if count[i, j]:
                t, c = want.get((k, w, j), (0, 0))
                want[(k, w, j)] = (t + int(time[i, j]), c + int(count[i, j]))
    keys = sorted(want, key=lambda x: (x[0], x[1], x[2]))
    assert list(got["kind"]) == [k for k, _, _ in keys]
    assert list(got["warmup"]) == [w for _, w, _ in keys]
    assert list(got["layer"]) == [int(pairs[j] // nm - 1) for _, _, j in keys]
    assert list(got["module"]) == ["abc"[int(pairs[j] % nm)] for _, _, j in keys]
    assert list(got["time_ns"]) == [want[x][0] for x in keys]
    assert list(got["count"]) == [want[x][1] for x in keys]
    assert (got["rank"] == 2).all()
