"""Name helpers for the Kineto reader: categoricals built once per distinct value, kernel short
names, memory-op kinds, profiler version text."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...model import categorical_from


def _categorical(values: list) -> pd.Categorical:
    """A list of strings as a categorical with sorted categories (None -> missing)."""
    codes, uniq = pd.factorize(np.array(values, dtype=object))
    return categorical_from(codes, np.asarray(uniq, dtype=object))

def _take(values: pd.Categorical, idx: np.ndarray) -> pd.Categorical:
    """values[idx] keeping only the categories used (the categories of `values` are sorted)."""
    return categorical_from(values.codes[idx], np.asarray(values.categories, dtype=object))

def _is(values: pd.Categorical, *wanted: str) -> np.ndarray:
    """Rows whose value is one of `wanted`."""
    cats = values.categories
    out = np.zeros(len(values), bool)
    for w in wanted:
        if w in cats:  # one comparison per wanted value: np.isin on int8 codes is ~100x slower
            out |= values.codes == cats.get_loc(w)
    return out

def _per_value(values: pd.Categorical, test) -> np.ndarray:
    """Boolean test run once per distinct value, spread over the rows (missing -> False)."""
    per = np.fromiter((bool(test(v)) for v in values.categories), dtype=bool, count=len(values.categories))
    return np.append(per, False)[values.codes]

def _types_text(t) -> str:
    """A CPU op's "Input type" list as one comma-joined string."""
    if not isinstance(t, list):
        return ""
    return ",".join("" if x is None else str(x) for x in t)

def _short(full: str) -> str:
    """Kernel name without return type, template arguments and parameters."""
    s = full
    if s.startswith("void "):
        s = s[5:]
    # drop template args / params: cut at the first '<' or '(' at depth 0
    out, depth = [], 0
    for ch in s:
        if ch in "<(":
            if depth == 0 and out:
                break
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    base = "".join(out).strip() or s
    return base.split("::")[-1] if "::" in base else base

def _short_names(full: pd.Categorical) -> pd.Categorical:
    """Short names computed once per distinct kernel name."""
    if not len(full):
        return pd.Categorical([])
    shorts = np.array([_short(u) for u in full.categories], dtype=object)
    return categorical_from(np.asarray(full.codes), shorts)

def _memop_kind(name: str) -> str:
    n = name.lower()
    if "memset" in n:
        return "memset"
    for k, v in (("htod", "memcpy_htod"), ("dtoh", "memcpy_dtoh"), ("dtod", "memcpy_dtod"),
                 ("htoh", "memcpy_htoh"), ("ptop", "memcpy_ptop"), ("peer", "memcpy_ptop")):
        if k in n:
            return v
    return "memcpy_unknown"

def _kineto_version(h: dict) -> str | None:
    parts = []
    if "cupti_version" in h:
        parts.append(f"CUPTI {h['cupti_version']}")
    if "roctracer_version" in h:
        parts.append(f"roctracer {h['roctracer_version']}")
    if "cuda_runtime_version" in h:
        parts.append(f"CUDA runtime {h['cuda_runtime_version']}")
    if "hip_runtime_version" in h:
        parts.append(f"HIP runtime {h['hip_runtime_version']}")
    return ", ".join(parts) or None
