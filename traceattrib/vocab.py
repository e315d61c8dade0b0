"""The vocabulary: every rules/*.toml file, read by one loader into typed structs.

Names, regexes and tables that say what a trace's words mean (kernel buckets, collective kinds,
links, GPUs, dtypes, op families, step and idle words) are data in traceattrib/rules/; code
reads them only through this module. `load(NAME, TYPE)` parses rules/NAME.toml with tomllib and
converts it with msgspec into TYPE, once per process; `load_file` does the same for a user's file
(--rules). A file that does not fit its type fails with a one-line TraceError naming the file and
the place, e.g. "rules/links.toml: Expected `float`, got `str` - at `$.link[3].peak_GBps`".
The structs below are the files' formats; each file's header says what the fields mean.
"""
from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any, Literal, TypeVar

import msgspec
from msgspec import Struct, field

from .errors import TraceError

T = TypeVar("T")


# --- reading -------------------------------------------------------------------------------------

def parse(text: str, source: str) -> dict[str, Any]:
    """The TOML document of `text`; `source` names the file in the error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TraceError(f"{source}: not valid TOML ({e})") from None


def convert(doc: Any, type_: type[T], source: str) -> T:
    """`doc` as a `type_`; a mismatch is a TraceError naming `source` and the path in it."""
    try:
        return msgspec.convert(doc, type_)
    except msgspec.ValidationError as e:
        raise TraceError(f"{source}: {e}") from None


def read_file(path: str, what: str) -> str:
    """A user's file as text; `what` says what it is in the error ("rules file")."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise TraceError(f"{path}: cannot read {what} ({e.strerror or e})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{path}: {what} is not UTF-8 text") from None


def packaged_text(name: str) -> str:
    """The text of the packaged rules/NAME.toml."""
    return resources.files("traceattrib").joinpath("rules", f"{name}.toml").read_text(encoding="utf-8")


@cache
def load(name: str, type_: type[T]) -> T:
    """The packaged rules/NAME.toml as a `type_` (parsed once per process: it never changes)."""
    source = f"rules/{name}.toml"
    return convert(parse(packaged_text(name), source), type_, source)


def load_file(path: str, type_: type[T], what: str = "rules file") -> T:
    """A user's TOML file as a `type_`."""
    return convert(parse(read_file(path, what), str(path)), type_, str(path))


# --- rules/default.toml and --rules files (classify.py) -----------------------------------------

class RuleRow(Struct, frozen=True, forbid_unknown_fields=True):
    """One [[rule]]: a bucket and its match conditions (regexes; dtype_change a bool)."""

    name: str
    bucket: str
    doc: str = ""
    kernel: str | None = None
    not_kernel: str | None = None
    base: str | None = None
    not_base: str | None = None
    op: str | None = None
    not_op: str | None = None
    types: str | None = None
    not_types: str | None = None
    kind: str | None = None
    not_kind: str | None = None
    dtype_change: bool | None = None


class RulesFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/default.toml, or a --rules file."""

    version: int = 1
    rule: tuple[RuleRow, ...] = ()


# --- rules/collectives.toml (collectives.py) ----------------------------------------------------

class CollectiveRow(Struct, frozen=True, forbid_unknown_fields=True):
    """One collective kind: its name regex and its factors (expressions in n, the group's ranks)."""

    kind: str
    match: str
    busbw_factor: str
    ring_steps: str
    doc: str = ""


class CollectivesFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/collectives.toml."""

    version: int
    collective: tuple[CollectiveRow, ...]


# --- rules/links.toml (links.py) ------------------------------------------------------------------

class LinkRow(Struct, frozen=True, forbid_unknown_fields=True):
    """One interconnect: peak unidirectional GB/s (1e9 B/s), per-hop latency in us."""

    name: str
    peak_GBps: float
    label: str = ""
    latency_us: float | None = None
    source: str = ""


class LinksFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/links.toml."""

    version: int
    link: tuple[LinkRow, ...]


# --- rules/gpus.toml (sol/peaks.py, links.py) -----------------------------------------------------

class GpuRow(Struct, frozen=True, forbid_unknown_fields=True):
    """One GPU: the regex over its reported name, its link (a rules/links.toml name) and, where
    known, its peaks: device-memory bytes/s and dense FLOP/s per math dtype."""

    name: str
    match: str
    link: str
    assumption: str
    hbm_Bps: float | None = None
    flops: dict[str, float] = field(default_factory=dict)
    source: str = ""
    doc: str = ""


class GpusFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/gpus.toml."""

    version: int
    fallback: dict[str, str]   # math dtype -> the one to use where a GPU has no peak for it
    gpu: tuple[GpuRow, ...]


# --- rules/dtypes.toml (sol, collectives.py) ------------------------------------------------------

class Dtype(Struct, frozen=True, forbid_unknown_fields=True):
    """One element type: bytes per stored element, values per element, math kind, and its names
    in each naming scheme."""

    name: str
    math: str
    bytes: int
    values: int = 1
    profiler: tuple[str, ...] = ()
    c10: tuple[str, ...] = ()
    nccl: tuple[str, ...] = ()
    config: tuple[str, ...] = ()


class DtypesFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/dtypes.toml."""

    version: int
    dtype: tuple[Dtype, ...]


SCHEMES = ("profiler", "c10", "nccl", "config")


@cache
def dtypes(scheme: str) -> dict[str, Dtype]:
    """Every dtype by its name in one naming scheme (one of SCHEMES)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown dtype naming scheme {scheme!r}")
    out: dict[str, Dtype] = {}
    for d in load("dtypes", DtypesFile).dtype:
        for n in getattr(d, scheme):
            if n in out:
                raise TraceError(f"rules/dtypes.toml: {scheme} name {n!r} is in rows {out[n].name!r} and {d.name!r}")
            out[n] = d
    return out


# --- rules/ops.toml (sol/calls.py, steps/kinds.py) ------------------------------------------------

class GemmOp(Struct, frozen=True, forbid_unknown_fields=True):
    """A GEMM op whose input layout is known: how its inputs are read (`form`), which input is the
    activation and which the weight (positions), where its bias is."""

    op: str
    form: str
    input: int
    weight: int
    bias: int | None = None
    tokens: bool = False


class AttentionOps(Struct, frozen=True, forbid_unknown_fields=True):
    """Regexes over op names by Q/K/V layout, and attention ops whose layout is not known."""

    bhld: str
    blhd: str
    varlen: str
    custom: str


class OpsFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/ops.toml."""

    version: int
    gemm: tuple[GemmOp, ...]
    custom_gemm: str
    attention: AttentionOps
    convert: str


# --- rules/idle.toml (idle/, ingest/nsys.py) ------------------------------------------------------

class IdleFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/idle.toml: the launch-run gap in us, regexes over call, frame and module names."""

    version: int
    launch_run_gap_us: float
    sync_calls: tuple[str, ...]
    memcpy_calls: str
    skip_frames: tuple[str, ...]
    sample_skip_modules: tuple[str, ...]


# --- rules/integrity.toml (integrity.py) -----------------------------------------------------------

class IntegrityFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/integrity.toml: the limits a trace must keep to be trusted, regexes over API call
    names and the profiler's messages."""

    version: int
    overlap_slack_ns: int
    duration_max_s: float
    duration_ratio_max: float
    duration_min_calls: int
    launch_calls: str
    capture_begin: str
    capture_end: str
    drop_messages: str
    drop_unsure: str
    clock_residual_max_us: float


# --- rules/steps.toml (steps/vocab.py) ----------------------------------------------------------
# (unknown keys are let through: steps/ may read keys this format does not name yet)

class StepFamily(Struct, frozen=True):
    name: str
    regex: str
    framework: str = ""
    forward: str = "one"
    doc: str = ""


class StepFrame(Struct, frozen=True):
    name: str
    regex: str


class StepGraphs(Struct, frozen=True):
    launch: str
    capture: str = "(?!)"  # none: a vocabulary that names no capture call sees none


class StepCudaApi(Struct, frozen=True):
    sync: str


class StepKinds(Struct, frozen=True):
    prefill: str
    decode: str
    mixed: str
    prefill_modes: tuple[str, ...]
    decode_modes: tuple[str, ...]
    mixed_modes: tuple[str, ...]
    no_forward_modes: tuple[str, ...]


class StepRows(Struct, frozen=True):
    """Kernels that launch one block per row they process (grid x = rows)."""

    name: str
    kernel: str
    doc: str = ""


class StepVariant(Struct, frozen=True):
    """An attention kernel that runs for one kind of token only where `engine` (a regex over the
    trace's kernel names) says which engine or library ran it."""

    name: str
    kernel: str
    kind: Literal["decode", "prefill"]
    engine: str
    doc: str = ""


class StepExclude(Struct, frozen=True):
    regex: str


class StepsFile(Struct, frozen=True):
    """rules/steps.toml."""

    family: tuple[StepFamily, ...]
    graphs: StepGraphs
    cuda_api: StepCudaApi
    kinds: StepKinds
    exclude: StepExclude
    frame: tuple[StepFrame, ...] = ()
    rows: tuple[StepRows, ...] = ()
    variant: tuple[StepVariant, ...] = ()


# --- rules/modules.toml ------------------------------------------------------------------------------

class ModuleKernels(Struct, frozen=True, forbid_unknown_fields=True):
    helper: str  # regex over kernel names: kernels that finish another's work
    anchor_bucket: str  # the bucket position alignment matches first


class ModulePaths(Struct, frozen=True, forbid_unknown_fields=True):
    layer: str  # regex: group 1 is the layer index in a module path
    module: str  # regex: a range name that is a module path


class ModulePathRule(Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    match: str
    outside: bool = False


class ModuleClassRule(Struct, frozen=True, forbid_unknown_fields=True, rename={"not_": "not"}):
    name: str
    match: str
    not_: str | None = None
    linears: dict[str, list[str]] = {}


class ModulesFile(Struct, frozen=True, forbid_unknown_fields=True):
    """rules/modules.toml."""

    version: int
    kernels: ModuleKernels
    paths: ModulePaths
    path: tuple[ModulePathRule, ...]
    class_: tuple[ModuleClassRule, ...] = field(name="class")
