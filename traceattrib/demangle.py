"""C++ kernel names as people read them: Itanium-mangled names (`_Z...`, as ROCm traces and some
profiler records carry them) demangled, every other name unchanged.

The demangler is `cpp_demangle` (the `demangle` extra: bindings to the Rust cpp_demangle crate,
wheels for Linux x86-64, macOS and Windows); without it, the C++ runtime's own `__cxa_demangle`
(libstdc++ or libc++abi, through ctypes: it reads fewer names, e.g. none with `DF16b` bfloat16
types); without either, names stay as they are. Names come from traces and are untrusted: a name
the demangler refuses, or one longer than MAX_CHARS, is kept whole.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

MAX_CHARS = 16384  # longer "names" are not handed to a C demangler
PREFIX = "_Z"


def demangle(name: str) -> str:
    """`name` demangled when it is an Itanium-mangled C++ name the demangler reads, else `name`."""
    if not name.startswith(PREFIX) or len(name) > MAX_CHARS:
        return name
    fn = backend()[1]
    if fn is None:
        return name
    try:
        out = fn(name)
    except Exception:  # noqa: BLE001 - a name the demangler refuses stays as the trace wrote it
        return name
    return out if out else name


@cache
def backend() -> tuple[str, Callable[[str], str | None] | None]:
    """(which demangler, its function): 'cpp_demangle', 'cxa_demangle' or 'none'."""
    try:
        import cpp_demangle

        return "cpp_demangle", cpp_demangle.demangle
    except ImportError:
        pass
    fn = _cxa()
    return ("cxa_demangle", fn) if fn is not None else ("none", None)


def _cxa() -> Callable[[str], str | None] | None:
    """abi::__cxa_demangle of the C++ runtime (None: no runtime found)."""
    lib = None
    for name in (ctypes.util.find_library("stdc++"), ctypes.util.find_library("c++abi"), "libstdc++.so.6"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            f = lib.__cxa_demangle
            break
        except (OSError, AttributeError):
            lib = None
    if lib is None:
        return None
    try:
        free = ctypes.CDLL(None).free
    except (OSError, AttributeError, TypeError):
        return None
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    free.argtypes = [ctypes.c_void_p]

    def run(name: str) -> str | None:
        status = ctypes.c_int(-1)
        p = f(name.encode("utf-8", "replace"), None, None, ctypes.byref(status))
        if not p:
            return None
        try:
            return ctypes.string_at(p).decode("utf-8", "replace") if status.value == 0 else None
        finally:
            free(p)

    return run
