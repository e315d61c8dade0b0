"""The C heap's free pages: kept by the process while it works, handed back where it says so."""
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


# mallopt parameters (malloc.h); glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD_MAX = 32 << 20
TRIM_THRESHOLD = 2 ** 31 - 1  # mallopt takes a C int: the most free heap top (bytes) left unreturned


def keep_freed() -> bool:
    """Freed pages stay with the process until `give_back` hands them back (glibc's mallopt;
    False where there is no glibc). By default glibc returns the top of the heap to the system
    whenever more than its trim threshold lies free there, and the next arrays of that size fault
    every page in again: on a 1M-kernel nsys export 60k page faults of 160k, 0.2 s of its 4 s of
    CPU (for about 60 MiB more at peak). A fixed trim threshold also stops glibc raising its mmap threshold as large blocks are
    freed, so that is fixed where it would end up (32 MiB: larger arrays are still mapped and
    unmapped whole). For a process of ours (the console entry), not for a library inside
    another's process; the give_back calls where tables are let go still hand the pages back, so
    a long-lived `traceattrib mcp` returns them after each trace as before."""
    lib = _libc()
    opt = getattr(lib, "mallopt", None) if lib is not None else None
    if opt is None:
        return False
    return bool(opt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX)) and bool(opt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def give_back() -> None:
    """glibc's malloc_trim(0). Freed blocks below glibc's mmap threshold (it rises to the largest
    block freed, or is 32 MiB under keep_freed, so most numpy arrays of a piece or a table qualify)
    stay resident in the heap until trimmed, and the next large arrays would sit on top of them.
    Without glibc nothing happens."""
    lib = _libc()
    trim = getattr(lib, "malloc_trim", None) if lib is not None else None  # musl has no malloc_trim
    if trim is not None:
        trim(0)
