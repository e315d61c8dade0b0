"""The cache directory: where it is, whether it may be used, and writes that are atomic.

Everything traceattrib keeps between runs lives under one directory: Parquet tables per trace
file, analysis results, report texts, nsys exports (traceattrib.cache, ingest.nsysrep). Each
entry is data (Parquet, Arrow IPC in msgpack, JSON, SQLite): reading one never runs code.

Whoever can write the directory decides what the next report says, so a directory that another
user owns or that others (group or world) can write is not used, with one warning, unless the
user says the cache is shared on purpose (--shared-cache, or TRACEATTRIB_CACHE_SHARED=1); even
then only data is read. The directory and its entries are created 0700 / 0600, and an entry file
is read only when it is a regular file (not a link) that passes the same test.

Writes go to a temporary name in the same directory and are renamed into place, so a killed run
or a full disk leaves no half-written entry (an abandoned temporary is removed later: TMP_STALE_S).
Size: writing an entry removes the least recently used others beyond $TRACEATTRIB_CACHE_MAX_MB
(MiB, default MAX_MB_DEFAULT); a read marks its entry used.
"""
from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_MB_DEFAULT = 4096  # cache budget when $TRACEATTRIB_CACHE_MAX_MB is unset (MiB)
TMP_STALE_S = 3600  # a writer's temporary entry older than this was abandoned (killed process)
TMP_PREFIX = ".tmp-"
SHARED_ENV = "TRACEATTRIB_CACHE_SHARED"
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def default_dir() -> str:
    """$TRACEATTRIB_CACHE_DIR, else the platform's user cache directory."""
    env = os.environ.get("TRACEATTRIB_CACHE_DIR")
    if env:
        return env
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/traceattrib")
    if os.name == "nt":
        return os.path.join(os.environ.get("LOCALAPPDATA", os.path.expanduser("~")), "traceattrib", "Cache")
    return os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "traceattrib")


def shared_from_env() -> bool:
    """Whether $TRACEATTRIB_CACHE_SHARED asks for a shared cache (1, true, yes)."""
    return os.environ.get(SHARED_ENV, "").strip().lower() in ("1", "true", "yes")


def max_bytes() -> int:
    """The cache's size budget in bytes: $TRACEATTRIB_CACHE_MAX_MB (MiB, an integer >= 0), else
    MAX_MB_DEFAULT."""
    env = os.environ.get("TRACEATTRIB_CACHE_MAX_MB", "").strip()
    mb = int(env) if env.isdigit() else MAX_MB_DEFAULT
    return mb << 20


def _uid() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def _untrusted(st: os.stat_result) -> str | None:
    """Why an existing file or directory with this status may not be trusted, or None."""
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        return f"is owned by another user (uid {st.st_uid})"
    if os.name != "nt" and st.st_mode & _OTHERS_WRITE:
        return "is writable by others"
    return None


@dataclass(frozen=True)
class Store:
    """One cache directory. shared: the user accepts a directory others can write (data only is
    read from it either way)."""

    root: str
    shared: bool = False

    @classmethod
    def at(cls, root: str | None = None, shared: bool | None = None) -> Store:
        """The store at `root` (default_dir()), shared as given or as $TRACEATTRIB_CACHE_SHARED says."""
        return cls(root or default_dir(), shared_from_env() if shared is None else shared)

    def refusal(self) -> str | None:
        """Why this directory must not be used ("cache DIR is writable by others: ..."), or None.
        A directory that does not exist yet is fine: it is created 0700."""
        if self.shared:
            return None
        try:
            st = os.stat(self.root)
        except FileNotFoundError:
            return None
        except OSError as e:
            return f"cache {self.root} cannot be examined ({e.strerror or e}): not used"
        if not stat.S_ISDIR(st.st_mode):
            return f"cache {self.root} is not a directory: not used"
        why = _untrusted(st)
        if why:
            return (f"cache {self.root} {why}: not used; pass --no-cache or fix its permissions "
                    f"(or --shared-cache / {SHARED_ENV}=1 for a cache shared on purpose)")
        return None

    def path(self, *parts: str) -> str:
        return os.path.join(self.root, *parts)


# --- reading: entries this user wrote, as data ------------------------------------------------

def trusted(path: str, shared: bool = False, directory: bool = False) -> bool:
    """Whether `path` is an entry that may be read: a regular file (a directory with `directory`),
    not a symbolic link, owned by this user and not writable by others (any owner and mode when
    the cache is shared)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not (stat.S_ISDIR(st.st_mode) if directory else stat.S_ISREG(st.st_mode)):
        return False
    return shared or _untrusted(st) is None


def read_bytes(path: str, shared: bool = False) -> bytes | None:
    """The bytes of entry file `path`; None when absent, unreadable or not trusted."""
    if not trusted(path, shared):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read()
        except OSError:
            return None


# --- writing: atomic, 0700 folders and 0600 files ---------------------------------------------

# why writes failed in this process (a full disk, a read-only directory): the command says the
# first once (take_failures), the output being right all the same
_failures: list[str] = []
_failures_lock = threading.Lock()


def _failed(folder: str, e: BaseException) -> None:
    why = getattr(e, "strerror", None) or (str(e).splitlines()[0] if str(e) else type(e).__name__)
    with _failures_lock:
        _failures.append(f"cannot write the cache in {folder} ({why}): the output is right, it is only not "
                         "kept for the next run")


def take_failures() -> list[str]:
    """The first failed write's warning since the last call (at most one line), and forget them."""
    with _failures_lock:
        out = _failures[:1]
        _failures.clear()
    return out


def modes(shared: bool = False) -> tuple[int, int]:
    """(folder mode, file mode) of what the cache writes: private, or for a cache shared on purpose
    readable and writable by the directory's group (never by others)."""
    return (0o770, 0o660) if shared else (0o700, 0o600)


def makedirs(path: str, shared: bool = False) -> None:
    """Create `path` (a cache root or a folder under it) with the folder mode where it is made."""
    if not os.path.isdir(path):
        os.makedirs(path, mode=modes(shared)[0], exist_ok=True)
        if shared:  # os.makedirs's mode is filtered by the umask
            with contextlib.suppress(OSError):
                os.chmod(path, modes(shared)[0])


def write_bytes(path: str, data: bytes, shared: bool = False) -> bool:
    """Write `data` to entry file `path` atomically (the file mode of `modes`): a temporary file in
    the same folder renamed into place. Best effort: False when it could not be written (read-only
    or full disk), and then nothing is left behind."""
    tmp = None
    try:
        makedirs(os.path.dirname(path), shared)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=os.path.dirname(path))  # 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if shared:
            os.chmod(tmp, modes(shared)[1])
        os.replace(tmp, path)
        return True
    except OSError as e:
        _failed(os.path.dirname(path), e)
        if tmp:
            with contextlib.suppress(OSError):
                os.remove(tmp)
        return False


def write_dir(root: str, entry: str, fill: Callable[[str], None],
              errors: tuple[type[BaseException], ...] = (), shared: bool = False) -> bool:
    """Make directory entry `entry` under `root` atomically: fill(tmp) writes its files into a
    temporary folder, renamed to `entry` when done (folder and files then get the modes of
    `modes`). When `entry` exists already (a concurrent writer won) this copy is dropped. Best
    effort: False on OSError or one of `errors` raised by fill, and then nothing is left behind."""
    tmp = None
    folder_mode, file_mode = modes(shared)
    try:
        makedirs(root, shared)
        tmp = tempfile.mkdtemp(prefix=TMP_PREFIX, dir=root)  # 0700
        fill(tmp)
        for name in os.listdir(tmp):
            os.chmod(os.path.join(tmp, name), file_mode)
        if shared:
            os.chmod(tmp, folder_mode)
        os.replace(tmp, entry)
        return True
    except (OSError, *errors) as e:
        if not (isinstance(e, OSError) and e.errno in (errno.ENOTEMPTY, errno.EEXIST) and os.path.isdir(entry)):
            _failed(root, e)  # (not when a concurrent writer made the entry first)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        return False


# --- size budget: least recently used entries go first -----------------------------------------

def touch(path: str) -> None:
    """Mark an entry used now (its mtime is its last use; best effort on a read-only cache)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def prune(entries: list[dict], keep: str | None = None, budget: int | None = None) -> list[str]:
    """Remove the least recently used of `entries` ({"path", "bytes", "used_ns"}, oldest use first)
    until the rest fit `budget` bytes (max_bytes()); never `keep`. Returns the removed paths."""
    budget = max_bytes() if budget is None else budget
    total = sum(e["bytes"] for e in entries)
    removed = []
    keep = os.path.abspath(keep) if keep else None
    for e in entries:
        if total <= budget:
            break
        if keep and os.path.abspath(e["path"]) == keep:
            continue
        if remove(e["path"]):
            total -= e["bytes"]
            removed.append(e["path"])
    return removed


def drop_stale_tmp(folder: str) -> None:
    """Remove temporaries under `folder` abandoned by killed writers (older than TMP_STALE_S)."""
    now = time.time()
    with contextlib.suppress(OSError):
        with os.scandir(folder) as it:
            for e in it:
                if e.name.startswith(TMP_PREFIX):
                    with contextlib.suppress(OSError):
                        if now - e.stat(follow_symlinks=False).st_mtime > TMP_STALE_S:
                            remove(e.path)


def size(path: str) -> int:
    """Bytes of a file, or of every file under a directory."""
    if not os.path.isdir(path) or os.path.islink(path):
        return os.lstat(path).st_size
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(d, f)).st_size
    return total


def remove(path: str) -> bool:
    """Remove an entry (a directory or a file), best effort; True when it is gone."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.remove(path)
    return not os.path.lexists(path)
