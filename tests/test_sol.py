"""Speed of light: bytes and FLOPs per step against the capture scripts' own truth, the model
path on the Nsight Systems capture of the same workload, peaks, and the report lines.

Truth (fixtures/serve_*.steps.json, written by fixtures/capture/serve_like.py): per step the
weight bytes (every projection weight and the lm_head) and the K/V bytes of the valid cache read
once per layer; the floor compares against weight_bytes + kv_read_bytes. Embedding rows are not in
it (see sol.py). The script's `flops` counts the lm_head over every prompt token; the runner
(gpu_model_runner.execute_model) computes logits for each sequence's last token only, as vLLM
does, and so do shapes and --model: the prefill truth is corrected by 2 x (tokens - seqs) x
lm_head parameters below.

Steps are assigned here from the workload itself (each iteration ends with sample_tokens' argmax
kernel), so these numbers do not depend on step detection.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

import traceattrib as ta
from traceattrib import sol
from traceattrib.analysis import analyze
from traceattrib.cli import main
from traceattrib.render.notes import texts

from conftest import FIXTURES, PUBLIC, needs_shared, summary_of

CONFIG = str(FIXTURES / "serve_like.config.json")
LM_HEAD = 32000 * 2048                    # serve_like: vocab x hidden
SEQS = 4


def truth(name: str) -> list[dict]:
    return json.loads((FIXTURES / f"{name}.steps.json").read_text())["steps"]


def flops_truth(t: dict) -> float:
    """The script's FLOPs with the lm_head over the last token of each sequence only."""
    return t["flops"] - 2 * (t["tokens"] - SEQS) * LM_HEAD


@pytest.fixture(scope="module")
def loaded():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = ta.load(str(FIXTURES / name))
        return cache[name]
    return get


def argmax_steps(trace) -> tuple[np.ndarray, pd.DataFrame]:
    """Step of every kernel: iteration i runs from after the (i-1)th argmax kernel (sample_tokens)
    to the ith; and a minimal step table (rank, index, kind, start_ns, end_ns, span_ns, linear time)."""
    k = trace.kernels
    start = k["start_ns"].to_numpy()
    am = np.sort(start[k["name"].astype(str).str.contains("ArgMax").to_numpy()])
    step = np.searchsorted(am, start, side="left")
    step = np.where(step < am.size, step, -1)
    rows = []
    cls = ta.classify.classify_kernels(k, ta.classify.load_rules())["bucket"].to_numpy()
    dur = (k["end_ns"] - k["start_ns"]).to_numpy()
    for i in range(am.size):
        m = step == i
        rows.append({"rank": 0, "index": i, "kind": "prefill" if i == 0 else "decode", "warmup": False,
                     "start_ns": int(start[m].min()), "end_ns": int(k["end_ns"].to_numpy()[m].max()),
                     "linear_time_ns": int(dur[m & (cls == "linear")].sum()),
                     "attention_time_ns": int(dur[m & (cls == "attention")].sum())})
    tab = pd.DataFrame(rows)
    tab["span_ns"] = tab["end_ns"] - tab["start_ns"]
    return step, tab, cls


# --- bytes and FLOPs from shapes ---------------------------------------------------------------

def test_shapes_match_the_script_truth(loaded):
    """Eager torch.profiler capture (record_shapes): tokens exact, weights exact, bytes and FLOPs
    within 5% on every step (decode exact; the prefill's K/V are GQA-expanded by repeat_interleave
    before SDPA, so its KV bytes are the 4x the attention kernel really reads: +2.9% of bytes)."""
    t = loaded("serve_eager_noann_torch.pt.trace.json.gz")
    step, tab, cls = argmax_steps(t)
    w = sol.shape_work(t, step, len(tab), cls)
    tr = truth("serve_eager_noann_torch")
    assert len(tab) == len(tr) == 11
    for i, s in enumerate(tr):
        assert w.tokens[i] == s["tokens"]
        assert w.weight_bytes[i] == s["weight_bytes"]
        assert w.coverage[i] == 1.0
        assert w.dtype[i] == "bf16"
        got = w.weight_bytes[i] + w.kv_bytes[i]
        want = s["weight_bytes"] + s["kv_read_bytes"]
        assert abs(got / want - 1) < 0.05, (i, got, want)
        assert abs(w.flops[i] / flops_truth(s) - 1) < 0.05, (i, w.flops[i], flops_truth(s))
        if s["kind"] == "decode":  # one token per sequence, KV read as stored: exact
            assert w.kv_bytes[i] == s["kv_read_bytes"]
            assert w.flops[i] == s["flops"]
    prefill = tr[0]
    assert w.kv_bytes[0] == 4 * prefill["kv_read_bytes"]       # 16 expanded heads instead of 4
    assert (w.weight_bytes[0] + w.kv_bytes[0]) / (prefill["weight_bytes"] + prefill["kv_read_bytes"]) - 1 == \
        pytest.approx(0.0292, abs=1e-3)
    assert w.flops[0] / flops_truth(prefill) - 1 == pytest.approx(0.0, abs=1e-9)


def test_int8_weights_count_at_their_stored_width(loaded):
    """llama_decode.py stores linear weights as int8 and dequantizes them every step: the GEMMs see
    bf16 weights, the floor counts the int8 bytes (and the bf16 lm_head); the linear kernels'
    achieved bandwidth uses the bf16 bytes they actually read."""
    t = loaded("llama_eager_torch.pt.trace.json.gz")
    rep = analyze(t)
    a = json.loads((FIXTURES / "llama_eager_torch.steps.json").read_text())["args"]
    h, kv = a["hidden"], a["kv_heads"] * a["hidden"] // a["heads"]
    layer = h * h * 2 + 2 * h * kv + 3 * h * a["intermediate"]        # q, o, k, v, gate, up, down
    lm_head = a["vocab"] * h * 2
    dec = rep.steps[rep.steps["kind"] == "decode"]
    assert (dec["sol_source"] == "shapes").all()
    assert (dec["sol_weight_bytes"] == a["layers"] * layer * 1 + lm_head).all()
    lin_bytes = dec["linear_bw_Bps"] * dec["linear_time_ns"] / 1e9
    np.testing.assert_allclose(lin_bytes, a["layers"] * layer * 2 + lm_head, rtol=1e-9)
    # the static cache: SDPA reads all max_len positions of K and V (8 KV heads) in every layer
    assert (dec["sol_kv_bytes"] == a["layers"] * 2 * a["kv_heads"] * a["max_len"] * (h // a["heads"]) * 2).all()
    assert any("stored width" in n for n in texts(rep.notes))


def test_tensor_parallel_ranks_hold_half_the_weights(loaded):
    """TP=2 (llama_decode.py under torchrun): each rank's shapes show half of every layer's
    weights and the whole (unsharded in this script) lm_head; the model path takes TP from the
    collectives' group size."""
    t = loaded("tp2_eager_torch")
    rep = analyze(t)
    a = json.loads((FIXTURES / "tp2_eager_torch.rank0.steps.json").read_text())["args"]
    h, kv = a["hidden"], a["kv_heads"] * a["hidden"] // a["heads"]
    layer = h * h * 2 + 2 * h * kv + 3 * h * a["intermediate"]
    dec = rep.steps[rep.steps["kind"] == "decode"]
    assert sorted(dec["rank"].unique()) == [0, 1]
    assert (dec["sol_weight_bytes"] == a["layers"] * layer // 2 + a["vocab"] * h * 2).all()
    assert sol.tensor_parallel(t) == (2, "the collectives' process-group size")


# --- bytes and FLOPs from --model --------------------------------------------------------------

def test_model_matches_the_script_truth_on_the_nsys_capture(loaded):
    """Nsight Systems capture of the same workload (piecewise CUDA graphs, no shapes): --model with
    --batch 4 --context 128 gives every step's bytes and FLOPs; all within 5% (they are exact)."""
    t = loaded("serve_piecewise_noann_nsys.sqlite")
    step, tab, cls = argmax_steps(t)
    out, notes = sol.step_columns(tab, t, step, cls, sol.Options(model=CONFIG, batch=SEQS, context=128))
    tr = truth("serve_piecewise_noann_nsys")
    assert len(out) == len(tr) == 11
    assert (out["sol_source"] == "model").all()
    for i, s in enumerate(tr):
        want = s["weight_bytes"] + s["kv_read_bytes"]
        assert abs(out["sol_bytes"][i] / want - 1) < 0.05
        assert abs(out["sol_flops"][i] / flops_truth(s) - 1) < 0.05
        assert out["sol_bytes"][i] == pytest.approx(want, rel=1e-12)
        assert out["sol_flops"][i] == pytest.approx(flops_truth(s), rel=1e-12)
        assert out["tokens"][i] == s["tokens"]
    # the floor and the efficiency follow from the columns
    r = out.iloc[1]
    floor = max(r["sol_bytes"] / 4.8e12, r["sol_flops"] / 989.5e12) * 1e9
    assert r["min_step_ns"] == pytest.approx(floor)
    assert r["hbm_efficiency"] == pytest.approx(r["sol_bytes"] / 4.8e12 * 1e9 / r["span_ns"])
    assert r["mfu"] == pytest.approx(r["sol_flops"] / 989.5e12 * 1e9 / r["span_ns"])
    # without --model: unknown, and said so
    out2, notes2 = sol.step_columns(tab, t, step, cls, None)
    assert (out2["sol_source"] == "unknown").all() and out2["min_step_ns"].isna().all()
    assert any("speed of light unknown" in n and "--model" in n for n in texts(notes2))


def test_model_without_batch_counts_weights_only(loaded):
    t = loaded("serve_piecewise_noann_nsys.sqlite")
    step, tab, cls = argmax_steps(t)
    out, notes = sol.step_columns(tab, t, step, cls, sol.Options(model=CONFIG))
    assert (out["sol_weight_bytes"] == truth("serve_piecewise_noann_nsys")[1]["weight_bytes"]).all()
    assert out["sol_kv_bytes"].isna().all() and out["sol_flops"].isna().all()
    assert out["min_step_ns"].notna().all()   # the bandwidth floor alone
    assert any("--batch and --context" in n for n in texts(notes))


def test_cuda_graph_gemms_have_no_shapes_and_fall_back_to_the_model(loaded):
    """Piecewise CUDA graphs under torch.profiler: the prefill runs eagerly (shapes), the decode
    GEMMs are graph replays (no shapes): unknown without --model, 'model' with it."""
    t = loaded("serve_piecewise_torch.pt.trace.json.gz")
    step, tab, cls = argmax_steps(t)
    out, notes = sol.step_columns(tab, t, step, cls, None)
    assert out["sol_source"].tolist() == ["shapes"] + ["unknown"] * 10
    assert any("CUDA graphs" in n for n in texts(notes))
    out, _ = sol.step_columns(tab, t, step, cls, sol.Options(model=CONFIG, batch=SEQS, context=128))
    assert out["sol_source"].tolist() == ["shapes"] + ["model"] * 10
    tr = truth("serve_piecewise_torch")
    for i in range(1, 11):
        assert out["sol_bytes"][i] == tr[i]["weight_bytes"] + tr[i]["kv_read_bytes"]


def test_floor_above_the_span_is_called_out(loaded):
    t = loaded("serve_piecewise_noann_nsys.sqlite")
    step, tab, cls = argmax_steps(t)
    tab = tab.assign(span_ns=1000)
    out, notes = sol.step_columns(tab, t, step, cls, sol.Options(model=CONFIG, batch=SEQS, context=128))
    assert (out["hbm_efficiency"] > 1).all()
    assert any("floor exceeds the measured span on 11 of 11" in n for n in texts(notes))


# --- model configs -----------------------------------------------------------------------------

def llama(**kw) -> dict:
    cfg = json.loads(open(CONFIG).read())
    cfg.update(kw)
    return cfg


def test_model_stored_widths():
    params = 8 * (2048 * 2048 * 2 + 2 * 2048 * 512 + 3 * 2048 * 5632)
    lm = LM_HEAD * 2

    def wbytes(cfg, tp=1):
        return sol.model_work(sol.model_from_config(cfg), tp, 4, 4, 1, 129)["weight_bytes"]

    assert wbytes(llama()) == params * 2 + lm
    # fp8 with 128x128 block scales (DeepSeek-style): 1 byte + 4 bytes per 16384 weights
    fp8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
    assert wbytes(llama(quantization_config=fp8)) == pytest.approx(params * (1 + 4 / 16384) + lm)
    assert sol.model_from_config(llama(quantization_config=fp8)).compute == "fp8"
    # NVFP4: 4 bits + one fp8 scale per 16 values = 4.5 bits
    nv = {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
          "config_groups": {"g": {"weights": {"num_bits": 4, "type": "float", "group_size": 16},
                                  "input_activations": {"num_bits": 4, "type": "float"}}}}
    assert wbytes(llama(quantization_config=nv)) == pytest.approx(params * 4.5 / 8 + lm)
    assert sol.model_from_config(llama(quantization_config=nv)).compute == "fp4"
    mo = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": "FP8"}
    spec = sol.model_from_config(llama(quantization_config=mo))
    assert spec.weight_bits == 4.5 and spec.kv_bytes == 1
    # int8 weight-only, per channel (w8a16): 1 byte, math stays bf16
    w8 = {"quant_method": "compressed-tensors",
          "config_groups": {"g": {"weights": {"num_bits": 8, "type": "int", "strategy": "channel"}}}}
    assert wbytes(llama(quantization_config=w8)) == params + lm
    assert sol.model_from_config(llama(quantization_config=w8)).compute == "bf16"
    # GPTQ 4-bit, group 128: fp16 scale and 4-bit zero point per group
    gptq = {"quant_method": "gptq", "bits": 4, "group_size": 128}
    assert wbytes(llama(quantization_config=gptq)) == pytest.approx(params * (4 + 20 / 128) / 8 + lm)
    # tensor parallel 2: every matrix and the vocabulary split in two
    assert wbytes(llama(), tp=2) == (params * 2 + lm) / 2
    # unknown method: said, and counted at torch_dtype
    spec = sol.model_from_config(llama(quantization_config={"quant_method": "mystery"}))
    assert spec.weight_bits == 16 and "not understood" in texts(spec.notes)[0]


def test_model_moe_and_mla():
    # Mixtral-like: 8 experts, top-2; one token touches 2 experts, many tokens all 8
    cfg = llama(num_local_experts=8, num_experts_per_tok=2)
    spec = sol.model_from_config(cfg)
    expert = 3 * 2048 * 5632
    attn = 2048 * 2048 * 2 + 2 * 2048 * 512
    one = sol.model_work(spec, 1, 1, 1, 1, 10)
    assert one["weight_bytes"] == pytest.approx(8 * (attn + 2048 * 8 + 2 * expert) * 2 + LM_HEAD * 2)
    many = sol.model_work(spec, 1, 4096, 8, 512, 512)
    assert many["weight_bytes"] == pytest.approx(8 * (attn + 2048 * 8 + 8 * expert) * 2 + LM_HEAD * 2, rel=1e-9)
    assert one["flops"] == pytest.approx(2 * 8 * (attn + 2048 * 8 + 2 * expert) + 2 * LM_HEAD
                                         + 8 * 2 * 16 * 256 * 10)
    # DeepSeek-style MLA: the latent cache (kv_lora_rank + rope dims) per token per layer, not per head
    ds = llama(kv_lora_rank=512, q_lora_rank=1536, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)
    w = sol.model_work(sol.model_from_config(ds), 8, 1, 1, 1, 1000)
    assert w["kv_bytes"] == 8 * 1000 * (512 + 64) * 2


def test_model_config_errors(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    assert main(["report", str(FIXTURES / "llama_eager_nsys.sqlite"), "--model", str(bad)]) == 2
    assert "--model" in capsys.readouterr().err
    bad.write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(ta.errors.TraceError, match="lacks hidden_size"):
        sol.load_model(str(tmp_path))
    # a FIFO named config.json would block the read forever: one line, exit 2, no hang
    fifo = tmp_path / "pipe"
    fifo.mkdir()
    os.mkfifo(fifo / "config.json")
    for arg in (fifo, fifo / "config.json"):
        assert main(["report", str(FIXTURES / "llama_eager_nsys.sqlite"), "--no-cache", "--model", str(arg)]) == 2
        err = capsys.readouterr().err
        assert "not a regular file" in err and len(err.strip().splitlines()) == 1


# --- peaks -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,row", [
    ("NVIDIA H200", "H200 SXM"), ("NVIDIA H200 NVL", "H200 NVL"), ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("NVIDIA H100 PCIe", "H100 PCIe"), ("NVIDIA H100 NVL", "H100 NVL"), ("NVIDIA H800", "H100 SXM"),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"), ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe"),
    ("NVIDIA A100-SXM4-40GB", "A100 40GB"), ("NVIDIA A100-PCIE-40GB", "A100 40GB"),
    ("NVIDIA L40S", "L40S"), ("NVIDIA L4", "L4"), ("NVIDIA A10", "A10"), ("NVIDIA B200", "B200"),
    ("NVIDIA GB200", "GB200"), ("NVIDIA GH200 480GB", "GH200 (HBM3)"), ("AMD Instinct MI300X", "MI300X"),
    ("AMD Instinct MI300X VF", "MI300X"), ("AMD Instinct MI325X", "MI325X"), ("AMD Instinct MI355X", "MI355X"),
    ("Tesla T4", "T4"), ("Tesla V100-SXM2-32GB", "V100 SXM"), ("Tesla V100-PCIE-16GB", "V100 PCIe"),
    ("Tesla V100S-PCIE-32GB", "V100S"), ("Tesla V100-FHHL-16GB", None), ("NVIDIA L40", "L40"), ("NVIDIA A40", "A40"),
    ("NVIDIA A30", "A30"), ("NVIDIA GeForce RTX 4090", "GeForce RTX 4090"), ("NVIDIA GeForce RTX 4090 D", None),
    ("NVIDIA GeForce RTX 4090 Laptop GPU", None), ("NVIDIA GeForce RTX 3090", "GeForce RTX 3090"),
    ("NVIDIA GeForce RTX 3090 Ti", None), ("NVIDIA GeForce RTX 3060", None), ("Orin", None),
])
def test_gpu_names_match_their_row(name, row):
    p = sol.match_gpu(name)
    assert (p.name if p else None) == row


def test_every_gpu_row_is_sourced_and_sane():
    rows = [r for r in sol.load_gpus() if r.hbm_Bps is not None]
    assert len(rows) >= 15
    for r in rows:
        assert r.source and ("nvidia.com" in r.source or "amd.com" in r.source), r.name
        assert 1e11 < r.hbm_Bps < 2e13
        f = r.flops
        assert 1e13 < f["fp16"] < 1e16 and f.get("bf16", f["fp16"]) == f["fp16"], r.name
        assert "bf16" in f or r.name in ("T4", "V100S", "V100 PCIe", "V100 SXM"), r.name  # no bf16 before Ampere
        assert all(0 < v <= f["fp16"] for k, v in f.items() if k in ("tf32", "fp32")), r.name
        for lo, hi in (("bf16", "fp8"), ("fp8", "fp4")):
            if lo in f and hi in f:
                assert f[hi] > f[lo], r.name
    h200 = sol.match_gpu("NVIDIA H200")
    assert (h200.hbm_Bps, h200.flops["bf16"], h200.flops["fp8"]) == (4.8e12, 989.5e12, 1979e12)
    assert h200.flops_for("fp4") == (1979e12, "fp8")     # Hopper has no fp4: the next wider dtype


def test_parse_rate():
    assert sol.parse_rate("4.8T") == 4.8e12
    assert sol.parse_rate("4.8 TB/s") == 4.8e12
    assert sol.parse_rate("989 TFLOPS") == 989e12
    assert sol.parse_rate("3.35e12") == 3.35e12
    assert sol.parse_rate("1.2P") == 1.2e15
    for bad in ("fast", "-1T", "0", "4.8X"):
        with pytest.raises(ValueError):
            sol.parse_rate(bad)


# --- reports -----------------------------------------------------------------------------------

def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def test_report_prints_the_floor_from_shapes(capsys):
    rc, out, _ = run(capsys, "report", str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"))
    assert rc == 0
    lines = [line for line in out.splitlines() if line.startswith("speed of light:")]
    assert len(lines) == 2        # decode and prefill
    assert "reading 988 MB at 4.8 TB/s takes 0.206 ms; HBM efficiency" in lines[0]
    assert "MFU" in lines[1] and "GFLOP at 990 TFLOP/s bf16" in lines[1]
    rc, out, _ = run(capsys, "report", str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"), "--format", "md")
    assert out.count("Speed of light: the step is") == 2


def test_report_from_model_on_nsys(capsys):
    nsys = str(FIXTURES / "serve_piecewise_nsys.sqlite")
    rc, out, _ = run(capsys, "report", nsys)
    assert rc == 0 and "speed of light: unknown" in out
    rc, out, _ = run(capsys, "report", nsys, "--model", CONFIG, "--batch", "4", "--context", "128")
    assert rc == 0 and "(from model, H200 SXM)" in out.replace("\n  ", " ")
    assert "HBM efficiency" in out


def test_report_json_contract_and_overrides(capsys):
    rc, out, _ = run(capsys, "report", str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"), "--format", "json",
                     "--peak-bw", "2T", "--peak-flops", "500 TFLOPS")
    assert rc == 0
    doc = json.loads(out)
    d = doc["summary"]["by_kind"]["decode"]["speed_of_light"]
    assert list(d)[:8] == ["bytes_per_step", "flops_per_step", "source", "peak_bw_Bps", "peak_flops", "min_step_ns",
                           "hbm_efficiency", "mfu"]
    assert d["source"] == "shapes" and d["peak_bw_Bps"] == 2e12 and d["peak_flops"] == 500e12
    assert d["bytes_per_step"] == 987758592
    assert d["min_step_ns"] == pytest.approx(987758592 / 2e12 * 1e9)
    assert d["hbm_efficiency"] == pytest.approx(d["min_step_ns"] / d["mean_span_ns"], rel=0.05)
    step = doc["steps"][1]["speed_of_light"]
    assert step["source"] == "shapes" and step["bytes"] == 987758592 and doc["steps"][1]["tokens"] == 1
    rc, out, _ = run(capsys, "report", str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"), "--format", "csv")
    assert "min_step_ns" in out.splitlines()[0] and "hbm_efficiency" in out.splitlines()[0]
    rc, _, err = run(capsys, "report", str(FIXTURES / "llama_eager_torch.pt.trace.json.gz"), "--peak-bw", "fast")
    assert rc == 2 and "--peak-bw" in err and "Traceback" not in err


def test_findings_candidates(loaded):
    """The floor and the linear kernels' own floor as candidates (report.Finding: code, bound,
    figures), worded as {"what", "bound", "evidence"} by render/findings.py."""
    from traceattrib import findings
    from traceattrib.render.findings import as_dict
    from traceattrib.report import SolSummary

    rep = analyze(loaded("llama_eager_torch.pt.trace.json.gz"))
    ks = rep.summary.by_kind["decode"]
    steps = rep.kind_steps("decode")
    floor, lin = sol.candidates("decode", ks.speed_of_light)
    assert (floor.code, lin.code) == ("sol.step", "sol.linear")
    assert floor.bound == pytest.approx(float(np.median(steps["span_ns"] / steps["min_step_ns"])))
    shown = as_dict(floor)
    assert floor.bound > 20 and "HBM bandwidth" in shown["what"] and "HBM efficiency 3.3%" in shown["evidence"]
    # linear kernels at peak bandwidth: less than removing them, more than nothing
    assert 1.0 < lin.bound < ks.attribution.speedup_bound_if_removed["linear"]
    saved = steps["linear_exposed_ns"] * (1 - steps["linear_min_ns"] / steps["linear_time_ns"]).clip(0, 1)
    assert lin.bound == pytest.approx(float(np.median(steps["span_ns"] / (steps["span_ns"] - saved))))
    assert findings.ceiling("decode", ks) == floor == rep.summary.ceiling
    assert sol.candidates("decode", SolSummary()) == []


@pytest.mark.parametrize("gpu, bw", [("NVIDIA GeForce RTX 4090", 1008e9), ("Tesla T4", 320e9),
                                     ("Tesla V100-SXM2-32GB", 900e9)])
def test_consumer_and_older_gpus_have_a_floor(loaded, gpu, bw):
    """The eager Llama decode step (988 MB of weights per step) on GPUs the table gives peaks for
    from their datasheets: the floor is the bytes at the GPU's memory bandwidth."""
    t = loaded("llama_eager_torch.pt.trace.json.gz")
    rep = analyze(dataclasses.replace(t, meta={**t.meta, "gpus": [gpu]}))
    d = summary_of(rep)["by_kind"]["decode"]["speed_of_light"]
    assert d["peak_bw_Bps"] == bw and d["bytes_per_step"] == 987758592
    assert d["memory_time_ns"] == pytest.approx(987758592 / bw * 1e9)
    assert not any("gpus.toml" in n for n in texts(rep.notes))


def test_gpu_known_without_peaks_says_so(loaded):
    t = loaded("llama_eager_torch.pt.trace.json.gz")
    rep = analyze(dataclasses.replace(t, meta={**t.meta, "gpus": ["NVIDIA GeForce RTX 3060"]}))
    assert "rules/gpus.toml lists no peaks for GPU 'NVIDIA GeForce RTX 3060' (RTX): pass --peak-bw and --peak-flops " \
        "for the speed-of-light floor" in texts(rep.notes)


def test_unnamed_gpu_says_the_trace_does_not_name_it(loaded):
    """A device the trace gives no name for (vLLM's MI300 traces leave deviceProperties' names
    empty) is said to be unnamed, not missing from rules/gpus.toml."""
    t = loaded("llama_eager_torch.pt.trace.json.gz")
    rep = analyze(dataclasses.replace(t, meta={**t.meta, "gpus": ["device 2"]}))
    said = texts(rep.notes)
    assert "the trace does not name its GPU (device 2): pass --peak-bw and --peak-flops for the speed-of-light floor" \
        in said
    assert not any("rules/gpus.toml" in n for n in said)
    assert summary_of(rep)["by_kind"]["decode"]["speed_of_light"]["min_step_ns"] is None
    # two unnamed devices (nsys-ai's 2-GPU H100 export has no GPU table) are not "different GPUs"
    rep = analyze(dataclasses.replace(t, meta={**t.meta, "gpus": ["device 0", "device 1"]}))
    said = texts(rep.notes)
    assert "the trace does not name its GPUs (device 0, device 1): pass --peak-bw and --peak-flops for the " \
        "speed-of-light floor" in said
    assert not any("different GPUs" in n for n in said)


def test_unknown_gpu_says_so_and_takes_peaks_from_the_command_line(loaded):
    import dataclasses

    from traceattrib.render.fmt import sol_line

    t = loaded("llama_eager_torch.pt.trace.json.gz")
    t = dataclasses.replace(t, meta={**t.meta, "gpus": ["Mystery Accelerator"]})
    rep = analyze(t)
    d = summary_of(rep)["by_kind"]["decode"]["speed_of_light"]
    assert d["source"] == "shapes" and d["bytes_per_step"] == 987758592
    assert d["min_step_ns"] is None and d["hbm_efficiency"] is None
    assert any("'Mystery Accelerator' is not in rules/gpus.toml" in n for n in texts(rep.notes))
    assert "GPU peaks unknown (pass --peak-bw and --peak-flops)" in sol_line("decode", rep.summary.by_kind["decode"].speed_of_light)
    rep = analyze(t, sol_options=sol.Options(peak_bw=1e12))
    d = summary_of(rep)["by_kind"]["decode"]["speed_of_light"]
    assert d["min_step_ns"] == pytest.approx(987758592 / 1e12 * 1e9)
    assert d["peak_source"] == "the command line" and d["mfu"] is None
    assert "reading 988 MB at 1 TB/s takes 0.988 ms" in sol_line("decode", rep.summary.by_kind["decode"].speed_of_light)


@needs_shared
def test_custom_gemm_wrapper_reads_the_aten_op_inside():
    """SGLang on MI300 (aiter): `aiter::gemm_a16w16 > aten::linear > aten::matmul > aten::mm`. The
    custom wrapper's layout is unknown (its largest input is the activation in a 15k-token
    prefill); the aten::linear inside is read. Qwen3-8B: 36 layers of 193M projection parameters
    and a 151936 x 4096 lm_head, bf16."""
    rep = analyze(ta.load(str(PUBLIC / "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz")))
    r = rep.steps.iloc[0]
    layer = 4096 * 6144 + 4096 * 4096 + 4096 * 24576 + 12288 * 4096
    assert r["sol_source"] == "shapes" and r["tokens"] == 15360
    assert r["sol_weight_bytes"] == (36 * layer + 151936 * 4096) * 2
    assert math.isnan(r["sol_kv_bytes"])           # aiter::mha_batch_prefill: paged, not read
    assert any("paged or custom KV layout" in n for n in texts(rep.notes))
    # its kernels ran on device 9 of the node, the one visible device listed as id 0: an MI300X,
    # whose 1.3074 PFLOP/s bf16 make the 213 TFLOP step's floor 163 ms
    assert rep.meta["devices"] == [9] and rep.meta["gpus"] == ["AMD Instinct MI300X"]
    d = summary_of(rep)["by_kind"]["prefill"]["speed_of_light"]
    assert d["gpu"] == "MI300X" and d["peak_flops"] == 1.3074e15
    assert d["min_step_ns"] == pytest.approx(d["flops_per_step"] / 1.3074e15 * 1e9)
    assert d["mfu"] == pytest.approx(d["min_step_ns"] / 987367474.0)
