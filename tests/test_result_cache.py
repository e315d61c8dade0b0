"""The stored analyses: per-file per-rank results (parallel.file_task), read back instead of
loading and analyzing a trace again, and the text of a whole `report` (cli), printed again
without analysis or pandas. Either way the output is exactly what a fresh run prints."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from traceattrib import cache, parallel, store
from traceattrib.cli import main
from traceattrib.ingest import rank_files

from conftest import FIXTURES, ROOT

FORMATS = ("text", "json", "md")


def run(capsys, *args) -> tuple[int, str, str]:
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def entries(path) -> list[str]:
    """The results entries of a trace file or of every rank file of a directory."""
    files = rank_files(str(path)) if os.path.isdir(path) else [str(path)]
    root = cache.default_dir()
    # beside the tables of a lean read, which the analyses make
    return sorted(e for f in files for e in glob.glob(os.path.join(root, cache.key(f, lean=True), "results-*.bin")))


def drop_outputs() -> int:
    """Forget the stored report texts (keeping tables and per-rank results): the next report
    merges and renders again; how many there were."""
    d = os.path.join(cache.default_dir(), "reports")
    n = len(os.listdir(d)) if os.path.isdir(d) else 0
    shutil.rmtree(d, ignore_errors=True)
    return n


@pytest.fixture
def analyses(monkeypatch):
    """Counts the per-rank analyses run (parallel.analyze_rank calls)."""
    calls = []
    real = parallel.analyze_rank

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(parallel, "analyze_rank", counted)
    return calls


def forbid_analysis(monkeypatch, merge: bool = False):
    """From now on, reading tables or analyzing (with merge: also merging) fails the test: only
    stored results (stored text) can answer."""
    def boom(*a, **k):
        raise AssertionError("the trace was read or analyzed again")
    monkeypatch.setattr(parallel, "analyze_rank", boom)
    monkeypatch.setattr(cache, "read_file", boom)
    if merge:
        monkeypatch.setattr(parallel, "analyze_path", boom)


@pytest.mark.parametrize("name, n_files, n_ranks", [("llama_eager_torch.pt.trace.json.gz", 1, 1),
                                                    ("tp2_eager_nsys.sqlite", 1, 2),
                                                    ("tp2_eager_torch", 2, 2)])
def test_second_report_is_a_hit_and_identical(capsys, monkeypatch, tmp_path, analyses, name, n_files, n_ranks):
    src = tmp_path / name
    (shutil.copytree if (FIXTURES / name).is_dir() else shutil.copy)(FIXTURES / name, src)
    rc, cold, _ = run(capsys, "report", src, "--per-step")
    assert rc == 0 and len(analyses) == n_ranks
    assert len(entries(src)) == n_files  # one per rank file, beside its tables
    fresh = {fmt: run(capsys, "report", src, "--per-step", "--format", fmt, "--no-cache")[1] for fmt in FORMATS}
    assert fresh["text"] == cold
    forbid_analysis(monkeypatch)
    assert drop_outputs() == 1  # the cold run's text: gone, so the runs below merge stored results
    for fmt in FORMATS:
        rc, warm, err = run(capsys, "report", src, "--per-step", "--format", fmt)
        assert (rc, err) == (0, "")
        assert warm == fresh[fmt], fmt
    forbid_analysis(monkeypatch, merge=True)  # now the stored texts answer
    for fmt in FORMATS:
        assert run(capsys, "report", src, "--per-step", "--format", fmt) == (0, fresh[fmt], ""), fmt
    rep = json.loads(fresh["json"])
    assert len({s["rank"] for s in rep["steps"]}) == n_ranks and len(rep["steps"]) > 0


def test_hit_is_flagged_in_meta(tmp_path, analyses):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    kw = dict(steps_regex=None, rules=None, use_cache=True, cache_dir=None)
    meta, res = parallel.file_task(str(src), **kw)
    assert meta["results_cached"] is False and meta["cached"] is False and len(analyses) == 1
    meta2, res2 = parallel.file_task(str(src), **kw)
    assert meta2["results_cached"] is True and meta2["cached"] is True and len(analyses) == 1
    assert meta2["path"] == str(src) and meta2["format"] == meta["format"] == "nsys"
    assert [r.rank for r in res2] == [r.rank for r in res] and len(res2[0].steps) == len(res[0].steps) > 0
    meta3, _ = parallel.file_task(str(src), **dict(kw, use_cache=False))
    assert "results_cached" not in meta3 and len(analyses) == 2


def test_changed_options_miss(capsys, tmp_path, analyses):
    src = tmp_path / "t.sqlite"  # no op shapes: the speed-of-light floor comes from --model
    shutil.copy(FIXTURES / "llama_eager_nsys.sqlite", src)
    config = tmp_path / "config.json"
    shutil.copy(FIXTURES / "serve_like.config.json", config)
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "mine"\nbucket = "linear"\nkernel = "gemm"\n')
    runs = [[], ["--layers", "4"], ["--steps", "decode"], ["--rules", rules], ["--model", config],
            ["--model", config, "--batch", "2"], ["--peak-bw", "3T"]]
    for i, opts in enumerate(runs, 1):
        assert run(capsys, "report", src, *opts)[0] == 0
        assert len(analyses) == i and len(entries(src)) == i, opts
    # a render-only option reuses the entry of the options before it
    assert run(capsys, "report", src, "--peak-bw", "3T", "--what-if", "linear=2", "--per-step")[0] == 0
    assert len(analyses) == len(runs)
    # the same paths with other content: the rules and the model config are keyed by content
    rules.write_text('[[rule]]\nname = "mine"\nbucket = "attention"\nkernel = "gemm"\n')
    before = run(capsys, "report", src, "--model", config, "--format", "json")[1]
    config.write_text(config.read_text().replace('"num_hidden_layers": 8', '"num_hidden_layers": 16'))
    after = run(capsys, "report", src, "--model", config, "--format", "json")[1]
    assert run(capsys, "report", src, "--rules", rules)[0] == 0
    assert len(analyses) == len(runs) + 2  # the config's new content, the rules' new content
    weights = [json.loads(o)["steps"][-1]["speed_of_light"]["weight_bytes"] for o in (before, after)]
    assert weights[1] > weights[0] > 0  # twice the layers: the new config was used, not the cached results


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty"])
def test_damaged_entry_is_rebuilt(capsys, tmp_path, analyses, damage):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    rc, first, _ = run(capsys, "report", src, "--format", "json")
    entry, = entries(src)
    blob = open(entry, "rb").read()
    bad = {"garbage": b"not an entry at all", "truncated": blob[:len(blob) // 2],
           "flipped": blob[:-10] + bytes([blob[-10] ^ 1]) + blob[-9:], "empty": b""}[damage]
    with open(entry, "wb") as f:
        f.write(bad)
    drop_outputs()
    rc, again, err = run(capsys, "report", src, "--format", "json")
    assert (rc, err, again) == (0, f"traceattrib: warning: {cache.damaged(entry)}\n", first)
    assert len(analyses) == 2  # analyzed again, not read from the damaged entry
    assert open(entry, "rb").read() == blob and cache.read_results(entry) is not None  # rewritten whole


def test_reader_warnings_print_on_a_hit(capsys, monkeypatch, tmp_path, analyses):
    from harness import trace_with_reader_warning

    src = trace_with_reader_warning(monkeypatch, tmp_path)
    want = "traceattrib: warning: dropped 3 kernels whose end precedes their start (table KERNEL)\n"
    rc, cold, err = run(capsys, "report", src)
    assert (rc, err) == (0, want)
    analyze_path = parallel.analyze_path
    forbid_analysis(monkeypatch, merge=True)
    assert run(capsys, "report", src) == (0, cold, want)  # from the stored text
    monkeypatch.setattr(parallel, "analyze_path", analyze_path)
    assert drop_outputs() == 1
    assert run(capsys, "report", src) == (0, cold, want)  # from the stored per-rank results


def test_steps_matching_nothing_fails_alike_on_a_hit(capsys, monkeypatch, tmp_path, analyses):
    """The per-file results of an unmatched --steps are kept; the merge fails the same way."""
    src = tmp_path / "t.json.gz"
    shutil.copy(FIXTURES / "llama_eager_torch.pt.trace.json.gz", src)
    cold = run(capsys, "report", src, "--steps", "no_such_range_xyz")
    assert cold[0] == 2 and "matches no range name" in cold[2] and len(entries(src)) == 1
    forbid_analysis(monkeypatch)
    assert run(capsys, "report", src, "--steps", "no_such_range_xyz") == cold


def test_no_cache_neither_reads_nor_writes(capsys, tmp_path, analyses):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    for i in (1, 2):
        assert run(capsys, "report", src, "--no-cache")[0] == 0
        assert len(analyses) == i
    assert not os.path.exists(cache.default_dir())


def test_unwritable_cache_only_costs_speed(capsys, monkeypatch, tmp_path, analyses):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    want = run(capsys, "report", src, "--no-cache")[1]

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(store.tempfile, "mkstemp", refuse)
    for i in (2, 3):
        rc, out, err = run(capsys, "report", src)
        assert (rc, out) == (0, want) and len(err.splitlines()) == 1  # said once, the report as without a cache
        assert "cannot write the cache in" in err and "Permission denied" in err
        assert len(analyses) == i and entries(src) == [] and drop_outputs() == 0


# --- the text of a whole report ----------------------------------------------------------------

def test_stored_text_answers_and_writes_output_files(capsys, monkeypatch, tmp_path):
    src = tmp_path / "tp2"
    shutil.copytree(FIXTURES / "tp2_eager_torch", src)
    first = run(capsys, "report", src, "--format", "md", "--layers", "4")
    assert first[0] == 0 and "2 ranks" in first[1] and "Steps: 26" in first[1]
    forbid_analysis(monkeypatch, merge=True)
    assert run(capsys, "report", src, "--format", "md", "--layers", "4") == first
    assert run(capsys, "report", src, "--format", "md", "--layers", "4", "-o", tmp_path / "r.md") == (0, "", "")
    assert (tmp_path / "r.md").read_text() == first[1]
    # the cluster flags are checked, never skipped for a stored text
    rc, out, err = run(capsys, "report", src, "--format", "md", "--layers", "4", "--workers", "0")
    assert rc == 2 and "--workers 0: need at least 1" in err


def test_changed_input_misses_the_stored_text(capsys, tmp_path, analyses):
    src = tmp_path / "tp2"
    shutil.copytree(FIXTURES / "tp2_eager_torch", src)
    first = run(capsys, "report", src)
    assert first[0] == 0 and len(analyses) == 2
    assert run(capsys, "report", src) == first and len(analyses) == 2
    os.utime(src / "rank1.pt.trace.json.gz", ns=(1, 1))  # one rank file changed: analyzed again
    assert run(capsys, "report", src) == first and len(analyses) == 3
    os.remove(src / "rank1.pt.trace.json.gz")  # one rank gone: a different report
    rc, out, _ = run(capsys, "report", src)
    assert rc == 0 and out != first[1] and len(analyses) == 4
    assert json.loads(run(capsys, "report", src, "--format", "json")[1])["trace"]["ranks"] == [0]


def test_damaged_stored_text_is_rebuilt(capsys, tmp_path, analyses):
    src = tmp_path / "t.sqlite"
    shutil.copy(FIXTURES / "llama_graph_nsys.sqlite", src)
    first = run(capsys, "report", src, "--per-step")
    entry, = glob.glob(os.path.join(cache.default_dir(), "reports", "*.json"))
    blob = open(entry, "rb").read()
    with open(entry, "wb") as f:
        f.write(blob[:-1])
    assert run(capsys, "report", src, "--per-step") == first[:2] + (f"traceattrib: warning: {cache.damaged(entry)}\n",)
    assert open(entry, "rb").read() == blob and cache.read_output(entry) == (first[1], [])


def test_stored_text_needs_no_pandas(tmp_path):
    """A repeated report imports neither numpy nor pandas (what makes it take well under a second)."""
    env = dict(os.environ, TRACEATTRIB_CACHE_DIR=str(tmp_path / "c"), PYTHONPATH=str(ROOT))
    code = ("import sys; from traceattrib.cli import main; "
            f"rc = main(['report', {str(FIXTURES / 'llama_graph_nsys.sqlite')!r}, '--format', 'json']); "
            "assert rc == 0, rc; "
            "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules), file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True) for _ in (0, 1)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert [r.stderr for r in runs] == ["['numpy', 'pandas', 'pyarrow']\n", "[]\n"]
    assert runs[1].stdout == runs[0].stdout and json.loads(runs[0].stdout)["steps"]
