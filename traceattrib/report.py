"""The typed report: what each analysis contributes, composed; the one thing renderers read.

Each analysis returns its own section for a step kind (attribute: KindAttribution; comm:
CollectiveBandwidth, RankComm, JobSummary, Fit, WhatIfLink; sol: SolSummary; idle: IdleSummary;
findings: Finding) and the orchestrator (analysis.merge) composes them into a `Summary`; nothing
changes a section after it is built. Times in ns, bandwidths in GB/s (1e9 B/s), shares and bounds
as plain ratios; `Per` maps a bucket (or an idle cause) to a value.

The JSON report (render/jsonout.py, schema_version 1) is these types as data: a struct is an
object with its fields in order, a field that is UNSET is left out, and the fields a struct
names in `__inline__` put their own fields (or entries) into the struct's object instead of
under their name. render/contract.py writes the README's JSON contract from the same types.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Any

from msgspec import UNSET, Struct, UnsetType

from .links import Link
from .notes import Note


class Kind(StrEnum):
    """Step kinds, in the order every report lists them."""

    DECODE = "decode"
    PREFILL = "prefill"
    MIXED = "mixed"
    UNKNOWN = "unknown"


KINDS: tuple[str, ...] = tuple(k.value for k in Kind)
Per = dict[str, float]


class WhatIf(Struct):
    """The bound if one bucket were `factor` times faster (median / p90 over the kind's steps)."""

    bucket: str
    factor: float
    speedup_bound: float
    speedup_bound_p90: float


class KindAttribution(Struct):
    """attribute.section: a kind's steps by bucket. Means per step add up: sum(mean_exposed_ns) +
    mean_overlap_ns + mean_idle_ns = mean_span_ns; shares are ratios of sums over the summarized
    (steady) steps; bounds are the median and p90 of per-step bounds."""

    steps: int
    warmup_steps: int
    outlier_steps: int
    summarized_steps: int
    median_span_ns: float
    p90_span_ns: float
    mean_span_ns: float
    median_busy_ns: float
    median_idle_ns: float
    mean_idle_ns: float
    mean_overlap_ns: float
    mean_time_ns: Per
    mean_exposed_ns: Per
    mean_count: Per
    idle_share: float
    overlap_share: float
    bucket_share: Per
    exposed_share: Per
    median_time_ns: Per
    median_exposed_ns: Per
    median_count: Per
    speedup_bound_if_removed: Per
    speedup_bound_if_removed_p90: Per
    what_if: dict[str, WhatIf] | UnsetType = UNSET


class SizeClass(Struct):
    """Calls of one collective of one size (or power-of-two size bin)."""

    bytes_min: int
    bytes_max: int
    count: int
    median_ns: float
    median_transfer_ns: float | UnsetType = UNSET
    bytes_per_call: float | None = None
    algbw_GBps: float | None = None
    busbw_GBps: float | None = None
    link_fraction: float | None = None


class CollectiveBandwidth(Struct):
    """comm.bandwidth: one collective's bytes and bandwidth over a kind's steady steps, every rank.
    Time is the transfer time (after the last rank arrived) with 2+ ranks, else the duration."""

    median_ns: float
    group_size: int
    time_basis: str  # transfer | duration
    bytes_source: str  # args | nvtx | model | unknown | mixed
    bytes_known_share: float
    median_transfer_ns: float | UnsetType = UNSET
    median_wait_ns: float | UnsetType = UNSET
    bytes_per_call: float | None = None
    algbw_GBps: float | None = None
    busbw_GBps: float | None = None
    link_fraction: float | None = None
    bytes_per_step: float | None = None
    size_classes: list[SizeClass] = []


class CollectiveSummary(Struct):
    """One collective of a kind: calls per step (median over steps), mean call, time per step
    (attribute), and its bytes and bandwidth (comm) when computed."""

    __inline__ = ("bandwidth",)
    per_step: float | UnsetType = UNSET
    mean_ns: float | UnsetType = UNSET
    total_per_step_ns: float | UnsetType = UNSET
    bandwidth: CollectiveBandwidth | None = None


class AllReduceCheck(Struct):
    """--layers given: tensor parallelism all-reduces twice per layer."""

    expected_all_reduce_per_step: int
    all_reduce_difference: float


class Collectives(Struct):
    """A kind's collectives by name, then the all-reduce count check (with --layers)."""

    __inline__ = ("by_collective", "layers")
    by_collective: dict[str, CollectiveSummary] = {}
    layers: AllReduceCheck | None = None


class SolSummary(Struct):
    """sol.section: the kind's speed of light from the per-step columns (steady steps; means per
    step, efficiencies as ratios of sums); the first eight fields always, the rest when known."""

    bytes_per_step: float | None = None
    flops_per_step: float | None = None
    source: str = "unknown"  # shapes | model | unknown
    peak_bw_Bps: float | None = None
    peak_flops: float | None = None
    min_step_ns: float | None = None
    hbm_efficiency: float | None = None
    mfu: float | None = None
    steps: int | UnsetType = UNSET
    steps_unknown: int | UnsetType = UNSET
    weight_bytes_per_step: float | None | UnsetType = UNSET
    kv_bytes_per_step: float | None | UnsetType = UNSET
    activation_bytes_per_step: float | None | UnsetType = UNSET
    tokens_per_step: float | None | UnsetType = UNSET
    dtype: str | UnsetType = UNSET
    mean_span_ns: float | UnsetType = UNSET
    memory_time_ns: float | None | UnsetType = UNSET
    compute_time_ns: float | None | UnsetType = UNSET
    linear_bw_Bps: float | UnsetType = UNSET
    linear_bw_fraction: float | None | UnsetType = UNSET
    attention_bw_Bps: float | UnsetType = UNSET
    bound: float | None | UnsetType = UNSET  # median span / min_step_ns
    linear_min_ns: float | UnsetType = UNSET
    linear_bound: float | UnsetType = UNSET
    gpu: str | UnsetType = UNSET
    peak_source: str | UnsetType = UNSET


class IdleLabel(Struct):
    """What the CPU did in host or sync idle time: a name, where it came from, ns per step, share
    of that cause's idle time."""

    what: str
    source: str  # range | python | cpu_op | osrt | sample | call | none
    mean_ns: float
    share: float


class IdleSummary(Struct):
    """idle.section: a kind's idle time by cause (shares of the span, ns per step, bounds as
    median / p90 of per-step bounds) and what the CPU did meanwhile."""

    idle_causes_share: Per
    mean_idle_causes_ns: Per
    median_idle_causes_ns: Per
    speedup_bound_if_no_idle_cause: Per
    speedup_bound_if_no_idle_cause_p90: Per
    speedup_bound_if_no_idle: float
    speedup_bound_if_no_idle_p90: float
    idle_launch_queued_share: float
    mean_idle_launch_queued_ns: float
    top_host_gaps: list[IdleLabel]
    top_sync_calls: list[IdleLabel]


class LayerTime(Struct):
    """One layer of a kind's steps (medians per step over its steady steps): its type, its time (the
    union of its GPU ops) and its time per bucket (the union of its ops of the bucket)."""

    index: int
    type: str
    time_ns: float
    buckets: Per


class ModuleTime(Struct):
    """One module, summed over the layers (medians per step over the kind's steady steps): the
    union of its ops, its ops, its share of the span (ratio of sums) and the most removing it could
    win (span / (span - the time only it runs))."""

    name: str
    source: str  # nvtx | names | shapes | position: where its name comes from
    time_ns: float
    count: float
    share: float
    speedup_bound_if_removed: float


class ModuleRatio(Struct):
    name: str
    ratio: float  # its time in the layer / its median over the layers


class SlowLayer(Struct):
    """A layer well above the median layer, and the modules that make the difference."""

    index: int
    ratio: float  # its time / the median layer's of its kind (all layers when `kind` is "")
    modules: list[ModuleRatio]
    kind: str = ""  # the layers it is compared with: a layer type's name without its letter


class LayerEvidence(Struct):
    """How the layers and modules of a kind's steps were found."""

    source: str  # nvtx | names | shapes | position | none: what most steady steps had
    steps: dict[str, int]  # steady steps per source
    layers: int  # layers per step (median)
    types: dict[str, list[int]]  # layer type -> its layers
    names_known: bool  # modules are named (else "op N" by position in the layer)
    reference: str = ""  # position: the kind of the steps with names whose labels were taken


class Inside(Struct):
    """layers.section: inside a kind's step, per layer and per module."""

    layers: list[LayerTime]
    modules: list[ModuleTime]
    layer_evidence: LayerEvidence
    slow_layers: list[SlowLayer]


class KindSummary(Struct):
    """Everything about one step kind."""

    __inline__ = ("attribution", "idle", "inside")
    attribution: KindAttribution
    collectives: Collectives
    speed_of_light: SolSummary
    idle: IdleSummary | None = None
    inside: Inside | None = None


class CollectiveComm(Struct):
    """One rank's time in one collective per step: total, waiting, transferring."""

    comm_ns: float
    wait_ns: float
    transfer_ns: float


class RankComm(Struct):
    """comm: one rank's collective time per step (mean over the kind's steady steps)."""

    comm_ns: float
    comm_wait_ns: float
    comm_transfer_ns: float
    comm_by_collective: dict[str, CollectiveComm]


class RankKindSummary(Struct):
    """One rank's steps of one kind (with 2+ ranks)."""

    __inline__ = ("comm",)
    steps: int
    median_span_ns: float
    idle_share: float
    bucket_share: Per
    exposed_share: Per
    speedup_bound_if_removed: Per
    collectives: Collectives
    comm: RankComm | None = None


class Straggler(Struct):
    """The rank that arrives last at the kind's matched collective calls most often."""

    rank: int
    last_count: int
    calls: int
    last_share: float
    late_by_median_ns: float
    arrival_spread_median_ns: float
    last_counts: dict[int, int]


class JobSummary(Struct):
    """comm.job_summary: the job's step (first start to last end over ranks) of one kind, and the
    bounds on it: never more than its slowest rank allows."""

    steps: int
    summarized_steps: int
    ranks: int
    median_span_ns: float
    p90_span_ns: float
    mean_span_ns: float
    slowest_rank: int
    slowest_rank_share: float
    median_slowest_span_ns: float
    median_start_spread_ns: float
    speedup_bound_if_removed: Per  # buckets and "communication_wait"
    speedup_bound_if_removed_p90: Per
    straggler: Straggler | None = None
    clock_offsets_ns: dict[int, float] = {}
    clocks: Note | None = None  # how the ranks' clocks were put on one timeline


class FitPoint(Struct):
    bus_bytes: float
    time_ns: float
    calls: int
    fitted_ns: float


class Fit(Struct):
    """comm.fit: latency + bus bytes / bandwidth of one collective, fitted on the trace."""

    latency_ns: float | None
    busbw_GBps: float | None
    group_size: int
    method: Note  # how the two terms were found
    link_fraction: float | None
    points: list[FitPoint]
    time_basis: str


class FitModel(Struct):
    latency_ns: float
    busbw_GBps: float


class JobProjection(Struct):
    median_span_ns: float
    projected_median_span_ns: float
    speedup: float


class Projection(Struct):
    """A kind's steps projected on another link (means per rank step, medians of spans)."""

    steps: int
    comm_ns: float
    projected_comm_ns: float
    median_span_ns: float
    projected_median_span_ns: float
    speedup: float
    job: JobProjection | UnsetType = UNSET


class WhatIfLink(Struct):
    """Every step projected on another interconnect (comm.project), per kind."""

    __inline__ = ("by_kind",)
    link: Link
    from_link: str
    model: dict[str, FitModel]
    by_kind: dict[str, Projection] = {}


class Finding(Struct, frozen=True):
    """A candidate for "what to fix first": `code` says what (render/findings.py has its words),
    `bound` the most the step could speed up if it went away (median over the kind's steps),
    `args` the figures that back it."""

    code: str
    bound: float
    args: tuple[Any, ...] = ()


class IntegrityCheck(Struct):
    """One check of the trace's integrity (integrity.py): ok, failed, or skipped (nothing to check
    it on); records that failed it of those it looked at, the ranks where it failed, the steps it
    affects, and what the profiler or the reader said (text from the trace)."""

    check: str  # stream_overlap | durations | drops | unlaunched | lost_ops | clocks
    status: str  # ok | failed | skipped
    count: int
    checked: int
    ranks: list[int] = []
    steps: int = 0
    detail: list[str] = []


class AffectedStep(Struct):
    """A step some failed check touches, and which."""

    rank: int
    index: int
    checks: list[str]


class Integrity(Struct):
    """What was checked before the numbers were trusted, what failed, and the steps affected."""

    checks: list[IntegrityCheck]
    affected_steps: list[AffectedStep]
    steps: int  # steps in the report
    trusted: bool  # no check failed


class Headline(Struct):
    """The headline kind's figures, repeated at the top of the summary."""

    median_span_ns: float
    bucket_share: Per
    exposed_share: Per
    speedup_bound_if_removed: Per
    idle_causes_share: Per | UnsetType = UNSET
    speedup_bound_if_no_idle: float | UnsetType = UNSET
    speedup_bound_if_no_idle_cause: Per | UnsetType = UNSET


class PastRanges(Struct):
    """Steps found from host ranges that run past them: the ranges were widened to the whole
    iteration (sampling and host work up to the next forward), so a step's span holds more than
    its range. steps: how many (of `of_steps` from ranges); median_outside_ns: the median over
    those steps of the span outside what the range holds; max_outside_ns: the largest."""

    steps: int
    of_steps: int
    median_outside_ns: float
    max_outside_ns: int


class Summary(Struct):
    """The report's figures. kind: the kind the headline describes (decode when there is any)."""

    __inline__ = ("headline",)
    step_counts: dict[str, int]
    by_kind: dict[str, KindSummary]
    by_rank: dict[int, dict[str, RankKindSummary]] | UnsetType = UNSET
    kind: str | None = None
    headline: Headline | None = None
    evidence: str = "none"
    evidence_why: Note | None = None
    past_ranges: PastRanges | UnsetType = UNSET
    integrity: Integrity | None = None
    job: dict[str, JobSummary] | UnsetType = UNSET
    link: Link | UnsetType = UNSET
    interconnect_fit: dict[str, Fit] | UnsetType = UNSET
    what_if_link: dict[str, WhatIfLink] | UnsetType = UNSET
    findings: list[Finding] = []
    ceiling: Finding | None = None

    def main(self) -> KindSummary | None:
        """The headline kind's summary."""
        return self.by_kind.get(self.kind) if self.kind else None
