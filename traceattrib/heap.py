"""Hand the C heap's free pages back to the system."""
from __future__ import annotations

import ctypes
import functools
import sys


@functools.cache
def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def give_back() -> None:
    """glibc's malloc_trim(0). Freed blocks below glibc's mmap threshold (it rises to the largest
    block freed, so most numpy arrays of a piece or a table qualify) stay resident in the heap until
    trimmed, and the next large arrays would sit on top of them. Without glibc nothing happens."""
    lib = _libc()
    trim = getattr(lib, "malloc_trim", None) if lib is not None else None  # musl has no malloc_trim
    if trim is not None:
        trim(0)
