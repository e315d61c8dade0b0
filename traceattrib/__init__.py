"""traceattrib: where each step of an LLM-inference GPU trace goes, and how much a fix could win.

Python API (the same pipeline as the command line):

    import traceattrib as ta
    trace = ta.load("trace.sqlite")          # Trace: columnar tables, int64 ns
    rep = ta.analyze(trace, what_if={"communication": 2})
    rep.steps                                 # one row per step, bucket times in ns
    rep.summary.main().attribution.speedup_bound_if_removed   # per bucket, median over decode steps
    ta.diff(rep_before, rep_after)            # typed diff.types.Diff: changes with 95% intervals, checks
    ta.diff([run1, run2], [run3, run4])       # several runs per side: steps pooled over runs
"""
__version__ = "0.1.0"

from .diff import diff  # noqa: E402
from .errors import TraceError  # noqa: E402

# The rest is imported on first use: `traceattrib report` answered from its cache needs no numpy or pandas.
_LAZY = {"Report": "analysis", "analyze": "analysis", "load": "cache", "BUCKETS": "classify",
         "load_rules": "classify", "Trace": "model"}

__all__ = ["BUCKETS", "Report", "Trace", "TraceError", "analyze", "diff", "load", "load_rules", "__version__"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
