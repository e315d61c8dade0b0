"""Kineto JSON -> columns of the kept events (one numpy array or categorical per field; times as
int64 ns), streamed in pieces of about stream.CHUNK_BYTES so memory holds a few pieces plus the
kept columns.

`stream` splits the file into pieces of whole events; DuckDB parses started pieces in a worker
thread (started here: the only thread of the read) while this thread splits the next ones and
converts finished ones (`pieces`); then the columns are checked whole (`validate`).
"""
from __future__ import annotations

import gzip
import os
import zlib
from collections import deque

from ... import heap
from ...errors import TraceError
from . import duck, pieces, stream
from .columns import Columns
from .pieces import AHEAD
from .validate import check_header, validate


def read_columns(path: str, step=None) -> tuple[dict, dict]:
    """(header, columns) of one trace file (.json or .json.gz)."""
    try:
        f = gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb", buffering=0)
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        with f:
            header, acc = _read(path, f, _position(f, path, step))
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        raise TraceError(f"{path}: corrupt or truncated gzip file ({e})") from None
    except OSError as e:
        raise TraceError(f"{path}: cannot read ({e.strerror or e})") from None
    cols = acc.arrays()
    header = check_header(header, cols["warnings"])
    return header, validate(path, cols)


def _position(f, path: str, step):
    """A callback reporting how far into the file (compressed bytes for .gz) the stream is."""
    if step is None:
        return None
    raw = getattr(f, "fileobj", f)  # GzipFile reads from the compressed file object
    try:
        size = max(os.path.getsize(path), 1)
    except OSError:
        return None

    def report() -> None:
        try:
            step(0.9 * min(raw.tell() / size, 1.0), "parsing")
        except (OSError, ValueError):
            pass
    return report


def _read(path: str, f, report=None) -> tuple[dict, Columns]:
    s = stream.Stream(path, f)
    acc = Columns(path)
    top_list, header = stream.open_events(s)
    parser = duck.parser()
    pending: deque = deque()  # started pieces in file order (DuckDB parses them in `parser`)
    try:
        header.update(_all_pieces(s, acc, top_list, parser, pending, report))
    finally:
        if parser is not None:
            parser.close()
        pieces.discard(pending)  # an error stopped the read before these pieces' turn
    pieces.release_arrow_memory()
    heap.give_back()  # the pieces' pages: the tables built next would sit on top of them
    return header, acc


def _all_pieces(s: stream.Stream, acc: Columns, top_list: bool, parser, pending: deque, report) -> dict:
    """Start every piece of the events array and finish them in file order; the top-level keys
    after the array."""
    while True:
        s.more()  # unread bytes to the front, the rest of the buffer filled
        i = s.skip_ws()
        if i < 0:
            raise TraceError(f"{s.path}: traceEvents array is not closed (truncated file?)")
        if s.eof:
            tail, piece = stream.last_piece(s, acc, top_list)
            pending.append(pieces.start_piece(piece, acc, parser))
            pieces.finish_pieces(pending, parser, acc, keep=0)
            return tail
        if s.buf[i] == ord("]"):  # the array ends before the buffer does: read to the end
            while s.more():
                pass
            continue
        piece = stream.next_piece(s, acc, None if parser is None else stream.staged)
        if piece is None:  # one event larger than the buffer: more() grows it
            continue
        pending.append(pieces.start_piece(piece, acc, parser))
        if len(pending) >= AHEAD:
            pieces.finish_pieces(pending, parser, acc, keep=AHEAD - 1)
            if report:
                report()
