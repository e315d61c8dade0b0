"""The command line: bad input is one line on stderr and exit status 2; commands work end to end."""
from __future__ import annotations

import gzip
import json
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from traceattrib.cli import main

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared, shared_files

EAGER = str(FIXTURES / "llama_eager_nsys.sqlite")
TORCH = str(FIXTURES / "llama_eager_torch.pt.trace.json.gz")


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_error(rc, err, *needles):
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("traceattrib: error:")
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], lines[0]


def test_missing_file(capsys):
    rc, _, err = run(capsys, "report", "/nonexistent/trace.sqlite")
    assert_one_line_error(rc, err, "no such file")


def test_file_that_is_no_trace(capsys, tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello, not a trace\n")
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "not a trace")


def test_png_is_no_trace(capsys, tmp_path):
    p = tmp_path / "x.json"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)
    rc, _, err = run(capsys, "info", str(p))
    assert_one_line_error(rc, err)


def test_truncated_json_gz(capsys, tmp_path):
    data = (FIXTURES / "llama_graph_torch.pt.trace.json.gz").read_bytes()
    p = tmp_path / "cut.json.gz"
    p.write_bytes(data[: len(data) // 2])
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "truncated")


def test_truncated_plain_json(capsys, tmp_path):
    raw = gzip.decompress((FIXTURES / "llama_graph_torch.pt.trace.json.gz").read_bytes())
    p = tmp_path / "cut.json"
    p.write_bytes(raw[: len(raw) // 2])
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err)


def test_sqlite_that_is_no_nsys_export(capsys, tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("create table people (name text)")
    con.commit()
    con.close()
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "not an Nsight Systems export")


def test_nsys_export_without_cuda_tracing(capsys, tmp_path):
    # a real export with the CUDA activity tables dropped, as `nsys profile -t nvtx,osrt` leaves it
    p = tmp_path / "nocuda.sqlite"
    shutil.copy(EAGER, p)
    con = sqlite3.connect(p)
    for (t,) in con.execute("select name from sqlite_master where type='table' and name like 'CUPTI_%'").fetchall():
        con.execute(f"drop table {t}")
    con.commit()
    con.close()
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "-t cuda")
    rc, out, _ = run(capsys, "info", str(p))  # info still describes it
    assert rc == 0 and "no GPU activity" in out


@needs_shared
def test_real_export_without_cuda_tracing(capsys):
    path = NSYS_VERSIONS / "mabdullahsoyturk_cardiac-simulation__1917303__report1.sqlite"
    rc, _, err = run(capsys, "report", str(path))
    assert_one_line_error(rc, err, "no CUDA activity")


def test_empty_file(capsys, tmp_path):
    p = tmp_path / "empty.json"
    p.write_bytes(b"")
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "empty")


def test_empty_trace(capsys, tmp_path):
    p = tmp_path / "empty.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": []}))
    rc, _, err = run(capsys, "report", str(p))
    assert_one_line_error(rc, err, "no GPU activity")


def test_directory_without_traces(capsys, tmp_path):
    (tmp_path / "readme.txt").write_text("x")
    rc, _, err = run(capsys, "report", str(tmp_path))
    assert_one_line_error(rc, err, "no torch.profiler traces")


@pytest.mark.parametrize("args, needle", [
    (("report", EAGER, "--what-if", "gemm=2"), "'--what-if'"),
    (("report", EAGER, "--what-if", "cast=0"), "'--what-if'"),
    (("report", EAGER, "--what-if", "cast=nan"), "'--what-if'"),
    (("report", EAGER, "--what-if", "cast"), "'--what-if'"),
    (("report", EAGER, "--steps", "("), "'--steps'"),
    (("report", EAGER, "--layers", "0"), "'--layers'"),
    (("report", EAGER, "--layers", "two"), "'--layers'"),
    (("report", EAGER, "--format", "xml"), "'--format'"),
    (("report", EAGER, "--rules", "/nonexistent/rules.toml"), "'--rules'"),
    (("classify", EAGER, "--top", "-1"), "'--top'"),
    (("diff", EAGER, EAGER, "--fail-if-slower", "nan"), "'--fail-if-slower'"),
    (("diff", EAGER, EAGER, "--fail-if-slower", "gemm=5"), "'--fail-if-slower'"),
    (("diff", EAGER, EAGER, "--fail-if-slower", "communication=-1"), "'--fail-if-slower'"),
    (("diff", EAGER, "--fail-if-slower", "5"), "expected BEFORE and AFTER"),
    (("diff", EAGER, "--before", EAGER, "--after", EAGER), "give BEFORE AFTER"),
    (("plot", EAGER, "-o", "steps.gif"), "'--output'"),
    (("plot", EAGER, "-o", "steps.png", "--step", "-1"), "'--step'"),
    (("report",), "Missing argument 'FILE'"),
    (("reprot", EAGER), "No such command 'reprot'"),
    (("report", EAGER, "--bogus"), "--bogus"),
])
def test_usage_errors_one_style(capsys, args, needle):
    """Every bad option value goes through click's own error path and reads the same way."""
    rc, out, err = run(capsys, *args)
    assert_one_line_error(rc, err, needle)
    assert err.rstrip().endswith("--help')")
    assert out == ""


def test_step_and_rank_checked_against_the_trace(capsys, tmp_path):
    rc, _, err = run(capsys, "plot", EAGER, "-o", str(tmp_path / "s.png"), "--step", "99")
    assert_one_line_error(rc, err, "Invalid value for '--step'", "no step 99 on rank 0 (steps are 0..24)")
    rc, _, err = run(capsys, "plot", EAGER, "-o", str(tmp_path / "s.png"), "--step", "1", "--rank", "3")
    assert_one_line_error(rc, err, "Invalid value for '--rank'", "no rank 3")
    assert not (tmp_path / "s.png").exists()


def test_rules_fifo_is_refused(capsys, tmp_path):
    import os
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    rc, _, err = run(capsys, "explain", "x", "--rules", str(fifo))
    assert_one_line_error(rc, err, "'--rules'", "not a regular file")


def test_no_command_prints_help(capsys):
    rc, out, err = run(capsys)
    assert rc == 2 and "Commands:" in err and "report" in err


def test_unwritable_output(capsys, tmp_path):
    rc, _, err = run(capsys, "report", EAGER, "-o", str(tmp_path / "missing" / "r.txt"))
    assert_one_line_error(rc, err, "cannot write", "No such file or directory")
    rc, _, err = run(capsys, "plot", EAGER, "-o", str(tmp_path / "missing" / "r.png"))
    assert_one_line_error(rc, err, "cannot write")


def test_internal_error_is_called_a_bug(capsys, monkeypatch):
    """An exception we did not foresee is exit 3 and says it is our bug, not the input's fault."""
    import traceattrib.parallel

    def broken(*a, **k):
        return {}["steps"]
    monkeypatch.setattr(traceattrib.parallel, "merge", broken)
    rc, out, err = run(capsys, "report", EAGER)
    assert rc == 3 and out == ""
    assert err.strip().splitlines() == ["traceattrib: bug: KeyError: 'steps'; please report with "
                                        "TRACEATTRIB_DEBUG=1 output"]
    monkeypatch.setenv("TRACEATTRIB_DEBUG", "1")
    rc, out, err = run(capsys, "report", EAGER)
    assert rc == 3 and "Traceback" in err and "in broken" in err
    assert err.strip().splitlines()[-1].startswith("traceattrib: bug: KeyError")


def test_input_error_with_debug_shows_traceback(capsys, monkeypatch):
    monkeypatch.setenv("TRACEATTRIB_DEBUG", "1")
    rc, _, err = run(capsys, "report", "/nonexistent/trace.sqlite")
    assert rc == 2 and "Traceback" in err and err.strip().splitlines()[-1].endswith("no such file or directory")


def test_reader_warnings_printed_cold_and_warm(capsys, monkeypatch, tmp_path):
    """Warnings a reader leaves in meta['warnings'] reach stderr whether or not the cache answered."""
    from harness import trace_with_reader_warning

    src = trace_with_reader_warning(monkeypatch, tmp_path)
    for _cached in (False, True):
        rc, out, err = run(capsys, "report", str(src), "--format", "json")
        assert rc == 0 and json.loads(out)["steps"]
        assert err == "traceattrib: warning: dropped 3 kernels whose end precedes their start (table KERNEL)\n"


def test_plot_without_matplotlib(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    rc, _, err = run(capsys, "plot", EAGER, "-o", str(tmp_path / "p.png"))
    assert_one_line_error(rc, err, "needs matplotlib", "pip install 'traceattrib[plot]'")


def test_closed_pipe_is_not_an_error(tmp_path):
    """`traceattrib ... | head -1`: exit 0, nothing on stderr (the output is far larger than a pipe)."""
    names = tmp_path / "names.txt"
    names.write_text("".join(f"ncclDevKernel_AllReduce_Sum_bf16_RING_LL_{i}\n" for i in range(50_000)))
    with open(names) as stdin:
        p = subprocess.Popen([sys.executable, "-m", "traceattrib", "explain", "-"], stdin=stdin,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.stdout.readline().split()[0] == b"communication"
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait(timeout=120) == 0 and err == ""


def test_entry_point_subprocess(tmp_path):
    p = tmp_path / "junk.sqlite"
    p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    r = subprocess.run([sys.executable, "-m", "traceattrib", "report", str(p)], capture_output=True, text=True)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_input_never_modified(capsys, tmp_path):
    import hashlib
    before = hashlib.sha256((FIXTURES / "llama_graph_nsys.sqlite").read_bytes()).hexdigest()
    rc, _, _ = run(capsys, "report", str(FIXTURES / "llama_graph_nsys.sqlite"), "--no-cache")
    assert rc == 0
    assert hashlib.sha256((FIXTURES / "llama_graph_nsys.sqlite").read_bytes()).hexdigest() == before


# --- commands end to end -------------------------------------------------------------------------

def test_report_text(capsys):
    rc, out, _ = run(capsys, "report", EAGER, "--what-if", "cast=2", "--per-step")
    assert rc == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "DECODE  24 step(s)" in out and "PREFILL  1 step(s)" in out
    assert "what if cast were 2x faster" in out
    assert "per step (ms" in out and "decode_step_23" in out


def test_report_json_contract(capsys):
    rc, out, _ = run(capsys, "report", TORCH, "--format", "json")
    d = json.loads(out)
    assert len(d["steps"]) == 25
    s = d["steps"][1]
    for key in ("index", "name", "kind", "start_ns", "end_ns", "span_ns", "busy_ns", "idle_ns", "buckets"):
        assert key in s
    assert s["span_ns"] == s["end_ns"] - s["start_ns"]
    assert set(s["buckets"]["cast"]) >= {"time_ns", "exposed_ns", "count"}
    assert sum(b["exposed_ns"] for b in s["buckets"].values()) + s["overlap_ns"] + s["idle_ns"] == s["span_ns"]
    sm = d["summary"]
    assert sm["step_counts"] == {"decode": 24, "prefill": 1}
    assert sm["median_span_ns"] > 0
    assert set(sm["bucket_share"]) >= {"linear", "attention", "communication", "cast", "other"}
    assert sm["speedup_bound_if_removed"]["cast"] > 1.2


def test_report_written_in_slices_is_the_whole_text(capsys, monkeypatch):
    """A long report reaches stdout in slices (no second, encoded copy of it at once): the bytes are
    those of the report written whole, and `--output` (written whole) holds the same."""
    import traceattrib.cli as cli

    rc, whole, _ = run(capsys, "report", TORCH, "--format", "json", "--no-cache")
    monkeypatch.setattr(cli, "ECHO_CHARS", 7)
    rc2, sliced, _ = run(capsys, "report", TORCH, "--format", "json", "--no-cache")
    assert rc == rc2 == 0 and len(whole) > 10_000 and sliced == whole
    assert json.loads(sliced)["summary"]["step_counts"] == {"decode": 24, "prefill": 1}


def test_report_md_and_csv(capsys):
    rc, out, _ = run(capsys, "report", EAGER, "--format", "md")
    assert rc == 0 and "| bucket |" in out and "llama_eager_nsys.sqlite" in out and "NVIDIA H200" in out
    assert "<img" not in out
    rc, out, _ = run(capsys, "report", EAGER, "--format", "csv")
    lines = out.strip().splitlines()
    assert len(lines) == 26 and lines[0].startswith("rank,index,name,kind")


def test_info_every_fixture(capsys):
    for p in sorted(FIXTURES.glob("*.sqlite")) + sorted(FIXTURES.glob("*.json.gz")):
        rc, out, _ = run(capsys, "info", str(p))
        assert rc == 0 and "NVIDIA H200" in out and "kernels" in out


@needs_shared
@pytest.mark.parametrize("path", shared_files(NSYS_VERSIONS, "*.sqlite") + shared_files(PUBLIC, "*.json.gz"),
                         ids=lambda p: p.name[:40])
def test_info_every_shared_trace(capsys, path):
    rc, out, err = run(capsys, "info", str(path))
    assert rc == 0, err
    assert "format" in out and "time span" in out


@pytest.mark.skipif(not (NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite").is_file(),
                    reason="../shared/traces is absent")
def test_unnamed_gpus_are_said_unnamed_in_the_title(capsys):
    # nsys-ai's 2-GPU export has no GPU table: the title says so instead of listing "device 0" as a GPU
    path = str(NSYS_VERSIONS / "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite")
    rc, out, err = run(capsys, "report", path, "--format", "md", "--no-cache")
    assert rc == 0, err
    assert out.splitlines()[0].endswith("· GPU unnamed (device 0, device 1), 2 ranks`")
    rc, out, err = run(capsys, "info", path)
    assert rc == 0 and "GPU unnamed (device 0, device 1)" in out.splitlines()[0]


def test_trace_line_names_gpus_and_counts_them():
    from traceattrib.render.fmt import trace_line
    meta = {"path": "/x/t.sqlite", "profiler": "Nsight Systems", "ranks": [0, 1, 2]}
    assert trace_line({**meta, "gpus": ["NVIDIA H200"] * 2 + ["device 10", "device 2"]}) == \
        "t.sqlite · Nsight Systems · 2x NVIDIA H200, GPU unnamed (device 2, device 10), 3 ranks"
    assert trace_line({**meta, "gpus": []}) == "t.sqlite · Nsight Systems · GPU unknown, 3 ranks"


def test_info_json(capsys):
    rc, out, _ = run(capsys, "info", TORCH, "--format", "json")
    d = json.loads(out)
    assert d["counts"]["kernels"] == 6548 and d["format"] == "torch"
    assert d["annotations"]["user_annotation: decode_step_#"] == 24


def test_diff_and_gate(capsys):
    graph = str(FIXTURES / "llama_graph_torch.pt.trace.json.gz")
    rc, out, _ = run(capsys, "diff", EAGER, graph, "--format", "json", "--fail-if-slower", "1")
    assert rc == 0
    d = json.loads(out)
    k = d["kinds"]["decode"]
    # CUDA graphs removed the launch gaps: the whole 95% interval is a cut of more than 15%
    assert k["verdict"] == "lower" and k["median"]["change"] < -0.15 and k["median"]["ci"][1] < -0.15
    # idle split into causes: the launch gaps are what CUDA graphs removed
    assert k["contributions"][0]["part"] == "launch idle"
    assert k["idle_causes"]["launch"]["change_ns"] < -1.0e6
    assert sum(c["change_ns"] for c in k["contributions"]) == pytest.approx(k["mean"]["change_ns"], abs=1)
    assert d["gate"]["tripped"] is False and d["gate"]["kind"] == "decode" and d["gate"]["threshold"] == 0.01
    assert [c["code"] for c in d["checks"]] == ["capture", "profiler"] and not d["refused"]
    rc, out, err = run(capsys, "diff", graph, EAGER, "--format", "md", "--fail-if-slower", "5")
    assert rc == 1 and "slower" in err and "| per step (ms) |" in out
    assert out.rstrip().splitlines()[-1].startswith("**gate: TRIPPED: decode median +")


def test_plot(capsys, tmp_path):
    for args in ((), ("--step", "3")):
        out = tmp_path / f"p{len(args)}.png"
        rc, _, _ = run(capsys, "plot", EAGER, "-o", str(out), *args)
        assert rc == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "p.svg"
    assert run(capsys, "plot", TORCH, "-o", str(svg))[0] == 0 and svg.read_text().lstrip().startswith("<?xml")


def test_plot_step_of_whole_graph_executions(capsys, tmp_path):
    """A decode step that is one whole-graph execution (no kernel records of its own) draws that
    execution on its stream, coloured as a graph (it raised in matplotlib's legend before)."""
    svg = tmp_path / "g.svg"
    rc, out, err = run(capsys, "plot", str(FIXTURES / "llama_graph_nsys.sqlite"), "-o", str(svg), "--step", "1")
    assert rc == 0, err
    text = svg.read_text()  # (matplotlib writes text as paths, each after a comment naming it)
    assert "<!-- GPU0 stream 7 -->" in text and "<!-- graph -->" in text  # its one lane, the legend
    assert re.search(r'clip-path="url\(#\w+\)" style="fill: #ccb974"', text)  # the execution's bar
    assert "step 1 (decode_step_0, decode)" in text


def test_plot_layers(capsys, tmp_path):
    """The layer x bucket heatmap: one row per layer, its type beside its index, one cell per bucket."""
    moe = FIXTURES / "moe_graph_torch.pt.trace.json.gz"
    svg = tmp_path / "layers.svg"
    rc, out, _ = run(capsys, "plot", str(moe), "--layers", "-o", str(svg))
    assert rc == 0 and out.strip() == f"wrote {svg}"
    text = svg.read_text()
    for i in range(8):
        assert f"{i} attention + {'moe' if i % 2 else 'mlp'}" in text
    assert "time per layer and bucket" in text
    rc, _, err = run(capsys, "plot", str(moe), "--layers", "--kind", "mixed", "-o", str(svg))
    assert_one_line_error(rc, err, "no layers found in the mixed steps (kinds with layers: decode, prefill)")
    rc, _, err = run(capsys, "plot", str(moe), "--layers", "--kind", "nope", "-o", str(svg))
    assert_one_line_error(rc, err, "'nope' is not a step kind")


def test_export_after_report_has_the_columns_the_report_did_not_read(capsys, tmp_path):
    """`report` reads an Nsight Systems export lean (no block sizes, no short names) and fills the
    cache; `export` (Parquet in this process or on workers, --perfetto) must still write them."""
    import pandas as pd

    src = tmp_path / "t.sqlite"
    shutil.copy(EAGER, src)
    cache_dir = str(tmp_path / "cache")
    assert run(capsys, "report", str(src), "--cache-dir", cache_dir)[0] == 0
    for extra in ([], ["--workers", "1"]):
        out = tmp_path / f"out{len(extra)}"
        assert run(capsys, "export", str(src), "-o", str(out), "--cache-dir", cache_dir, *extra)[0] == 0
        k = pd.read_parquet(out / "kernels.parquet")
        assert (k["block_x"] > 0).all() and k["short_name"].astype(str).str.len().gt(0).all(), extra
    pf = tmp_path / "t.json.gz"
    assert run(capsys, "export", str(src), "--perfetto", str(pf), "--cache-dir", cache_dir)[0] == 0
    with gzip.open(pf, "rt") as f:
        ev = json.load(f)["traceEvents"]
    blocks = [e["args"]["block"] for e in ev if "block" in e.get("args", {})]
    assert blocks and all(min(b) >= 1 for b in blocks)


def test_export_parquet(capsys, tmp_path):
    import pandas as pd
    rc, out, _ = run(capsys, "export", TORCH, "-o", str(tmp_path / "out"))
    assert rc == 0
    k = pd.read_parquet(tmp_path / "out" / "kernels.parquet")
    assert len(k) == 6548 and {"start_ns", "end_ns", "name", "op"} <= set(k.columns)
    assert json.loads((tmp_path / "out" / "meta.json").read_text())["format"] == "torch"


def test_classify_command(capsys):
    rc, out, _ = run(capsys, "classify", TORCH, "--format", "json", "--top", "0")
    rows = json.loads(out)
    assert {"name", "bucket", "rule", "total_ns", "count", "share"} <= set(rows[0])
    assert abs(sum(r["share"] for r in rows) - 1.0) < 1e-9
    assert rows == sorted(rows, key=lambda r: -r["total_ns"])
    by = {r["bucket"] for r in rows}
    assert {"linear", "attention", "cast", "elementwise"} <= by
    rc, out, _ = run(capsys, "classify", EAGER, "--top", "5")
    assert rc == 0 and "unclassified (other):" in out and "... " in out


def test_explain_command(capsys, monkeypatch):
    import io
    names = ["ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
             "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_splitK_TNT", "multimem_all_reduce_kernel"]
    rc, out, _ = run(capsys, "explain", *names, "--format", "json")
    got = json.loads(out)
    assert [g["bucket"] for g in got] == ["communication", "linear", "communication"]
    assert all(g["rule"] for g in got)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(names) + "\n"))
    rc, out2, _ = run(capsys, "explain", "-", "--format", "json")
    assert json.loads(out2) == got


def test_user_rules_file(capsys, tmp_path):
    rules = tmp_path / "mine.toml"
    rules.write_text('[[rule]]\nname = "my-gemv"\nbucket = "other"\nkernel = "^nvjet_"\n')
    rc, out, _ = run(capsys, "explain", "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "--rules", str(rules))
    assert rc == 0 and out.split()[:2] == ["other", "my-gemv"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[rule]]\nname = "x"\nbucket = "gemm"\nkernel = "a"\n')
    rc, _, err = run(capsys, "report", EAGER, "--rules", str(bad))
    assert_one_line_error(rc, err, "bad.toml")


def test_report_starts_an_exports_reads_before_its_imports(tmp_path, monkeypatch, capsys):
    """report begins reading an uncached export at once and hands the reads to the reader; it
    starts nothing for a directory, a JSON trace, a FIFO (never opened) or cached tables, and
    the reads it started are closed whatever happens."""
    import os
    import threading

    from traceattrib import cli, parallel
    from traceattrib.ingest import nsys_tables

    fifo = tmp_path / "pipe.sqlite"
    os.mkfifo(fifo)
    cache = str(tmp_path / "cache")
    for p, no_cache in ((str(tmp_path), True), (TORCH, True), (str(fifo), True)):
        assert cli._start_reads(p, no_cache, cache, None, None) is None
    assert cli._start_reads(EAGER, False, cache, 2, None) is None  # a cluster reads on its workers
    got = cli._start_reads(EAGER, False, cache, None, None)
    assert isinstance(got, nsys_tables.Started) and "CUPTI_ACTIVITY_KIND_KERNEL" in got.pending
    got.close()
    assert got.closed and got.src.con is None

    seen = []
    real = parallel.file_task
    monkeypatch.setattr(parallel, "file_task", lambda *a, **kw: seen.append(kw.get("started")) or real(*a, **kw))
    threads = threading.active_count()
    assert main(["report", EAGER, "--cache-dir", cache]) == 0
    assert isinstance(seen[-1], nsys_tables.Started) and seen[-1].closed
    out = capsys.readouterr().out
    assert cli._start_reads(EAGER, False, cache, None, None) is None  # its tables are cached now
    assert main(["report", EAGER, "--cache-dir", cache, "--per-step"]) == 0
    assert seen[-1] is None
    capsys.readouterr()
    assert main(["report", EAGER, "--no-cache"]) == 0 and capsys.readouterr().out == out
    assert threading.active_count() == threads  # the readers' threads are gone


@needs_shared
def test_counts_below_one_per_step_are_not_rounded_to_zero(capsys):
    # a kernel that runs in some steps only: find_most_negative of a CUDA sample (balinski-and-
    # gomory) runs 163 times in the 2,150 steps its summary keeps, 0.076 per step, not "0x"
    from traceattrib import analysis
    from traceattrib.ingest import read
    from traceattrib.render.fmt import per_step_count

    path = str(NSYS_VERSIONS / "cestwc_balinski-and-gomory-cuda__ddb2578__report13.sqlite")
    rc, out, _ = run(capsys, "report", path)
    assert rc == 0
    top = out[out.index("top kernels per bucket"):].split("\n\n")[0].splitlines()[1:]
    assert len(top) == 3 and not any(" 0x " in line for line in top)
    assert re.search(r"other +0\.005 ms +0\.076x +find_most_negative", out)
    g = analysis.top_kernels(analysis.analyze(read(path)), "unknown")
    fractions = sorted(round(c / s, 3) for c, s in zip(g["count"], g["steps"]) if c < s)
    assert fractions == [0.076]
    assert [per_step_count(x) for x in (0, 0.00093, 0.0763, 0.1666, 0.54, 1, 5.4)] == \
        ["0", "<0.01", "0.076", "0.17", "0.54", "1", "5"]
    # the bucket table's count column: no memory op in the steps the summary keeps (56 of the
    # trace's 67 copies are in its warm-up and outlier steps, the rest outside every step)
    table = out[out.index("per step (mean, ms)"):].split("\n")
    memory = next(line for line in table if line.startswith("memory "))
    assert re.fullmatch(r"memory +0\.000 +0\.0% +0\.000 +0\.0% +0 +≤ 1\.00x +1\.00x", memory), memory
    assert re.search(r"other +0\.005 ms 0\.076x  find_most_negative", out)


@pytest.mark.parametrize("x, text", [(1.234, "1.23x"), (194.69, "194.69x"), (999.994, "999.99x"),
                                     (999.995, "1000x"), (19501.2, "19501x"), (99999.4, "99999x"),
                                     (99999.5, "1.0e5x"), (1.49e5, "1.5e5x"), (2.5e5, "2.5e5x"),
                                     (9.2e18, "9.2e18x"), (float("inf"), "n/a")])
def test_bound_text_fits_its_column(x, text):
    """Speed-up bounds: two decimals below 1000x, whole numbers to 1e5x, then two significant
    digits (a one-digit 1e+05x would understate 1.49e5x by a third); at most 7 characters for any
    bound whole-ns spans can give (below 1e19)."""
    from traceattrib.render.fmt import bound

    assert bound(x) == text and len(bound(x)) <= 7


def test_report_text_large_bounds_keep_their_columns(capsys, tmp_path):
    """Five GEMMs 1 us apart hold all but 4 us of the only step (as in a real trace of five fp16
    matmuls): the bound if removed is span / idle, 19501x (whole numbers from 1000x), and stays apart
    from its p90 column."""
    from tracegen import Event, Timeline, kineto_text

    gemm = "ampere_fp16_s16816gemm_fp16_128x256_ldg8_f2f_stages_64x3_nn"
    dur_ns, gap_ns = 15_600_000, 1_000
    ev = []
    for i in range(5):
        t = i * (dur_ns + gap_ns)
        ev += [Event("launch", "cudaLaunchKernel", t - 2_000 if i == 0 else t - 500_000, t - 1_500 if i == 0
                     else t - 499_000, corr=i + 1),
               Event("kernel", gemm, t, t + dur_ns, corr=i + 1)]
    src = tmp_path / "five_gemms.pt.trace.json"
    src.write_text(kineto_text(Timeline(ev, header={}), base_us=1_000))
    rc, out, _ = run(capsys, "report", "--no-cache", str(src))
    assert rc == 0, out
    row = next(line for line in out.splitlines() if line.startswith("linear "))
    span_ns, idle_ns = 5 * dur_ns + 4 * gap_ns, 4 * gap_ns
    want = f"{span_ns / idle_ns:.0f}x"
    assert want == "19501x"
    assert row.split()[-3:] == ["≤", want, want], row
    assert "exposed linear kernels: ≤ " + want in out
