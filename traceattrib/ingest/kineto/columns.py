"""The kept columns of one read, accumulated piece by piece: int64 (or int32) arrays, one global
dictionary per string column, the flow ends, and the counted values the reader could not use."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import heap
from ...model import categorical_from
from .fields import INT32_MAX, NUM, SMALL, STRS


class Strings:
    """Global dictionary for one string column, fed piece by piece."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.codes: list[np.ndarray] = []
        self.bad_utf8 = 0

    def add_arrow(self, arr, sel: np.ndarray | None = None, blank: bool = False) -> None:
        """The rows of `arr` (those where `sel` is true, when given), a string or dictionary array;
        nulls are missing, or "" when `blank`."""
        import pyarrow as pa
        import pyarrow.compute as pc
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
        d = arr if pa.types.is_dictionary(arr.type) else pc.dictionary_encode(arr)
        local = d.dictionary
        codes = d.indices.fill_null(len(local)).to_numpy(zero_copy_only=False)
        if sel is not None:  # rows picked on the codes: no copy of the strings
            codes = codes[sel]
        try:
            local.validate(full=True)
            vals = local.to_pylist()
        except pa.ArrowInvalid:  # bytes that are not UTF-8: decoded with U+FFFD, counted
            raw = local.view(pa.binary()).to_pylist()
            vals = [v.decode("utf-8", "replace") for v in raw]
            bad = np.array([v.encode() != r for v, r in zip(vals, raw)] + [False])
            self.bad_utf8 += int(bad[codes].sum())
        self._add(vals, codes, blank)

    def add_list(self, values: list) -> None:
        codes, uniq = pd.factorize(np.array(values, dtype=object))
        vals = [_clean(v) for v in uniq]
        self.bad_utf8 += sum(int((codes == i).sum()) for i, (a, b) in enumerate(zip(uniq, vals)) if a != b)
        self._add(vals, np.where(codes < 0, len(vals), codes))

    def _add(self, vals: list, codes: np.ndarray, blank: bool = False) -> None:
        """Values `vals` at `codes` (code len(vals): null, missing or "" when `blank`)."""
        idx = self.index
        m = np.fromiter((idx.setdefault(s, len(idx)) for s in vals), dtype=np.int32, count=len(vals))
        m = np.append(m, np.int32(idx.setdefault("", len(idx)) if blank else -1))
        self.codes.append(m[codes])

    def categorical(self, keep: np.ndarray | None = None) -> pd.Categorical:
        codes = np.concatenate(self.codes) if self.codes else np.empty(0, np.int32)
        if keep is not None:
            codes = codes[keep]
        return categorical_from(codes, np.array(list(self.index), dtype=object))


def _clean(s):
    """A str from the stdlib parser without lone surrogates (they become U+FFFD)."""
    if s is None:
        return None
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Columns:
    """Kept columns accumulated piece by piece (`tables.add_table`, `tables.add_split` and
    `exact.add_events` add them)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.num: dict[str, list[np.ndarray]] = {k: [] for k in NUM}
        self.flows: dict[str, list[np.ndarray]] = {k: [] for k in ("pid", "tid", "ts", "id")}
        self.str = {k: Strings() for k in STRS}
        self.events = 0          # events seen so far (the index of the next one)
        self.hints: set = set()  # fixes earlier pieces needed before pyarrow took them (see arrow.read)
        self.issues: dict[str, list] = {}  # what -> [count, where the first one is]

    def keep(self, name: str, v: np.ndarray) -> None:
        """Append one piece's int64 values of column `name` (as int32 where SMALL allows)."""
        if name in SMALL and (not v.size or (int(v.min()) >= -(1 << 31) and int(v.max()) <= INT32_MAX)):
            v = v.astype(np.int32)
        self.num[name].append(v)

    def issue(self, what: str, where: str, n: int = 1) -> None:
        """Count `n` values the reader could not use (reported as one warning per kind)."""
        if what in self.issues:
            self.issues[what][0] += n
        else:
            self.issues[what] = [n, where]

    def arrays(self) -> dict:
        def cat(parts: list) -> np.ndarray:
            out = np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.empty(0, np.int64)
            parts.clear()  # one column's pieces freed before the next column is joined
            heap.give_back()  # and their pages handed back, or every joined column sits on top of them
            return out

        n = {k: cat(v) for k, v in self.num.items()}
        s = {k: v.categorical() for k, v in self.str.items()}
        for v in self.str.values():
            v.codes.clear()
        out = {k: n[k] for k in ("idx", "pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes", "ext",
                                 "in_nel", "out_nel", "gsize")}
        out["grid"] = [n[f"grid{i}"] for i in range(3)]
        out["block"] = [n[f"block{i}"] for i in range(3)]
        out.update(s)
        out["flows"] = {k: cat(v) for k, v in self.flows.items()}
        out["warnings"] = []
        bad = sum(v.bad_utf8 for v in self.str.values())
        if bad:
            out["warnings"].append(f"{bad:,} event names or args are not valid UTF-8 or hold lone surrogates "
                                   "(shown with U+FFFD)")
        for what, (n, where) in self.issues.items():
            out["warnings"].append(f"{n:,} {what} (first: {where})")
        return out
