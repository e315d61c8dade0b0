"""Faults made to happen for real, in separate processes: two reports sharing a cache at once, a
report killed (SIGKILL) while it writes the cache, a cache write beyond the file-size limit (what a
full disk does to a write), a cache directory this user cannot write, a Dask worker killed during
a job, a scheduler that does not answer. Each time: the report printed is the report of a cold
run, nothing half-written stays in the cache, and what went wrong is said in one line."""
from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
SRC = "llama_graph_nsys.sqlite"


def env(**extra) -> dict:
    e = dict(os.environ, PYTHONPATH=str(ROOT), **extra)
    e.pop("TRACEATTRIB_CACHE_DIR", None)
    return e


def cli(*args, preexec=None, extra_env=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "traceattrib", *map(str, args)], capture_output=True, text=True,
                          env=env(**(extra_env or {})), cwd="/", preexec_fn=preexec, timeout=timeout)


def cold(src, *opts) -> str:
    r = cli("report", src, "--no-cache", *opts)
    assert r.returncode == 0, r.stderr
    return r.stdout


def entry_files(cache_dir: Path) -> list[str]:
    """Every file in the cache, relative to it."""
    return sorted(str(p.relative_to(cache_dir)) for p in cache_dir.rglob("*") if p.is_file())


def half_written(cache_dir: Path) -> list[str]:
    """Temporaries and table entries without their meta (what a writer that stopped halfway leaves)."""
    out = [str(p) for p in cache_dir.rglob("*") if p.name.startswith(".tmp") or ".tmp" in p.name]
    for d in cache_dir.iterdir() if cache_dir.exists() else []:
        if d.is_dir() and d.name not in ("reports",) and any(d.glob("*.parquet")) \
                and not (d / "meta.json").exists():
            out.append(str(d))
    return out


@pytest.fixture()
def src(tmp_path) -> Path:
    p = tmp_path / "in" / SRC
    p.parent.mkdir()
    shutil.copy(FIXTURES / SRC, p)
    return p


# --- two at once --------------------------------------------------------------------------------

def test_two_reports_at_once_share_one_cache(src, tmp_path):
    want = cold(src, "--format", "json")
    cdir = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-m", "traceattrib", "report", str(src), "--format", "json",
                               "--cache-dir", str(cdir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env(), cwd="/") for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and err == "" and out == want
    assert half_written(cdir) == []
    # the cache both wrote is whole: read back (tables, results, report text) it gives the same
    for args in (("--format", "json"), ("--format", "json", "--per-step")):
        r = cli("report", src, *args, "--cache-dir", cdir)
        assert r.returncode == 0 and r.stderr == "" and r.stdout == cold(src, *args)


# --- killed while writing the cache ---------------------------------------------------------------

KILL_IN_WRITE = """
import os, signal, sys
import pandas as pd
real = pd.DataFrame.to_parquet
def to_parquet(self, path, *a, **k):
    real(self, path, *a, **k)
    if os.path.basename(str(path)) == sys.argv[1]:  # one table written, the entry not yet whole
        os.kill(os.getpid(), signal.SIGKILL)
pd.DataFrame.to_parquet = to_parquet
from traceattrib.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_killed_while_writing_the_cache_then_a_right_rerun(src, tmp_path):
    want = cold(src, "--format", "json")
    cdir = tmp_path / "cache"
    r = subprocess.run([sys.executable, "-c", KILL_IN_WRITE, "launches.parquet", "report", str(src), "--format",
                        "json", "--cache-dir", str(cdir)], capture_output=True, text=True, env=env(), cwd="/",
                       timeout=300)
    assert r.returncode == -signal.SIGKILL
    left = [p for p in cdir.rglob("*.parquet")]
    assert left, "the kill came before the cache was being written"
    # the killed writer's files are in a temporary folder, never in an entry
    assert all(p.parent.name.startswith(".tmp") for p in left)
    assert not any(cdir.glob("*/meta.json"))
    r = cli("report", src, "--format", "json", "--cache-dir", cdir)
    assert r.returncode == 0 and r.stderr == "" and r.stdout == want
    r = cli("report", src, "--format", "json", "--cache-dir", cdir, "--per-step")  # from the rebuilt tables
    assert r.returncode == 0 and r.stdout == cold(src, "--format", "json", "--per-step")
    assert len(list(cdir.glob("*/meta.json"))) == 1


# --- a full disk: writes beyond RLIMIT_FSIZE fail with EFBIG -----------------------------------

def small_files(limit: int):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), no signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_full_disk_warns_and_reports_right(src, tmp_path):
    want = cold(src, "--format", "json")
    cdir = tmp_path / "cache"
    r = cli("report", src, "--format", "json", "--cache-dir", cdir, preexec=small_files(4096))
    assert r.returncode == 0 and r.stdout == want
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "cannot write the cache" in err[0] and "File too large" in err[0], r.stderr
    assert half_written(cdir) == []
    assert not any(cdir.glob("*/meta.json"))
    # with room again, the cache fills and answers
    assert cli("report", src, "--format", "json", "--cache-dir", cdir).stdout == want
    assert len(list(cdir.glob("*/meta.json"))) == 1


# --- a cache directory this user cannot write ----------------------------------------------------

def read_only(cdir: Path) -> tuple[list[str], str]:
    """A command prefix that runs with `cdir` not writable, and the error a write then gets: as
    root (whom permissions do not stop) a read-only filesystem mounted on it in a mount namespace
    of the command's own; otherwise the folder's write permission taken away."""
    if os.geteuid() != 0:
        os.chmod(cdir, 0o500)
        return [], "Permission denied"
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"]).returncode != 0:
        pytest.skip("no mount namespace for a read-only filesystem")
    return ["unshare", "-m", "sh", "-c", 'mount -t tmpfs -o ro,size=1m,mode=0700 none "$0" && exec "$@"', str(cdir)], \
        "Read-only file system"


def test_read_only_cache_dir_one_warning(src, tmp_path):
    want = cold(src, "--format", "json")
    cdir = tmp_path / "cache"
    cdir.mkdir(mode=0o700)
    prefix, why = read_only(cdir)
    for _ in range(2):
        r = subprocess.run([*prefix, sys.executable, "-m", "traceattrib", "report", str(src), "--format", "json",
                            "--cache-dir", str(cdir)], capture_output=True, text=True, env=env(), cwd="/", timeout=300)
        assert r.returncode == 0 and r.stdout == want, r.stderr
        err = r.stderr.strip().splitlines()
        assert len(err) == 1 and "cannot write the cache" in err[0] and why in err[0], r.stderr
    assert entry_files(cdir) == []


# --- Dask -----------------------------------------------------------------------------------------

def test_unreachable_scheduler_is_one_line_exit_2(src):
    r = cli("report", src, "--scheduler", "tcp://127.0.0.1:9", timeout=120)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and r.stdout == "" and len(err) == 1
    assert err[0].startswith("traceattrib: error:") and "--scheduler tcp://127.0.0.1:9: cannot connect" in err[0]


@pytest.fixture()
def cluster():
    distributed = pytest.importorskip("distributed")
    import logging

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as lc, distributed.Client(lc) as client:
        yield client


def kill_a_busy_worker(client, times: int, stop: threading.Event, killed: list) -> None:
    """SIGKILL the process of a worker while it runs a task, `times` times."""
    while not stop.is_set() and len(killed) < times:
        busy = [w for w, tasks in client.processing().items() if tasks]
        if busy:
            try:
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            except Exception:  # the worker went meanwhile
                continue
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            time.sleep(0.3)  # the nanny restarts it
        time.sleep(0.01)


def test_worker_killed_during_a_job_completes_on_the_others(cluster, capsys):
    from traceattrib import parallel
    from traceattrib.cli import render_report

    d = FIXTURES / "tp2_eager_torch"
    want = render_report(parallel.analyze_path(str(d), use_cache=False), "json", False)
    stop, killed = threading.Event(), []
    t = threading.Thread(target=kill_a_busy_worker, args=(cluster, 1, stop, killed))
    t.start()
    try:
        got = parallel.analyze_path(str(d), use_cache=False, client=cluster)
    finally:
        stop.set()
        t.join()
    assert len(killed) == 1
    assert json.loads(render_report(got, "json", False)) == json.loads(want)


def test_worker_killed_every_time_is_one_line(cluster):
    from traceattrib import parallel
    from traceattrib.errors import TraceError

    d = FIXTURES / "tp2_eager_torch"
    stop, killed = threading.Event(), []
    t = threading.Thread(target=kill_a_busy_worker, args=(cluster, 50, stop, killed))
    t.start()
    try:
        with pytest.raises(TraceError) as e:
            parallel.analyze_path(str(d), use_cache=False, client=cluster)
    finally:
        stop.set()
        t.join()
    assert "the Dask worker processing it died" in str(e.value) and "\n" not in str(e.value)
