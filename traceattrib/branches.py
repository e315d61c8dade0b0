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
    try:
        return _parsed(branch, flags)[0]
    except re.error:  # not a valid branch
        return ""


def _parsed(branch: str, flags: int) -> tuple[str, frozenset]:
    """(required_literal, the names of the branch's named groups); re.error where the branch is not
    a valid pattern."""
    parsed = _sre_parse.parse(branch, flags)
    names = frozenset(parsed.state.groupdict)
    if (flags | parsed.state.flags) & re.IGNORECASE:
        return "", names
    try:
        return max(_runs(list(parsed)), key=len, default=""), names
    except (TypeError, ValueError):  # the parser's own shapes changed: no literal
        return "", names


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


def plan(pattern: str, flags: int = 0) -> list[tuple[str, str]] | None:
    """(branch text, its required literal) for each top-level branch of `pattern`, or None where the
    pattern is searched whole (it cannot be split, has few branches, or two branches name a group
    alike: re refuses the whole pattern then). An invalid branch raises re.error, as re.compile of
    the whole pattern would."""
    branches = split_branches(pattern) if not flags & re.VERBOSE else None
    if branches is None or len(branches) < MIN_BRANCHES:
        return None
    out: list[tuple[str, str]] = []
    seen: frozenset = frozenset()
    for b in branches:
        lit, names = _parsed(b, flags)
        if seen & names:
            return None
        seen |= names
        out.append((b, lit))
    return out


_PLAN = object()  # BranchSearch: make the plan from the pattern


class BranchSearch:
    """`search` as re.compile(pattern, flags).search's, by branches (module docstring); patterns it
    cannot split, of few branches, or whose branches name a group alike are searched whole. An
    invalid pattern raises re.error here, as re.compile would (one whose only fault is a
    look-behind of varying width in a branch with a literal: when a text first holds that literal;
    with `planned`, nothing is parsed here, and a bad branch raises when it is first compiled).
    Each branch is parsed here for its literal (`plan`; `planned`: that plan, made before, of this
    very pattern and flags) and compiled when a text first holds it (most never do in one trace's
    names: compiling every branch of the packaged rules would cost as much as the searches it
    saves)."""

    __slots__ = ("_whole", "_rest", "_literal", "_flags")

    def __init__(self, pattern: str, flags: int = 0, planned: list[tuple[str, str]] | None | object = _PLAN):
        self._whole: re.Pattern | None = None
        self._rest: re.Pattern | None = None  # the branches without a literal, as one alternation
        self._literal: list[list] = []  # [literal, branch text, its compiled form or None]
        self._flags = flags
        parts = plan(pattern, flags) if planned is _PLAN else planned
        if parts is None:
            self._whole = re.compile(pattern, flags)
            return
        rest = []
        for b, lit in parts:
            if len(lit) >= MIN_LITERAL:
                self._literal.append([lit, b, None])
            else:
                rest.append(b)
        if rest:
            self._rest = re.compile("|".join(rest), flags)

    def search(self, text: str) -> re.Match | None:
        """A match of some branch in `text` (not always the leftmost), None where the pattern has none."""
        if self._whole is not None:
            return self._whole.search(text)
        for entry in self._literal:
            if entry[0] in text:
                rx = entry[2]
                if rx is None:
                    rx = entry[2] = re.compile(entry[1], self._flags)
                m = rx.search(text)
                if m is not None:
                    return m
        return self._rest.search(text) if self._rest is not None else None
