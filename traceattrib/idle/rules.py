"""The idle vocabulary (rules/idle.toml), compiled."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import vocab


@dataclass(frozen=True)
class IdleRules:
    """rules/idle.toml, compiled: the launch-run gap (ns) and the regexes over call and frame names."""

    launch_run_gap_ns: int
    sync_calls: tuple[re.Pattern, ...]
    memcpy_calls: re.Pattern
    skip_frames: tuple[re.Pattern, ...]


@lru_cache(maxsize=1)
def load_rules() -> IdleRules:
    """The packaged idle vocabulary (rules/idle.toml)."""
    f = vocab.load("idle", vocab.IdleFile)
    return IdleRules(
        launch_run_gap_ns=int(round(float(f.launch_run_gap_us) * 1000)),
        sync_calls=tuple(re.compile(p, re.I) for p in f.sync_calls),
        memcpy_calls=re.compile(f.memcpy_calls, re.I),
        skip_frames=tuple(re.compile(p) for p in f.skip_frames))
