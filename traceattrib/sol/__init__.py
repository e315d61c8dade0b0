"""Speed of light: the bytes and FLOPs a step must move and do at least, the GPU's peaks, and the
physical floor on step time that no optimization can beat.

Per step (bytes, FLOPs, ns; peak_bw in bytes/s, peak_flops in FLOP/s for the step's GEMM dtype):

  bytes          = weight_bytes + kv_bytes
                   weight_bytes: every GEMM's weight operand, read once per op call, at its stored
                   width; kv_bytes: K and V read by every attention op
  flops          = sum over GEMMs of 2*M*N*K + attention (QK^T and PV over the keys each query sees)
  min_step_ns    = max(bytes / peak_bw, flops / peak_flops) * 1e9
  hbm_efficiency = bytes / peak_bw / span          mfu = flops / peak_flops / span

Evidence, best first, and every step says which (`sol_source`):
  "shapes"  torch.profiler with record_shapes=True: input shapes and dtypes of the GEMM and
            attention ops that launched the step's kernels (each op counted once, however many
            kernels it launched; the outermost GEMM/attention op of a chain: aten::linear >
            aten::addmm is one GEMM);
  "model"   a Hugging Face config (`--model`), with `--batch` / `--context` where the trace does not
            hold them: for Nsight Systems exports and CUDA-graph replays, whose kernels carry no shapes;
  "unknown" neither.

Activations (GEMM inputs/outputs, attention Q and O) are reported apart (`sol_activation_bytes`)
and left out of the floor: a fused kernel can keep them on chip, weights and KV it cannot. Embedding
rows (tokens x hidden) are left out too: the gather is not a GEMM, and its bytes are
tokens x hidden x 2, 0.002% of a decode step's bytes in the fixtures.

Modules: calls (one op call's work from its input shapes), shapes (evidence 1, per step), model
(evidence 2: the config, tensor-parallel size, one forward's work), peaks (the GPU's peaks),
columns (the step table's speed-of-light columns), summary (a kind's section and candidates).
Vocabulary: rules/ops.toml (op families and layouts), rules/dtypes.toml, rules/gpus.toml.
"""
from __future__ import annotations

from .calls import attention, gemm, op_class
from .columns import STEP_COLUMNS, Options, step_columns
from .model import ModelSpec, load_model, model_from_config, model_steps, model_work, tensor_parallel
from .peaks import Peak, load_gpus, match_gpu, parse_rate, trace_peak
from .shapes import ShapeWork, gemm_kn, shape_work
from .summary import candidates, section

__all__ = ["STEP_COLUMNS", "ModelSpec", "Options", "Peak", "ShapeWork", "attention", "candidates", "gemm", "gemm_kn",
           "load_gpus", "load_model", "match_gpu", "model_from_config", "model_steps", "model_work", "op_class",
           "parse_rate", "section", "shape_work", "step_columns", "tensor_parallel", "trace_peak"]
