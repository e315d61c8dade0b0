"""The diff's typed result: what `traceattrib diff` found, as data (render/diff.py has its words).

Times in ns; changes as ratios (after / before - 1, so -0.046 is 4.6% faster); intervals as
[low, high] pairs, 95% percentile bootstrap intervals (diff/bootstrap.py says how); codes instead
of sentences (`verdict`, `code`, `outcome`, ...). `render/jsonout.plain` turns these into the JSON
`traceattrib diff --format json` writes, and render/contract.py its README contract, the same
way as the report's.
"""
from __future__ import annotations

from msgspec import UNSET, Struct, UnsetType

# the method's defaults (diff/bootstrap.py)
RESAMPLES = 2000
SEED = 20240607
CONFIDENCE = 0.95
MIN_STEPS = 5  # fewer steady steps on a side: too few to tell

# what a `verdict` says of a change, from its 95% interval
LOWER, HIGHER, UNCHANGED, TOO_FEW = "lower", "higher", "unchanged", "too_few"
# how a side's noise is made up (Spread.dominant)
RUNS, STEPS, UNKNOWN = "runs", "steps", "unknown"
# a check's severity: REFUSE makes the comparison meaningless (exit 2 unless --allow-mismatch),
# NOTE may be the point of the change and is shown at the top
REFUSE, NOTE = "refuse", "note"
# a gate check's outcome
TRIPPED, WITHIN, NO_BASELINE = "tripped", "within", "no_baseline"


class Change(Struct):
    """A statistic of the steady steps before and after, its change and the change's 95% bootstrap
    interval (ci and ci_ns null with fewer than `min_steps` steps on a side: too few to tell)."""

    before: float
    after: float
    change_ns: float  # after - before
    change: float | None  # after / before - 1; null when before is 0
    ci: list[float] | None  # [low, high] of change
    ci_ns: list[float] | None  # [low, high] of change_ns
    verdict: str  # lower | higher | unchanged (the interval holds 0) | too_few


class PartChange(Struct):
    """One bucket (or overlap, idle): mean time and mean exposed time per step; the exposed time's
    change with its interval (exposed times, overlap and idle add up to the span)."""

    exposed: Change
    time_before_ns: float | UnsetType = UNSET  # buckets only
    time_after_ns: float | UnsetType = UNSET
    time_change: float | None | UnsetType = UNSET


class Contribution(Struct):
    """A part's share in the change of the mean span: parts' change_ns add up to it exactly."""

    part: str  # a bucket, "overlap", "idle", or "<cause> idle" when idle is split by cause
    change_ns: float
    fraction_of_change: float | None


class Spread(Struct):
    """A side's runs: each run's median step span and steady steps, the spread between run medians
    and the step-to-step error of one run's median, and which of the two dominates."""

    runs: int
    run_steps: list[int]
    run_medians_ns: list[float]
    between_runs: float | None  # sample SD of the run medians / pooled median; null with one run
    within_run: float | None  # RMS over runs of the bootstrap SE of a run's median / that median
    dominant: str  # runs | steps | unknown (one run: run-to-run noise not measured)


class KindDiff(Struct):
    """One step kind before and after: steady steps pooled over each side's runs (a step of
    several ranks counts once: it is the unit resampled), the median and p90 step span, the mean
    span and its parts, idle by cause, and each side's noise."""

    steps_before: int
    steps_after: int
    runs_before: int
    runs_after: int
    verdict: str  # the median's: lower | higher | unchanged | too_few
    median: Change
    p90: Change
    mean: Change
    buckets: dict[str, PartChange]
    contributions: list[Contribution]
    spread_before: Spread
    spread_after: Spread
    idle_causes: dict[str, Change] | None = None
    # per module (summed over the layers) and per layer: the mean time per step of its ops' union,
    # when every run found layers in this kind's steps
    modules: dict[str, Change] | None = None
    layers: dict[str, Change] | None = None


class Check(Struct):
    """A property of the captures that differs between or within the sides (values as each side's
    runs hold them, distinct, in run order; "unknown" values are never compared)."""

    code: str  # gpu | gpu_count | ranks | layers | tokens | capture | graph_trace | profiler | evidence | steps
    severity: str  # refuse | note
    kind: str | None  # the step kind it is about; null: the whole capture
    before: list[str]
    after: list[str]


class GateCheck(Struct):
    """One --fail-if-slower limit on one kind: tripped only when the whole 95% interval of the
    change is above the limit."""

    kind: str
    part: str  # median | p90 | a bucket | idle (buckets and idle: mean exposed time per step)
    threshold: float  # the slowdown allowed, as a ratio (0.05: 5%)
    outcome: str  # tripped | within | too_few | no_baseline (0 before: no relative change)
    change: float | None
    ci: list[float] | None


class Gate(Struct):
    """--fail-if-slower: tripped when any check tripped; the deciding check's figures first (the
    tripped one highest above its limit, else the one closest to it), then every check."""

    __inline__ = ("decisive",)
    tripped: bool
    decisive: GateCheck | None
    checks: list[GateCheck]
    # runs whose trace failed an integrity check: the gate neither trips nor passes on them
    # (`traceattrib diff` exits 2) unless --allow-untrusted was given
    untrusted: list[str] = []
    allow_untrusted: bool = False

    # the deciding check's figures, as the JSON puts them (None without a check)
    kind = property(lambda self: self._of("kind"))
    part = property(lambda self: self._of("part"))
    threshold = property(lambda self: self._of("threshold"))
    outcome = property(lambda self: self._of("outcome"))
    change = property(lambda self: self._of("change"))
    ci = property(lambda self: self._of("ci"))

    def _of(self, name: str):
        return getattr(self.decisive, name) if self.decisive is not None else None


class RunInfo(Struct):
    """One run (a trace file, or a directory of one run's per-rank files)."""

    path: str | None
    format: str | None
    profiler: str | None
    profiler_version: str | None
    gpus: list[str] | None
    ranks: int
    evidence: str
    untrusted: list[str] = []  # the integrity checks its trace failed (report summary.integrity); [] none
    affected_steps: int = 0  # steps those checks touch


class Method(Struct):
    """How the intervals were made."""

    confidence: float
    resamples: int
    seed: int
    min_steps: int  # fewer steady steps on a side: too few to tell, no interval


class Diff(Struct):
    """`traceattrib diff`: the runs of each side, the checks of comparability, per step kind the
    changes with their intervals, and the gate when asked for. refused: a check makes the
    comparison meaningless and --allow-mismatch was not given."""

    before: list[RunInfo]
    after: list[RunInfo]
    method: Method
    refused: bool
    checks: list[Check]
    kinds: dict[str, KindDiff]
    gate: Gate | None = None
