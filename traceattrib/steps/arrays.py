"""Array helpers the step stages share: name matching once per distinct name, counting integer
pairs (per step and name, ...), and binning sorted values."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd


def name_matches(names: pd.Series, pattern: re.Pattern | str) -> np.ndarray:
    """Boolean mask of names matching a regex, tested once per distinct name (names may be
    millions of rows, e.g. every CUDA API call)."""
    cat = pd.Categorical(names)
    pat = re.compile(pattern) if isinstance(pattern, str) else pattern
    cat_hit = np.fromiter((pat.search(str(c)) is not None for c in cat.categories), bool, len(cat.categories))
    return np.r_[cat_hit, False][cat.codes]  # a missing name (code -1) reads the False at the end


def name_in(names: pd.Series, texts) -> np.ndarray:
    """Boolean mask of names equal to one of `texts`, tested once per distinct name (what
    `names.astype(str).isin(texts)` gives, without writing out a string per row)."""
    return name_matches(names, re.compile(r"\A(?:" + "|".join(re.escape(t) for t in texts) + r")\Z"))


def pair_counts(x: np.ndarray, y: np.ndarray, names: tuple[str, str, str] = ("x", "y", "n")) -> pd.DataFrame:
    """How often each distinct pair of integers occurs: int64 columns (x, y, count), sorted by x then y,
    as `DataFrame({x, y}).groupby([x, y]).size().reset_index()` gives, at a fraction of its cost
    (one count over a packed int64 key instead of factorizing both columns)."""
    x, y = np.asarray(x, np.int64), np.asarray(y, np.int64)
    if not x.size:
        return pd.DataFrame({names[0]: x, names[1]: y, names[2]: np.zeros(0, np.int64)})
    x0, y0 = int(x.min()), int(y.min())
    xs, ys = int(x.max()) - x0 + 1, int(y.max()) - y0 + 1
    if xs * ys >= 2 ** 62:
        d = pd.DataFrame({names[0]: x, names[1]: y})
        return d.groupby([names[0], names[1]]).size().rename(names[2]).reset_index()
    key = (x - x0) * ys + (y - y0)  # ordered like (x, y)
    if xs * ys <= 4 * x.size + 65536:  # a small key space: count by position, no hashing
        n = np.bincount(key, minlength=xs * ys)
        k = np.flatnonzero(n)
        n = n[k]
    else:
        vc = pd.Series(key).value_counts(sort=False)
        order = np.argsort(vc.index.to_numpy())
        k, n = vc.index.to_numpy()[order], vc.to_numpy()[order]
    return pd.DataFrame({names[0]: k // ys + x0, names[1]: k % ys + y0, names[2]: n.astype(np.int64)})


def bin_of(edges: np.ndarray, q: np.ndarray) -> np.ndarray:
    """np.searchsorted(edges, q, side="right") - 1: the last edge at or before each value, -1
    before the first; in linear time when q is sorted too (ops in time order)."""
    if not ((q[1:] >= q[:-1]).all() and (edges[1:] >= edges[:-1]).all()):
        return np.searchsorted(edges, q, side="right") - 1
    # the values before edge 0, then those from edge k up to edge k+1
    n = np.diff(np.r_[0, np.searchsorted(q, edges, side="left"), q.size])
    return np.repeat(np.arange(-1, edges.size), n)
