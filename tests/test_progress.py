"""Progress on stderr: a bar when stderr is a terminal, nothing otherwise."""
from __future__ import annotations

import io
import sys

from traceattrib.cli import main
from traceattrib.ingest import read
from traceattrib.progress import Progress

from conftest import FIXTURES


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_readers_report_monotonic_progress():
    for path in ("llama_eager_nsys.sqlite", "llama_eager_torch.pt.trace.json.gz"):
        seen = []
        read(str(FIXTURES / path), progress=lambda f, what="", seen=seen: seen.append(f))
        assert seen and seen[-1] == 1.0
        assert seen == sorted(seen) and all(0.0 <= f <= 1.0 for f in seen)


def test_bar_drawn_and_erased_on_a_terminal():
    tty = FakeTTY()
    with Progress("loading x", stream=tty, min_interval_s=0) as p:
        p(0.5, "kernels")
        assert "loading x [" in tty.getvalue() and " 50% kernels" in tty.getvalue()
    assert tty.getvalue().endswith("\r")  # erased: the next output starts on a clean line


def test_silent_when_not_a_terminal():
    pipe = io.StringIO()
    with Progress("loading x", stream=pipe) as p:
        p(0.5, "kernels")
    assert pipe.getvalue() == ""


def test_cli_draws_progress_only_on_a_tty(monkeypatch, capsys):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["info", str(FIXTURES / "llama_eager_nsys.sqlite"), "--no-cache"]) == 0
    assert "loading llama_eager_nsys.sqlite [" in tty.getvalue()
    monkeypatch.undo()
    assert main(["info", str(FIXTURES / "llama_eager_nsys.sqlite"), "--no-cache"]) == 0
    assert capsys.readouterr().err == ""
