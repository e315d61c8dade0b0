"""The JSON renderer's fast paths held to their plain equivalents on generated input."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from traceattrib.layers import MIN_LAYERS
from traceattrib.render import jsonout

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.text(max_size=4),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-2**63, 2**63 - 1).map(np.int64), st.integers(0, 255).map(np.uint8),
    st.booleans().map(np.bool_), st.floats(allow_nan=True).map(np.float64),
    st.floats(width=32, allow_nan=True).map(np.float32))
KEYS = st.one_of(st.text(max_size=3), st.integers(-5, 5).map(np.int64), st.text(max_size=3).map(np.str_))
DOCS = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=20)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(DOCS)
@example({np.str_("a\x00"): [np.float32("nan"), (np.bool_(True), 2**70)]})
def test_dumps_is_json_dumps_of_clean(doc):
    """_dumps (json.dumps straight, numpy scalars converted) writes what json.dumps(jsonable(doc))
    writes, NaN and infinities as null and numpy keys as strings included (string keys, as a
    report's are, str subclasses such as numpy's with their own characters; a numpy integer key
    goes through jsonable)."""
    assert jsonout._dumps(doc) == json.dumps(jsonout.jsonable(doc))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(-2, 6), st.integers(0, 10**12)),
                max_size=40, unique_by=lambda r: r[:3]))
def test_layers_ns_is_the_time_of_each_layer_per_step(rows):
    """_layers_ns: per (rank, step) with MIN_LAYERS+ layer rows (layer >= 0), a list indexed by
    layer holding its time (0 for a layer without a row), as a loop over the groups builds it."""
    t = pd.DataFrame(rows, columns=["rank", "step", "layer", "time_ns"]).astype(np.int64)
    got = jsonout._layers_ns(SimpleNamespace(inside=SimpleNamespace(layers=t.sample(frac=1, random_state=0))))
    want = {}
    inner = t[t["layer"] >= 0]
    for (rank, step), g in inner.groupby(["rank", "step"]):
        if len(g) >= MIN_LAYERS:
            v = [0] * (int(g["layer"].max()) + 1)
            for layer, ns in zip(g["layer"], g["time_ns"]):
                v[int(layer)] = int(ns)
            want[(int(rank), int(step))] = v
    assert got == want
    assert all(type(x) is int for v in got.values() for x in v)


def _collectives_plain(cols: pd.DataFrame) -> dict:
    """What _collectives_by_step replaces: a groupby over (rank, step) and a dict per row."""
    def one(r):
        d = {"count": int(r["count"]), "mean_ns": float(r["mean_ns"])}
        if "bytes" in r:
            d["bytes"] = int(r["bytes"]) if r["bytes"] >= 0 else None
            d["wait_ns"] = int(r["wait_ns"])
            d["transfer_ns"] = int(r["transfer_ns"])
        return d
    out = {}
    if len(cols):
        for (rank, step), g in cols.groupby(["rank", "step"]):
            out[(int(rank), int(step))] = {str(r["collective"]): one(r) for _, r in g.iterrows()}
    return out


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.sampled_from(["all_reduce", "all_gather", "send"]),
                          st.integers(1, 9), st.floats(0, 1e6), st.sampled_from([-1, 0, 7, 10**12]), st.integers(0, 10**6)),
                max_size=30), st.booleans())
def test_collectives_by_step_equals_the_groupby(rows, comm):
    cols = pd.DataFrame(rows, columns=["rank", "step", "collective", "count", "mean_ns", "bytes", "wait_ns"])
    cols["transfer_ns"] = cols["wait_ns"] * 2
    cols["collective"] = cols["collective"].astype("category")
    if not comm:
        cols = cols.drop(columns=["bytes", "wait_ns", "transfer_ns"])
    got, want = jsonout._collectives_by_step(cols), _collectives_plain(cols)
    assert got == want
    assert [list(v) for v in got.values()] == [list(want[k]) for k in got]  # each step's order of collectives
