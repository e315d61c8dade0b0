"""Reader for torch.profiler (Kineto) Chrome-trace JSON, `.json` or `.json.gz`.

- `parse.read_columns`: the file -> columns of the kept events (any JSON layout, streamed: msgspec
  finds the events, DuckDB parses them, pyarrow or the stdlib where DuckDB would read a value
  differently), timestamps as exact integer ns, every field checked;
- `duck`: DuckDB's reading of one piece, and the checks that hand a piece over to pyarrow;
- `link`: each GPU op -> its launch call -> the CPU op chain that made it;
- `build`: columns -> the model's tables;
- `names`: categorical and name helpers.
"""
from __future__ import annotations

from ...model import Trace
from .build import build
from .parse import CHUNK_BYTES, read_bytes, read_columns  # noqa: F401


def read(path: str, require_gpu: bool = True, rank: int | None = None, progress=None) -> Trace:
    """Load one Kineto JSON trace. `rank` overrides distributedInfo.rank (directory loading)."""
    step = progress or (lambda f, w="": None)
    header, cols = read_columns(path, step)
    step(0.9, "building tables")
    return build(path, header, cols, require_gpu, rank)
