"""A regex search that tries each branch of a top-level alternation only on texts holding the
literal text that branch cannot match without.

The bucket rules are long alternations (a hundred branches and more) searched in kernel names of
hundreds of characters: Python's `re` tries every branch at every position of the text, about
0.35 ms per name and rule. A branch made of literal characters in a row (`flash_attn`, `gemv`)
can only match a text that contains them, which `in` finds in C at once; so only the branches
whose literal is in the text, and those with none, are searched.

`BranchSearch(p).search(t) is not None` equals `re.search(p, t) is not None` (the property test
holds it to that); the match it returns is one branch's, not always the leftmost.
"""
from __future__ import annotations

import re
from re import _parser as _sre_parse  # the parser re itself uses

MIN_BRANCHES = 4  # fewer: the pattern is searched whole
MIN_LITERAL = 2  # a shorter run is in most names: the branch is searched every time

_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
# backreferences and conditionals (group numbers change when split); comments and verbose mode
# (brackets and '|' inside them are no syntax, which the split does not know)
_UNSPLIT = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?#|\(\?[aiLmsu-]*x")
_PLAIN_FLAGS = _sre_parse.parse("").state.flags


def split_branches(pattern: str) -> list[str] | None:
    """The pattern's top-level alternatives as texts ('|'.join gives it back), or None where they
    cannot be searched one by one: global inline flags (they would hold for the first branch
    only), backreferences and conditionals (group numbers change when split), comments and
    verbose mode."""
    if _GLOBAL_FLAGS.match(pattern) or _UNSPLIT.search(pattern):
        return None
    out, start, depth, i, n = [], 0, 0, 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":  # a class: a ']' first (after an optional '^') is a member
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    out.append(pattern[start:])
    return out if depth == 0 else None


def required_literal(branch: str, flags: int = 0) -> str:
    """The longest run of literal characters that every match of `branch` contains ("" none):
    consecutive literals of its top-level sequence or of a group it always enters."""
    if flags & re.IGNORECASE:
        return ""
    try:
        parsed = _sre_parse.parse(branch, flags)
        if parsed.state.flags & re.IGNORECASE:
            return ""
        return max(_runs(list(parsed)), key=len, default="")
    except Exception:  # noqa: BLE001 - the parser's own shapes changed, or no valid branch: no literal
        return ""


def _runs(items: list) -> list[str]:
    """Runs of consecutive LITERAL items of a sequence, and those of groups entered always (a
    capturing or non-capturing group of one sequence, flags unchanged)."""
    out, cur = [], []
    for op, av in items:
        if op is _sre_parse.LITERAL:
            cur.append(chr(av))
            continue
        if cur:
            out.append("".join(cur))
            cur = []
        if op is _sre_parse.SUBPATTERN:
            _, add_flags, del_flags, sub = av
            if not add_flags and not del_flags:
                out += _runs(list(sub))
    if cur:
        out.append("".join(cur))
    return out


class BranchSearch:
    """`search` as re.compile(pattern, flags).search's, by branches (module docstring); patterns it
    cannot split, or of few branches, are searched whole."""

    __slots__ = ("_whole", "_rest", "_literal")

    def __init__(self, pattern: str, flags: int = 0):
        self._whole: re.Pattern | None = None
        self._rest: re.Pattern | None = None  # the branches without a literal, as one alternation
        self._literal: list[tuple[str, re.Pattern]] = []
        whole = re.compile(pattern, flags)  # an invalid pattern fails here, as it would searched whole
        branches = split_branches(pattern) if not flags & re.VERBOSE else None
        if branches is None or len(branches) < MIN_BRANCHES or \
                _sre_parse.parse(pattern, flags).state.flags & ~_PLAIN_FLAGS & ~flags:
            self._whole = whole  # few branches, or flags set inside the pattern that hold for all of it
            return
        rest = []
        for b in branches:
            lit = required_literal(b, flags)
            if len(lit) >= MIN_LITERAL:
                self._literal.append((lit, re.compile(b, flags)))
            else:
                rest.append(b)
        if rest:
            self._rest = re.compile("|".join(rest), flags)

    def search(self, text: str) -> re.Match | None:
        """A match of some branch in `text` (not always the leftmost), None where the pattern has none."""
        if self._whole is not None:
            return self._whole.search(text)
        for lit, rx in self._literal:
            if lit in text:
                m = rx.search(text)
                if m is not None:
                    return m
        return self._rest.search(text) if self._rest is not None else None
