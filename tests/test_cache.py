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


def test_cache_parquet_is_written_for_reading_back(tmp_path):
    """A cache entry's Parquet: LZ4, no statistics, dictionaries on the categorical columns only;
    the same tables written for other tools (`export`) keep pyarrow's defaults."""
    import pyarrow.parquet as pq

    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    d = tmp_path / "cache"
    t = cache.load(str(src), cache_dir=str(d))
    (entry,) = [p for p in d.iterdir() if (p / "meta.json").exists()]
    cache.write_tables(t, str(tmp_path / "export"))
    for kind, folder in (("cache", entry), ("export", tmp_path / "export")):
        col = {c.path_in_schema: c for c in
               (pq.ParquetFile(folder / "kernels.parquet").metadata.row_group(0).column(i)
                for i in range(len(t.kernels.columns)))}
        name, start = col["name"], col["start_ns"]
        assert "RLE_DICTIONARY" in str(name.encodings) or "PLAIN_DICTIONARY" in str(name.encodings), kind
        if kind == "cache":
            assert (name.compression, start.compression) == ("LZ4", "LZ4")
            assert not start.is_stats_set and not any("DICTIONARY" in e for e in start.encodings)
        else:
            assert start.compression == "SNAPPY" and start.is_stats_set


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


# --- size budget -------------------------------------------------------------------------------

def _copies(tmp_path, n):
    """n copies of a small real trace at different paths (n cache entries)."""
    out = []
    for i in range(n):
        p = tmp_path / f"t{i}.sqlite"
        shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", p)
        out.append(str(p))
    return out


def _du(path) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def test_budget_removes_least_recently_used_first(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    a, b, c, new = _copies(tmp_path, 4)
    for i, p in enumerate((a, b, c)):
        cache.load(p, cache_dir=str(d))
        os.utime(d / cache.key(p), ns=(10**18 + i, 10**18 + i))  # a used first, then b, then c
    size = {p: _du(d / cache.key(p)) for p in (a, b, c)}
    assert cache.load(a, cache_dir=str(d)).meta["cached"] is True  # a used again: now the newest
    # room for three entries: writing the fourth removes one, the least recently used (b), not a
    monkeypatch.setattr(cache, "max_bytes", lambda: size[a] + size[b] + size[c])
    assert cache.load(new, cache_dir=str(d)).meta["cached"] is False
    assert sorted(os.listdir(d)) == sorted(cache.key(p) for p in (a, c, new))
    assert sum(e["bytes"] for e in cache.entries(str(d))) == _du(d) <= cache.max_bytes()


def test_entry_just_written_is_kept_even_over_budget(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    a, b = _copies(tmp_path, 2)
    cache.load(a, cache_dir=str(d))
    monkeypatch.setattr(cache, "max_bytes", lambda: 0)
    cache.load(b, cache_dir=str(d))
    assert os.listdir(d) == [cache.key(b)]
    assert cache.load(b, cache_dir=str(d)).meta["cached"] is True


def test_budget_from_environment(monkeypatch):
    monkeypatch.setenv("TRACEATTRIB_CACHE_MAX_MB", "10")
    assert cache.max_bytes() == 10 << 20
    for bad in ("-1", "ten", "1e3", ""):
        monkeypatch.setenv("TRACEATTRIB_CACHE_MAX_MB", bad)
        assert cache.max_bytes() == cache.MAX_MB_DEFAULT << 20


def test_abandoned_temporary_entries_are_removed(tmp_path):
    d = tmp_path / "cache"
    old, fresh = d / ".tmp-old", d / ".tmp-fresh"
    old.mkdir(parents=True)
    fresh.mkdir()
    (old / "kernels.parquet").write_bytes(b"x" * 100)
    os.utime(old, (1, 1))
    cache.prune(str(d))
    assert not old.exists() and fresh.exists()  # a writer may still be filling the fresh one


def test_cache_command_counts_and_clears(tmp_path, capsys):
    import json

    from traceattrib.cli import main

    d = tmp_path / "cache"
    a, b = _copies(tmp_path, 2)
    assert main(["report", a, "--cache-dir", str(d)]) == 0
    cache.load(b, cache_dir=str(d))
    capsys.readouterr()
    assert main(["cache", "--cache-dir", str(d), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["trace_files"], got["reports"]) == (2, 1)
    assert got["bytes"] == _du(d)
    assert main(["cache", "--cache-dir", str(d), "--clear", "--format", "json"]) == 0
    got2 = json.loads(capsys.readouterr().out)
    assert got2["cleared_bytes"] == got["bytes"] and got2["bytes"] == 0
    assert _du(d) == 0


def test_stored_report_texts_share_the_budget(tmp_path, monkeypatch):
    d = str(tmp_path / "cache")
    first, second = cache.output_entry("first", d), cache.output_entry("second", d)
    cache.write_output(first, "a" * 5000, [])
    assert cache.read_output(first) == ("a" * 5000, [])
    monkeypatch.setattr(cache, "max_bytes", lambda: 0)
    cache.write_output(second, "b", [])
    assert cache.read_output(first) is None and cache.read_output(second) == ("b", [])
    assert [e["kind"] for e in cache.entries(d)] == ["report"]


def test_store_beside_the_analysis_keeps_the_trace_as_read(tmp_path):
    """file_task writes the tables while it analyzes (cache.read_file's deferred store): the entry
    holds the trace as read, not the world size the task sets afterwards, and reads back equal."""
    from traceattrib import parallel

    p = str(FIXTURES / "llama_eager_torch.pt.trace.json.gz")
    stores: list = []
    t = cache.read_file(p, cache_dir=str(tmp_path), deferred=stores)
    assert len(stores) == 1 and not cache.has_tables(p, str(tmp_path))  # not written yet
    t.meta["world_size"] = 99
    t.kernels["start_ns"] = 0  # a change after the read: not what the store writes
    stores[0]()
    back = cache.read_file(p, cache_dir=str(tmp_path))
    assert back.meta["cached"] and back.meta.get("world_size") != 99
    pd.testing.assert_frame_equal(back.kernels, read(p).kernels)

    shutil.rmtree(tmp_path)
    meta, results = parallel.file_task(p, None, None, use_cache=True, cache_dir=str(tmp_path), n_files=3)
    assert meta["cached"] is False and meta["results_cached"] is False and results
    assert cache.has_tables(p, str(tmp_path))
    again = cache.read_file(p, cache_dir=str(tmp_path))
    assert again.meta["cached"] and again.meta.get("world_size") != 3


def test_lean_and_whole_reads_keep_entries_of_their_own(tmp_path):
    """The analyses read an Nsight Systems export lean (without the columns only exports show);
    `export` after a `report` must not take the report's entry, so each read has its own, while a
    torch trace, read whole either way, keeps one."""
    from traceattrib import parallel

    d = str(tmp_path / "cache")
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_eager_nsys.sqlite", src)
    p = str(src)
    parallel.file_task(p, None, None, use_cache=True, cache_dir=d)  # what `report` does
    assert cache.has_tables(p, d, lean=True) and not cache.has_tables(p, d)
    whole = cache.read_file(p, cache_dir=d)
    assert whole.meta["cached"] is False and (whole.kernels["block_x"] > 0).all()
    lean = cache.read_file(p, cache_dir=d, lean=True)
    assert lean.meta["cached"] is True and lean.meta["lean"] is True and (lean.kernels["block_x"] == 0).all()
    assert cache.key(p, lean=True) != cache.key(p) and len(os.listdir(d)) == 2

    t = tmp_path / "t.json.gz"
    shutil.copy(FIXTURES / "llama_eager_torch.pt.trace.json.gz", t)
    assert cache.key(str(t), lean=True) == cache.key(str(t))
    parallel.file_task(str(t), None, None, use_cache=True, cache_dir=d)
    assert cache.read_file(str(t), cache_dir=d).meta["cached"] is True and len(os.listdir(d)) == 3


def test_a_lean_read_takes_a_whole_entry_and_reads_begun_decide_the_entry(tmp_path):
    """A whole entry holds every column a lean read takes: `report` after `export` reads it (and
    keeps its results beside it). Reads begun lean are stored as lean, whatever the caller said."""
    from traceattrib import parallel
    from traceattrib.ingest.nsys_tables import start

    d = str(tmp_path / "cache")
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_eager_nsys.sqlite", src)
    p = str(src)
    assert cache.read_file(p, cache_dir=d).meta["cached"] is False  # what `export` does
    assert cache.has_tables(p, d, lean=True) and cache.entry_key(p, d, lean=True) == cache.key(p)
    meta, _ = parallel.file_task(p, None, None, use_cache=True, cache_dir=d)
    assert meta["cached"] is True and os.listdir(d) == [cache.key(p)]
    assert any(f.startswith("results-") for f in os.listdir(os.path.join(d, cache.key(p))))

    shutil.rmtree(d)
    t = cache.read_file(p, cache_dir=d, started=start(p, lean=True))  # lean=False said, lean begun
    assert t.meta["lean"] is True and os.listdir(d) == [cache.key(p, lean=True)]
    whole = cache.read_file(p, cache_dir=d)
    assert whole.meta["cached"] is False and (whole.kernels["block_x"] > 0).all()
