"""`.nsys-rep` (and older `.qdrep`) reports: exported to SQLite by the `nsys` command, once.

The export lands in the traceattrib cache directory (traceattrib.store), keyed by the report's
path, size and mtime, so the next command on the same report reads the SQLite file directly;
where the store refuses the directory, the export goes to a temporary folder removed after the
read. Without an `nsys` executable ($NSYS, else `nsys` on PATH) the user gets the exact command
to run.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator

from .. import store
from ..errors import TraceError

REPORT_SUFFIXES = (".nsys-rep", ".qdrep")
EXPORT_TIMEOUT_S = 3600


def is_report(path: str) -> bool:
    return path.endswith(REPORT_SUFFIXES)


def nsys_executable() -> str | None:
    """$NSYS when it names an executable file, else `nsys` on PATH."""
    env = os.environ.get("NSYS")
    if env:
        return env if os.path.isfile(env) and os.access(env, os.X_OK) else shutil.which(env)
    return shutil.which("nsys")


def export_command(path: str, output: str, nsys: str = "nsys") -> list[str]:
    return [nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", output, path]


@contextlib.contextmanager
def exported(path: str, cache_dir: str | None = None) -> Iterator[str]:
    """The path of the SQLite export of report `path` while the block runs: the cached export
    (made on first use), or a temporary one when the cache directory may not be used."""
    st = store.Store.at(cache_dir)
    if st.refusal() is None:
        yield to_sqlite(path, st)
        return
    tmp = tempfile.mkdtemp(prefix="traceattrib-export-")
    try:
        yield _export(path, os.path.join(tmp, "export.sqlite"), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def to_sqlite(path: str, st: store.Store) -> str:
    """Path of the SQLite export of report `path` in store `st`, exporting it on first use."""
    info = os.stat(path)
    key = hashlib.sha1(f"{os.path.abspath(path)}\0{info.st_size}\0{info.st_mtime_ns}".encode()).hexdigest()[:24]
    root = st.path("nsys-export")
    out = os.path.join(root, f"{key}.sqlite")
    if store.trusted(out, st.shared):
        return out
    store.remove(out)  # a link or another user's file is never read
    try:
        store.makedirs(root, st.shared)
        tmp = tempfile.mkdtemp(prefix=store.TMP_PREFIX, dir=root)
    except OSError as e:
        raise TraceError(f"{path}: cannot create {root} for the SQLite export ({e.strerror or e})") from None
    try:
        part = _export(path, os.path.join(tmp, "export.sqlite"), tmp)
        os.chmod(part, store.modes(st.shared)[1])
        os.replace(part, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _export(path: str, part: str, tmp: str) -> str:
    """Run `nsys export` of report `path` to `part` (in folder `tmp`); returns `part`."""
    nsys = nsys_executable()
    if nsys is None:
        base = os.path.splitext(os.path.basename(path))[0]
        cmd = " ".join(shlex.quote(a) for a in export_command(path, base + ".sqlite"))
        raise TraceError(f"{path}: an Nsight Systems report; no `nsys` found (PATH or $NSYS) to export it. "
                         f"Run: {cmd} and pass the .sqlite file")
    try:
        r = subprocess.run(export_command(path, part, nsys), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=EXPORT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise TraceError(f"{path}: `{nsys} export --type sqlite` failed ({e})") from None
    if r.returncode != 0 or not os.path.isfile(part):
        why = (r.stderr or r.stdout or "").strip().splitlines()
        raise TraceError(f"{path}: `{nsys} export --type sqlite` failed (exit {r.returncode}"
                         + (f": {why[-1]}" if why else "") + ")")
    return part
