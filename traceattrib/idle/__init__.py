"""Why the GPU was idle: every step's idle time split into causes, from what the CPU thread that
the GPU was waiting for did meanwhile.

The gaps of a step are the times inside its span (from the step's start, which may precede its first
op when the GPU waited for the host to begin it, to its last op's end) when none of its GPU ops
runs: the complement of the union attribute.py measures, so they sum to `idle_ns` exactly. Let N be the op that ends
a gap and [L, Le) the API call that launched it on thread T (the thread the GPU was waiting for):

  - Le <= gap start: N had been submitted before the GPU went idle; the GPU had work queued and
    did not start it (launch latency between queued ops, cross-stream dependencies): `launch`,
    also counted in `idle_launch_queued_ns` (CUDA graphs do not remove these bubbles);
  - otherwise the gap up to Le is split by what T was doing at each instant, and [Le, gap end)
    (launch latency) is `launch`:
      inside a synchronizing API call (stream/device/event synchronize, a copy call that waited
      for its copy, cudaFree)                      -> `sync`
      inside any other API call                                    -> `launch`
      inside a torch op that makes API calls (the launch path)     -> `launch`
      between two API calls less than `launch_run_gap` apart       -> `launch` (dispatching the next kernel)
      between two API calls further apart                          -> `host` (Python, scheduler, sampling)
      before T's first or after its last recorded call: `host` where a recorded CPU op, Python
      frame or range of T covers the time, else `unexplained`
  N without a launch call: T is the thread that launched most of the step's ops; a step none of
  whose ops has a launch call (kernel-only traces): `unexplained`.

Host and sync time is also named: host time by the innermost NVTX / record_function range, else
Python frame, else CPU op (torch) or OS-runtime call (nsys -t osrt) enclosing it on T, else the CPU
sample (nsys --sample) taken there (ranges and frames that contain a whole step are not names);
sync time by the API call. Vocabulary and the threshold live in rules/idle.toml. Times are int64 ns.

Modules: gaps (the gaps of each step), threads (the CPU tables by launching thread), sweep (what
the launching thread was doing), labels (naming host and sync time), causes (the split: a Plan,
its jobs, explain), summary (a kind's section, the notes). Single-threaded: a caller with a second
thread may run the two halves of a Plan's job beside each other (traceattrib.analysis does).
"""
from __future__ import annotations

from .causes import IdleCauses, Plan, Sweep, explain
from .codes import CAUSE_COLUMNS, CAUSES, GAP_COLUMNS, LABEL_COLUMNS, OTHER, QUEUED_COLUMN, TOP_LABELS, UNNAMED
from .rules import IdleRules, load_rules
from .summary import explain_notes, has_causes, section

__all__ = ["CAUSES", "CAUSE_COLUMNS", "GAP_COLUMNS", "LABEL_COLUMNS", "OTHER", "QUEUED_COLUMN", "TOP_LABELS",
           "UNNAMED", "IdleCauses", "IdleRules", "Plan", "Sweep", "explain", "explain_notes", "has_causes",
           "load_rules", "section"]
