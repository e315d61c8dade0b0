"""Run the command line in-process the way a user would meet it, and check the contract every
answer must keep: exit 0 with sane numbers, or exit 2 with one line on stderr; never a traceback,
a Python warning, exit 3 or a hang."""
from __future__ import annotations

import contextlib
import io
import json
import math
import re
import signal
import warnings
from dataclasses import dataclass, field

from traceattrib.cli import main

# what may reach a terminal: printable text and line breaks only
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


class Hang(BaseException):
    """Raised by the alarm; a BaseException so the CLI's own handlers cannot swallow it."""


@dataclass
class Result:
    args: tuple
    rc: int
    out: str
    err: str
    warnings: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"traceattrib {' '.join(map(str, self.args))} -> {self.rc}\nstderr: {self.err[-2000:]}\n" \
               f"warnings: {self.warnings}"


def run_cli(*args, timeout: int = 60) -> Result:
    """traceattrib ARGS in this process: exit status, stdout, stderr and every Python warning
    raised meanwhile; raises Hang after `timeout` seconds (a FIFO opened for reading blocks)."""
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise Hang(f"traceattrib {' '.join(map(str, args))} still running after {timeout} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings(record=True) as caught, \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            warnings.simplefilter("always")
            rc = main([str(a) for a in args])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return Result(tuple(args), rc, out.getvalue(), err.getvalue(),
                  [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught])


def check_contract(r: Result) -> None:
    """What every run must satisfy, whatever the input."""
    assert not r.warnings, f"Python warnings:\n{r}"
    assert "Traceback" not in r.err, str(r)
    assert r.rc in (0, 1, 2), f"exit {r.rc} (3 is a bug of ours):\n{r}"
    lines = r.err.splitlines()
    if r.rc == 2:
        assert len(lines) == 1 and lines[0].startswith("traceattrib: error: "), f"not one error line:\n{r}"
        assert not CONTROL.search(lines[0]), f"control characters in the error line:\n{r}"
    else:
        assert all(line.startswith("traceattrib: warning: ") for line in lines), f"stray stderr:\n{r}"
    if r.rc == 0 and r.args and r.args[0] in ("report", "info", "classify", "diff"):
        fmt = _fmt(r.args)
        if fmt == "json":
            check_json_numbers(json.loads(r.out))
            if r.args[0] == "report":
                check_report_json(json.loads(r.out))
        elif fmt in ("text", "md"):
            bad = CONTROL.search(r.out)
            assert not bad, f"control character {bad.group(0)!r} in the output:\n{r.out[:3000]}"


def _fmt(args: tuple) -> str:
    args = [str(a) for a in args]
    return args[args.index("--format") + 1] if "--format" in args else "text"


def warning_lines(r: Result) -> list[str]:
    return [line for line in r.err.splitlines() if line.startswith("traceattrib: warning: ")]


def check_json_numbers(x, where: str = "$") -> None:
    """Every number finite; every *_ns duration, count and share non-negative."""
    if isinstance(x, dict):
        for k, v in x.items():
            check_json_numbers(v, f"{where}.{k}")
            if isinstance(v, (int, float)) and not isinstance(v, bool) and _non_negative(f"{where}.{k}"):
                assert v >= 0, f"{where}.{k} = {v} < 0"
    elif isinstance(x, list):
        for i, v in enumerate(x):
            check_json_numbers(v, f"{where}[{i}]")
    elif isinstance(x, float):
        assert math.isfinite(x), f"{where} = {x}"


def _non_negative(path: str) -> bool:
    # differences and changes (diff output, all_reduce_difference) may be negative, and so may the
    # clock offsets between ranks (a rank's clock behind rank 0's), keys or the tables they are in
    return not any(s in path for s in ("difference", "change", "delta", "offset"))


def check_report_json(d: dict) -> None:
    """Per step: exposed + overlapped + idle == span, spans consistent, bounds >= 1."""
    for s in d["steps"]:
        where = f"step rank {s['rank']} #{s['index']}"
        exposed = sum(b["exposed_ns"] for b in s["buckets"].values())
        assert exposed + s["overlap_ns"] + s["idle_ns"] == s["span_ns"], where
        assert s["span_ns"] == s["end_ns"] - s["start_ns"], where
        assert s["busy_ns"] + s["idle_ns"] == s["span_ns"], where
        for b, v in s["buckets"].items():
            assert 0 <= v["exposed_ns"] <= v["time_ns"] <= s["busy_ns"], (where, b)
        for b, v in s["speedup_bound_if_removed"].items():
            assert v is None or v >= 1.0, (where, b, v)


READER_WARNING = "dropped 3 kernels whose end precedes their start (table KERNEL)"


def trace_with_reader_warning(monkeypatch, tmp_path):
    """A copy of a real nsys fixture whose reader leaves READER_WARNING in meta['warnings']
    (patched in): for checking that warnings print however the answer was produced."""
    import shutil
    from pathlib import Path

    import traceattrib.ingest
    from traceattrib.errors import input_warning

    src = tmp_path / "t.sqlite"
    shutil.copy(Path(__file__).resolve().parent.parent / "fixtures" / "llama_graph_nsys.sqlite", src)
    real = traceattrib.ingest.read_file

    def read(path, **kw):
        t = real(path, **kw)
        input_warning(t.meta, READER_WARNING)
        return t
    monkeypatch.setattr(traceattrib.ingest, "read_file", read)
    return src
