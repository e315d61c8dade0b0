"""branches.BranchSearch against its plain equivalent, re.search, on generated patterns and texts."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib import classify
from traceattrib.branches import BranchSearch, required_literal, split_branches

CHARS = "ab_c1"


def _atoms(inner):
    lit = st.sampled_from(list(CHARS))
    simple = st.sampled_from(["\\d", "\\w", ".", "[ab]", "[^a]", "[]a]", "[a\\]]", "\\|", "[|]", "\\b", "^", "$",
                              "(?<![a-z])", "(?<=_)", "(?![a-z])"])
    grouped = inner.map(lambda x: f"({x})") | inner.map(lambda x: f"(?:{x})") | inner.map(lambda x: f"(?={x})") \
        | inner.map(lambda x: f"(?!{x})") | st.tuples(inner, inner).map(lambda t: f"({t[0]}|{t[1]})")
    return st.one_of(lit, lit, lit, simple, grouped)


def _quantified(atom):
    return st.tuples(atom, st.sampled_from(["", "", "", "?", "*", "+", "*?", "{1,2}"])).map(
        lambda t: t[0] + t[1] if t[0] not in ("^", "$", "\\b") and not t[0].startswith("(?<") else t[0])


_seq = st.recursive(st.lists(st.sampled_from(list(CHARS)), min_size=1, max_size=3).map("".join),
                    lambda inner: st.lists(_quantified(_atoms(inner)), min_size=1, max_size=5).map("".join),
                    max_leaves=8)
_patterns = st.lists(_seq, min_size=1, max_size=9).map("|".join)


def _valid(p: str) -> bool:
    try:
        re.compile(p)
    except re.error:
        return False
    return True


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(pattern=_patterns.filter(_valid), data=st.data())
def test_branch_search_finds_a_match_where_re_does(pattern, data):
    """Whether BranchSearch finds a match is whether re.search does. Texts are made of the
    pattern's own letter runs and single characters, so that branches' literals occur in them."""
    fast, plain = BranchSearch(pattern), re.compile(pattern)
    pieces = re.findall(r"[a-c_1]+", pattern) + list(CHARS + " A|")
    texts = data.draw(st.lists(st.lists(st.sampled_from(pieces), max_size=6).map("".join), min_size=1, max_size=6))
    for t in texts:
        m = fast.search(t)
        assert (m is not None) == (plain.search(t) is not None), (pattern, t)


def _paired(inner):
    """(regex, a text it matches) of an atom, assertions left out."""
    lit = st.sampled_from(list(CHARS)).map(lambda c: (c, c))
    simple = st.sampled_from([("\\d", "1"), ("\\w", "b"), (".", " "), ("[ab]", "b"), ("[^a]", "c"), ("[]a]", "]")])
    grouped = inner.map(lambda x: (f"({x[0]})", x[1])) | inner.map(lambda x: (f"(?:{x[0]})", x[1])) \
        | st.tuples(inner, inner, st.booleans()).map(lambda t: (f"({t[0][0]}|{t[1][0]})", t[0][1] if t[2] else t[1][1]))
    atom = st.one_of(lit, lit, lit, simple, grouped)
    once = ("", (1,))  # mostly: runs of literals with something between them are what is tested
    quant = st.sampled_from([once] * 6 + [("?", (0, 1)), ("*", (0, 1, 2)), ("+", (1, 2)), ("*?", (0, 2)),
                                          ("{1,2}", (1, 2))])
    return st.tuples(atom, quant, st.integers(0, 2)).map(
        lambda t: (t[0][0] + t[1][0], t[0][1] * t[1][1][t[2] % len(t[1][1])]))


_paired_seq = st.recursive(st.text(CHARS, min_size=1, max_size=3).map(lambda c: (c, c)),
                           lambda inner: st.lists(_paired(inner), min_size=1, max_size=5).map(
                               lambda xs: ("".join(x[0] for x in xs), "".join(x[1] for x in xs))),
                           max_leaves=8)


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(branch=_paired_seq, around=st.tuples(st.text(CHARS, max_size=4), st.text(CHARS, max_size=4)))
def test_branch_search_finds_a_branch_in_a_text_it_matches(branch, around):
    """A text holding what a branch matches (its literals with other characters between them) is
    found; the other branches are letters no text here holds, so only this branch can find it."""
    pattern = branch[0] + "|qq|xx|yy"
    text = around[0] + branch[1] + around[1]
    assert re.search(pattern, text) is not None
    assert BranchSearch(pattern).search(text) is not None, (pattern, text)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(pattern=_patterns.filter(_valid))
def test_split_branches_gives_the_pattern_back(pattern):
    parts = split_branches(pattern)
    assert parts is not None
    assert "|".join(parts) == pattern
    for p in parts:  # each a pattern of its own, and no top-level '|' left in it
        re.compile(p)
        assert split_branches(p) == [p]


@pytest.mark.parametrize("pattern,want", [
    ("(?s)a|b|c|d", None),  # global flags would hold for the first branch only
    ("(a)x\\1|b|c|d", None),  # a backreference's group number changes when split
    ("(?P<x>a)(?P=x)|b|c|d", None),
    ("(a)?(?(1)b|c)|d|e|f", None),
    ("a)|(b", None),
    ("[|]x|\\|y|(p|q)|z", ["[|]x", "\\|y", "(p|q)", "z"]),
    ("[]|]|a", ["[]|]", "a"]),
    ("[^]|]|a", ["[^]|]", "a"]),
])
def test_split_branches_cases(pattern, want):
    assert split_branches(pattern) == want


@pytest.mark.parametrize("branch,want", [
    ("(?<![a-z])flash_?attn", "flash"),  # the longest run; `_?` ends it
    ("^(?!.*(gemm|matmul)).*?(?<![a-z])add_?(fused_?)?qkv_?bias", "bias"),
    ("(^|_)mmv?[qfb](_|$)", "mm"),
    ("cutlass(::\\w+)?_kernel", "cutlass"),
    ("(?:gemv)x", "gemvx"),  # (a non-capturing group of one sequence is read inline)
    ("(gemv)x", "gemv"),  # a group always entered
    ("(gemv)?x", "x"),  # an optional group is not
    ("(?=gemm)\\w+", ""),  # a lookahead's text is not consumed: left out
    ("a[bc]d", "a"),
    ("\\.cu", ".cu"),
])
def test_required_literal(branch, want):
    assert required_literal(branch) == want
    assert required_literal(branch, re.IGNORECASE) == ""


def test_packaged_rules_split_and_agree_on_long_names():
    """Every packaged regex's lower-case twin that has many branches is searched by them, and agrees
    with the whole pattern on the labelled names."""
    import pandas as pd

    from tests.test_classify import LABELLED

    names = [n.lower() for n in pd.read_csv(LABELLED)["name"].astype(str)]
    split = 0
    for r in classify._default():
        for (_, v), fast in zip(r.conditions, r.fast):
            if fast is None:
                continue
            twin = classify._lower_pattern(v.pattern)
            bs, whole = BranchSearch(twin), re.compile(twin)
            split += bs._whole is None
            for n in names:
                assert (bs.search(n) is not None) == (whole.search(n) is not None), (r.name, n)
    assert split >= 20


@pytest.mark.parametrize("pattern, texts", [
    ("(?#c)(?x)ab|c d|e f|gh h", ["cd", "c d", "gh h", "ghh"]),  # global flags after a comment hold for all
    ("(?#[)((]|x)|aa|bb|c(?#[)]|d)zz", ["aa", "cdzz", "czz"]),  # brackets inside a comment are no syntax
    ("(?x:#)\n|aa|bb|c.#(\n)z", ["aa", "cxz"]),  # nor inside a verbose group's comment
    ("aa|bb|cc|(?s:d.d)", ["d\nd", "dd", "bb"]),  # a group's own flags stay in it
])
def test_branch_search_reads_comments_and_flags_as_re_does(pattern, texts):
    fast, plain = BranchSearch(pattern), re.compile(pattern)
    for t in texts:
        assert (fast.search(t) is not None) == (plain.search(t) is not None), (pattern, t)


def test_branch_search_refuses_what_re_refuses():
    with pytest.raises(re.error):
        BranchSearch("(?P<n>aa)|bb|cc|(?P<n>dd)")
    with pytest.raises(re.error):
        BranchSearch("aa|bb|cc|(dd")
