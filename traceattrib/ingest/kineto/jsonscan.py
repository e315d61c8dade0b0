"""Find the `traceEvents` array in a Chrome-trace JSON document and cut it into parseable chunks.

Parsing a multi-gigabyte trace in one `json.loads` holds every event as Python dicts at once.
Instead the array is located with a vectorized scan over the raw bytes (quotes, escapes, and
bracket depth, tracked with numpy), and split at event boundaries into chunks of a few MB that are
parsed one after another, so only one chunk of dicts is alive at a time.
"""
from __future__ import annotations

import numpy as np

BLOCK = 1 << 25  # bytes scanned per numpy pass (32 MiB keeps temporaries small)
_QUOTE, _BSLASH = ord('"'), ord("\\")
_OPEN = (ord("{"), ord("["))
_CLOSE = (ord("}"), ord("]"))


class ScanError(ValueError):
    pass


def find_events_array(buf: bytes) -> int:
    """Byte offset of the '[' that opens the top-level "traceEvents" array."""
    key = buf.find(b'"traceEvents"')
    while key >= 0:
        i = key + len(b'"traceEvents"')
        while i < len(buf) and buf[i] in b" \t\r\n":
            i += 1
        if i < len(buf) and buf[i] == ord(":"):
            i += 1
            while i < len(buf) and buf[i] in b" \t\r\n":
                i += 1
            if i < len(buf) and buf[i] == ord("["):
                return i
        key = buf.find(b'"traceEvents"', key + 1)
    raise ScanError("no traceEvents array")


def event_bounds(buf: bytes, open_at: int, chunk_bytes: int = 8 << 20) -> tuple[int, list[tuple[int, int]]]:
    """Scan the array opened at `open_at`; return (offset of its closing ']', chunk spans).

    Each span (a, b) covers whole events: buf[a:b] is "ev, ev, ..., ev" ready to be wrapped in
    brackets. Raises ScanError when the array never closes (a truncated file).
    """
    arr = np.frombuffer(buf, dtype=np.uint8)
    depth = 0            # depth relative to the array: 1 inside it, 2 inside an event, ...
    in_string = False
    pending_escape = False  # block ended on an odd run of backslashes inside a string
    ev_ends: list[np.ndarray] = []   # offsets just past each event's closing brace
    ev_starts: list[np.ndarray] = []
    close_at = -1
    pos = open_at
    n = arr.size
    while pos < n and close_at < 0:
        end = min(n, pos + BLOCK)
        blk = arr[pos:end]
        q = np.flatnonzero(blk == _QUOTE)
        if q.size:
            # a quote is escaped when preceded by an odd run of backslashes
            prev_bs = np.zeros(q.size, bool)
            has_prev = q > 0
            prev_bs[has_prev] = blk[q[has_prev] - 1] == _BSLASH
            if pending_escape and q.size and q[0] == 0:
                prev_bs[0] = True
            esc = np.zeros(q.size, bool)
            for j in np.flatnonzero(prev_bs):  # rare: only quotes right after a backslash
                k, run = int(q[j]) - 1, 0
                while k >= 0 and blk[k] == _BSLASH:
                    run, k = run + 1, k - 1
                if k < 0 and pending_escape:
                    run += 1
                esc[j] = run % 2 == 1
            q = q[~esc]
        s = np.flatnonzero((blk == _OPEN[0]) | (blk == _OPEN[1]) | (blk == _CLOSE[0]) | (blk == _CLOSE[1]))
        # inside a string when an odd number of unescaped quotes precede (plus carried state)
        parity = (np.searchsorted(q, s) + int(in_string)) % 2
        s = s[parity == 0]
        step = np.where((blk[s] == _OPEN[0]) | (blk[s] == _OPEN[1]), 1, -1).astype(np.int64)
        after = depth + np.cumsum(step)
        before = after - step
        starts = s[(step == 1) & (before == 1)]
        ends = s[(step == -1) & (after == 1)]
        closing = np.flatnonzero(after == 0)
        if closing.size:
            c = int(s[closing[0]])
            starts = starts[starts < c]
            ends = ends[ends < c]
            close_at = pos + c
        ev_starts.append(starts + pos)
        ev_ends.append(ends + pos + 1)
        depth = int(after[-1]) if after.size else depth
        in_string = (q.size + int(in_string)) % 2 == 1
        tail_bs = 0
        k = blk.size - 1
        while k >= 0 and blk[k] == _BSLASH:
            tail_bs, k = tail_bs + 1, k - 1
        pending_escape = in_string and tail_bs % 2 == 1
        pos = end
    if close_at < 0:
        raise ScanError("traceEvents array is not closed (truncated file?)")
    st = np.concatenate(ev_starts) if ev_starts else np.empty(0, np.int64)
    en = np.concatenate(ev_ends) if ev_ends else np.empty(0, np.int64)
    if st.size != en.size:
        raise ScanError("unbalanced events in traceEvents")
    spans: list[tuple[int, int]] = []
    if st.size:
        # group consecutive events into chunks of about chunk_bytes
        cut = np.searchsorted(st, np.arange(int(st[0]), int(en[-1]), chunk_bytes)[1:])
        idx = np.unique(np.concatenate([[0], cut, [st.size]]))
        for a, b in zip(idx[:-1], idx[1:]):
            if b > a:
                spans.append((int(st[a]), int(en[b - 1])))
    return close_at, spans
