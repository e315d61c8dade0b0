"""traceattrib: where each step of an LLM-inference GPU trace goes, and how much a fix could win.

Python API (the same pipeline as the command line):

    import traceattrib as ta
    trace = ta.load("trace.sqlite")          # Trace: columnar tables, int64 ns
    rep = ta.analyze(trace, what_if={"communication": 2})
    rep.steps                                 # one row per step, bucket times in ns
    rep.summary["speedup_bound_if_removed"]   # per bucket, median over decode steps
    ta.diff(rep_before, rep_after)            # dict, as `traceattrib diff --format json`
"""
__version__ = "0.1.0"

from .analysis import Report, analyze  # noqa: E402
from .cache import load  # noqa: E402
from .classify import BUCKETS, load_rules  # noqa: E402
from .diff import diff  # noqa: E402
from .errors import TraceError  # noqa: E402
from .model import Trace  # noqa: E402

__all__ = ["BUCKETS", "Report", "Trace", "TraceError", "analyze", "diff", "load", "load_rules", "__version__"]
