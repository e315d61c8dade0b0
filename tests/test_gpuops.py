"""The GPU-op table (traceattrib.gpuops): each op's launch call."""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib.gpuops import launch_rows


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=40), st.lists(st.integers(0, 70), max_size=40), st.sampled_from([1, 1000]))
def test_launch_rows_finds_the_first_call_of_each_correlation(calls, ops, scale):
    # the lookup table (dense distinct ids in order: scale 1, sorted and deduplicated) and the
    # sorted search (sparse ids, repeats, any order) agree with a plain first-match join
    for corr in (calls, sorted(set(calls))):
        lk = np.array(corr, np.int64) * scale
        ok = np.array(ops, np.int64) * scale
        launches = pd.DataFrame({"rank": np.zeros(lk.size, np.int64), "pid": 7, "correlation": lk})
        o = pd.DataFrame({"rank": np.zeros(ok.size, np.int64), "pid": 7, "correlation": ok})
        first = {}
        for i, c in enumerate(lk.tolist()):
            first.setdefault(c, i)
        assert launch_rows(o, launches).tolist() == [first.get(c, -1) for c in ok.tolist()]
