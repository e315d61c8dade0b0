"""rules/modules.toml compiled, and the layer codes every part of layers/ shares."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

OUTSIDE = -1  # layer of the ops around the layers
NO_STEP = -2  # layer of the ops outside every step
SOURCES = ("nvtx", "names", "shapes", "position", "none")
MODULE_PREFIX = "nn.Module: "


@dataclass(frozen=True)
class PathRule:
    name: str
    match: re.Pattern
    outside: bool


@dataclass(frozen=True)
class ClassRule:
    name: str
    match: re.Pattern
    exclude: re.Pattern | None
    linears: dict[int, tuple[str, ...]]


@dataclass(frozen=True)
class Vocab:
    layer: re.Pattern
    module: re.Pattern
    paths: tuple[PathRule, ...]
    classes: tuple[ClassRule, ...]
    helper: re.Pattern  # kernels that finish another's work (split-K reductions, fills)
    anchor_bucket: str  # the bucket position alignment matches first


@lru_cache(maxsize=1)
def vocab() -> Vocab:
    """rules/modules.toml, compiled."""
    from .. import vocab as rules

    doc = rules.load("modules", rules.ModulesFile)
    return Vocab(
        layer=re.compile(doc.paths.layer), module=re.compile(doc.paths.module),
        paths=tuple(PathRule(r.name, re.compile(r.match), r.outside) for r in doc.path),
        classes=tuple(ClassRule(r.name, re.compile(r.match), re.compile(r.not_) if r.not_ else None,
                                {int(k): tuple(v) for k, v in r.linears.items()}) for r in doc.class_),
        helper=re.compile(doc.kernels.helper, re.I), anchor_bucket=doc.kernels.anchor_bucket)


def path_module(path: str, v: Vocab | None = None) -> tuple[int, str]:
    """(layer index or OUTSIDE, canonical module name) of a qualified module name."""
    v = v or vocab()
    m = v.layer.search(path)
    layer = int(m.group(1)) if m else OUTSIDE
    if m and m.end() == len(path):
        return layer, "residual_add"  # the layer's own ops (its residual adds)
    for r in v.paths:
        if (not r.outside or layer == OUTSIDE) and r.match.search(path):
            return layer, r.name
    return layer, "model" if layer == OUTSIDE else "other"


def class_rule(cls: str, v: Vocab | None = None) -> ClassRule | None:
    v = v or vocab()
    for r in v.classes:
        if r.match.search(cls) and not (r.exclude and r.exclude.search(cls)):
            return r
    return None
