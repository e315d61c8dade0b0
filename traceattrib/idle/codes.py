"""The codes the idle modules share: causes, the step table's columns, and packed label codes
(label source << 40 | category code of the name)."""
from __future__ import annotations

import numpy as np

CAUSES = ("launch", "sync", "host", "unexplained")
LAUNCH, SYNC, HOST, UNEXPLAINED = range(4)
CAUSE_COLUMNS = tuple(f"idle_{c}_ns" for c in CAUSES)
QUEUED_COLUMN = "idle_launch_queued_ns"
LABEL_COLUMNS = ["rank", "step", "cause", "source", "what", "ns"]
GAP_COLUMNS = ["step", "start_ns", "end_ns", "launch_ns", "sync_ns", "host_ns", "unexplained_ns", "queued", "cause",
               "what", "source"]
TOP_LABELS = 8  # names kept per step and cause (the rest summed as OTHER)
UNNAMED = "(no annotation)"  # host time no range, frame or op encloses
OTHER = "(other)"

# label sources, in packed label codes
SOURCES = ("none", "range", "python", "cpu_op", "osrt", "call", "call", "sample")
NONE, RANGE, PY, CPU, OSRT, CALL, CALL_BLOCKING, SAMPLE = range(8)
INF = np.iinfo(np.int64).max
