"""What a step source proposes: a `Candidate`. Every source (sources.py, graphs.py, detect.py)
returns one; the chooser (chooser.py) picks one; the table stage (table.py) reads it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..notes import Note

WINDOW_COLUMNS = ["rank", "name", "pid", "cpu_start_ns", "cpu_end_ns", "gpu_side"]


@dataclass(frozen=True)
class Candidate:
    """Steps one source proposes. Times int64 ns.

    source: 'regex' | 'given' | 'annotations' | 'python_frames' | 'cuda_graphs' | 'detected' | 'whole_trace'
    label: what was found, for the report (a note: "label.annotations", ...)
    table: one row per step: WINDOW_COLUMNS (rank, name, pid, cpu_start_ns, cpu_end_ns,
           gpu_side) and own_start_ns / own_end_ns, the widened CPU bounds that assigned the ops
    step: per op (rows of the GPU-op table), the table row it belongs to, -1 outside
    forward: 'one' when the source means one forward per step, 'any' when a step may hold several
    notes: what the source found that the reader should know
    """

    source: str
    label: Note
    table: pd.DataFrame
    step: np.ndarray
    forward: str = "one"
    notes: tuple[Note, ...] = ()

    def __post_init__(self) -> None:
        self.step.flags.writeable = False  # the later stages read it; a new assignment is a new array
