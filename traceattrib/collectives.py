"""Collective kinds as data (`rules/collectives.toml`): which kind a communication kernel is, how
many bytes one call moves, and the nccl-tests bus-bandwidth factor of each kind.

Element sizes are keyed by the dtype names torch.profiler records for collectives (c10 scalar
type names: "BFloat16", "Float", ...); `dtype_from_kernel` reads NCCL/RCCL kernel names
("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ncclKernel_AllReduce_RING_LL_Sum_float").
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd

from .errors import TraceError

OTHER = "other"

# factor expressions a table entry may use, as functions of n (ranks in the group)
FACTORS = {
    "1": lambda n: 1.0,
    "n": lambda n: float(n),
    "n-1": lambda n: float(n - 1),
    "(n-1)/n": lambda n: (n - 1) / n,
    "2(n-1)/n": lambda n: 2.0 * (n - 1) / n,
    "2(n-1)": lambda n: 2.0 * (n - 1),
}

# bytes per element, by the names torch.profiler writes in collective args (c10 ScalarType names)
DTYPE_BYTES = {
    "Byte": 1, "Char": 1, "Bool": 1, "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Float8_e4m3fnuz": 1,
    "Float8_e5m2fnuz": 1, "Float8_e8m0fnu": 1, "UInt8": 1, "Int8": 1,
    "Short": 2, "Half": 2, "BFloat16": 2, "UInt16": 2,
    "Int": 4, "Float": 4, "UInt32": 4, "ComplexHalf": 4,
    "Long": 8, "Double": 8, "UInt64": 8, "ComplexFloat": 8,
    "ComplexDouble": 16,
}

# NCCL/RCCL kernel-name dtype tokens -> c10 names (both naming generations)
_KERNEL_DTYPES = {
    "bf16": "BFloat16", "bfloat16": "BFloat16", "f16": "Half", "half": "Half", "f32": "Float",
    "float": "Float", "f64": "Double", "double": "Double", "i8": "Char", "int8_t": "Char",
    "u8": "Byte", "uint8_t": "Byte", "i32": "Int", "int32_t": "Int", "u32": "UInt32", "uint32_t": "UInt32",
    "i64": "Long", "int64_t": "Long", "u64": "UInt64", "uint64_t": "UInt64",
    "f8e4m3": "Float8_e4m3fn", "f8e5m2": "Float8_e5m2",
}
_KERNEL_DTYPE_RE = re.compile(r"_(" + "|".join(sorted(map(re.escape, _KERNEL_DTYPES), key=len, reverse=True))
                              + r")(?=_|\b|$)")


@dataclass(frozen=True)
class Collective:
    kind: str
    match: re.Pattern
    busbw_factor: str
    nvtx_bytes: str
    ring_steps: str
    doc: str = ""

    def busbw(self, n: int) -> float:
        """algbw -> busbw multiplier for n ranks (nccl-tests definition); 1 for n < 2."""
        return FACTORS[self.busbw_factor](n) if n and n >= 2 else 1.0

    def steps(self, n: int) -> float:
        return FACTORS[self.ring_steps](n) if n and n >= 2 else 1.0

    def nvtx_scale(self, n: int) -> float:
        return FACTORS[self.nvtx_bytes](n) if n and n >= 1 else 1.0


@lru_cache(maxsize=1)
def table() -> tuple[Collective, ...]:
    """The packaged collective table, in priority order."""
    text = resources.files("traceattrib").joinpath("rules/collectives.toml").read_text()
    data = tomllib.loads(text)
    out = []
    for i, c in enumerate(data.get("collective", [])):
        for key in ("busbw_factor", "nvtx_bytes", "ring_steps"):
            if c.get(key) not in FACTORS:
                raise TraceError(f"rules/collectives.toml entry {i}: {key} = {c.get(key)!r} is not one of "
                                 f"{', '.join(FACTORS)}")
        out.append(Collective(kind=c["kind"], match=re.compile(c["match"], re.I), busbw_factor=c["busbw_factor"],
                              nvtx_bytes=c["nvtx_bytes"], ring_steps=c["ring_steps"], doc=c.get("doc", "")))
    return tuple(out)


def by_kind() -> dict[str, Collective]:
    return {c.kind: c for c in table()}


def kinds() -> tuple[str, ...]:
    return tuple(c.kind for c in table())


def kind_of_text(text: str) -> str:
    """Kind of one text (kernel name, op chain, c10d or NVTX collective name); 'other' if none."""
    for c in table():
        if c.match.search(text):
            return c.kind
    return OTHER


def kind_of(names: pd.Series | np.ndarray) -> np.ndarray:
    """Kind of every text, one regex pass per distinct value (object array)."""
    arr = np.asarray(pd.Series(names).astype(str).to_numpy())
    if not arr.size:
        return np.array([], dtype=object)
    uniq, inv = np.unique(arr, return_inverse=True)
    return np.array([kind_of_text(u) for u in uniq], dtype=object)[inv.reshape(-1)]


def dtype_from_kernel(name: str) -> str:
    """c10 dtype name encoded in an NCCL/RCCL kernel name, '' when the name carries none."""
    m = _KERNEL_DTYPE_RE.search(name)
    return _KERNEL_DTYPES[m.group(1).lower()] if m else ""


def dtype_bytes(names: pd.Series | np.ndarray) -> np.ndarray:
    """Element size of every dtype name, -1 when unknown (int64 array)."""
    s = pd.Series(np.asarray(names, dtype=object)).astype(str)
    return s.map(DTYPE_BYTES).fillna(-1).astype(np.int64).to_numpy()


def text(kernels: pd.DataFrame) -> pd.Series:
    """What a communication kernel's kind is read from: its name, launching op chain and the
    collective name the profiler recorded, " | " joined (string per row)."""
    cols = [c for c in ("name", "op", "comm_collective") if c in kernels.columns]
    out = kernels[cols[0]].astype(str)
    for c in cols[1:]:
        out = out + " | " + kernels[c].astype(str)
    return out
