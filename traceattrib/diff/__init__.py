"""Compare reports: per step kind, the change of the median and p90 step span and of each
bucket's exposed time, with 95% bootstrap intervals; the checks that the captures compare; the
--fail-if-slower gate. Each side is one run or several (steps pooled over its runs).

`diff(before, after)` is pure over the reports' step tables and meta and returns a typed
`types.Diff` (render/diff.py has the words). The parts of the span are means per step over the
kind's steady steps (warm-up excluded), so the bucket changes of exposed time plus the overlap
and idle changes add up exactly to the change of the mean span; the headline statistics are the
median and p90 of the pooled steps. bootstrap.py says how intervals are made, checks.py which
differences refuse a comparison, runs.py how a directory is split into runs.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .types import (
    CONFIDENCE,
    HIGHER,
    LOWER,
    MIN_STEPS,
    NO_BASELINE,
    NOTE,
    REFUSE,
    RESAMPLES,
    RUNS,
    SEED,
    STEPS,
    TOO_FEW,
    TRIPPED,
    UNCHANGED,
    UNKNOWN,
    WITHIN,
    Change,
    Check,
    Contribution,
    Diff,
    Gate,
    GateCheck,
    KindDiff,
    Method,
    PartChange,
    RunInfo,
    Spread,
)

if TYPE_CHECKING:  # (the package imports this module: it must not pull in numpy or pandas)
    import numpy as np
    import pandas as pd

    from ..analysis import Report
    from .bootstrap import Sample, Stats

__all__ = ["Diff", "diff", "evaluate_gate", "gate_refused", "GATE_PARTS"]

EXTRA_PARTS = ("overlap", "idle")
GATE_PARTS = ("median", "p90")  # besides buckets and idle (their mean exposed time per step)


def diff(before: Report | Sequence[Report], after: Report | Sequence[Report],
         fail_if_slower: Sequence[tuple[str, float]] = (), allow_mismatch: bool = False,
         resamples: int = RESAMPLES, seed: int = SEED, min_steps: int = MIN_STEPS,
         allow_untrusted: bool = False) -> Diff:
    """Compare the runs before with the runs after (a report, or several: one per run).

    fail_if_slower: (part, percent) limits of the gate (part: median, p90, a bucket or idle);
    allow_mismatch: compare even when a check makes the comparison meaningless (`refused` stays
    False; the checks are still listed); allow_untrusted: let the gate decide on runs whose trace
    failed an integrity check (the gate lists them either way: `Gate.untrusted`)."""
    from .. import idle
    from ..report import KINDS
    from . import checks as ck

    bef = [before] if not isinstance(before, Sequence) else list(before)
    aft = [after] if not isinstance(after, Sequence) else list(after)
    if not bef or not aft:
        raise ValueError("diff needs at least one report on each side")
    buckets = tuple(dict.fromkeys(b for r in bef + aft for b in r.buckets))
    causes = all(idle.has_causes(r.steps) for r in bef + aft)
    columns = ([f"{b}_exposed_ns" for b in buckets] + [f"{b}_time_ns" for b in buckets]
               + [f"{p}_ns" for p in EXTRA_PARTS] + ["span_ns"] + (list(idle.CAUSE_COLUMNS) if causes else []))
    found = ck.checks([ck.facts(r, KINDS) for r in bef], [ck.facts(r, KINDS) for r in aft])
    kinds: dict[str, KindDiff] = {}
    for i, kind in enumerate(KINDS):
        modules, layers = _inside_parts(bef + aft, kind)
        cols = columns + [f"module:{m}" for m in modules] + [f"layer:{n}" for n in layers]
        sb, sa = _sample(bef, kind, cols), _sample(aft, kind, cols)
        if sb is None and sa is None:
            continue
        if sb is None or sa is None:
            found.append(Check(code="steps", severity=NOTE, kind=kind, before=[str(sb.units if sb else 0)],
                               after=[str(sa.units if sa else 0)]))
            continue
        kinds[kind] = _kind(sb, sa, cols, buckets, causes, (seed, i), resamples, min_steps, modules, layers)
    runs_b, runs_a = [_run(r) for r in bef], [_run(r) for r in aft]
    gate = None
    if fail_if_slower:
        gate = evaluate_gate(kinds, fail_if_slower, [str(r.path) for r in runs_b + runs_a if r.untrusted],
                             allow_untrusted)
    return Diff(before=runs_b, after=runs_a,
                method=Method(confidence=CONFIDENCE, resamples=resamples, seed=seed, min_steps=min_steps),
                refused=any(c.severity == REFUSE for c in found) and not allow_mismatch, checks=found,
                kinds=kinds, gate=gate)


def gate_refused(d: Diff) -> bool:
    """The gate was asked for, a run's trace failed an integrity check and --allow-untrusted was not
    given: the gate neither trips nor passes."""
    return d.gate is not None and bool(d.gate.untrusted) and not d.gate.allow_untrusted


def _run(rep: Report) -> RunInfo:
    m = rep.meta
    ranks = m.get("ranks") or []
    integ = rep.summary.integrity
    failed = [c.check for c in integ.checks if c.status == "failed"] if integ is not None else []
    return RunInfo(path=m.get("path"), format=m.get("format"), profiler=m.get("profiler"),
                   profiler_version=m.get("profiler_version"), gpus=m.get("gpus"), ranks=max(len(ranks), 1),
                   evidence=rep.evidence, untrusted=failed,
                   affected_steps=len(integ.affected_steps) if integ is not None else 0)


def _inside_parts(reps: list[Report], kind: str) -> tuple[list[str], list[int]]:
    """The modules and layers of a kind to compare: those of any run, when every run found layers
    in the kind's steps (none otherwise); modules only when every run knows their names (ops named
    by their place in a layer are not the same op in another capture)."""
    sections = [r.summary.by_kind[kind].inside if kind in r.summary.by_kind else None for r in reps]
    if not sections or any(s is None for s in sections) or any(r.inside is None for r in reps):
        return [], []
    known = all(s.layer_evidence.names_known for s in sections)
    modules = sorted({m.name for s in sections for m in s.modules}) if known else []
    layers = sorted({lt.index for s in sections for lt in s.layers})
    return modules, layers


def _inside_columns(rep: Report, k: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """`k` (steps of one rank and kind: rank, index) with a column per `module:<name>` and
    `layer:<n>` of `columns`: the union of the module's (layer's) ops in the step, ns."""
    import numpy as np
    import pandas as pd

    want = [c for c in columns if c.startswith(("module:", "layer:"))]
    if not want or rep.inside is None:
        return k
    key = pd.MultiIndex.from_arrays([k["rank"].to_numpy(), k["index"].to_numpy()])
    out = {}
    for prefix, tab, by in (("module:", rep.inside.steps, "module"), ("layer:", rep.inside.layers, "layer")):
        names = [c[len(prefix):] for c in want if c.startswith(prefix)]
        if not names or not len(tab):
            continue
        wide = tab.assign(_by=tab[by].astype(str)).pivot_table(index=["rank", "step"], columns="_by",
                                                              values="time_ns", aggfunc="sum")
        wide = wide.reindex(index=key, columns=names).fillna(0.0)
        out.update({prefix + n: wide[n].to_numpy(np.float64) for n in names})
    return k.assign(**out) if out else k


def _sample(reps: list[Report], kind: str, columns: list[str]) -> Sample | None:
    """The kind's steady steps of every run of a side as resampling units (None: no such steps)."""
    import numpy as np
    import pandas as pd

    from ..stats import kind_steps
    from .bootstrap import Sample

    runs, spans, sums, counts = [], [], [], []
    for rep in reps:
        if not len(rep.steps):
            continue
        k = kind_steps(rep.steps, kind)[1]
        if not len(k):
            continue
        k = _inside_columns(rep, k, columns)
        unit, _ = pd.factorize(k["index"], sort=True)
        rank, ranks = pd.factorize(k["rank"], sort=True)
        n = int(unit.max()) + 1
        span = np.full((n, len(ranks)), np.nan)
        span[unit, rank] = k["span_ns"].to_numpy(np.float64)
        zero = np.zeros(len(k))
        sums.append(np.column_stack([np.bincount(unit, weights=k[c].to_numpy(np.float64) if c in k else zero,
                                                 minlength=n) for c in columns]))
        counts.append(np.bincount(unit, minlength=n))
        runs.append(np.full(n, len(spans), np.int64))
        spans.append(span)
    if not runs:
        return None
    width = max(s.shape[1] for s in spans)
    spans = [np.pad(s, ((0, 0), (0, width - s.shape[1])), constant_values=np.nan) for s in spans]
    return Sample(run=np.concatenate(runs), span=np.vstack(spans), sums=np.vstack(sums),
                  count=np.concatenate(counts), runs=len(runs))


def _kind(sb: Sample, sa: Sample, columns: list[str], buckets: tuple[str, ...], causes: bool,
          key: tuple[int, int], resamples: int, min_steps: int, modules: list[str] = (),
          layers: list[int] = ()) -> KindDiff:
    """One kind's changes: points from every step, intervals from resamples (enough steps)."""
    import numpy as np

    from . import bootstrap as bs

    def rng(stream: int) -> np.random.Generator:  # one stream per kind and purpose: reproducible
        return np.random.default_rng([key[0], key[1], stream])

    pb, pa = bs.point(sb), bs.point(sa)
    enough = min(sb.units, sa.units) >= min_steps
    rb = bs.resample(sb, rng(0), resamples) if enough else None
    ra = bs.resample(sa, rng(1), resamples) if enough else None
    col = {c: j for j, c in enumerate(columns)}

    def of(stats: Stats | None, c: str) -> np.ndarray | None:
        if stats is None:
            return None
        return getattr(stats, c) if c in ("median", "p90") else stats.means[..., col[c]]

    def change(c: str) -> Change:
        return _change(float(of(pb, c)), float(of(pa, c)), of(rb, c), of(ra, c))

    parts: dict[str, PartChange] = {}
    for b in buckets:
        tb, ta = float(of(pb, f"{b}_time_ns")), float(of(pa, f"{b}_time_ns"))
        parts[b] = PartChange(exposed=change(f"{b}_exposed_ns"), time_before_ns=tb, time_after_ns=ta,
                              time_change=_rel(tb, ta))
    for p in EXTRA_PARTS:
        parts[p] = PartChange(exposed=change(f"{p}_ns"))
    idle_causes = None
    if causes:
        from ..idle import CAUSES

        idle_causes = {c: change(f"idle_{c}_ns") for c in CAUSES}
    median = change("median")
    mean = change("span_ns")
    return KindDiff(steps_before=sb.units, steps_after=sa.units, runs_before=sb.runs, runs_after=sa.runs,
                    verdict=median.verdict, median=median, p90=change("p90"), mean=mean, buckets=parts,
                    contributions=_contributions(parts, idle_causes, mean.change_ns),
                    spread_before=_spread(sb, rng(2), resamples, min_steps),
                    spread_after=_spread(sa, rng(3), resamples, min_steps), idle_causes=idle_causes,
                    modules={m: change(f"module:{m}") for m in modules} or None,
                    layers={str(n): change(f"layer:{n}") for n in layers} or None)


def _rel(before: float, after: float) -> float | None:
    return (after - before) / before if before else None


def _change(before: float, after: float, boot_before: np.ndarray | None, boot_after: np.ndarray | None) -> Change:
    """A Change from point values and (with enough steps) the two sides' resampled values."""
    from .bootstrap import interval

    if boot_before is None or boot_after is None:
        return Change(before=before, after=after, change_ns=after - before, change=_rel(before, after), ci=None,
                      ci_ns=None, verdict=TOO_FEW)
    ci_ns = interval(boot_after - boot_before)
    ci = interval(boot_after / boot_before - 1) if before > 0 and (boot_before > 0).all() else None
    basis = ci if ci is not None else ci_ns
    verdict = UNCHANGED if basis is None else LOWER if basis[1] < 0 else HIGHER if basis[0] > 0 else UNCHANGED
    return Change(before=before, after=after, change_ns=after - before, change=_rel(before, after), ci=ci,
                  ci_ns=ci_ns, verdict=verdict)


def _contributions(parts: dict[str, PartChange], causes: dict[str, Change] | None,
                   delta: float) -> list[Contribution]:
    """The parts that moved the mean span, largest in the span's direction first (idle split into
    its causes when both sides have them: they sum to idle)."""
    moved = {n: p.exposed.change_ns for n, p in parts.items() if not (causes and n == "idle")}
    moved.update({f"{c} idle": ch.change_ns for c, ch in (causes or {}).items()})
    order = sorted(moved.items(), key=lambda x: x[1] if delta < 0 else -x[1])
    return [Contribution(part=n, change_ns=c, fraction_of_change=(c / delta) if delta else None)
            for n, c in order if abs(c) > 0]


def _spread(s: Sample, rng: np.random.Generator, resamples: int, min_steps: int) -> Spread:
    """A side's run medians and noise: between runs (SD of run medians) against step-to-step (the
    bootstrap SE of a run's median); run-to-run noise dominates when the between-run SD left
    after the step-to-step part (sqrt(between^2 - within^2)) exceeds the step-to-step part."""
    import numpy as np

    from . import bootstrap as bs

    meds = bs.run_medians(s)
    n = s.run_units()
    pooled = float(bs.point(s).median)
    between = float(np.std(meds, ddof=1) / pooled) if s.runs > 1 and pooled > 0 else None
    se = bs.median_se(s, rng, resamples)
    se = se[(n >= min_steps) & np.isfinite(se)]
    within = float(np.sqrt(np.mean(se ** 2))) if len(se) else None
    if between is None or within is None:
        dominant = UNKNOWN
    else:
        dominant = RUNS if np.sqrt(max(between ** 2 - within ** 2, 0.0)) > within else STEPS
    return Spread(runs=s.runs, run_steps=[int(x) for x in n], run_medians_ns=[float(x) for x in meds],
                  between_runs=between, within_run=within, dominant=dominant)


def evaluate_gate(kinds: dict[str, KindDiff], limits: Sequence[tuple[str, float]], untrusted: Sequence[str] = (),
                  allow_untrusted: bool = False) -> Gate:
    """--fail-if-slower: each (part, percent) limit on each kind; a check trips only when the
    whole 95% interval of the relative change is above the limit. untrusted: the runs whose trace
    failed an integrity check (the gate then decides only with allow_untrusted)."""
    out = []
    for kind, k in kinds.items():
        for part, pct in limits:
            ch = k.median if part == "median" else k.p90 if part == "p90" else \
                k.buckets[part].exposed if part in k.buckets else None
            thr = pct / 100
            if ch is not None and ch.verdict == TOO_FEW:
                outcome = TOO_FEW
            elif ch is None or ch.change is None or ch.ci is None:
                outcome = NO_BASELINE
            else:
                outcome = TRIPPED if ch.ci[0] > thr else WITHIN
            out.append(GateCheck(kind=kind, part=part, threshold=thr, outcome=outcome,
                                 change=ch.change if ch is not None else None, ci=ch.ci if ch is not None else None))
    tripped = [c for c in out if c.outcome == TRIPPED]
    pool = tripped or [c for c in out if c.outcome == WITHIN]
    decisive = max(pool, key=lambda c: c.ci[0] - c.threshold) if pool else (out[0] if out else None)
    return Gate(tripped=bool(tripped), decisive=decisive, checks=out, untrusted=list(untrusted),
                allow_untrusted=allow_untrusted)

