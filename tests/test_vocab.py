"""The vocabulary layer (traceattrib/vocab.py, rules/*.toml): one typed loader for every rules file,
and the tables that moved from code into data (dtypes, op families, the one GPU table) checked
against the code and tables they replaced, copied here as the reference."""
from __future__ import annotations

import math
import re
from importlib import resources

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from traceattrib import collectives, links, sol, vocab
from traceattrib.errors import TraceError
from traceattrib.sol import calls
from traceattrib.steps import kinds

RULES = resources.files("traceattrib").joinpath("rules")

# every rules file and the type it is read as
TYPES = {"default": vocab.RulesFile, "collectives": vocab.CollectivesFile, "links": vocab.LinksFile,
         "gpus": vocab.GpusFile, "dtypes": vocab.DtypesFile, "ops": vocab.OpsFile, "idle": vocab.IdleFile,
         "steps": vocab.StepsFile, "modules": vocab.ModulesFile, "integrity": vocab.IntegrityFile}


def test_every_rules_file_has_a_typed_loader():
    files = sorted(p.name[:-5] for p in RULES.iterdir() if p.name.endswith(".toml"))
    assert files == sorted(TYPES)
    for name, type_ in TYPES.items():
        assert isinstance(vocab.load(name, type_), type_)
        assert vocab.load(name, type_) is vocab.load(name, type_)  # parsed once


def test_a_file_that_does_not_fit_its_type_names_the_file_and_the_place(tmp_path):
    doc = vocab.parse(vocab.packaged_text("links"), "rules/links.toml")
    doc["link"][3]["peak_GBps"] = "fast"
    with pytest.raises(TraceError) as e:
        vocab.convert(doc, vocab.LinksFile, "rules/links.toml")
    assert str(e.value) == "rules/links.toml: Expected `float`, got `str` - at `$.link[3].peak_GBps`"
    doc = vocab.parse(vocab.packaged_text("gpus"), "rules/gpus.toml")
    doc["gpu"][0]["peak"] = 1
    with pytest.raises(TraceError, match=r"^rules/gpus.toml: Object contains unknown field `peak` - at `\$.gpu\[0\]`$"):
        vocab.convert(doc, vocab.GpusFile, "rules/gpus.toml")
    bad = tmp_path / "g.toml"
    bad.write_text("[[gpu]\n")
    with pytest.raises(TraceError, match="g.toml: not valid TOML"):
        sol.load_gpus(str(bad))
    with pytest.raises(TraceError, match="cannot read GPU table"):
        sol.load_gpus(str(tmp_path / "absent.toml"))


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
    # sol reads every GEMM op listed, and MoE experts' grouped GEMMs, which the old list missed
    assert frozenset(v.gemm) == OLD_SOL_GEMM_OPS | {"aten::_grouped_mm"}
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
    assert got.keys() - {"K", "N"} == want.keys()
    for k in want:
        if isinstance(want[k], float) and math.isnan(want[k]):
            assert math.isnan(got[k]), k
        else:
            assert got[k] == want[k] and type(got[k]) is type(want[k]), (k, got[k], want[k])


# --- the GPU table ----------------------------------------------------------------------------------
# rules/gpus.toml's peaks and rules/links.toml's [[gpu]] rules before they were one table (first
# match wins in each), as the reference: every GPU name gets the peaks and the link it got; peaks
# added since are rows of OLD_PEAKS too, and 'RTX 50' (which took the Quadro RTX 5000 and RTX 5000
# Ada for GeForce RTX 50-series cards) names the series' model numbers.

OLD_PEAKS = [
    ('H200 NVL', '(?<!G)H200.*NVL', 4.8e+12, {'bf16': 8.355e+14, 'fp16': 8.355e+14, 'fp8': 1.6705e+15, 'int8': 1.6705e+15, 'tf32': 4.175e+14, 'fp32': 6e+13}),
    ('H200 SXM', '(?<!G)H200', 4.8e+12, {'bf16': 9.895e+14, 'fp16': 9.895e+14, 'fp8': 1.979e+15, 'int8': 1.979e+15, 'tf32': 4.945e+14, 'fp32': 6.7e+13}),
    ('GH200 (HBM3e)', 'GH200.*(144G|HBM3e)', 4.9e+12, {'bf16': 9.895e+14, 'fp16': 9.895e+14, 'fp8': 1.979e+15, 'int8': 1.979e+15, 'tf32': 4.945e+14, 'fp32': 6.7e+13}),
    ('GH200 (HBM3)', 'GH200', 4e+12, {'bf16': 9.895e+14, 'fp16': 9.895e+14, 'fp8': 1.979e+15, 'int8': 1.979e+15, 'tf32': 4.945e+14, 'fp32': 6.7e+13}),
    ('H100 NVL', 'H100.*NVL', 3.9e+12, {'bf16': 8.355e+14, 'fp16': 8.355e+14, 'fp8': 1.6705e+15, 'int8': 1.6705e+15, 'tf32': 4.175e+14, 'fp32': 6e+13}),
    ('H100 PCIe', 'H100.*PCIe', 2e+12, {'bf16': 7.565e+14, 'fp16': 7.565e+14, 'fp8': 1.513e+15, 'int8': 1.513e+15, 'tf32': 3.78e+14, 'fp32': 5.1e+13}),
    ('H100 SXM', 'H100|H800', 3.35e+12, {'bf16': 9.895e+14, 'fp16': 9.895e+14, 'fp8': 1.979e+15, 'int8': 1.979e+15, 'tf32': 4.945e+14, 'fp32': 6.7e+13}),
    ('GB300', 'GB300', 8e+12, {'bf16': 2.5e+15, 'fp16': 2.5e+15, 'fp8': 5e+15, 'fp4': 1.5e+16, 'tf32': 1.25e+15, 'fp32': 8e+13}),
    ('B300', 'B300', 8e+12, {'bf16': 2.25e+15, 'fp16': 2.25e+15, 'fp8': 4.5e+15, 'fp4': 1.35e+16, 'tf32': 1.125e+15, 'fp32': 7.5e+13}),
    ('GB200', 'GB200', 8e+12, {'bf16': 2.5e+15, 'fp16': 2.5e+15, 'fp8': 5e+15, 'int8': 5e+15, 'fp4': 1e+16, 'tf32': 1.25e+15, 'fp32': 8e+13}),
    ('B200', 'B200', 8e+12, {'bf16': 2.25e+15, 'fp16': 2.25e+15, 'fp8': 4.5e+15, 'int8': 4.5e+15, 'fp4': 9e+15, 'tf32': 1.125e+15, 'fp32': 7.5e+13}),
    ('A100 80GB PCIe', 'A100.*80GB.*PCIe|A100.*PCIe.*80GB', 1.935e+12, {'bf16': 3.12e+14, 'fp16': 3.12e+14, 'int8': 6.24e+14, 'tf32': 1.56e+14, 'fp32': 1.95e+13}),
    ('A100 80GB SXM', 'A100.*80GB', 2.039e+12, {'bf16': 3.12e+14, 'fp16': 3.12e+14, 'int8': 6.24e+14, 'tf32': 1.56e+14, 'fp32': 1.95e+13}),
    ('A100 40GB', 'A100', 1.555e+12, {'bf16': 3.12e+14, 'fp16': 3.12e+14, 'int8': 6.24e+14, 'tf32': 1.56e+14, 'fp32': 1.95e+13}),
    ('L40S', 'L40S', 8.64e+11, {'bf16': 3.6205e+14, 'fp16': 3.6205e+14, 'fp8': 7.33e+14, 'int8': 7.33e+14, 'tf32': 1.83e+14, 'fp32': 9.16e+13}),
    ('L4', '\\bL4\\b', 3e+11, {'bf16': 1.21e+14, 'fp16': 1.21e+14, 'fp8': 2.425e+14, 'int8': 2.425e+14, 'tf32': 6e+13, 'fp32': 3.03e+13}),
    ('A10', '\\bA10\\b', 6e+11, {'bf16': 1.25e+14, 'fp16': 1.25e+14, 'int8': 2.5e+14, 'tf32': 6.25e+13, 'fp32': 3.12e+13}),
    # rows added with their datasheets' peaks after the tables became one (None: known, no peaks)
    ('L40', 'L40', 8.64e+11, {'bf16': 1.8105e+14, 'fp16': 1.8105e+14, 'fp8': 3.62e+14, 'int8': 3.62e+14, 'tf32': 9.05e+13, 'fp32': 9.05e+13}),
    ('A40', '\\bA40\\b', 6.96e+11, {'bf16': 1.497e+14, 'fp16': 1.497e+14, 'int8': 2.993e+14, 'tf32': 7.48e+13, 'fp32': 3.74e+13}),
    ('A30', '\\bA30\\b', 9.33e+11, {'bf16': 1.65e+14, 'fp16': 1.65e+14, 'int8': 3.3e+14, 'tf32': 8.2e+13, 'fp32': 1.03e+13}),
    ('GeForce RTX 4090 D or laptop', 'RTX 4090 (D|Laptop)', None, None),
    ('GeForce RTX 4090', 'RTX 4090', 1.008e+12, {'bf16': 1.652e+14, 'fp16': 1.652e+14, 'fp8': 3.303e+14, 'int8': 6.606e+14, 'tf32': 8.26e+13, 'fp32': 8.26e+13}),
    ('GeForce RTX 3090 Ti', 'RTX 3090 Ti', None, None),
    ('GeForce RTX 3090', 'RTX 3090', 9.36e+11, {'bf16': 7.1e+13, 'fp16': 7.1e+13, 'int8': 2.84e+14, 'tf32': 3.56e+13, 'fp32': 3.56e+13}),
    ('V100S', 'V100S.*PCIe', 1.134e+12, {'fp16': 1.3e+14, 'fp32': 1.64e+13}),
    ('V100 PCIe', 'V100.*PCIe', 9e+11, {'fp16': 1.12e+14, 'fp32': 1.4e+13}),
    ('V100 SXM', 'V100.*SXM', 9e+11, {'fp16': 1.25e+14, 'fp32': 1.57e+13}),
    ('T4', 'T4\\b', 3.2e+11, {'fp16': 6.5e+13, 'int8': 1.3e+14, 'fp32': 8.1e+12}),
    ('MI355X', 'MI355', 8e+12, {'bf16': 2.5166e+15, 'fp16': 2.5166e+15, 'fp8': 5.0332e+15, 'int8': 5.0332e+15, 'fp4': 1.00664e+16, 'fp32': 1.573e+14}),
    ('MI350X', 'MI350', 8e+12, {'bf16': 2.3072e+15, 'fp16': 2.3072e+15, 'fp8': 4.6144e+15, 'int8': 4.6144e+15, 'fp4': 9.2288e+15, 'fp32': 1.442e+14}),
    ('MI325X', 'MI325', 6e+12, {'bf16': 1.3074e+15, 'fp16': 1.3074e+15, 'fp8': 2.6149e+15, 'int8': 2.6149e+15, 'tf32': 6.537e+14, 'fp32': 1.634e+14}),
    ('MI300X', 'MI300X', 5.3e+12, {'bf16': 1.3074e+15, 'fp16': 1.3074e+15, 'fp8': 2.6149e+15, 'int8': 2.6149e+15, 'tf32': 6.537e+14, 'fp32': 1.634e+14}),
    ('MI250X (one GCD)', 'MI250', 1.6384e+12, {'bf16': 1.915e+14, 'fp16': 1.915e+14, 'int8': 1.915e+14, 'fp32': 4.785e+13}),
]
OLD_LINK_RULES = [
    ('H100.*NVL|H200.*NVL', 'nvlink4-bridge', 'NVL cards paired by an NVLink bridge'),
    ('H100.*PCIe', 'pcie5', 'PCIe card without NVLink bridge'),
    ('A100.*PCIe', 'pcie4', 'PCIe card without NVLink bridge'),
    ('V100.*PCIe|T4\\b', 'pcie3', 'PCIe card without NVLink bridge'),
    ('H800', 'nvlink4-h800', 'H800 SXM'),
    ('H100|H200|H20\\b|GH200', 'nvlink4', 'SXM module on an NVLink 4 baseboard'),
    ('A800', 'nvlink3-a800', 'A800 SXM'),
    ('A100', 'nvlink3', 'SXM module on an NVLink 3 baseboard'),
    ('V100', 'nvlink2', 'SXM2 module on an NVLink 2 baseboard'),
    ('B200|B300|GB200|GB300', 'nvlink5', 'NVLink 5 baseboard or NVL rack'),
    ('MI355|MI350', 'xgmi-mi355x', '8-GPU OAM platform, Infinity Fabric mesh'),
    ('MI300|MI325', 'xgmi-mi300x', '8-GPU OAM platform, Infinity Fabric mesh'),
    ('MI250', 'xgmi-mi250x', 'Infinity Fabric between the GPUs'),
    ('RTX PRO 6000|RTX 50(50|60|70|80|90)|B40', 'pcie5', 'no NVLink: PCIe 5.0'),
    ('L40|L4\\b|A10\\b|A10G|A40|A30|A16|A2\\b|RTX|Radeon', 'pcie4', 'no NVLink: PCIe 4.0'),
]

# every example in both files' comments, and the GPU names of the fixtures and ../shared/traces
SEEN_GPUS = [
    "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "AMD Instinct MI300X", "GH200 480GB", "AMD Instinct MI300X VF",
    "NVIDIA A100-PCIE-40GB", "NVIDIA A100-PG509-200", "NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3060 Laptop",
    "NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4060 Ti", "NVIDIA H100 PCIe",
    "NVIDIA H200", "NVIDIA RTX A5000", "Orin", "Quadro RTX 6000", "Tesla T4", "Tesla V100-SXM2-32GB", "device 0",
    "NVIDIA H200 NVL", "NVIDIA H100 NVL", "NVIDIA H800", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe",
    "NVIDIA L40S", "NVIDIA L4", "NVIDIA A10", "NVIDIA B200", "NVIDIA GB200", "NVIDIA GH200 480GB",
    "AMD Instinct MI325X", "AMD Instinct MI355X", "Some Future GPU", "Mystery Accelerator", "",
]
# products as their drivers name them
PRODUCTS = [
    "NVIDIA H800 PCIe", "NVIDIA H20", "NVIDIA GH200 144G HBM3e", "NVIDIA GH200 NVL2", "NVIDIA A800-SXM4-80GB", "NVIDIA A800 80GB PCIe",
    "Tesla V100-PCIE-32GB", "Tesla V100-SXM2-16GB", "NVIDIA L40", "NVIDIA A10G", "NVIDIA A40", "NVIDIA A30",
    "NVIDIA A16", "NVIDIA A2", "NVIDIA B300", "NVIDIA GB300", "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    "NVIDIA GeForce RTX 5090", "NVIDIA RTX 5000 Ada Generation", "NVIDIA GeForce RTX 4090", "NVIDIA RTX A6000",
    "NVIDIA B40", "NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 3090 Ti",
    "Tesla V100S-PCIE-32GB", "Tesla V100-SXM3-32GB", "Tesla V100-FHHL-16GB", "NVIDIA RTX A4000", "NVIDIA RTX A400",
    "NVIDIA RTX A3000 12GB Laptop GPU", "NVIDIA A40-48Q", "Quadro RTX 5000", "AMD Instinct MI250X", "AMD Instinct MI250X/MI250", "AMD Instinct MI210", "AMD Instinct MI300A",
    "AMD Instinct MI350X", "AMD Radeon Pro W7900", "AMD Radeon RX 7900 XTX", "AMD Radeon Instinct MI100",
]


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regex ('a|b(c|d)' -> ['a', 'b(c|d)'])."""
    out, depth, cur = [], 0, ""
    for ch in pattern:
        depth += (ch == "(") - (ch == ")")
        if ch == "|" and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _literal(alt: str) -> list[str]:
    """Texts one alternative matches: '.*' as a space, lookbehinds and word bounds dropped, a group
    of alternatives each taken."""
    alt = alt.replace("(?<!G)", "").replace("\\b", "").replace(".*", " ")
    m = re.search(r"\(([^()]*)\)", alt)
    if m:
        return [out for a in m.group(1).split("|") for out in _literal(alt[:m.start()] + a + alt[m.end():])]
    return [alt]


def _generated() -> list[str]:
    """Names that hit every alternative of every regex of both old tables, bare and as vendors and
    form factors spell them."""
    alts = [a for p in [r[1] for r in OLD_PEAKS] + [r[0] for r in OLD_LINK_RULES] for a in _alternatives(p)]
    out = []
    for a in alts:
        for text in _literal(a):
            out += [text, f"NVIDIA {text}", f"AMD Instinct {text}", f"{text} PCIe", f"NVIDIA {text}-SXM4-80GB",
                    f"{text} NVL"]
        assert any(re.search(a, n, re.I) for n in out), a  # every alternative is hit
    return out


def old_peak_row(name: str):
    for row in OLD_PEAKS:
        if re.search(row[1], name or "", re.I):
            return row
    return None


def old_detect(meta: dict) -> links.Link | None:
    gpus = [str(g) for g in (meta.get("gpus") or []) if g]
    table = links.table()
    for name in dict.fromkeys(gpus):
        for pattern, link, assumption in OLD_LINK_RULES:
            if re.search(pattern, name, re.I):
                return replace(table[link], how=f"assumed from the GPU name {name!r}: {assumption}")
    return None


GPU_NAMES = list(dict.fromkeys(SEEN_GPUS + PRODUCTS + _generated()))


def test_one_gpu_table_gives_every_name_its_old_link_and_peaks():
    assert len(GPU_NAMES) > 250
    for name in GPU_NAMES:
        assert links.detect({"gpus": [name]}) == old_detect({"gpus": [name]}), name
        row, p = old_peak_row(name), sol.match_gpu(name)
        if row is None or row[2] is None:
            assert p is None, name
        else:
            assert (p.name, p.hbm_Bps, p.flops) == (row[0], row[2], row[3]), name
    pairs = [GPU_NAMES[i:i + 2] for i in range(0, len(GPU_NAMES), 7)]
    for gpus in pairs:  # several GPUs: the first name any row knows
        assert links.detect({"gpus": gpus}) == old_detect({"gpus": gpus}), gpus


def test_gpu_rows_are_whole():
    rows = vocab.load("gpus", vocab.GpusFile).gpu
    known = links.table()
    by_name: dict[str, vocab.GpuRow] = {}
    for r in rows:
        assert r.link in known and r.assumption, r.name
        assert (r.hbm_Bps is None) == (not r.flops) == (not r.source), r.name  # peaks: all or none
        first = by_name.setdefault(r.name, r)
        # variants of one GPU (rows of one name) differ only in how they are matched and linked
        assert (first.hbm_Bps, first.flops, first.source) == (r.hbm_Bps, r.flops, r.source), r.name
    fallback = vocab.load("gpus", vocab.GpusFile).fallback
    assert fallback == {"fp4": "fp8", "int4": "int8", "int8": "fp8", "fp8": "bf16", "fp16": "bf16", "tf32": "fp32",
                        "bf16": "fp16", "fp32": "tf32"}
