"""intervals.nesting_depth and nest_order against per-interval definitions written as Python loops."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib.intervals import code_order, nest_order, nesting_depth, pack_keys, running_max

I64 = np.iinfo(np.int64)
# small times make ties likely; the extremes force the ranks fallback (groups cannot be shifted apart)
TIMES = st.one_of(st.integers(0, 12), st.integers(I64.min // 2, I64.max // 2), st.sampled_from([I64.min, I64.max]))
GROUPS = st.sampled_from([0, 7, -3, (5 << 24) ^ 9, 1 << 46])
SETTINGS = dict(max_examples=300, deadline=None, derandomize=True, database=None)


@st.composite
def intervals(draw):
    """(starts, ends, groups or None): durations mostly >= 0, some zero, some negative (no end is
    int64's minimum, whose negation wraps)."""
    n = draw(st.integers(0, 25))
    s = np.array([draw(TIMES) for _ in range(n)], dtype=np.int64)
    dur = np.array([draw(st.integers(-3, 10)) for _ in range(n)], dtype=np.int64)
    e = np.clip(s.astype(object) + dur.astype(object), I64.min + 1, I64.max).astype(np.int64)
    g = None if draw(st.booleans()) else np.array([draw(GROUPS) for _ in range(n)], dtype=np.int64)
    return s, e, g


def _rank_order(s, e, g):
    """Per interval, its position in the (group, start, end descending, input) order, as tuples."""
    n = s.size
    keys = [(int(g[i]), int(s[i]), -int(e[i]), i) for i in range(n)]
    return {i: p for p, (*_, i) in enumerate(sorted(keys))}


@settings(**SETTINGS)
@given(iv=intervals())
def test_nest_order_is_lexsort(iv):
    s, e, g = iv
    gg = np.zeros(s.size, np.int64) if g is None else g
    order, key, depth = nest_order(s, e, g)
    pos = _rank_order(s, e, gg)
    assert [pos[i] for i in order.tolist()] == list(range(s.size))
    # the key: non-decreasing, equal exactly for the same group and start
    for a in range(s.size - 1):
        i, j = order[a], order[a + 1]
        assert key[a] <= key[a + 1]
        assert (key[a] == key[a + 1]) == (gg[i] == gg[j] and s[i] == s[j])
    assert depth.tolist() == nesting_depth(s, e, g)[order].tolist()


@settings(**SETTINGS)
@given(iv=intervals())
def test_nesting_depth_definition(iv):
    s, e, g = iv
    gg = np.zeros(s.size, np.int64) if g is None else g
    pos = _rank_order(s, e, gg)
    want = []
    for i in range(s.size):
        mine = [j for j in range(s.size) if gg[j] == gg[i]]
        # earlier intervals still open at its start, less the intervals not earlier (itself included)
        # that ended by its start: zero-length or reversed ones
        still_open = sum(1 for j in mine if pos[j] < pos[i] and e[j] > s[i])
        ended_after = sum(1 for j in mine if pos[j] >= pos[i] and e[j] <= s[i])
        want.append(still_open - ended_after)
    got = nesting_depth(s, e, g)
    assert got.dtype == np.int32
    assert got.tolist() == want


@settings(**SETTINGS)
@given(n=st.integers(0, 30), seed=st.integers(0, 2**32 - 1), threads=st.integers(1, 3))
def test_nesting_depth_counts_enclosing(n, seed, threads):
    """Properly nested intervals of positive length: the depth is the number that enclose it."""
    rng = np.random.default_rng(seed)
    s, e, g = [], [], []
    for th in range(threads):
        stack, t = [], int(rng.integers(0, 5))
        for _ in range(n):
            if stack and rng.random() < 0.4:  # close the innermost open interval
                s.append(stack.pop())
                t += int(rng.integers(0, 3))
                e.append(t)
                g.append(th * 1000)
            else:
                stack.append(t)
                t += int(rng.integers(0, 3))
        while stack:
            s.append(stack.pop())
            t += 1
            e.append(t)
            g.append(th * 1000)
    s, e, g = np.array(s, np.int64), np.array(e, np.int64), np.array(g, np.int64)
    keep = e > s
    s, e, g = s[keep], e[keep], g[keep]
    want = [sum(1 for j in range(s.size) if j != i and g[j] == g[i] and s[j] <= s[i] and e[i] <= e[j]
                and (s[j], -e[j], j) < (s[i], -e[i], i)) for i in range(s.size)]
    assert nesting_depth(s, e, g).tolist() == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-50, 50), st.integers(0, 6)), max_size=30))
def test_concat_ranges_is_the_concatenated_aranges(ranges):
    from traceattrib.intervals import concat_ranges
    start = np.array([a for a, _ in ranges], np.int64)
    length = np.array([n for _, n in ranges], np.int64)
    want = np.concatenate([np.arange(a, a + n) for a, n in ranges] + [np.zeros(0, np.int64)]).astype(np.int64)
    np.testing.assert_array_equal(concat_ranges(start, length), want)


COLUMN_VALUES = st.one_of(st.integers(0, 3), st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(I64.min // 4, I64.max // 4))


@st.composite
def key_tables(draw):
    """Two tables of 1-3 integer columns each (int32 or int64, some held as zero-stride constants as
    model.compact keeps them), the same dtypes column by column."""
    ncol, rows = draw(st.integers(1, 3)), [draw(st.integers(0, 12)), draw(st.integers(0, 12))]
    a, b = [], []
    for _ in range(ncol):
        dtype = draw(st.sampled_from([np.int32, np.int64]))
        lim = np.iinfo(dtype)
        values = st.integers(0, 3) if draw(st.booleans()) else \
            COLUMN_VALUES.filter(lambda v, lo=lim.min, hi=lim.max: lo <= v <= hi)
        cols = []
        for n in rows:
            if n and draw(st.booleans()):
                cols.append(np.broadcast_to(np.array([draw(values)], dtype), (n,)))
            else:
                cols.append(np.array([draw(values) for _ in range(n)], dtype))
        a.append(cols[0])
        b.append(cols[1])
    return a, b


@settings(**SETTINGS)
@given(tabs=key_tables())
def test_pack_keys_equal_exactly_for_equal_tuples(tabs):
    """Keys of rows of either table are equal exactly when their column tuples are, whatever the
    dtypes, constants and ranges (bits side by side, or the codes when they do not fit)."""
    a, b = tabs
    ka, kb = pack_keys(a, b)
    assert ka.dtype == kb.dtype == np.int64 and ka.size == a[0].size and kb.size == b[0].size
    rows = [tuple(int(c[i]) for c in a) for i in range(a[0].size)] + [tuple(int(c[i]) for c in b) for i in range(b[0].size)]
    keys = np.r_[ka, kb]
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert (keys[i] == keys[j]) == (rows[i] == rows[j])


@settings(**SETTINGS)
@given(tabs=key_tables())
def test_row_keys_equal_exactly_for_equal_tuples(tabs):
    """row_keys (one table's keys) are equal exactly when the rows' column tuples are: pack_keys'
    first table's keys."""
    from traceattrib.intervals import row_keys

    a, _ = tabs
    k = row_keys(a)
    assert k.dtype == np.int64 and k.size == a[0].size
    rows = [tuple(int(c[i]) for c in a) for i in range(a[0].size)]
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert (k[i] == k[j]) == (rows[i] == rows[j])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.integers(-3, 40), max_size=60), st.lists(st.integers(I64.min // 2, I64.max // 2), max_size=60),
                 st.lists(st.integers(-2 ** 20, 2 ** 20), max_size=60)),
       st.sampled_from([np.int64, np.int32, np.int16, np.uint32, np.uint64]))
def test_unique_inverse_is_numpys(values, dtype):
    """Sorted distinct values and each element's index among them, as np.unique(return_inverse=True),
    both by the table over a small range and by the sort."""
    from traceattrib.intervals import unique_inverse
    x = np.array([v for v in values if np.iinfo(dtype).min <= v <= np.iinfo(dtype).max], dtype)
    uniq, inv = unique_inverse(x)
    want_u, want_i = np.unique(x, return_inverse=True)
    assert uniq.dtype == x.dtype and inv.dtype == np.int64
    np.testing.assert_array_equal(uniq, want_u)
    np.testing.assert_array_equal(inv, want_i.reshape(-1))
    # narrow: the same indices in the smallest type that holds them (categorical codes)
    uniq, inv = unique_inverse(x, narrow=True)
    np.testing.assert_array_equal(uniq, want_u)
    np.testing.assert_array_equal(inv, want_i.reshape(-1))
    assert inv.dtype == np.int8  # (at most 60 values here: fewer than 127 categories)


@pytest.mark.parametrize("n", [1, 126, 127, 128, 32766, 32767, 40000])
def test_narrow_indices_are_the_codes_pandas_keeps(n):
    """unique_inverse(narrow=True) gives codes of the type pandas keeps n categories' codes in, so
    Categorical.from_codes takes them as they are (by the table over a small range and by the sort)."""
    from traceattrib.intervals import unique_inverse
    for x in (np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64) * 10 ** 12):
        uniq, inv = unique_inverse(x, narrow=True)
        cat = pd.Categorical.from_codes(inv, categories=pd.Index(uniq))
        assert inv.dtype == cat.codes.dtype and inv.tolist() == list(range(n))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 30), st.integers(0, 5)), max_size=40), st.booleans())
def test_group_time_order_is_lexsort(rows, time_ordered):
    """The stable order by (group, start, end), on rows in time order (the radix path) or not."""
    from traceattrib.intervals import group_time_order, in_time_order
    if time_ordered:
        rows = sorted(rows, key=lambda r: (r[1], r[1] + r[2]))
    g = np.array([r[0] for r in rows], np.int64)
    s = np.array([r[1] for r in rows], np.int64)
    e = s + np.array([r[2] for r in rows], np.int64)
    assert in_time_order(s, e) == (np.lexsort((e, s)) == np.arange(s.size)).all()
    np.testing.assert_array_equal(group_time_order(g, s, e), np.lexsort((e, s, g)))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=8),
       data=st.data(), huge=st.booleans())
def test_running_max_is_a_running_max_per_group(sizes, data, huge):
    """running_max against np.maximum.accumulate over each group alone, with values that fit the
    one-pass lift and values that do not (then pandas' grouped cummax)."""
    bound = 2 ** 61 if huge else 1000
    x = np.array(data.draw(st.lists(st.integers(-bound, bound), min_size=sum(sizes), max_size=sum(sizes))),
                 np.int64)
    group = np.repeat(np.arange(len(sizes)), sizes)
    want = np.concatenate([np.maximum.accumulate(x[group == g]) for g in range(len(sizes))])
    np.testing.assert_array_equal(running_max(x, group), want)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 70_000), max_size=60), st.integers(0, 3))
def test_code_order_is_a_stable_argsort(codes, shift):
    """intervals.code_order against np.argsort(kind="stable"), codes within 16 bits and past them."""
    code = np.array(codes, np.int64) >> shift
    np.testing.assert_array_equal(code_order(code), np.argsort(code, kind="stable"))
