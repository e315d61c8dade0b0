"""Started pieces -> their columns, in file order: DuckDB parses a piece (in the worker thread
`duck.Parser` runs, or in the calling thread when that one would otherwise wait), and a piece
DuckDB refuses, or holding a value it would read differently, goes to pyarrow (`arrow`), then
to the stdlib (`exact`), which checks each kept field and names the first bad one."""
from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future

import numpy as np

from . import arrow, duck, exact, tables
from .columns import Columns
from .fields import INT_ARGS, KEEP_CATS, STR_ARGS, TEXT_SUFFIX
from .stream import Parsed, line_starts

AHEAD = 4  # pieces started before the oldest is finished (one parsed by the worker, three queued: the main
# thread takes one of them when it would wait; 3 and 4 measured within noise, 4 a little faster)

DUCK_ARGS = tuple([k for k, _ in INT_ARGS] + [k for k, _ in STR_ARGS] + ["grid", "block", "Input type", "Input Dims"])
DUCK_CATS = tuple(sorted(KEEP_CATS))


def start_piece(piece, acc: Columns, parser) -> tuple:
    """Number one piece's entries (acc.events); DuckDB starts parsing it in `parser` (None: not used)."""
    first = acc.events
    acc.events += len(piece)
    fut = None
    if parser is not None and len(piece) and not isinstance(piece, Parsed):
        if piece.fd < 0:  # the bytes are read back only if needed
            piece.fd, piece.data = duck.stage([piece.data]), None
        fut = parser.submit(piece.fd, DUCK_ARGS, DUCK_CATS)
    return piece, first, fut


def finish_pieces(pending: deque, parser, acc: Columns, keep: int) -> None:
    """Finish the oldest started pieces, in file order, until `keep` remain; while the oldest is
    not parsed yet, this thread parses a queued one (`_steal`) rather than wait."""
    while len(pending) > keep:
        if _steal(pending, parser):
            continue
        _finish_piece(pending.popleft(), acc)  # (closes its memfd, even when it raises)
        release_arrow_memory()


def discard(pending: deque) -> None:
    """Close the memfds of pieces an error stopped the read before."""
    for job in pending:
        if job[0].fd >= 0:
            os.close(job[0].fd)


def release_arrow_memory() -> None:
    """Give the pieces' freed Arrow buffers back to the system (about 30 MiB less peak on a 312 MiB
    trace: the allocator otherwise keeps them for reuse that never comes)."""
    import pyarrow as pa
    pa.default_memory_pool().release_unused()


def _steal(pending: deque, parser) -> bool:
    """Whether the calling thread parsed a queued piece: when the oldest piece is not parsed yet,
    the newest piece the worker has not begun is parsed here instead of waiting. DuckDB's parse is
    the longer of the two threads' work per piece (about 0.08 s against 0.05 s per 10 MiB), so
    without this the main thread waited 0.5-0.7 s per 300 MiB load."""
    if pending[0][2] is None or pending[0][2].done():  # (no parser: no futures)
        return False
    for j in range(len(pending) - 1, 0, -1):
        piece, first, fut = pending[j]
        if fut is not None and fut.cancel():  # (only a piece the worker has not begun cancels)
            stolen = Future()
            try:
                stolen.set_result(parser.parse(piece.fd, DUCK_ARGS, DUCK_CATS))
            except Exception as e:  # raised where the worker's result would be
                stolen.set_exception(e)
            pending[j] = (piece, first, stolen)
            return True
    return False


def _finish_piece(job: tuple, acc: Columns) -> None:
    """Columns of one started piece's events: DuckDB's or pyarrow's when they can, else the
    stdlib with field checks."""
    piece, first, fut = job
    if not len(piece):
        return
    if isinstance(piece, Parsed):
        exact.add_events(acc, piece, first)
        return
    if fut is not None and _from_duckdb(piece, first, fut, acc):
        return
    _from_arrow(piece.data, piece.lens, first, acc)


def _from_duckdb(piece, first: int, fut: Future, acc: Columns) -> bool:
    """Add DuckDB's columns of a staged piece; False when DuckDB refused it or a value needs the
    pyarrow path (the piece's bytes are then read back into piece.data). Closes the memfd."""
    try:
        raw = fut.result()
        lens = piece.lens
        got = None if raw is None else \
            duck.conform(raw, piece.fd, line_starts(lens), lens, INT_ARGS, STR_ARGS, TEXT_SUFFIX)
        del raw
        if got is not None:
            events, flows, entries, kept = got
            tables.add_split(acc, events, flows, entries + first, False, sel=kept)
            return True
        piece.data = duck.read_back(piece.fd)
        return False
    finally:
        os.close(piece.fd)
        piece.fd = -1


def _from_arrow(data: bytes, lens: np.ndarray, first: int, acc: Columns) -> None:
    """Add pyarrow's columns of a piece (entries one per line), or where pyarrow refuses a value,
    the stdlib's (which reads the piece as it is and names what it cannot use, in order)."""
    whole = data, lens
    rows = None  # entry number of each line of `data`, when some entries were left out
    starts = line_starts(lens)
    head = np.frombuffer(data, dtype=np.uint8)[starts]
    ok = head == ord("{")
    # pyarrow refuses a number, string, list or boolean entry: all but the objects are left out,
    # and counted once pyarrow has read the rest. It reads a null as a row of nulls, kept nowhere,
    # so nulls alone are left out unsaid (pyarrow 26 crashes on a null that starts a block)
    skipped = 0 if (head[~ok] == ord("n")).all() else int((~ok).sum())
    if not ok.all():
        rows = np.flatnonzero(ok)
        data = b"\n".join(data[a:a + n] for a, n in zip(starts[rows].tolist(), lens[rows].tolist()))
        lens = lens[rows]
    got = arrow.read(data, lens, acc.hints) if lens.size else None
    if got is None and lens.size:  # a value pyarrow cannot take: the stdlib reads the piece and names it
        data, lens = whole
        starts = line_starts(lens)
        events = exact.loads(b"[" + b",".join(data[a:a + n] for a, n in zip(starts.tolist(), lens.tolist())) + b"]",
                             acc, f"traceEvents[{first:,}] onwards")
        exact.add_events(acc, events, first)
        return
    if skipped:
        acc.issue("traceEvents entries are not JSON objects and were skipped",
                  f"traceEvents[{first + int(np.flatnonzero(~ok)[0])}]", skipped)
    if got is not None:
        dims_rows, dims_text = arrow.deep_dims(data, line_starts(lens)) if got.deep else (None, [])
        tables.add_table(acc, got.table, got.wide, dims_rows, dims_text, first, rows)
