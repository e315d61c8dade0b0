"""`.nsys-rep` (and older `.qdrep`) reports: exported to SQLite by the `nsys` command, once.

The export lands in the traceattrib cache directory, keyed by the report's path, size and mtime,
so the next command on the same report reads the SQLite file directly. Without an `nsys`
executable ($NSYS, else `nsys` on PATH) the user gets the exact command to run.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile

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


def to_sqlite(path: str, cache_dir: str | None = None) -> str:
    """Path of the SQLite export of report `path`, exporting it on first use."""
    from ..cache import default_dir

    st = os.stat(path)
    key = hashlib.sha1(f"{os.path.abspath(path)}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:24]
    root = os.path.join(cache_dir or default_dir(), "nsys-export")
    out = os.path.join(root, f"{key}.sqlite")
    if os.path.isfile(out):
        return out
    nsys = nsys_executable()
    if nsys is None:
        base = os.path.splitext(os.path.basename(path))[0]
        cmd = " ".join(shlex.quote(a) for a in export_command(path, base + ".sqlite"))
        raise TraceError(f"{path}: an Nsight Systems report; no `nsys` found (PATH or $NSYS) to export it. "
                         f"Run: {cmd} and pass the .sqlite file")
    try:
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".export-", dir=root)
    except OSError as e:
        raise TraceError(f"{path}: cannot create {root} for the SQLite export ({e.strerror or e})") from None
    try:
        part = os.path.join(tmp, "export.sqlite")
        try:
            r = subprocess.run(export_command(path, part, nsys), stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=EXPORT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise TraceError(f"{path}: `{nsys} export --type sqlite` failed ({e})") from None
        if r.returncode != 0 or not os.path.isfile(part):
            why = (r.stderr or r.stdout or "").strip().splitlines()
            raise TraceError(f"{path}: `{nsys} export --type sqlite` failed (exit {r.returncode}"
                             + (f": {why[-1]}" if why else "") + ")")
        os.replace(part, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
