"""The same torch trace in every valid JSON layout gives identical tables.

Layouts are generated here from real fixtures: the document is parsed with every number kept as
its text, then written back with other indentation, separators, key orders, `traceEvents` moved,
or as a bare list of events. Numbers are written verbatim, so every layout holds the same values.
Small read pieces (monkeypatched CHUNK_BYTES) put many piece boundaries inside these small files.
"""
from __future__ import annotations

import gzip
import json
import random
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonlayout import NUM, dump, events_last, load, shuffled

from traceattrib.ingest import kineto, read

from conftest import FIXTURES

SRC = FIXTURES / "llama_graph_torch.pt.trace.json.gz"
_NUM = NUM


def _doc(path=SRC) -> dict:
    return load(path)


@pytest.fixture(scope="module")
def reference():
    return read(str(SRC))


@pytest.fixture(scope="module")
def doc():
    return _doc()


@pytest.fixture(scope="module")
def small(doc, tmp_path_factory):
    """The fixture's first 3,000 events (and its header), and their tables from Kineto's layout."""
    d = dict(doc, traceEvents=doc["traceEvents"][:3000])
    p = tmp_path_factory.mktemp("small") / "small.json"
    p.write_bytes(dump(d, indent=2))
    return d, read(str(p))


def same_tables(a, b, header=True):
    for name, table in a.tables().items():
        other = b.tables()[name]
        if not header:  # a bare list of events has no distributedInfo: rank comes from elsewhere
            table, other = table.drop(columns=["rank"]), other.drop(columns=["rank"])
        pd.testing.assert_frame_equal(table, other, check_exact=True, obj=name)
    if header:
        strip = ("path",)
        assert {k: v for k, v in a.meta.items() if k not in strip} == \
            {k: v for k, v in b.meta.items() if k not in strip}


LAYOUTS = {
    "one line (json.dump)": dict(),
    "compact": dict(separators=(",", ":")),
    "indent 4": dict(indent=4),
    "indent 0": dict(indent=0),
    "tab indent": dict(indent="\t"),
    "sorted keys (traceEvents not first)": dict(sort_keys=True),
    "spaced separators": dict(separators=(" ,  ", " :\t")),
}


def test_whole_fixture_one_line(reference, doc, tmp_path, monkeypatch):
    """The common case: a trace re-saved by json.dump (one line), against Kineto's own file."""
    p = tmp_path / "trace.json"
    p.write_bytes(dump(doc))
    monkeypatch.setattr(kineto.stream, "CHUNK_BYTES", 1 << 18)
    same_tables(reference, read(str(p)))


@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
def test_layouts_give_identical_tables(layout, small, tmp_path, monkeypatch):
    doc, reference = small
    p = tmp_path / "trace.json"
    p.write_bytes(dump(doc, **LAYOUTS[layout]))
    monkeypatch.setattr(kineto.stream, "CHUNK_BYTES", 1 << 15)
    same_tables(reference, read(str(p)))


def test_events_last_and_gzip(small, tmp_path):
    doc, reference = small
    p = tmp_path / "trace.json.gz"
    with gzip.open(p, "wb") as f:
        f.write(dump(events_last(doc), indent=2))
    same_tables(reference, read(str(p)))


def test_top_level_list(small, tmp_path):
    doc, reference = small
    p = tmp_path / "events.json"
    p.write_bytes(dump(doc["traceEvents"]))
    t = read(str(p))
    same_tables(reference, t, header=False)
    assert t.meta["gpus"] == [f"device {d}" for d in t.meta["devices"]]  # names were in the header


def test_piece_smaller_than_one_event(small, tmp_path, monkeypatch):
    # the read buffer grows until it holds a whole event
    doc, reference = small
    p = tmp_path / "trace.json"
    p.write_bytes(dump(doc))
    monkeypatch.setattr(kineto.stream, "CHUNK_BYTES", 64)
    same_tables(reference, read(str(p)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(indent=st.sampled_from([None, 0, 1, 3, "\t", "  \n"]),
       separators=st.sampled_from([None, (",", ":"), (", ", ": "), ("\n,", ":  ")]),
       seed=st.integers(0, 2**16), events_at_end=st.booleans(), chunk=st.sampled_from([1 << 14, 1 << 16, 1 << 20]))
def test_any_layout_gives_identical_tables(small, tmp_path, monkeypatch, indent, separators, seed,
                                           events_at_end, chunk):
    """Random indentation, separators and key order (every object's keys shuffled)."""
    doc, reference = small
    d = shuffled(doc, random.Random(seed))
    if events_at_end:
        d = events_last(d)
    p = tmp_path / f"t{seed}.json"
    p.write_bytes(dump(d, indent=indent, separators=separators))
    monkeypatch.setattr(kineto.stream, "CHUNK_BYTES", chunk)
    same_tables(reference, read(str(p)))


def test_epoch_scale_timestamps_exact_in_any_layout(small, tmp_path):
    """ts near 1.7e15 us with 3 decimals: float64 is 0.25 us coarse there; every ns must survive."""
    shift = 1_700_000_000_000_000  # us
    d = json.loads(json.dumps(small[0]))
    want = []
    for e in d["traceEvents"]:
        ts = e.get("ts")
        if isinstance(ts, str) and ts.startswith(_NUM):
            v = Decimal(ts[len(_NUM):]) + shift
            e["ts"] = _NUM + f"{v:.3f}"
            if e.get("cat") == "kernel" and e.get("ph") == "X":
                want.append(int(v * 1000))
    for kw in (dict(), dict(indent=2)):
        p = tmp_path / "epoch.json"
        p.write_bytes(dump(d, **kw))
        got = np.sort(read(str(p)).kernels["start_ns"].to_numpy())
        assert np.array_equal(got, np.sort(np.array(want, dtype=np.int64)))
        assert (got % 1000 != 0).mean() > 0.9


def test_times_with_more_than_three_decimals_round_half_away(tmp_path):
    """Times written with float noise (1234.5670000000002) or sub-ns digits: exact decimal rounding."""
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts, "dur": dur,
           "args": {"device": 0, "stream": 7, "correlation": i}}
          for i, (ts, dur) in enumerate([("1234.5670000000002", "1.0005"), ("1700000000000000.1234", "2.5"),
                                         ("0.0015", "0.0004")])]
    p = tmp_path / "t.json"
    p.write_bytes(dump({"traceEvents": [{k: (_NUM + v if k in ("ts", "dur") else v) for k, v in e.items()}
                                        for e in ev]}))
    k = read(str(p)).kernels.sort_values("correlation")
    assert k["start_ns"].tolist() == [1234567, 1700000000000000123, 2]
    assert (k["end_ns"] - k["start_ns"]).tolist() == [1001, 2500, 0]
