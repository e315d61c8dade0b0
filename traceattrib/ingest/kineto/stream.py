"""The trace file (decompressed) -> its events array in pieces of about CHUNK_BYTES bytes, each
piece's entries one per line, and the top-level keys around the array.

Any JSON layout: Kineto's indented blocks, one line as `json.dump` writes it, any indentation, keys
in any order, `traceEvents` anywhere in the top-level object, or a top-level list of events. A piece
ends at the last `}` `,` `{` in the buffer, and msgspec decoding it as a JSON array of
`msgspec.Raw` both checks that the cut is an event boundary (a cut inside a string or a nested
object does not decode) and yields each entry's bytes. A piece msgspec refuses is read by the
stdlib (`exact.loads`), which names what is malformed.
"""
from __future__ import annotations

import re

import msgspec
import numpy as np

from ...errors import TraceError
from . import duck, exact
from .columns import Columns
from .fields import JSON_WS

CHUNK_BYTES = 10 << 20  # decompressed bytes per piece (16 MiB loads a little faster but peaks 30-50 MiB higher)

# the end of one event and the start of the next, in any layout
_CUT = re.compile(rb"\}[ \t\r\n]*,[ \t\r\n]*\{")

_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_RAW_DICT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder()


class Stream:
    """The decompressed file in a sliding buffer: buf[pos:filled] is unread; `base` is the file
    offset of buf[0]. One byte before `pos` is always free (the '[' of the piece being decoded)."""

    def __init__(self, path: str, f):
        self.path, self.f = path, f
        self.buf = bytearray(CHUNK_BYTES)
        self.filled = self._fill(1) + 1
        self.pos = 1
        self.base = -1
        self.eof = self.filled < len(self.buf)

    def _fill(self, start: int) -> int:
        mv = memoryview(self.buf)
        got = start
        while got < len(self.buf):
            n = self.f.readinto(mv[got:])
            if not n:
                break
            got += n
        mv.release()
        return got - start

    def more(self) -> bool:
        """Move the unread bytes to the front and read more; grow the buffer when the unread
        bytes already fill it. False at the end of the file."""
        if self.eof:
            return False
        rest = self.filled - self.pos
        if self.pos > 1:
            self.buf[1:1 + rest] = self.buf[self.pos:self.filled]
            self.base += self.pos - 1
            self.pos = 1
        if rest + 1 >= len(self.buf):
            self.buf.extend(bytes(len(self.buf)))
        self.filled = 1 + rest + self._fill(1 + rest)
        self.eof = self.filled < len(self.buf)
        return True

    def skip_ws(self) -> int:
        """Position of the next non-blank byte (reading more as needed); -1 at the end."""
        while True:
            i = self.pos
            b = self.buf
            while i < self.filled and b[i] in JSON_WS:
                i += 1
            if i < self.filled:
                self.pos = i
                return i
            self.pos = i
            if not self.more():
                return -1

    def at(self, i: int) -> int:
        """File offset of buf[i]."""
        return self.base + i


def open_events(s: Stream) -> tuple[bool, dict]:
    """Move to the first byte inside the events array: (whether the file is a top-level list,
    the top-level keys before the array)."""
    i = s.skip_ws()
    if i >= 0 and s.buf[i:i + 3] == b"\xef\xbb\xbf":  # a UTF-8 byte order mark
        s.pos = i + 3
        i = s.skip_ws()
    if i < 0:
        raise TraceError(f"{s.path}: empty file")
    first = s.buf[i]
    if first == ord("["):
        s.pos = i + 1
        return True, {}
    if first == ord("{"):
        return False, _find_events(s)
    raise TraceError(f"{s.path}: not a torch.profiler JSON trace (does not start with a JSON object or array)")


def _find_events(s: Stream) -> dict:
    """Move to the first byte inside the top-level "traceEvents" array; the keys before it."""
    path = s.path
    start = s.pos
    while True:
        k = s.buf.find(b'"traceEvents"', start, s.filled)
        if k < 0:
            if s.eof:
                raise TraceError(f"{path}: not a torch.profiler trace (no traceEvents array)")
            start = max(s.pos, s.filled - 16)
            off = start - s.pos
            s.more()
            start = s.pos + off
            continue
        j = k + len(b'"traceEvents"')
        while j < s.filled and s.buf[j] in JSON_WS:
            j += 1
        if j < s.filled and s.buf[j] == ord(":"):
            j += 1
            while j < s.filled and s.buf[j] in JSON_WS:
                j += 1
            if j < s.filled and s.buf[j] == ord("["):
                try:  # the keys before: valid JSON only when this key is a top-level one
                    head = _ANY.decode(bytes(s.buf[s.pos:j + 1]) + b"]}")
                except (msgspec.DecodeError, RecursionError):
                    head = None
                if isinstance(head, dict):
                    head.pop("traceEvents", None)
                    s.pos = j + 1
                    return head
        start = k + 1


class Joined:
    """One piece's entries, each on its own line of `data` (entry i is data[start[i]:start[i] + lens[i]]).
    While DuckDB reads it, the bytes live in a memfd (`fd`) and `data` is None."""
    __slots__ = ("data", "lens", "fd")

    def __init__(self, data: bytes, lens: np.ndarray):
        self.data, self.lens, self.fd = data, lens, -1

    def __len__(self) -> int:
        return self.lens.size


class Parsed(list):
    """Events already parsed by the stdlib (a piece msgspec refused)."""


def line_starts(lens: np.ndarray) -> np.ndarray:
    """Offsets of the entries of a joined piece."""
    return np.concatenate([[0], np.cumsum(lens + 1)[:-1]]).astype(np.int64)


def _lens(raws) -> np.ndarray:
    return np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))


def _lines(raws) -> bytes:
    """Validated entries, each followed by a newline. Their own raw newlines can only be
    whitespace (msgspec refuses a raw control character inside a string), so they become spaces:
    with one entry per line, pyarrow and DuckDB parse a piece by lines. U+001E (never raw in
    valid JSON) marks the entry ends meanwhile; two replaces measured 2x faster than one translate."""
    return (b"\x1e".join(raws) + b"\x1e").replace(b"\n", b" ").replace(b"\x1e", b"\n")


def join(raws) -> Joined:
    """Validated entries one per line."""
    return Joined(_lines(raws), _lens(raws))


def staged(raws) -> Joined:
    """Validated entries one per line, written into a memfd for DuckDB a few thousand at a time
    (the whole piece is never joined in memory)."""
    piece = Joined(None, _lens(raws))
    piece.fd = duck.stage(_lines(raws[i:i + 4096]) for i in range(0, len(raws), 4096))
    return piece


def next_piece(s: Stream, acc: Columns, sink=None):
    """Decode the complete events in buf[pos:filled] up to the last event boundary (at most
    CHUNK_BYTES); None when no boundary is in the buffer (the caller reads more). `sink` makes
    the piece of the validated events (default `join`)."""
    buf, pos = s.buf, s.pos
    hi = min(s.filled, pos + CHUNK_BYTES)
    lo = max(pos, hi - (1 << 20))
    cuts: list = []
    while not cuts:
        cuts = list(_CUT.finditer(buf, lo, hi))
        if lo == pos:
            break
        lo = max(pos, lo - (8 << 20))
    if not cuts:
        return None
    errors: list = []
    for m in cuts[::-1][:3]:  # the last boundary candidate, or one of the two before it
        piece = _decode_events(buf, pos, m.start() + 1, errors, sink or join)
        if piece is not None:
            s.pos = m.end() - 1
            return piece
    # none decodes: the stdlib parser decides (lone surrogates, or malformed JSON)
    m = cuts[-1]
    events = _stdlib_events(s, pos, m.start() + 1, errors, acc)
    s.pos = m.end() - 1
    return events


def _decode_events(buf: bytearray, a: int, b: int, errors: list, sink=join) -> Joined | None:
    """Each entry of buf[a:b] ("ev, ev, ..., ev"), decoded as a JSON array between a temporary
    '[' at a-1 and ']' at b, one per line (`sink`); None when that is not a JSON array."""
    grow = b >= len(buf)
    if grow:
        buf.append(0)
    saved = buf[a - 1], buf[b]
    buf[a - 1], buf[b] = ord("["), ord("]")
    mv = memoryview(buf)[a - 1:b + 1]
    try:
        raws = _RAW_LIST.decode(mv)
        out = sink(raws)  # the Raw objects are views of `buf`: copied out before it changes
        del raws
        return out
    except (msgspec.DecodeError, RecursionError) as e:
        errors.append(e)
        return None
    finally:
        mv.release()
        buf[a - 1], buf[b] = saved
        if grow:
            del buf[-1]


def _stdlib_events(s: Stream, a: int, b: int, errors: list, acc: Columns) -> Parsed:
    """Events of buf[a:b] by the stdlib parser (marked as already parsed); TraceError when the
    JSON is malformed there."""
    try:
        events = exact.loads(b"[" + bytes(s.buf[a:b]) + b"]", acc, f"traceEvents after event {acc.events:,}")
    except RecursionError:
        raise TraceError(f"{s.path}: JSON nested too deeply in traceEvents (after event {acc.events:,}, "
                         f"near byte {s.at(a):,})") from None
    except ValueError as e:
        msg = str(errors[0]) if errors else str(e)
        raise TraceError(f"{s.path}: malformed JSON in traceEvents after event {acc.events:,} "
                         f"(near byte {s.at(a):,}: {msg})") from None
    return Parsed(events)


def last_piece(s: Stream, acc: Columns, top_list: bool) -> tuple[dict, Joined | Parsed]:
    """The rest of the file: (the keys after the array (object form), the last events)."""
    rest = bytes(s.buf[s.pos:s.filled])
    doc = (b"[" if top_list else b'{"traceEvents":[') + rest
    try:
        if top_list:
            raws, tail = _RAW_LIST.decode(doc), {}
        else:
            d = _RAW_DICT.decode(doc)
            raws = _RAW_LIST.decode(d.pop("traceEvents"))
            tail = {k: _ANY.decode(v) for k, v in d.items()}
        raws = join(raws)
    except (msgspec.DecodeError, RecursionError) as e:
        try:
            parsed = exact.loads(doc, acc, f"traceEvents after event {acc.events:,}")
        except RecursionError:
            raise TraceError(f"{s.path}: JSON nested too deeply (after event {acc.events:,})") from None
        except ValueError:
            raise TraceError(f"{s.path}: malformed JSON after event {acc.events:,} (near byte "
                             f"{s.at(s.pos):,}: {_msgspec_msg(e, s.at(s.pos) - (1 if top_list else 16))})") from None
        if top_list:
            raws, tail = Parsed(parsed), {}
        else:
            ev = parsed.pop("traceEvents", [])
            raws, tail = Parsed(ev if isinstance(ev, list) else []), parsed
    return tail, raws


def _msgspec_msg(e: Exception, offset: int) -> str:
    """msgspec's message with its byte position made a file offset."""
    m = re.search(r"\(byte (\d+)\)", str(e))
    if not m:
        return str(e)
    return str(e).replace(m.group(0), f"(byte {int(m.group(1)) + offset:,})")
