"""Reader for torch.profiler (Kineto) Chrome-trace JSON, `.json` or `.json.gz`.

- `parse.read_columns`: the file -> columns of the kept events (any JSON layout, streamed),
  timestamps as exact integer ns, every field checked; it runs
  - `stream`: the file -> pieces of whole events (msgspec finds them in any layout);
  - `pieces`: each piece parsed by DuckDB (`duck`: its reading, and the checks that hand a piece
    over), else pyarrow (`arrow`), else the stdlib (`exact`), in file order;
  - `tables`, `exact` -> `columns`: a parsed piece's kept fields added to the accumulated columns;
  - `validate`: checks on whole columns and on the top-level keys;
- `fields`: the kept events and fields, and the values for a missing or bad time;
- `link`: each GPU op -> its launch call -> the CPU op chain that made it;
- `build`: columns -> the model's tables;
- `names`: categorical and name helpers.
"""
from __future__ import annotations

from ...model import Trace
from .build import build
from .parse import read_columns
from .stream import CHUNK_BYTES  # noqa: F401


def read(path: str, require_gpu: bool = True, progress=None) -> Trace:
    """Load one Kineto JSON trace (its rank: distributedInfo.rank, else 0)."""
    step = progress or (lambda f, w="": None)
    header, cols = read_columns(path, step)
    step(0.9, "building tables")
    return build(path, header, cols, require_gpu)
