"""Interconnects as data (`rules/links.toml`): peak unidirectional bandwidth and per-hop latency of
NVLink, PCIe and Infinity Fabric generations; which link a GPU most likely has is rules/gpus.toml's.

A trace names its GPUs but not the path NCCL took, so the link is an assumption the report states;
`--link NAME|GBPS` replaces it.
"""
from __future__ import annotations

import re
from functools import lru_cache

from msgspec import Struct
from msgspec.structs import replace

from . import vocab
from .errors import TraceError


class Link(Struct, frozen=True):
    """One interconnect. peak_GBps: unidirectional, GB/s (1e9 B/s); latency_us: per hop, None when
    not known (a --link given as a number)."""

    name: str
    label: str
    peak_GBps: float
    latency_us: float | None
    source: str
    how: str = ""  # how this link was chosen for the trace: "--link", "GPU name ...", ...


@lru_cache(maxsize=1)
def _data() -> tuple[dict[str, Link], tuple[tuple[re.Pattern, str, str], ...]]:
    """The links by name, and per rules/gpus.toml row in order: its regex, link and assumption."""
    links = {e.name: Link(name=e.name, label=e.label or e.name, peak_GBps=e.peak_GBps, latency_us=e.latency_us,
                          source=e.source)
             for e in vocab.load("links", vocab.LinksFile).link}
    gpus = []
    for g in vocab.load("gpus", vocab.GpusFile).gpu:
        if g.link not in links:
            raise TraceError(f"rules/gpus.toml: gpu {g.name!r} names unknown link {g.link!r}")
        gpus.append((re.compile(g.match, re.I), g.link, g.assumption))
    return links, tuple(gpus)


def table() -> dict[str, Link]:
    """Every known link by name."""
    return dict(_data()[0])


def get(name: str) -> Link:
    links = _data()[0]
    key = name.strip().lower()
    if key not in links:
        raise TraceError(f"unknown link {name!r}; known: {', '.join(links)} (or a number in GB/s)", "link")
    return links[key]


def parse(value: str) -> Link:
    """A --link / --what-if-link value: a link name from rules/links.toml, or a peak in GB/s."""
    try:
        gbps = float(value)
    except ValueError:
        return replace(get(value), how="--link")
    if not gbps > 0:
        raise TraceError("a bandwidth must be > 0 GB/s", "link", "not_positive")
    return Link(name=f"{gbps:g}GBps", label=f"{gbps:g} GB/s (given)", peak_GBps=gbps, latency_us=None,
                source="given on the command line", how="--link")


def detect(meta: dict) -> Link | None:
    """The link the trace's GPUs most likely have, from their names (the first rules/gpus.toml row
    that matches); None when no row knows the GPU. `how` says what was assumed."""
    gpus = [str(g) for g in (meta.get("gpus") or []) if g]
    links, rules = _data()
    for name in dict.fromkeys(gpus):
        for pat, link, assumption in rules:
            if pat.search(name):
                return replace(links[link], how=f"assumed from the GPU name {name!r}: {assumption}")
    return None
