"""The pyarrow path of the Kineto reader (ingest.kineto.arrow) on generated pieces: the fixes it
decides from a piece's bytes agree with what pyarrow refuses, and what it reads agrees with the
exact (stdlib) path, field by field."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from traceattrib.ingest.kineto import arrow, pieces, stream
from traceattrib.ingest.kineto.columns import Columns

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
CLEAN = {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 2, "ts": 10, "dur": 5,
         "args": {"correlation": 3, "Input Dims": [[1, 2], [], [3]]}}


def _piece(events: list) -> tuple[bytes, np.ndarray]:
    raws = [e if isinstance(e, bytes) else json.dumps(e).encode() for e in events]
    j = stream.join(raws)
    return j.data, j.lens


def _refused(data: bytes, wide: bool = False, block: int = 1 << 20) -> bool:
    return arrow._parse(data, wide, block) is None


# -- each fix: found in the bytes exactly when pyarrow refuses the piece for it --------------------

@SETTINGS
@given(key=st.sampled_from(["pid", "tid", "correlation", "bytes", "External id", "Group size"]),
       text=st.booleans(), at=st.integers(0, 3), compact=st.booleans())
def test_text_where_a_number_belongs(key, text, at, compact):
    e = json.loads(json.dumps(CLEAN))
    (e if key in ("pid", "tid") else e["args"])[key] = "8192" if text else 8192
    events = [CLEAN] * 3
    events.insert(at, e)
    raws = [json.dumps(x, separators=(",", ":") if compact else None).encode() for x in events]
    data, lens = _piece(raws)
    assert _refused(data) == text == (key in arrow.refusals(data))
    got = arrow.read(data, lens, set())
    assert got is not None and not got.wide


@SETTINGS
@given(whole=st.integers(0, 10**15), decimals=st.text("0123456789", max_size=8), sign=st.sampled_from(["", "-"]),
       exp=st.sampled_from(["", "e0", "e-2", "E1", "e-5"]), quoted=st.booleans(), field=st.sampled_from(["ts", "dur"]))
def test_times_with_more_than_3_decimals(whole, decimals, sign, exp, quoted, field):
    text = f"{sign}{whole}" + (f".{decimals}" if decimals else "") + exp
    value = json.dumps(text) if quoted else text
    data, lens = _piece([json.dumps(CLEAN).replace(f'"{field}": {CLEAN[field]}', f'"{field}": {value}').encode()])
    narrow, wide = _refused(data), _refused(data, wide=True)
    if narrow and not wide:  # what the wide schema takes: always found
        assert "ts" in arrow.refusals(data)
        got = arrow.read(data, lens, set())
        assert got is not None and got.wide
    if not narrow:  # read narrow, whatever the scan finds
        got = arrow.read(data, lens, set())
        assert got is not None and not got.wide


def _dims_values():
    leaf = st.one_of(st.integers(-5, 10**6), st.floats(allow_nan=False, allow_infinity=False), st.none(),
                     st.booleans(), st.text("ab", max_size=2))
    return st.recursive(leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.just("k"), inner,
                                                                                         max_size=1), max_leaves=8)


def _zeroed(v):
    """The same nest with every number 0 (what pyarrow then refuses is the nest's shape)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return 0
    if isinstance(v, list):
        return [_zeroed(x) for x in v]
    return {k: _zeroed(x) for k, x in v.items()}


@SETTINGS
@given(dims=_dims_values(), at=st.integers(0, 2))
@example(dims=[[True]], at=1).via("a boolean")
@example(dims=[[1, [2]]], at=0).via("TensorList dims")
@example(dims=[1, 2], at=0).via("flat")
@example(dims=[[1.5], [2 ** 70]], at=0).via("numbers int64 cannot hold")
@example(dims=[None, [1, None], []], at=2).via("nulls")
@example(dims={"k": [1]}, at=0).via("an object")
def test_input_dims_pyarrow_cannot_take_as_lists_of_lists(dims, at):
    def piece(d):
        e = json.loads(json.dumps(CLEAN))
        e["args"]["Input Dims"] = d
        events = [CLEAN] * 2
        events.insert(at, e)
        return _piece(events)

    data, lens = piece(dims)
    shape_refused = _refused(piece(_zeroed(dims))[0])
    assert ("Input Dims" in arrow.refusals(data)) == shape_refused
    got = arrow.read(data, lens, set())
    if shape_refused:  # renamed out of pyarrow's way: read as text (`deep_dims`) when a nest of ints
        assert got is not None and got.deep
    else:  # a number pyarrow cannot take as int64 (1.5, 2**70): the exact path reads the piece
        assert (got is None) == _refused(data)


@SETTINGS
@given(sizes=st.lists(st.integers(1, 900), min_size=1, max_size=12))
def test_events_longer_than_a_block(sizes):
    monkeypatch_block = 600
    events = [dict(CLEAN, name="k" * n) for n in sizes]
    data, lens = _piece(events)
    straddles = _refused(data, block=monkeypatch_block)
    old = arrow.BLOCK_BYTES
    arrow.BLOCK_BYTES = monkeypatch_block
    try:
        got = arrow.read(data, lens, set())
    finally:
        arrow.BLOCK_BYTES = old
    assert got is not None and got.table.num_rows == len(events)
    if straddles:  # what pyarrow refuses, the check on the event lengths saw
        assert int(lens.max()) >= monkeypatch_block


def test_refusals_name_no_clean_piece():
    data, _ = _piece([CLEAN] * 3 + [dict(CLEAN, pid="Spans")])
    assert arrow.refusals(data) == {"pid"}
    data, _ = _piece([CLEAN] * 3)
    assert arrow.refusals(data) == set() and not _refused(data)


# -- what the pyarrow path reads, the exact path reads -----------------------------------------------

@st.composite
def _events(draw):
    e = {"ph": draw(st.sampled_from(["X", "X", "f", "M"])),
         "cat": draw(st.sampled_from(["kernel", "cpu_op", "cuda_runtime", "ac2g", "other"])),
         "name": draw(st.sampled_from(["k", "aten::mm", "n\u00e9"]))}
    for key in ("pid", "tid"):
        e[key] = draw(st.sampled_from([1, 2, 7, "Spans", "12"]))
    for key in ("ts", "dur"):
        if draw(st.integers(0, 5)):
            e[key] = draw(st.sampled_from(["TS", "DEC", "FINE", "TEXT", "EXP"]))
    if e["ph"] == "f":
        e["id"] = draw(st.integers(0, 99))
    args = {}
    for key in draw(st.lists(st.sampled_from(["correlation", "bytes", "External id", "device", "stream"]),
                             max_size=3, unique=True)):
        args[key] = draw(st.sampled_from([3, 8192, "8192", "abc", "-4"]))
    if draw(st.booleans()):
        args["Input Dims"] = draw(st.sampled_from([[[1, 2], [], [3]], [[[1, 2], [3]], []], [1, 2], "x", None,
                                                   [None, [1]], [[True]]]))
    if draw(st.booleans()):
        args["grid"] = draw(st.sampled_from([[1, 2, 3], [4], []]))
    if draw(st.integers(0, 3)) == 0:
        args["ts"] = 1.23456  # a nested key the scan sees, which pyarrow does not read
    if args:
        e["args"] = args
    text = json.dumps(e, separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
    for mark, value in (("TS", f"{draw(st.integers(0, 10**12))}"), ("DEC", f"{draw(st.integers(0, 10**9))}.125"),
                        ("FINE", f"{draw(st.integers(0, 10**9))}.{draw(st.integers(0, 10**6)):06d}"),
                        ("TEXT", '"10.5"'), ("EXP", draw(st.sampled_from(["1e3", "1.5E-2", "12.5e-3"])))):
        text = text.replace(f'"{mark}"', value)
    return text.encode()


def _columns(events: list, exact_only: bool, monkeypatch) -> dict:
    acc = Columns("t")
    if exact_only:
        monkeypatch.setattr(arrow, "read", lambda data, lens, hints: None)
    try:
        first = 0
        for piece in events:
            pieces._from_arrow(*_piece(piece), first, acc)
            first += len(piece)
    finally:
        monkeypatch.undo()
    out = acc.arrays()
    res = {}
    for k, v in out.items():
        if isinstance(v, pd.Categorical):
            res[k] = list(pd.Series(v).astype(object).fillna("<NA>"))
        elif isinstance(v, dict):
            res[k] = {kk: vv.tolist() for kk, vv in v.items()}
        elif k == "warnings":  # the first bad value named is the first by key on the pyarrow path, by event here
            res[k] = sorted(re.sub(r" \(first: [^)]*\)$", "", w) for w in v)
        else:
            res[k] = [x.tolist() for x in v] if isinstance(v, list) else v.tolist()
    return res


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=st.lists(st.lists(_events(), min_size=1, max_size=6), min_size=1, max_size=3))
def test_pyarrow_and_exact_paths_agree(events, monkeypatch):
    assert _columns(events, False, monkeypatch) == _columns(events, True, monkeypatch)


def test_a_finer_time_that_is_not_a_ts_leaves_the_times_narrow():
    # the scan sees args.ts (which pyarrow does not read) beside a text pid it must fix: the
    # table shows no ts or dur past 3 decimals, so the piece is read narrow
    e = dict(CLEAN, pid="Spans", args={"ts": 1.23456})
    data, lens = _piece([CLEAN, e])
    assert arrow.refusals(data) == {"pid", "ts"}
    got = arrow.read(data, lens, set())
    assert got is not None and not got.wide and got.table.column("ts").to_pylist()[1] == 10


@SETTINGS
@given(parts=st.lists(st.one_of(st.text("0123456789", min_size=25, max_size=35), st.binary(max_size=5)), max_size=6))
def test_many_digits_is_a_run_of_30(parts):
    data = b"".join(p.encode() if isinstance(p, str) else p for p in parts)
    assert arrow._many_digits(data) == (re.search(rb"[0-9]{30}", data) is not None)
