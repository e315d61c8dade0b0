"""The step vocabulary (`rules/steps.toml`): annotation families, Python frames, graph-launch and
synchronizing call names, kind words, kernels whose grids count rows, attention kernels that run
for one kind only; and the attention-op layouts of `rules/ops.toml`. Parsed once per process;
callers may pass their own."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .. import vocab as rules


@dataclass(frozen=True)
class Family:
    """A family of annotation ranges that mark steps (one framework's naming)."""

    name: str
    framework: str
    regex: re.Pattern
    forward: str  # "one": one range per forward; "any": a range may hold several


@dataclass(frozen=True)
class Variant:
    """An attention kernel that runs for one kind of token only (`kind`: decode | prefill) in the
    engine whose kernels `engine` matches."""

    name: str
    kernel: re.Pattern
    kind: str
    engine: re.Pattern


@dataclass(frozen=True)
class Vocab:
    families: tuple[Family, ...]
    frames: tuple[tuple[str, re.Pattern], ...]
    graph_launch: re.Pattern
    graph_capture: re.Pattern               # the call that starts a stream capture
    sync: re.Pattern
    kind_words: dict[str, re.Pattern]       # prefill / decode / mixed -> regex over names
    modes: dict[str, frozenset[str]]        # prefill / decode / mixed / none -> SGLang mode names
    rows: re.Pattern                        # kernels launching one block per row (grid x = rows)
    variants: tuple[Variant, ...]
    exclude: re.Pattern


def parse_vocab(text: str) -> Vocab:
    """A vocabulary from the text of a steps.toml."""
    return _compile(rules.convert(rules.parse(text, "steps.toml"), rules.StepsFile, "steps.toml"))


def _compile(doc: rules.StepsFile) -> Vocab:
    """The vocabulary with its regexes compiled."""
    k = doc.kinds
    rows = "|".join(f"(?:{r.kernel})" for r in doc.rows) or r"(?!)"
    return Vocab(
        families=tuple(Family(f.name, f.framework, re.compile(f.regex), f.forward) for f in doc.family),
        frames=tuple((f.name, re.compile(f.regex)) for f in doc.frame),
        graph_launch=re.compile(doc.graphs.launch),
        graph_capture=re.compile(doc.graphs.capture),
        sync=re.compile(doc.cuda_api.sync),
        kind_words={w: re.compile(getattr(k, w), re.I) for w in ("prefill", "decode", "mixed")},
        modes={"prefill": frozenset(k.prefill_modes), "decode": frozenset(k.decode_modes),
               "mixed": frozenset(k.mixed_modes), "none": frozenset(k.no_forward_modes)},
        rows=re.compile(rows),
        variants=tuple(Variant(v.name, re.compile(v.kernel), v.kind, re.compile(v.engine)) for v in doc.variant),
        exclude=re.compile(doc.exclude.regex),
    )


@lru_cache(maxsize=1)
def default_vocab() -> Vocab:
    """The packaged vocabulary (read-only data; cached because it never changes in a process)."""
    return _compile(rules.load("steps", rules.StepsFile))


def gemm_token_ops() -> tuple[str, ...]:
    """The GEMM ops whose rows are a step's tokens (rules/ops.toml, `tokens = true`)."""
    return tuple(g.op for g in rules.load("ops", rules.OpsFile).gemm if g.tokens)


@dataclass(frozen=True)
class AttentionLayouts:
    """rules/ops.toml's attention ops by Q/K/V layout: bhld [batch, heads, len, dim], blhd [batch,
    len, heads, dim], varlen [tokens, heads, dim] with cu_seqlens [sequences + 1] as input 3."""

    bhld: re.Pattern
    blhd: re.Pattern
    varlen: re.Pattern


@lru_cache(maxsize=1)
def attention_layouts() -> AttentionLayouts:
    """The packaged attention-op layouts (rules/ops.toml)."""
    a = rules.load("ops", rules.OpsFile).attention
    return AttentionLayouts(re.compile(a.bhld), re.compile(a.blhd), re.compile(a.varlen))
