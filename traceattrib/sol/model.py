"""Evidence 2, a model config: what the floor needs from a Hugging Face config (`--model`), the
tensor-parallel size of a trace, and the bytes and FLOPs of one forward on one rank, per step
where the trace holds no shapes (Nsight Systems exports, CUDA-graph replays)."""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import TraceError
from ..model import Trace
from ..notes import Note, note
from ..vocab import dtypes


@dataclass
class ModelSpec:
    """What the floor needs from a Hugging Face config (full model, before tensor parallelism)."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    intermediate: int                      # dense MLP width
    gated: bool = True                     # SwiGLU-style MLP: 3 matrices, else 2
    experts: int = 0                       # routed experts per MoE layer
    topk: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0           # shared expert(s), total width
    moe_layer: tuple[bool, ...] = ()
    mla: dict[str, int] | None = None      # q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim
    window: tuple[int | None, ...] = ()    # sliding window per layer (None = full attention)
    dtype_bytes: float = 2.0               # torch_dtype
    weight_bits: float = 16.0              # stored bits per quantized weight, scales included
    quant: str = ""                        # quantization method, "" none
    quant_attention: bool = True           # attention projections quantized too
    kv_bytes: float = 2.0                  # KV cache element width
    compute: str = "bf16"                  # math dtype of the GEMMs
    notes: list[Note] = field(default_factory=list)

    def describe(self) -> str:
        q = f", {self.quant} weights at {self.weight_bits:g} bits" if self.quant else ""
        moe = f", {self.experts} experts top-{self.topk}" if self.experts else ""
        return f"{self.name}: {self.layers} layers, hidden {self.hidden}{moe}{q}"


def load_model(path: str) -> ModelSpec:
    """Read a config.json (or a directory holding one, plus hf_quant_config.json when present)."""
    cfg_path = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if os.path.exists(cfg_path) and not os.path.isfile(cfg_path):  # a FIFO would block the read forever
        raise TraceError(f"{{model}} {path}: not a regular file (give a config.json or a directory holding one)", "model")
    try:
        with open(cfg_path, encoding="utf-8") as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise TraceError(f"{{model}} {path}: no config.json there", "model") from None
    except (OSError, ValueError) as e:
        raise TraceError(f"{{model}} {path}: cannot read a JSON config ({e})", "model") from None
    if not isinstance(cfg, dict):
        raise TraceError(f"{{model}} {path}: the config is not a JSON object", "model")
    extra = os.path.join(os.path.dirname(cfg_path), "hf_quant_config.json")
    if "quantization_config" not in cfg and os.path.isfile(extra):
        try:
            with open(extra, encoding="utf-8") as f:
                q = json.load(f)
            cfg["quantization_config"] = {"quant_method": "modelopt", **(q.get("quantization") or q)}
        except (OSError, ValueError):
            pass
    name = cfg.get("_name_or_path") or (os.path.basename(os.path.abspath(path)) if os.path.isdir(path)
                                         else os.path.basename(cfg_path))
    return model_from_config(cfg, name=str(name))


def model_from_config(cfg: dict, name: str = "model") -> ModelSpec:
    """A ModelSpec from a config dict (Llama/Mistral/Qwen/Gemma-style dense, Mixtral/Qwen-MoE/
    DeepSeek MoE and MLA, multimodal configs through their text_config)."""
    top = cfg
    if "text_config" in cfg and not any(k in cfg for k in ("num_hidden_layers", "n_layer", "num_layers")):
        cfg = {**cfg["text_config"], **{k: v for k, v in top.items() if k == "quantization_config"}}

    def get(*keys, default=None):
        for k in keys:
            if cfg.get(k) is not None:
                return cfg[k]
        return default

    hidden = get("hidden_size", "n_embd", "d_model")
    layers = get("num_hidden_layers", "n_layer", "num_layers")
    heads = get("num_attention_heads", "n_head")
    vocab = get("vocab_size")
    missing = [n for n, v in (("hidden_size", hidden), ("num_hidden_layers", layers),
                              ("num_attention_heads", heads), ("vocab_size", vocab)) if not isinstance(v, int)]
    if missing:
        raise TraceError(f"{{model}}: the config lacks {', '.join(missing)} (not a decoder LLM config?)", "model")
    kv_heads = get("num_key_value_heads", "num_kv_heads", "n_head_kv", default=heads)
    head_dim = get("head_dim", default=hidden // heads)
    mtype = str(get("model_type", default=""))
    inter = get("intermediate_size", "n_inner", "ffn_dim", default=4 * hidden)
    gated = mtype not in ("gpt2", "opt", "gpt_neox", "falcon", "phi", "bloom", "gptj", "gpt_bigcode", "starcoder2")
    spec = ModelSpec(name=name, layers=int(layers), hidden=int(hidden), heads=int(heads), kv_heads=int(kv_heads),
                     head_dim=int(head_dim), vocab=int(vocab), intermediate=int(inter), gated=gated)
    _moe(spec, get, inter)
    # multi-head latent attention (DeepSeek)
    if get("kv_lora_rank"):
        spec.mla = {k: int(get(k, default=0) or 0) for k in
                    ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")}
    spec.window = _windows(get, spec.layers, mtype)
    _widths(spec, str(get("torch_dtype", "dtype", default="bfloat16")).replace("torch.", ""))
    _quantization(spec, cfg.get("quantization_config") or {})
    return spec


def _moe(spec: ModelSpec, get, inter: int) -> None:
    """Routed and shared experts, and which layers are MoE layers (`get` reads the config)."""
    experts = get("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", default=0) or 0
    if not experts:
        spec.moe_layer = (False,) * spec.layers
        return
    spec.experts = int(experts)
    spec.topk = int(get("num_experts_per_tok", "experts_per_token", "moe_top_k", default=2))
    spec.expert_intermediate = int(get("moe_intermediate_size", default=inter))
    shared = get("n_shared_experts", default=0) or 0
    spec.shared_intermediate = int(get("shared_expert_intermediate_size", default=0) or
                                   shared * spec.expert_intermediate)
    first_dense = int(get("first_k_dense_replace", default=0) or 0)
    step = int(get("decoder_sparse_step", "moe_layer_freq", "interleave_moe_layer_step", default=1) or 1)
    dense_only = set(get("mlp_only_layers", default=[]) or [])
    spec.moe_layer = tuple(i >= first_dense and (i + 1) % step == 0 and i not in dense_only
                           for i in range(spec.layers))


def _windows(get, layers: int, mtype: str) -> tuple[int | None, ...]:
    """The sliding window of each layer (None: full attention)."""
    win = get("sliding_window")
    types = get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        return tuple(int(win) if (win and "sliding" in str(t)) else None for t in types)
    if win and get("use_sliding_window", default=True) is not False and mtype not in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        pat = get("sliding_window_pattern")
        if pat:
            return tuple(None if (i + 1) % int(pat) == 0 else int(win) for i in range(layers))
        if mtype == "gemma2":
            return tuple(int(win) if i % 2 == 0 else None for i in range(layers))
        return (int(win),) * layers
    return (None,) * layers


def _widths(spec: ModelSpec, dt: str) -> None:
    """Stored widths and math dtype from the config's torch_dtype (rules/dtypes.toml `config`
    names; unknown: 2 bytes, bf16). The dtype is the math dtype for 16- and 32-bit floats; fp8
    weights compute as their quantization_config says, bf16 without one."""
    d = dtypes("config").get(dt)
    spec.dtype_bytes = float(d.bytes if d is not None else 2)
    spec.compute = d.math if d is not None and d.math in ("fp16", "fp32") else "bf16"
    spec.weight_bits = spec.dtype_bytes * 8
    spec.kv_bytes = spec.dtype_bytes


def _quantization(spec: ModelSpec, qc: dict) -> None:
    """Stored width of the quantized weights (scales included), KV width and math dtype."""
    if not isinstance(qc, dict) or not qc:
        return
    method = str(qc.get("quant_method") or qc.get("quant_algo") or "").lower()
    spec.quant = method
    skip = [str(s) for s in (qc.get("modules_to_not_convert") or qc.get("ignore") or qc.get("ignored_layers") or [])]
    spec.quant_attention = not any(re.search(r"self_attn|attn|attention", s) and "lm_head" not in s for s in skip)
    bits = None
    if method in ("fp8", "fbgemm_fp8"):
        block = qc.get("weight_block_size")
        bits = 8 + (32 / (block[0] * block[1]) if isinstance(block, list) and len(block) == 2 else 0)
        if str(qc.get("activation_scheme", "dynamic")) in ("dynamic", "static"):
            spec.compute = "fp8"
    elif method == "compressed-tensors":
        groups = qc.get("config_groups") or {}
        g = next(iter(groups.values()), {}) if isinstance(groups, dict) else {}
        w = g.get("weights") or {}
        a = g.get("input_activations") or {}
        nb = int(w.get("num_bits", 8))
        gs = w.get("group_size")
        fmt = str(qc.get("format", ""))
        if "nvfp4" in fmt or (nb == 4 and w.get("type") == "float"):
            bits = 4 + 8 / (gs or 16)                       # fp8 scale per 16 values
        else:
            bits = nb + (16 / gs if gs and gs > 0 else 0)   # bf16 scale per group
        if a:
            abits, atype = int(a.get("num_bits", 16)), str(a.get("type", "float"))
            spec.compute = {8: "fp8" if atype == "float" else "int8", 4: "fp4" if atype == "float" else "int4"}.get(abits, spec.compute)
        kvs = qc.get("kv_cache_scheme") or {}
        if kvs.get("num_bits"):
            spec.kv_bytes = int(kvs["num_bits"]) / 8
    elif method == "modelopt":
        algo = str(qc.get("quant_algo", "")).upper()
        if "FP4" in algo:
            bits, spec.compute = 4 + 8 / int(qc.get("group_size", 16) or 16), "fp4"
        elif "FP8" in algo:
            bits, spec.compute = 8, "fp8"
        elif "W4A8" in algo or "INT4" in algo:
            bits = 4 + 16 / int(qc.get("group_size", 128) or 128)
        if "FP8" in str(qc.get("kv_cache_quant_algo", "")).upper():
            spec.kv_bytes = 1
    elif method in ("gptq", "awq", "gptq_marlin", "awq_marlin", "marlin"):
        nb = int(qc.get("bits", qc.get("w_bit", 4)))
        gs = int(qc.get("group_size", qc.get("q_group_size", 128)) or 128)
        gs = gs if gs > 0 else spec.hidden
        bits = nb + (16 + nb) / gs                          # fp16 scale + packed zero point per group
    elif method == "bitsandbytes":
        if qc.get("load_in_4bit"):
            bits = 4 + (8 + 32 / 256 if qc.get("bnb_4bit_use_double_quant") else 32) / 64
        elif qc.get("load_in_8bit"):
            bits = 8
    elif method == "mxfp4":
        bits = 4 + 8 / 32                                   # e8m0 scale per 32 values
    elif method in ("int8", "w8a8", "smoothquant"):
        bits, spec.compute = 8, "int8"
    if bits is None:
        spec.notes.append(note("sol.quant_unknown", method, float(spec.dtype_bytes)))
        spec.quant = ""
        return
    spec.weight_bits = float(bits)


def tensor_parallel(trace: Trace) -> tuple[int, str]:
    """Tensor-parallel size and the evidence: the largest process-group size of the rank's
    collectives, else the trace's world size, else the ranks it holds."""
    k = trace.kernels
    if "comm_group_size" in k.columns and len(k):
        g = int(k["comm_group_size"].max())
        if g >= 2:
            return g, "the collectives' process-group size"
    ws = trace.meta.get("world_size")
    if isinstance(ws, int) and ws >= 2:
        return ws, "the trace's world size"
    n = len(trace.meta.get("ranks") or [])
    if n >= 2:
        return n, "the ranks in the trace"
    return 1, "a single rank"


def model_work(spec: ModelSpec, tp: int, tokens: float, seqs: float, q_len: float, ctx: float) -> dict[str, float]:
    """Bytes and FLOPs of one forward on one tensor-parallel rank.

    tokens: new tokens in the step (NaN unknown); seqs: sequences; q_len: new tokens per sequence;
    ctx: each sequence's length after the step (keys attention reads; NaN unknown). Weights: every
    projection of every layer and the lm_head (vocabulary sharded over TP ranks, as vLLM, SGLang
    and TensorRT-LLM do); MoE layers read the experts the step's tokens are expected to touch under
    uniform routing, E * (1 - (1 - k/E)^tokens). FLOPs: 2 x params x tokens for the layers,
    2 x lm_head x seqs (logits only for each sequence's last token), attention as QK^T + PV."""
    tp = max(int(tp), 1)
    h, hd = spec.hidden, spec.head_dim
    wq = spec.weight_bits / 8 if spec.quant else spec.dtype_bytes
    wa = wq if spec.quant_attention else spec.dtype_bytes
    heads = spec.heads / tp
    if spec.mla:
        m = spec.mla
        qk = m["qk_nope_head_dim"] + m["qk_rope_head_dim"]
        rep = (h * m["q_lora_rank"] if m["q_lora_rank"] else 0) + h * (m["kv_lora_rank"] + m["qk_rope_head_dim"])
        shard = ((m["q_lora_rank"] or h) * spec.heads * qk + m["kv_lora_rank"] * spec.heads *
                 (m["qk_nope_head_dim"] + m["v_head_dim"]) + spec.heads * m["v_head_dim"] * h) / tp
        attn_params = rep + shard
        kv_per_tok = m["kv_lora_rank"] + m["qk_rope_head_dim"]     # latent cache, same on every rank
        qk_d, v_d = (m["kv_lora_rank"] + m["qk_rope_head_dim"], m["kv_lora_rank"]) if q_len == 1 else (qk, m["v_head_dim"])
    else:
        kvh = max(spec.kv_heads / tp, 1.0)                          # fewer KV heads than ranks: replicated
        attn_params = h * heads * hd * 2 + h * kvh * hd * 2
        kv_per_tok = 2 * kvh * hd
        qk_d, v_d = hd, hd
    mats = 3 if spec.gated else 2
    dense = mats * h * spec.intermediate / tp
    expert = mats * h * spec.expert_intermediate / tp
    shared = mats * h * spec.shared_intermediate / tp
    router = h * spec.experts
    t = tokens if tokens == tokens else 1.0                         # unknown tokens: the least (one)
    touched = spec.experts * (1 - (1 - spec.topk / spec.experts) ** t) if spec.experts else 0.0
    wbytes = 0.0
    active = 0.0
    for i in range(spec.layers):
        wbytes += attn_params * wa
        active += attn_params
        if spec.moe_layer and spec.moe_layer[i]:
            wbytes += router * spec.dtype_bytes + (shared + touched * expert) * wq
            active += router + shared + spec.topk * expert
        else:
            wbytes += dense * wq
            active += dense
    lm = spec.vocab * h / tp
    wbytes += lm * spec.dtype_bytes
    kv = flops = gemm = math.nan
    if tokens == tokens and seqs == seqs:
        gemm = 2 * tokens * active + 2 * seqs * lm
    if seqs == seqs and ctx == ctx:
        kv = 0.0
        attn = 0.0
        for i in range(spec.layers):
            n = ctx if spec.window[i] is None else min(ctx, spec.window[i])
            q = min(q_len, n)
            kv += seqs * n * kv_per_tok * spec.kv_bytes
            attn += seqs * 2 * heads * (qk_d + v_d) * (q * (n - q) + q * (q + 1) / 2)
        if tokens == tokens:
            flops = gemm + attn
    else:
        flops = gemm
    return {"weight_bytes": wbytes, "kv_bytes": kv, "flops": flops, "gemm_flops": gemm}


def model_steps(steps: pd.DataFrame, spec: ModelSpec, tp: int, tokens: np.ndarray, batch: int | None,
                context: int | None, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Model-based work of the selected steps (`rows`, a mask): weight_bytes, kv_bytes, flops,
    gemm_flops and tokens, NaN elsewhere. Sequences hold `--context` tokens at each rank's
    first step and one more after every step (a prefill's prompt is `--context` tokens); decode
    steps add one token per sequence (`batch` sequences, or the step's tokens). Mixed and
    unknown-kind steps are taken as decode steps (a static batch: chunked prefills inside a mixed
    step are not modelled)."""
    n = len(steps)
    res = {k: np.full(n, np.nan) for k in ("weight_bytes", "kv_bytes", "flops", "gemm_flops", "tokens")}
    kind = steps["kind"].astype(str).to_numpy() if "kind" in steps.columns else np.full(n, "unknown", object)
    rank = steps["rank"].to_numpy() if "rank" in steps.columns else np.zeros(n, np.int64)
    start = steps["start_ns"].to_numpy() if "start_ns" in steps.columns else np.arange(n)
    pos = np.zeros(n, np.int64)
    for r in np.unique(rank):
        m = np.flatnonzero(rank == r)
        pos[m[np.argsort(start[m], kind="stable")]] = np.arange(m.size)
    B, C = batch, context
    for i in np.flatnonzero(rows):
        tok = tokens[i]
        if kind[i] == "prefill":
            seqs = B if B else (tok / C if (tok == tok and C) else math.nan)
            q = C if C else (tok / seqs if (tok == tok and seqs == seqs) else math.nan)
            ctx = q
            if tok != tok and seqs == seqs and q == q:
                tok = seqs * q
        else:
            seqs = B if B else tok
            q = 1.0
            if tok != tok and seqs == seqs:
                tok = seqs
            ctx = C + pos[i] if C is not None else math.nan
        w = model_work(spec, tp, tok, seqs, q, ctx)
        for c in ("weight_bytes", "kv_bytes", "flops", "gemm_flops"):
            res[c][i] = w[c]
        res["tokens"][i] = tok
    return res
