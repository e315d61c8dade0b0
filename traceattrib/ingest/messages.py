"""The profiler's own messages as the readers keep them: distinct, in order, whitespace collapsed."""
from __future__ import annotations

from collections.abc import Iterable

WIDTH = 300  # characters kept of one message


def distinct(texts: Iterable[object], keep: int) -> list[str]:
    """At most `keep` distinct messages, in order: whitespace collapsed, cut to WIDTH characters
    (compared as kept, so a repeat is one message); entries that are not text or are empty skipped."""
    out: list[str] = []
    for t in texts:
        text = " ".join(t.split())[:WIDTH] if isinstance(t, str) else ""
        if text and text not in out:
            out.append(text)
            if len(out) >= keep:
                break
    return out
