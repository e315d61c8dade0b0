"""The vocabulary layer (traceattrib/vocab.py, rules/*.toml): one typed loader for every rules file,
and the tables that moved from code into data (dtypes, op families, the one GPU table) checked
against the code and tables they replaced, copied here as the reference."""
from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import collectives, vocab

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


_TOKENS = sorted(OLD_KERNEL_DTYPES) + ["f8", "bf", "int", "uint8", "float8", "e4m3", "Sum", "RING", "LL", "x"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(parts=st.lists(st.sampled_from(_TOKENS), max_size=6), seps=st.lists(st.sampled_from(["_", "", "(", " "]),
                                                                         min_size=6, max_size=6))
def test_kernel_name_dtypes_as_before(parts, seps):
    name = "ncclDevKernel_AllReduce" + "".join(s + p for s, p in zip(seps, parts))
    assert collectives.dtype_from_kernel(name) == old_dtype_from_kernel(name)
    assert collectives.dtype_bytes(np.array([old_dtype_from_kernel(name)], dtype=object))[0] == \
        OLD_DTYPE_BYTES.get(old_dtype_from_kernel(name), -1)
