"""heap.keep_freed and give_back, measured by the page faults of a fresh process (glibc only)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from traceattrib import cli, heap

ROOT = Path(__file__).resolve().parent.parent

# two arrays of 24 MiB (below glibc's largest mmap threshold) written and freed, then `then`, then a
# third of the same size written: the minor page faults that third array costs
FAULTS = """
import resource, sys
import numpy as np
from traceattrib import heap
kept = heap.keep_freed() if sys.argv[1] == "keep" else None
a, b = np.ones(3 << 20), np.ones(3 << 20)
del a, b
if sys.argv[2] == "give_back":
    heap.give_back()
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
c = np.ones(3 << 20)
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
"""


def faults(mode: str, then: str = "") -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", FAULTS, mode, then or "-"], capture_output=True, text=True,
                         check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT.parent).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_keep_freed_reuses_freed_pages_until_given_back():
    """glibc returns a freed 48 MiB heap top to the system by default, and the next array faults
    its pages in again (a 4 KiB page each: 6,144, or a few 2 MiB ones where transparent huge pages
    apply); with keep_freed the pages stay and the next array costs none. give_back still hands
    them back."""
    kept, n = faults("keep")
    if kept != "True":
        pytest.skip("no glibc mallopt")
    assert n == 0
    _, default = faults("default")
    assert default > 0
    assert faults("keep", "give_back")[1] > 0


def test_console_entry_keeps_freed_pages(monkeypatch):
    """`traceattrib` (cli.run) sets keep_freed before it runs the command, then exits with main's status."""
    calls = []
    monkeypatch.setattr(heap, "keep_freed", lambda: calls.append("keep") or True)
    monkeypatch.setattr(cli, "main", lambda: calls.append("main") or 7)
    def exit_(rc):
        raise SystemExit(rc)
    monkeypatch.setattr(os, "_exit", exit_)
    with pytest.raises(SystemExit) as e:
        cli.run()
    assert calls == ["keep", "main"] and e.value.code == 7
