"""A progress bar on stderr for long loads, drawn only when stderr is a terminal.

Readers take an optional `progress(fraction, what)` callable; nothing is global. `Progress` is
that callable for the command line: it redraws at most 10 times a second and erases itself.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ProgressFn = Callable[[float, str], None]


def noop(fraction: float, what: str = "") -> None:
    """The progress callback that reports nothing."""


class Progress:
    """`with Progress("loading x.sqlite") as p: read(path, progress=p)`; silent unless a TTY."""

    WIDTH = 28

    def __init__(self, label: str, stream: TextIO | None = None, enabled: bool | None = None,
                 min_interval_s: float = 0.1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else enabled
        self.label = label
        self.min_interval_s = min_interval_s
        self._last = 0.0
        self._drawn = False

    def __call__(self, fraction: float, what: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if fraction < 1.0 and now - self._last < self.min_interval_s:
            return
        self._last = now
        f = min(max(fraction, 0.0), 1.0)
        done = int(round(f * self.WIDTH))
        line = f"\r{self.label} [{'#' * done}{' ' * (self.WIDTH - done)}] {f:4.0%} {what}"
        self.stream.write(line[:120].ljust(80))
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\r" + " " * 120 + "\r")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
