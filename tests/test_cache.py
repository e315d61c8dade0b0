"""Parquet cache: the second load reads the normalized tables back, identical to a fresh parse."""
from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from traceattrib import cache
from traceattrib.ingest import read

from conftest import FIXTURES


def test_second_load_hits_cache_and_is_identical(tmp_path):
    src = tmp_path / "t.json.gz"
    shutil.copy(FIXTURES / "llama_eager_torch.pt.trace.json.gz", src)
    d = tmp_path / "cache"
    a = cache.load(str(src), cache_dir=str(d))
    b = cache.load(str(src), cache_dir=str(d))
    assert a.meta["cached"] is False and b.meta["cached"] is True
    fresh = read(str(src))
    for name, t in fresh.tables().items():
        pd.testing.assert_frame_equal(t, b.tables()[name], check_categorical=False)
        assert list(t.dtypes.astype(str)) == list(b.tables()[name].dtypes.astype(str)), name
    assert len(os.listdir(d)) == 1


def test_changed_file_invalidates(tmp_path):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    d = str(tmp_path / "cache")
    k1 = cache.key(str(src))
    cache.load(str(src), cache_dir=d)
    os.utime(src, ns=(1, 1))
    assert cache.key(str(src)) != k1
    assert cache.load(str(src), cache_dir=d).meta["cached"] is False


def test_no_cache_and_env_location(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEATTRIB_CACHE_DIR", str(tmp_path / "envcache"))
    assert cache.default_dir() == str(tmp_path / "envcache")
    t = cache.load(str(FIXTURES / "llama_graph_nsys.sqlite"), use_cache=False)
    assert "cached" not in t.meta
    assert not (tmp_path / "envcache").exists()
    cache.load(str(FIXTURES / "llama_graph_nsys.sqlite"))
    assert len(os.listdir(tmp_path / "envcache")) == 1


def test_damaged_entry_is_rebuilt(tmp_path):
    d = tmp_path / "cache"
    p = str(FIXTURES / "llama_graph_nsys.sqlite")
    cache.load(p, cache_dir=str(d))
    entry = d / cache.key(p)
    (entry / "kernels.parquet").write_bytes(b"garbage")
    t = cache.load(p, cache_dir=str(d))
    assert t.meta["cached"] is False and len(t.kernels) == 236


def test_cached_load_validates_like_a_fresh_one(tmp_path):
    """`info` caches a trace without GPU work; `report` must then fail exactly as without the cache
    (it answered IndexError from the cached tables)."""
    from traceattrib.errors import TraceError

    src = tmp_path / "cpu_only.json"
    src.write_text('{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", '
                   '"pid": 1, "tid": 1, "ts": 10.0, "dur": 5.0}]}')
    d = str(tmp_path / "cache")
    with pytest.raises(TraceError) as cold:
        cache.load(str(src), cache_dir=d)
    assert cache.load(str(src), cache_dir=d, require_gpu=False).meta["cached"] is False  # as `info` does
    assert len(os.listdir(d)) == 1
    with pytest.raises(TraceError) as warm:
        cache.load(str(src), cache_dir=d)
    assert str(warm.value) == str(cold.value) and "no GPU activity" in str(cold.value)
