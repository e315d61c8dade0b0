"""Edge cases made from real traces by code: a fixture loaded, then one thing about it changed the
way another engine or profiler would have written it (kernel names, launch grids, step names,
shapes, the captured window). Each function returns a new Trace; the input is not changed."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd

from traceattrib import classify
from traceattrib.model import Trace

# vLLM V1's FlashAttention-3 kernel on Hopper (one varlen kernel for prefill, decode and mixed
# batches), as its demangled name reads; persistent: one block per SM whatever the batch
FA3_VARLEN = ("void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
              "flash::CollectiveMainloopFwdSm90<(int)2, cute::tuple<cute::C<(int)1>, cute::C<(int)1>, cute::C<(int)1>>, "
              "cute::tuple<cute::C<(int)128>, cute::C<(int)128>, cute::C<(int)128>>, (int)128, cutlass::bfloat16_t, "
              "float, cutlass::arch::Sm90, (bool)1, (bool)0, (bool)0, (bool)1, (bool)1, (bool)0, (bool)0, (bool)1, "
              "(bool)1, (bool)0, (bool)0>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<(int)128>, "
              "cute::C<(int)128>, cute::C<(int)128>>, cute::tuple<cute::C<(int)1>, cute::C<(int)1>, cute::C<(int)1>>, "
              "cutlass::bfloat16_t, cutlass::arch::Sm90, (int)256, (bool)1, (bool)1, (bool)0, (bool)0>, "
              "flash::VarlenDynamicPersistentTileScheduler<(int)128, (int)256, (int)128, (bool)0, (bool)1, (bool)1>>>>"
              "(T1::Params)")
H100_SMS = 132
# its combine kernel (split-KV decodes and short prefills), one launch after each split attention
FA3_COMBINE = ("void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<(int)8>, cute::C<(int)128>>, "
               "(int)7, (int)256, (int)1, (bool)0, (bool)1, cutlass::bfloat16_t, float, cutlass::arch::Sm90>>(T1::Params)")
# vLLM V1 on ROCm (chunked_prefill_paged_decode): the prefill part's Triton kernel, and the paged
# decode kernel it launches over every sequence (returning early for the prefill ones)
ROCM_PREFILL = "_fwd_kernel"
ROCM_PAGED_DECODE = "kernel_paged_attention_2d"
FLASHINFER_DECODE = ("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, (unsigned int)2, "
                     "(unsigned int)2, (unsigned int)4, (unsigned int)4, (unsigned int)1, (unsigned int)8, "
                     "flashinfer::DefaultAttention<false, false, false, false>, flashinfer::BatchDecodeParams<__nv_bfloat16, "
                     "__nv_bfloat16, __nv_bfloat16, int>>(T8)")
FLASHINFER_RAGGED = ("void flashinfer::BatchPrefillWithRaggedKVCacheKernel<flashinfer::KernelTraits<(flashinfer::MaskMode)1, "
                     "(unsigned int)128, (unsigned int)1, (unsigned int)4, (unsigned int)8, (unsigned int)8, (unsigned int)1, "
                     "(unsigned int)4, (flashinfer::PosEncodingMode)0, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, "
                     "int, flashinfer::DefaultAttention<false, false, false, false>>, flashinfer::RaggedParams<"
                     "__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>>(T2)")


def _names(col: pd.Series) -> np.ndarray:
    return col.astype(str).to_numpy().astype(object)


def attention_rows(t: Trace) -> np.ndarray:
    """Per kernel: True for attention kernels, as the packaged rules classify them."""
    return (classify.classify_kernels(t.kernels, classify.load_rules())["bucket"].astype(str) == "attention").to_numpy()


def rename_kernels(t: Trace, mask: np.ndarray, name: str, grid: tuple[int, int, int] | None = None) -> Trace:
    """The kernels where `mask` is set renamed (name and short name) and, given `grid`, launched
    with that grid."""
    k = t.kernels.copy()
    for col in ("name", "short_name"):
        v = _names(k[col])
        v[mask] = name if col == "name" else re.sub(r"^void |[<(].*$", "", name).split("::")[-1]
        k[col] = pd.Categorical(v)
    if grid is not None:
        for c, g in zip(("grid_x", "grid_y", "grid_z"), grid):
            k[c] = np.where(mask, g, k[c].to_numpy()).astype(k[c].dtype)
    return dataclasses.replace(t, kernels=k)


def neutral_step_names(t: Trace) -> Trace:
    """Step ranges that say their kind or counts (`prefill`, `decode_step_3`, vLLM's
    execute_context_N(T)_generation_M(U)) renamed `step_<i>` in start order: the same windows,
    names that say nothing."""
    r = t.ranges.copy()
    names = _names(r["name"])
    hit = np.array([bool(re.match(r"^(?:prefill|decode_step_\d+|execute_\w+\(.*|execute_new_\d+_cached_\d+)$", n))
                    for n in names], dtype=bool)
    order = {n: i for i, n in enumerate(dict.fromkeys(names[hit][np.argsort(r["start_ns"].to_numpy()[hit],
                                                                             kind="stable")]))}
    names[hit] = [f"step_{order[n]}" for n in names[hit]]
    r["name"] = pd.Categorical(names)
    return dataclasses.replace(t, ranges=r)


def without_shapes(t: Trace) -> Trace:
    """The trace as torch.profiler writes it without record_shapes."""
    c = t.cpu_ops.copy()
    for col in ("input_dims", "input_types"):
        c[col] = pd.Categorical.from_codes(np.zeros(len(c), np.int8), categories=[""])
    return dataclasses.replace(t, cpu_ops=c)


def gemm_shapes_only(t: Trace) -> Trace:
    """Shapes on the GEMM ops only: what vLLM V1 shows (it flattens the batch into one row of
    tokens, so its embedding ids are 1-D and its attention is a custom op no layout reads)."""
    from traceattrib.steps.physical import GEMM_OPS

    c = t.cpu_ops.copy()
    keep = c["name"].astype(str).isin(list(GEMM_OPS)).to_numpy()
    for col in ("input_dims", "input_types"):
        v = c[col].astype(str).to_numpy().astype(object)
        v[~keep] = ""
        c[col] = pd.Categorical(v)
    return dataclasses.replace(t, cpu_ops=c)


def without_names(t: Trace) -> Trace:
    """No annotation ranges and no Python frames: what a production engine's kernel trace holds."""
    c = t.cpu_ops
    keep = c["kind"].astype(str).to_numpy() != "python_function"
    return dataclasses.replace(t, ranges=t.ranges.iloc[0:0], cpu_ops=c[keep].reset_index(drop=True))


def window(t: Trace, start_ns: int, end_ns: int) -> Trace:
    """Only what started in [start_ns, end_ns): a capture of that window alone."""
    tabs = {}
    for name, tab in t.tables().items():
        s = tab["start_ns"].to_numpy()
        tabs[name] = tab[(s >= start_ns) & (s < end_ns)].reset_index(drop=True)
    return dataclasses.replace(t, **tabs)
