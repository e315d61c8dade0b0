"""DuckDB reads a Kineto piece into exactly the columns the pyarrow path gives, or hands it over.

DuckDB is lenient where the pyarrow path is strict (a boolean time read as 1 us, a number read as
text, a float id rounded): every such value must send its piece to pyarrow, so both engines give
identical columns and warnings on real traces and on generated hostile events alike.
"""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonlayout import NUM, dump

from traceattrib.errors import TraceError
from traceattrib.ingest import kineto
from traceattrib.ingest.kineto import duck, stream

from conftest import FIXTURES, PUBLIC, shared_files

pytest.importorskip("duckdb")
pytestmark = pytest.mark.skipif(not duck.enabled(), reason="DuckDB cannot be handed pieces here (no memfd)")

REAL = sorted(FIXTURES.glob("*.pt.trace.json.gz")) + sorted(FIXTURES.glob("tp2_*_torch/rank*.pt.trace.json.gz"))


def _columns(path, engine: str, monkeypatch) -> tuple[dict, dict]:
    """(columns, counts) of one read: counts["duckdb"] pieces DuckDB took, ["handed over"] refused."""
    monkeypatch.setenv("TRACEATTRIB_JSON_ENGINE", engine)
    counts = {"duckdb": 0, "handed over": 0}
    conform = duck.conform

    def counted(*a, **k):
        got = conform(*a, **k)
        counts["duckdb" if got is not None else "handed over"] += 1
        return got
    monkeypatch.setattr(duck, "conform", counted)
    try:
        _, cols = kineto.read_columns(str(path))
    finally:
        monkeypatch.setattr(duck, "conform", conform)
    return cols, counts


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, dict):
            _same(x, y)
        elif isinstance(x, list) and x and isinstance(x[0], np.ndarray):
            for i, (u, v) in enumerate(zip(x, y)):
                assert u.dtype == v.dtype and np.array_equal(u, v), (k, i)
        elif isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), k
        elif isinstance(x, pd.Categorical):
            assert list(pd.Series(x).astype(object).fillna("<NA>")) == list(pd.Series(y).astype(object).fillna("<NA>")), k
        else:
            assert x == y, k


@pytest.mark.parametrize("path", REAL + shared_files(PUBLIC, "*.json*"), ids=lambda p: p.parent.name[:12] + "/" + p.name[:28])
def test_engines_agree_on_real_traces(path, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK_BYTES", 1 << 20)  # many pieces, each checked
    ours, counts = _columns(path, "", monkeypatch)
    theirs, none = _columns(path, "pyarrow", monkeypatch)
    assert none == {"duckdb": 0, "handed over": 0}
    if path.parent == FIXTURES or path.parent.parent == FIXTURES:  # our captures: every piece clean
        assert counts["duckdb"] > 0 and counts["handed over"] == 0, counts
    _same(ours, theirs)



def test_pieces_parsed_by_the_main_thread_give_the_same_columns(monkeypatch):
    """A slow worker makes the main thread parse queued pieces itself (pieces._steal): the columns
    are those of the pyarrow path, pieces still joined in file order."""
    import threading
    import time

    path = FIXTURES / "llama_eager_torch.pt.trace.json.gz"
    monkeypatch.setattr(stream, "CHUNK_BYTES", 1 << 20)
    by = {"worker": 0, "main": 0}
    real = duck.Parser.parse

    def slow(self, *a):
        worker = threading.current_thread() is not threading.main_thread()
        by["worker" if worker else "main"] += 1
        if worker:
            time.sleep(0.05)
        return real(self, *a)
    monkeypatch.setattr(duck.Parser, "parse", slow)
    ours, counts = _columns(path, "", monkeypatch)
    monkeypatch.setattr(duck.Parser, "parse", real)
    theirs, _ = _columns(path, "pyarrow", monkeypatch)
    assert by["main"] > 0 and by["worker"] > 0, by
    assert counts == {"duckdb": by["main"] + by["worker"], "handed over": 0}, counts
    _same(ours, theirs)

_ABSENT = object()
_ODD = [True, False, None, 1.5, 2.0, 1e3, "12", "x", " 7 ", [1], {"a": 1}, 1 << 63, 10 ** 20, 1234.56789,
        0, 1, [1.5, 1, 1], [True, 1, 1], [1, 1], ["a", 1], ["a", None], [[1, None]], [[1.5]], [1, 2],
        [[[1, 2], [3]], [4]], "q\"t", "é", "a\nb", _ABSENT]
_CLEAN = {"name": st.text(max_size=8), "pid": st.integers(0, 1 << 20), "tid": st.integers(0, 1 << 40),
          "ts": st.decimals(0, 10 ** 12, places=3), "dur": st.decimals(0, 10 ** 6, places=3),
          "id": st.integers(0, 1 << 20)}
_CLEAN_ARGS = {"External id": st.integers(0, 1 << 20), "correlation": st.integers(0, 1 << 20),
               "device": st.integers(0, 7), "stream": st.integers(0, 100), "bytes": st.integers(0, 1 << 40),
               "grid": st.lists(st.integers(1, 1 << 16), min_size=3, max_size=3),
               "block": st.lists(st.integers(1, 1024), min_size=3, max_size=3),
               "Input type": st.lists(st.sampled_from(["float", "c10::BFloat16", "", "long int"]), max_size=3),
               "Input Dims": st.lists(st.lists(st.integers(0, 1 << 16), max_size=3), max_size=3),
               "Collective name": st.sampled_from(["all_reduce", "all_gather"]),
               "Record function id": st.integers(0, 9)}


@st.composite
def _events(draw):
    """Clean events of kept and dropped kinds; in a few, one field holds a value of a wrong type."""
    out = []
    for _ in range(draw(st.integers(1, 12))):
        e = {"ph": draw(st.sampled_from(["X", "X", "X", "f", "s", "i"])),
             "cat": draw(st.sampled_from(["kernel", "cpu_op", "cuda_runtime", "gpu_memcpy", "user_annotation",
                                          "python_function", "ac2g", "Trace"]))}
        e.update({k: draw(v) for k, v in _CLEAN.items() if draw(st.booleans()) or k in ("ts", "name")})
        e["args"] = {k: draw(v) for k, v in _CLEAN_ARGS.items() if draw(st.integers(0, 3)) == 0}
        if e["cat"] in ("kernel", "gpu_memcpy"):  # GPU ops need a device (else the trace is refused)
            e["args"]["device"] = draw(_CLEAN_ARGS["device"])
        if draw(st.booleans()):  # one hostile value, at the top or in args
            where = e if draw(st.booleans()) else e["args"]
            key = draw(st.sampled_from(list(_CLEAN) + ["ph", "cat", "args"] if where is e else list(_CLEAN_ARGS)))
            where[key] = draw(st.sampled_from(_ODD))
            if where[key] is _ABSENT:
                del where[key]
        out.append(e)
    return out


def _verbatim(o):
    """Decimals marked for jsonlayout.dump, which writes them as their exact text."""
    if isinstance(o, Decimal):
        return NUM + str(o)
    if isinstance(o, dict):
        return {k: _verbatim(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_verbatim(v) for v in o]
    return o


def _read_or_error(path, engine, monkeypatch):
    try:
        return _columns(path, engine, monkeypatch)
    except TraceError as e:
        return str(e), {}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=_events(), clean=st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=5))
def test_engines_agree_on_hostile_values(events, clean, tmp_path, monkeypatch):
    """Generated events with values of every wrong type: the same columns, warnings or error from
    both engines (DuckDB hands over every piece holding a value it would read differently)."""
    good = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": t, "dur": 2,
             "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1, 1, 1], "block": [32, 1, 1]}}
            for i, t in enumerate(clean)]
    p = tmp_path / "h.json"
    p.write_bytes(dump(_verbatim({"traceEvents": good + events})))
    ours, _ = _read_or_error(p, "", monkeypatch)
    theirs, _ = _read_or_error(p, "pyarrow", monkeypatch)
    if isinstance(ours, str) or isinstance(theirs, str):
        assert ours == theirs
    else:
        _same(ours, theirs)


@pytest.mark.parametrize("value, taken", [
    ('{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": 1, "args": {"correlation": 3}}', True),
    ('{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": true, "args": {"correlation": 3}}', False),
    ('{"ph": "X", "cat": "kernel", "name": 5, "pid": 1, "tid": 7, "ts": 5, "dur": 2, "args": {"correlation": 3}}', False),
    ('{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": 2, "args": {"correlation": 3.0}}', False),
    ('{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": 2, "args": {"grid": [1.5, 1, 1]}}', False),
    ('{"ph": "X", "cat": "cpu_op", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": 2, "args": {"Input type": ["a", 1]}}', False),
    ('{"ph": "X", "cat": "cpu_op", "name": "k", "pid": "Spans", "tid": 7, "ts": 5, "dur": 2, "args": {"Input Dims": [[[1]], [2]]}}', True),
    ('{"ph": "X", "cat": "gpu_memcpy", "name": "m", "pid": 1, "tid": 7, "ts": 5, "dur": 2, "args": {"bytes": "8192"}}', True),
    ('{"ph": "i", "cat": "kernel", "name": 5, "pid": 1.5, "ts": true, "args": {"grid": "x"}}', True),  # not kept
])
def test_duckdb_takes_clean_pieces_and_hands_over_the_rest(value, taken, tmp_path, monkeypatch):
    p = tmp_path / "one.json"
    p.write_text('{"traceEvents": [' + value + "]}")
    ours, counts = _columns(p, "", monkeypatch)
    theirs, _ = _columns(p, "pyarrow", monkeypatch)
    assert counts == ({"duckdb": 1, "handed over": 0} if taken else {"duckdb": 0, "handed over": 1})
    _same(ours, theirs)


@pytest.mark.parametrize("odd", [1, 70])
@pytest.mark.parametrize("last", ["1", "true"])
def test_a_boolean_time_among_times_of_one_us(odd, last, tmp_path, monkeypatch):
    """Times of exactly 0 or 1 us are searched for a JSON boolean (DuckDB reads true as 1): one
    by one when few, in the piece read back whole when many; only the boolean hands it over."""
    events = [f'{{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": {10 + i}, "dur": 1, '
              f'"args": {{"correlation": {i + 1}}}}}' for i in range(odd)]
    events.append(f'{{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5, "dur": {last}, '
                  '"args": {"correlation": 999}}')
    p = tmp_path / "odd.json"
    p.write_text('{"traceEvents": [' + ", ".join(events) + "]}")
    ours, counts = _columns(p, "", monkeypatch)
    theirs, _ = _columns(p, "pyarrow", monkeypatch)
    assert counts == ({"duckdb": 1, "handed over": 0} if last == "1" else {"duckdb": 0, "handed over": 1})
    _same(ours, theirs)
    assert (ours["dur"] == 1000).sum() == odd + (last == "1")
