"""Collective kinds as data (`rules/collectives.toml`): which kind a communication kernel is, how
many bytes one call moves, and the nccl-tests bus-bandwidth factor of each kind.

Element sizes are rules/dtypes.toml's, keyed by the dtype names torch.profiler records for
collectives (c10 scalar type names: "BFloat16", "Float", ...); `dtype_from_kernel` reads NCCL/RCCL
kernel names ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ncclKernel_AllReduce_RING_LL_Sum_float").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from . import vocab
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


@dataclass(frozen=True)
class Collective:
    kind: str
    match: re.Pattern
    busbw_factor: str
    ring_steps: str
    doc: str = ""

    def busbw(self, n: int) -> float:
        """algbw -> busbw multiplier for n ranks (nccl-tests definition); 1 for n < 2."""
        return FACTORS[self.busbw_factor](n) if n and n >= 2 else 1.0

    def steps(self, n: int) -> float:
        """Link traversals of one call in NCCL's ring algorithm for n ranks; 1 for n < 2."""
        return FACTORS[self.ring_steps](n) if n and n >= 2 else 1.0


@lru_cache(maxsize=1)
def table() -> tuple[Collective, ...]:
    """The packaged collective table, in priority order."""
    out = []
    for i, c in enumerate(vocab.load("collectives", vocab.CollectivesFile).collective):
        for key in ("busbw_factor", "ring_steps"):
            if getattr(c, key) not in FACTORS:
                raise TraceError(f"rules/collectives.toml entry {i}: {key} = {getattr(c, key)!r} is not one of "
                                 f"{', '.join(FACTORS)}")
        out.append(Collective(kind=c.kind, match=re.compile(c.match, re.I), busbw_factor=c.busbw_factor,
                              ring_steps=c.ring_steps, doc=c.doc))
    return tuple(out)


@lru_cache(maxsize=1)
def dtype_sizes() -> dict[str, int]:
    """Bytes per element by c10 dtype name (rules/dtypes.toml)."""
    return {n: d.bytes for n, d in vocab.dtypes("c10").items()}


@lru_cache(maxsize=1)
def _kernel_dtypes() -> tuple[dict[str, str], re.Pattern]:
    """NCCL/RCCL kernel-name dtype token -> c10 name, and the regex finding a token in a name
    (longest tokens first: "bfloat16" before "float")."""
    names = {tok: d.c10[0] for tok, d in vocab.dtypes("nccl").items()}
    rx = re.compile(r"_(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?=_|\b|$)")
    return names, rx


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
    names, rx = _kernel_dtypes()
    m = rx.search(name)
    return names[m.group(1).lower()] if m else ""


def dtype_bytes(names: pd.Series | np.ndarray) -> np.ndarray:
    """Element size of every dtype name, -1 when unknown (int64 array)."""
    s = pd.Series(np.asarray(names, dtype=object)).astype(str)
    return s.map(dtype_sizes()).fillna(-1).astype(np.int64).to_numpy()


def text(kernels: pd.DataFrame) -> pd.Series:
    """What a communication kernel's kind is read from: its name, launching op chain and the
    collective name the profiler recorded, " | " joined (string per row)."""
    cols = [c for c in ("name", "op", "comm_collective") if c in kernels.columns]
    out = kernels[cols[0]].astype(str)
    for c in cols[1:]:
        out = out + " | " + kernels[c].astype(str)
    return out
