"""The vocabulary layer (traceattrib/vocab.py, rules/*.toml): one typed loader for every rules file,
and the tables that moved from code into data (dtypes, op families, the one GPU table) checked
against the code and tables they replaced, copied here as the reference."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import collectives, sol, vocab
from traceattrib.sol import calls
from traceattrib.steps import kinds

# --- dtypes: rules/dtypes.toml against the four tables it replaced ---------------------------------

# sol.py: torch.profiler input type -> (bytes per stored element, values per element, math dtype)
OLD_DTYPES = {
    "c10::BFloat16": (2, 1, "bf16"), "c10::Half": (2, 1, "fp16"), "float": (4, 1, "fp32"),
    "double": (8, 1, "fp64"),
    "c10::Float8_e4m3fn": (1, 1, "fp8"), "c10::Float8_e5m2": (1, 1, "fp8"),
    "c10::Float8_e4m3fnuz": (1, 1, "fp8"), "c10::Float8_e5m2fnuz": (1, 1, "fp8"),
    "c10::Float8_e8m0fnu": (1, 1, "fp8"),
    "c10::Float4_e2m1fn_x2": (1, 2, "fp4"),
    "signed char": (1, 1, "int8"), "unsigned char": (1, 1, "int8"), "c10::qint8": (1, 1, "int8"),
    "c10::quint8": (1, 1, "int8"), "c10::quint4x2": (1, 2, "int4"),
    "short int": (2, 1, "int16"), "int": (4, 1, "int32"), "long int": (8, 1, "int64"), "bool": (1, 1, "bool"),
}
OLD_NARROW = frozenset(t for t, (b, _, k) in OLD_DTYPES.items() if k in ("fp8", "fp4", "int8", "int4"))
# sol.py: a config's torch_dtype -> bytes, and the math dtype it sets
OLD_TORCH_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, "float8_e4m3fn": 1}
OLD_TORCH_COMPUTE = {"float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32"}
# collectives.py: c10 ScalarType name -> bytes
OLD_DTYPE_BYTES = {
    "Byte": 1, "Char": 1, "Bool": 1, "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1,
    "Float8_e5m2fnuz": 1, "Float8_e8m0fnu": 1, "UInt8": 1, "Int8": 1,
    "Short": 2, "Half": 2, "BFloat16": 2, "UInt16": 2,
    "Int": 4, "Float": 4, "UInt32": 4, "ComplexHalf": 4,
    "Long": 8, "Double": 8, "UInt64": 8, "ComplexFloat": 8,
    "ComplexDouble": 16,
}
# collectives.py: NCCL/RCCL kernel-name dtype token -> c10 name
OLD_KERNEL_DTYPES = {
    "bf16": "BFloat16", "bfloat16": "BFloat16", "f16": "Half", "half": "Half", "f32": "Float",
    "float": "Float", "f64": "Double", "double": "Double", "i8": "Char", "int8_t": "Char",
    "u8": "Byte", "uint8_t": "Byte", "i32": "Int", "int32_t": "Int", "u32": "UInt32", "uint32_t": "UInt32",
    "i64": "Long", "int64_t": "Long", "u64": "UInt64", "uint64_t": "UInt64",
    "f8e4m3": "Float8_e4m3fn", "f8e5m2": "Float8_e5m2",
}
OLD_KERNEL_DTYPE_RE = re.compile(r"_(" + "|".join(sorted(map(re.escape, OLD_KERNEL_DTYPES), key=len, reverse=True))
                                 + r")(?=_|\b|$)")


def old_dtype_from_kernel(name: str) -> str:
    m = OLD_KERNEL_DTYPE_RE.search(name)
    return OLD_KERNEL_DTYPES[m.group(1).lower()] if m else ""


def test_dtype_table_gives_what_the_collectives_tables_gave():
    assert collectives.dtype_sizes() == OLD_DTYPE_BYTES
    assert {tok: d.c10[0] for tok, d in vocab.dtypes("nccl").items()} == OLD_KERNEL_DTYPES


def test_dtype_table_gives_what_the_sol_tables_gave():
    prof = vocab.dtypes("profiler")
    assert {n: (d.bytes, d.values, d.math) for n, d in prof.items()} == OLD_DTYPES
    for t in list(OLD_DTYPES) + ["", "c10::Unknown", "Scalar"]:
        assert (calls.width(t), calls.math_dtype(t)) == (OLD_DTYPES.get(t, (2, 1, "bf16"))[0],
                                                         OLD_DTYPES.get(t, (2, 1, ""))[2])
    assert calls.narrow() == OLD_NARROW
    assert {n: d.bytes for n, d in vocab.dtypes("config").items()} == OLD_TORCH_DTYPE_BYTES
    for dt in list(OLD_TORCH_DTYPE_BYTES) + ["torch.float16", "float64", "int8", "mystery"]:
        spec = sol.model_from_config({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                                      "vocab_size": 100, "torch_dtype": dt})
        plain = dt.replace("torch.", "")
        assert spec.dtype_bytes == float(OLD_TORCH_DTYPE_BYTES.get(plain, 2)), dt
        assert spec.compute == OLD_TORCH_COMPUTE.get(plain, "bf16"), dt


_TOKENS = sorted(OLD_KERNEL_DTYPES) + ["f8", "bf", "int", "uint8", "float8", "e4m3", "Sum", "RING", "LL", "x"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(parts=st.lists(st.sampled_from(_TOKENS), max_size=6), seps=st.lists(st.sampled_from(["_", "", "(", " "]),
                                                                         min_size=6, max_size=6))
def test_kernel_name_dtypes_as_before(parts, seps):
    name = "ncclDevKernel_AllReduce" + "".join(s + p for s, p in zip(seps, parts))
    assert collectives.dtype_from_kernel(name) == old_dtype_from_kernel(name)
    assert collectives.dtype_bytes(np.array([old_dtype_from_kernel(name)], dtype=object))[0] == \
        OLD_DTYPE_BYTES.get(old_dtype_from_kernel(name), -1)


# --- op families: rules/ops.toml against sol.py's and steps/kinds.py's lists ------------------------

OLD_SOL_GEMM_OPS = frozenset({
    "aten::linear", "aten::matmul", "aten::mm", "aten::addmm", "aten::_addmm_activation", "aten::bmm",
    "aten::baddbmm", "aten::_scaled_mm", "aten::_int_mm", "aten::mv", "aten::addmv",
    "aten::_weight_int8pack_mm", "aten::_weight_int4pack_mm"})
OLD_STEPS_GEMM_OPS = ("aten::mm", "aten::addmm", "aten::_scaled_mm", "aten::linear", "aten::matmul", "aten::bmm",
                      "aten::baddbmm")
OLD_OP_REGEXES = {  # name -> (pattern, flags)
    "custom_gemm": (r"^(?!aten::).*(?:gemm|scaled_mm|_mm$|_mm_|matmul)", re.I),
    "bhld": (r"^aten::(?:scaled_dot_product_attention|_scaled_dot_product_\w*attention\w*)$", 0),
    "blhd": (r"^aten::_(?:flash|efficient)_attention_forward$|^flash_attn\w*::(?!.*varlen)", 0),
    "varlen": (r"^flash_attn\w*::.*varlen", 0),
    "custom_attention": (r"attention|attn|mha|mla_|fmha|sdpa|paged|flash_fwd|varlen_fwd|batch_prefill|batch_decode", re.I),
    "convert": (r"copy|^aten::to$|_to_copy|dequant|cast", re.I),
}


def test_op_families_are_the_lists_they_replaced():
    v = calls.ops()
    assert frozenset(v.gemm) == OLD_SOL_GEMM_OPS          # sol reads every GEMM op listed
    assert kinds.GEMM_OPS == OLD_STEPS_GEMM_OPS          # steps reads tokens from the `tokens` subset
    for key, (pattern, flags) in OLD_OP_REGEXES.items():
        got = getattr(v, key)
        want = re.compile(pattern, flags)
        assert got.pattern.removeprefix("(?i)") == want.pattern and got.flags == want.flags, key


_OP_NAMES = sorted(OLD_SOL_GEMM_OPS) + [
    "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
    "aten::_flash_attention_forward", "aten::_efficient_attention_forward", "flash_attn::_flash_attn_forward",
    "flash_attn::_flash_attn_varlen_forward", "aiter::gemm_a16w16", "vllm::cutlass_scaled_mm", "my_mm",
    "sgl_kernel::fp8_blockwise_scaled_mm_", "aiter::mha_batch_prefill", "vllm::unified_attention", "aten::copy_",
    "aten::to", "aten::_to_copy", "vllm::dequant", "aten::add", "aten::matmul_x", "MLA_decode", "aten::linear"]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(names=st.lists(st.sampled_from(_OP_NAMES) | st.text(alphabet="atenm:_lifshcpyduqv", max_size=12), max_size=8))
def test_op_classes_as_before(names):
    arr = np.array(names, dtype=object)
    old = np.zeros(arr.size, np.int8)
    r = {k: re.compile(p, f) for k, (p, f) in OLD_OP_REGEXES.items()}
    for i, n in enumerate(names):
        if n in OLD_SOL_GEMM_OPS:
            old[i] = calls.GEMM_KNOWN
        elif r["bhld"].search(n) or r["blhd"].search(n) or r["varlen"].search(n):
            old[i] = calls.ATTN_KNOWN
        elif r["custom_gemm"].search(n):
            old[i] = calls.GEMM_CUSTOM
        elif r["custom_attention"].search(n):
            old[i] = calls.ATTN_CUSTOM
    assert (calls.op_class(arr) == old).all()


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= int(x)
    return out


def _old_is_shape(d) -> bool:
    return isinstance(d, list) and all(isinstance(x, int) for x in d)


def _old_width(t: str) -> float:
    return OLD_DTYPES.get(t, (2, 1, "bf16"))[0]


def _old_math(t: str) -> str:
    return OLD_DTYPES.get(t, (2, 1, ""))[2]


def old_gemm(name: str, dims: list, types: list[str]) -> dict | None:
    """M, N, K, batch and operand sizes of one GEMM call from its input shapes; None if unreadable.

    The weight is the second operand of mm/linear/matmul (F.linear(x, W) is mm(x, W^T)); for
    mv/addmv it is the matrix; for custom ops the largest input."""
    t = list(types) + [""] * (len(dims) - len(types))
    sh = [d if _old_is_shape(d) else None for d in dims]

    def at(i):
        return sh[i] if i < len(sh) else None

    two_d = True
    bias = None
    if name == "aten::linear":
        a, w, ai, wi = at(0), at(1), 0, 1
        if a is None or w is None or len(w) != 2 or not a:
            return None
        M, K, N, batch = _prod(a[:-1]), a[-1], w[0], 1
        bias = at(2)
    elif name in ("aten::mm", "aten::_int_mm", "aten::_scaled_mm", "aten::addmm", "aten::_addmm_activation"):
        ai = 1 if "addmm" in name else 0
        wi = ai + 1
        a, w = at(ai), at(wi)
        if a is None or w is None or len(a) != 2 or len(w) != 2:
            return None
        M, K, N, batch = a[0], a[1], w[1], 1
    elif name in ("aten::bmm", "aten::baddbmm"):
        ai = 1 if name == "aten::baddbmm" else 0
        wi = ai + 1
        a, w = at(ai), at(wi)
        if a is None or w is None or len(a) != 3 or len(w) != 3:
            return None
        batch, M, K, N = a[0], a[1], a[2], w[2]
        two_d = False
    elif name == "aten::matmul":
        a, w, ai, wi = at(0), at(1), 0, 1
        if not a or not w:
            return None
        K = a[-1]
        if len(w) == 1:
            M, N, batch = _prod(a[:-1]), 1, 1
        elif len(w) == 2:
            M, N, batch = _prod(a[:-1]), w[1], 1
        else:
            ba, bw = a[:-2], w[:-2]
            try:
                batch = _prod(np.broadcast_shapes(tuple(ba), tuple(bw)))
            except ValueError:
                return None
            M, N = (a[-2] if len(a) >= 2 else 1), w[-1]
            two_d = False
    elif name in ("aten::mv", "aten::addmv"):
        wi = 1 if name == "aten::addmv" else 0
        ai = wi + 1
        w, a = at(wi), at(ai)
        if w is None or a is None or len(w) != 2:
            return None
        M, N, K, batch = 1, w[0], w[1], 1
    elif name in ("aten::_weight_int8pack_mm", "aten::_weight_int4pack_mm"):
        a, w, ai, wi = at(0), at(1), 0, 1
        if a is None or w is None or not a:
            return None
        M, K, batch = _prod(a[:-1]), a[-1], 1
        if name == "aten::_weight_int8pack_mm":
            N = w[0]
        else:  # scales_and_zeros: [K/group, N, 2]
            sz = at(3)
            N = sz[1] if sz and len(sz) == 3 else None
            if N is None:
                return None
    else:  # custom GEMM op: the largest input is the weight, the first other 2-D+ input the activation
        cand = [(i, d) for i, d in enumerate(sh) if d is not None and len(d) >= 1]
        if len(cand) < 2:
            return None
        wi = max(cand, key=lambda c: _prod(c[1]) * _old_width(t[c[0]]))[0]
        acts = [i for i, d in cand if i != wi and len(d) >= 2]
        if not acts:
            return None
        ai = acts[0]
        a, w = sh[ai], sh[wi]
        M, K, batch = _prod(a[:-1]), a[-1], 1
        vals = _prod(w) * OLD_DTYPES.get(t[wi], (2, 1, ""))[1]
        N = vals // K if K and vals % K == 0 and _old_math(t[wi]) not in ("int32", "") else None
    w = sh[wi]
    wbytes = _prod(w) * _old_width(t[wi])
    if bias is not None and _old_is_shape(bias) and bias:
        wbytes += _prod(bias) * _old_width(t[2] if len(t) > 2 else "")
    abytes = _prod(sh[ai]) * _old_width(t[ai]) if sh[ai] is not None else 0
    flops = 2.0 * batch * M * N * K if N is not None else math.nan
    out_bytes = batch * M * N * _old_width(t[ai]) if N is not None else 0
    return {"M": M, "two_d": two_d, "weight_shape": tuple(w), "weight_type": t[wi], "weight_bytes": float(wbytes),
            "act_bytes": float(abytes + out_bytes), "flops": flops, "dtype": _old_math(t[ai]) or _old_math(t[wi])}

_DIM = st.integers(0, 5)
_SHAPE = st.lists(_DIM, max_size=4) | st.none() | st.just("x")
_TYPE = st.sampled_from(sorted(OLD_DTYPES) + ["", "Scalar", "c10::Unknown"])


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(name=st.sampled_from(sorted(OLD_SOL_GEMM_OPS) + ["aiter::gemm_a16w16", "my_mm"]),
       dims=st.lists(_SHAPE, max_size=5), types=st.lists(_TYPE, max_size=5))
def test_gemm_shapes_as_before(name, dims, types):
    """Each GEMM op's input layout is data now (rules/ops.toml `form`, `input`, `weight`, `bias`):
    the same work as the per-op code it replaced, for any shapes and types."""
    try:
        want = old_gemm(name, dims, types)
    except (IndexError, TypeError, ValueError, ZeroDivisionError) as e:
        with pytest.raises(type(e)):
            calls.gemm(name, dims, types)
        return
    got = calls.gemm(name, dims, types)
    if want is None:
        assert got is None
        return
    assert got.keys() == want.keys()
    for k in want:
        if isinstance(want[k], float) and math.isnan(want[k]):
            assert math.isnan(got[k]), k
        else:
            assert got[k] == want[k] and type(got[k]) is type(want[k]), (k, got[k], want[k])
