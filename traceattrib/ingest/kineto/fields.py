"""The Kineto events and fields the reader keeps, the columns it makes of them, and the values that
stand for a missing or unreadable time (times are int64 ns)."""
from __future__ import annotations

import numpy as np

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}

LAUNCH_CATS = {"cuda_runtime", "cuda_driver"}

RANGE_CATS = {"user_annotation", "gpu_user_annotation"}

OP_CATS = {"cpu_op", "python_function"}

# the profiler's own overhead (CUPTI buffer requests, a full command buffer): kept only to be
# counted in the meta (integrity.py), never in a table
OVERHEAD_CATS = {"overhead"}

KEEP_CATS = GPU_CATS | LAUNCH_CATS | RANGE_CATS | OP_CATS | OVERHEAD_CATS

# ts values that are not times: never a real ns value (both far below -2**62)
TS_MISSING = np.iinfo(np.int64).min
TS_BAD = TS_MISSING + 1
# |time| beyond this is not a time (146 years in ns); it also keeps every later sum inside int64
TIME_LIMIT_NS = 1 << 62
INT32_MAX = (1 << 31) - 1

# (args key, column) of the integer and the text args kept
INT_ARGS = [("External id", "ext"), ("correlation", "corr"), ("device", "dev"), ("stream", "stream"),
            ("graph id", "graph"), ("bytes", "bytes"), ("In msg nelems", "in_nel"),
            ("Out msg nelems", "out_nel"), ("Group size", "gsize")]
STR_ARGS = [("Collective name", "coll"), ("dtype", "cdtype"), ("Process Group Name", "pg")]
INT_FILL = {"bytes": 0}  # absent -> -1 otherwise
# integer args written as text (ROCm traces write "bytes": "8192" on hipMemcpy calls) are read
# from a "<key> (text)" field, as numbers when they are numeric
TEXT_SUFFIX = " (text)"
NUMERIC = r"^-?[0-9]{1,18}$"
# fields kept as int32 per piece when the piece's values fit (about 30 MB less on 600k events):
# readers of these columns only index them or compare them, never shift or add them
SMALL = ("dev", "stream", "graph", "in_nel", "out_nel", "gsize", "grid0", "grid1", "grid2", "block0", "block1",
         "block2")
NUM = ("idx", "pid", "tid", "ts", "dur", "corr", "dev", "stream", "graph", "bytes", "ext", "in_nel", "out_nel",
       "gsize", "grid0", "grid1", "grid2", "block0", "block1", "block2")
STRS = ("cat", "name", "intypes", "dims", "coll", "cdtype", "pg")

JSON_WS = b" \t\r\n"  # the bytes JSON allows between tokens
