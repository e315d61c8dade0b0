"""The chooser: the cross-check of every candidate against detection. Detection's anchor is a
kernel that runs once per forward, so a candidate whose steps each hold one anchor holds one
forward per step. The first candidate that passes is chosen (a user's --steps and the steps a
trace states always are); the
others are said with why not: ProfilerStep ranges around a whole `generate` hold many forwards;
piecewise CUDA-graph launches hold part of one."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..notes import Note, note
from .candidate import Candidate
from .detect import DISTINCT, Detection


def choose(cands: Iterable[Candidate], dets: dict[int, Detection], training: bool = False,
           trained: set[int] = frozenset()) -> tuple[Candidate | None, Note | None, list[Note]]:
    """(chosen candidate, why, notes on the rejected ones); (None, None, notes) when none passes.
    trained: the ranks that ran backward work; the why says a step is a training iteration where
    the chosen steps lie on them.

    Where detection's boundaries do not stand out from the GPU gaps inside its steps (ratio <
    DISTINCT), it is not trusted to overrule a framework's own one-forward annotations, only ranges
    that may hold several forwards (ProfilerStep#N). In a training trace a step is an iteration
    (forward and backward), which the anchor does not describe: annotations are taken as they are."""
    rejected: list[Note] = []
    strong = bool(dets) and min(d.ratio for d in dets.values()) >= DISTINCT
    for c in cands:
        counts = forwards_per_step(c, dets)
        v = _verdict(counts)
        if v not in ("one", "unchecked") and c.source != "detected" and (
                training and c.source == "annotations" or not strong and c.forward == "one"):
            v = "unchecked"
        n = len(c.table)
        if c.source in ("regex", "given") or v in ("one", "unchecked") or c.source == "detected":
            if c.source == "regex" and v not in ("one", "unchecked"):
                rejected.append(note("steps.regex_forwards", *_forwards(counts)))
            iteration = bool(trained & set(c.table["rank"].tolist()))
            return c, note("why.from", c.label, v == "one", iteration), rejected
        rejected.append(note("steps.rejected", c.label, *_forwards(counts), v, counts=(n,)))
    return None, None, rejected


def forwards_per_step(cand: Candidate, dets: dict[int, Detection]) -> np.ndarray | None:
    """How many forward-pass anchors (detect.py) each candidate step holds; None without anchors."""
    if not dets:
        return None
    anchors = np.concatenate([d.anchor_pos for d in dets.values()])
    ranks = set(dets)
    s = cand.step[anchors]
    n = len(cand.table)
    counts = np.bincount(s[s >= 0], minlength=n)[:n]
    on = np.isin(cand.table["rank"].to_numpy(), list(ranks))
    return counts[on]


def _verdict(counts: np.ndarray | None) -> str:
    """'one' forward per step, 'many', 'part' of one, 'mixed', or 'unchecked' (no anchors)."""
    if counts is None or not counts.size:
        return "unchecked"
    if (counts == 1).mean() >= 0.75:
        return "one"
    med = float(np.median(counts))
    return "many" if med >= 2 else ("part" if med < 1 else "mixed")


def _forwards(counts: np.ndarray | None) -> tuple[float | None, float | None]:
    """(median, mean) forward passes per step; (None, None) when unchecked."""
    if counts is None or not counts.size:
        return None, None
    return float(np.median(counts)), float(counts.mean())
