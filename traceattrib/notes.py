"""What the reader of a report should know, as data: a `Note` names what it says (`code`), the
things it counts and every other value; its words are in render/notes.py.

Counts are what ranks add up when their notes merge ("3 warm-up steps" on rank 0 and 2 on rank 1
are 5 over the job); every other value must agree for two ranks' notes to be one note, else each
is said with the ranks it holds for.
"""
from __future__ import annotations

import re
from typing import Any

import msgspec


class Note(msgspec.Struct, frozen=True):
    """One note. code: what it says (a key of render/notes.TEXT); counts: counted things, summed when
    ranks merge; args: every other value (text, numbers, or a Note it quotes); ranks: the ranks it
    holds for when ranks said it differently (empty: all of them)."""

    code: str
    counts: tuple[int, ...] = ()
    args: tuple[Any, ...] = ()
    ranks: tuple[int, ...] = ()


def note(code: str, *args: Any, counts: tuple[int, ...] = ()) -> Note:
    """Note(code, counts, args), numbers made plain Python values (numpy scalars are not data of a note)."""
    return Note(code, tuple(int(c) for c in counts), tuple(_plain(a) for a in args))


def _plain(v: Any) -> Any:
    if isinstance(v, (Note, str, bool)) or v is None:
        return v
    if isinstance(v, (tuple, list)):
        return tuple(_plain(x) for x in v)
    if hasattr(v, "item"):  # numpy scalar
        return v.item()
    return v


def _loose(n: Note) -> tuple:
    """What two notes of one code share when they differ only in numbers: the code and every
    text value with its digits blanked (numbers themselves blanked)."""
    def blank(v: Any) -> Any:
        if isinstance(v, Note):
            return (v.code, tuple(blank(a) for a in v.args))
        if isinstance(v, tuple):
            return tuple(blank(a) for a in v)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return "#"
        return re.sub(r"\d+(?:\.\d+)?", "#", v) if isinstance(v, str) else v
    return n.code, blank(n.args)


def merge(lists: list[list[Note]], ranks: list[int] | None = None) -> list[Note]:
    """Per-rank notes as one list: notes alike but for their counts become one note with the counts
    summed; a note said alike by every rank is said once; notes of one code whose values differ
    otherwise are kept per rank, each with the ranks it holds for (given `ranks`, one per list).
    Order: each rank's order kept (they come from the same code path), first appearance breaking
    ties."""
    if len(lists) == 1:
        return list(lists[0])
    counts: dict[tuple, list[int]] = {}
    who: dict[tuple, list[int]] = {}
    after: dict[tuple, set] = {}
    first: list[tuple] = []
    notes_of: dict[tuple, Note] = {}
    for li, notes in enumerate(lists):
        seen: dict[tuple, int] = {}
        prev = None
        for n in notes:
            base = (n.code, n.args)
            k = (base, seen.get(base, 0))
            seen[base] = k[1] + 1
            if k not in counts:
                counts[k], who[k], after[k] = list(n.counts), [], set()
                notes_of[k] = n
                first.append(k)
            else:
                counts[k] = [a + b for a, b in zip(counts[k], n.counts)]
            who[k].append(ranks[li] if ranks is not None else li)
            if prev is not None:
                after[k].add(prev)
            prev = k
    loose: dict[tuple, set] = {}
    for k in first:
        loose.setdefault(_loose(notes_of[k]), set()).add(k[0])
    out, done = [], set()
    while len(out) < len(first):
        k = next((k for k in first if k not in done and after[k] <= done), None)
        if k is None:  # orders disagree (cannot happen from one code path): first appearance
            k = next(k for k in first if k not in done)
        done.add(k)
        n = notes_of[k]
        split = ranks is not None and len(loose[_loose(n)]) > 1
        out.append(Note(n.code, tuple(counts[k]), n.args, tuple(sorted(set(who[k]))) if split else ()))
    return out


# --- as plain data (the cache's results, JSON): tagged so that a value reads back as it was -------

def to_data(n: Note) -> dict:
    """The note as JSON-able data; `from_data` reads it back equal."""
    return {"code": n.code, "counts": list(n.counts), "args": [_arg_data(a) for a in n.args], "ranks": list(n.ranks)}


def _arg_data(a: Any) -> list:
    if isinstance(a, Note):
        return ["note", to_data(a)]
    if isinstance(a, tuple):
        return ["tuple", [_arg_data(x) for x in a]]
    return ["value", a]


def from_data(d: Any) -> Note:
    """A Note from `to_data`'s form; ValueError for anything else."""
    if not (isinstance(d, dict) and set(d) == {"code", "counts", "args", "ranks"} and isinstance(d["code"], str)
            and all(isinstance(x, list) for x in (d["counts"], d["args"], d["ranks"]))
            and all(type(c) is int for c in d["counts"] + d["ranks"])):
        raise ValueError("not a note")
    return Note(d["code"], tuple(d["counts"]), tuple(_arg_from(a) for a in d["args"]), tuple(d["ranks"]))


def _arg_from(a: Any) -> Any:
    if not (isinstance(a, list) and len(a) == 2):
        raise ValueError("not a note value")
    tag, v = a
    if tag == "note":
        return from_data(v)
    if tag == "tuple" and isinstance(v, list):
        return tuple(_arg_from(x) for x in v)
    if tag == "value" and (v is None or isinstance(v, (str, int, float, bool))):
        return v
    raise ValueError("not a note value")
