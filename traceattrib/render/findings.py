"""The words of "what to fix first" (report.Finding) and of the idle-cause advice."""
from __future__ import annotations

from ..report import Finding, IdleSummary
from .fmt import human_bytes, human_rate, per_step_count

IDLE_WHAT = {
    "launch": "GPU idle while the CPU issues kernels (launch-bound)",
    "launch_queued": "GPU idle between kernels it already had queued (launch latency, dependencies)",
    "sync": "GPU idle while the CPU blocks in synchronizing calls",
    "host": "GPU idle while the CPU does host work",
    "unexplained": "GPU idle with no CPU evidence",
}

ADVICE = {
    "launch": "the GPU drains its queue faster than the CPU issues kernels: capture the step in CUDA "
              "graphs (or torch.compile mode='reduce-overhead'), or fuse small kernels so there are fewer",
    "launch_queued": "the GPU waits between kernels it already has queued (launch latency, stream "
                     "dependencies): fuse small kernels, or use programmatic dependent launch",
    "sync": "the CPU blocks in synchronizing calls ({top}): remove the sync (.item(), .cpu(), "
            ".tolist() in the step) or copy from pinned memory with non_blocking=True",
    "host": "the CPU runs host work with no GPU work queued ({top}): move it off the critical path "
            "(overlap it with GPU work, asynchronous scheduling) or make it cheaper",
    "unexplained": "no CPU evidence for this idle time: capture CUDA API calls (nsys -t cuda,nvtx; "
                   "torch.profiler with CPU activity) to see why the GPU waited",
}
MEMORY = "memory"  # the bucket of copy-engine copies and fills and the runtime kernels that do them
UNNAMED = "(no annotation)"  # idle.UNNAMED: host time no range, frame or op encloses
OTHER = "(other)"  # idle.OTHER: the names past the kept ones, summed


def _ms(ns: float) -> str:
    return f"{ns / 1e6:.2f} ms"


def what(f: Finding) -> str:
    """What the finding is, in a few words."""
    a = f.args
    if f.code == "bucket":
        if a[0] == MEMORY:
            return "exposed memory copies and fills (memcpy/memset)"
        return "exposed " + ("unclassified kernels (bucket other)" if a[0] == "other" else f"{a[0]} kernels")
    if f.code == "idle":
        return IDLE_WHAT[a[0]]
    if f.code == "sol.step":
        return f"{a[0]} step at its speed of light ({'compute' if a[1] else 'HBM bandwidth'} floor)"
    if f.code == "sol.linear":
        return "linear kernels at their speed of light (peak bandwidth or FLOP/s)"
    if f.code == "comm.wait":
        return f"communication wait (ranks waiting for rank {a[3]})"
    if f.code == "module":
        return f"module {a[0]}"
    raise KeyError(f.code)


def evidence(f: Finding) -> str:
    """The figures from the trace that back it, one line."""
    a = f.args
    if f.code == "bucket":
        bucket, x, share, count = a
        ops = "operations" if bucket == MEMORY else "kernels"
        return f"{_ms(x)}/step exposed ({share:.1%} of the span) in {per_step_count(count)} {ops}/step"
    if f.code == "idle":
        cause, x, share, n_ops, queued, top = a
        ev = f"{_ms(x)}/step ({share:.1%} of the span)"
        if cause in ("launch", "launch_queued"):
            ev += f" with {per_step_count(n_ops)} GPU ops/step"
            if queued:
                ev += f", {_ms(queued)} of it with the next op already queued"
        elif cause in ("host", "sync"):
            if top:
                ev += "; " + ", ".join(f"{name} {_ms(ns)}" for name, ns in top)
        else:
            ev += "; no CPU-side evidence in the trace"
        return ev
    if f.code == "sol.step":
        kind, compute, span, floor, nbytes, flops, source, eff, gpu = a
        return (f"{span / 1e6:.3g} ms per step, floor {floor / 1e6:.3g} ms: {human_bytes(nbytes)}"
                + (f", {human_rate(flops, 'FLOP')}" if flops else "")
                + f" per step from {source}; {'MFU' if compute else 'HBM efficiency'} {eff:.1%}"
                + (f" on {gpu}" if gpu else ""))
    if f.code == "sol.linear":
        bw, frac, floor = a
        return (f"linear kernels read weights at {human_rate(bw, 'B/s')} ({frac:.0%} of peak); their floor is "
                f"{floor / 1e6:.3g} ms per step")
    if f.code == "module":
        name, ns, share, count, layers = a
        return f"{_ms(ns)}/step ({share:.1%} of the span) in {per_step_count(count)} kernels/step over {layers} layers"
    if f.code == "comm.wait":
        waiter, wait_ns, kind, rank, last_share, calls, late_ns = a
        return (f"rank {waiter} waits {wait_ns / 1e6:.2f} ms per {kind} step in collectives; rank {rank} "
                f"arrives last in {last_share:.0%} of {calls} calls, {late_ns / 1e3:.1f} us late (median): "
                f"speed up what rank {rank} does before its collectives")
    raise KeyError(f.code)


def as_dict(f: Finding) -> dict:
    """{"what", "bound", "evidence"}: the finding as the JSON report writes it."""
    return {"what": what(f), "bound": f.bound, "evidence": evidence(f)}


def advice(d: IdleSummary, min_share: float = 0.05) -> list[tuple[str, str]]:
    """(cause, one line of advice) for each idle cause holding at least `min_share` of the span,
    the largest first."""
    out = []
    shares = d.idle_causes_share
    for c in sorted(shares, key=lambda c: -shares[c]):
        if shares[c] < min_share:
            continue
        key = c
        if c == "launch" and d.idle_launch_queued_share > shares[c] / 2:
            key = "launch_queued"
        top = d.top_sync_calls if c == "sync" else d.top_host_gaps
        names = ", ".join([t.what for t in top if t.what not in (UNNAMED, OTHER)][:2])
        line = ADVICE[key].format(top=names) if names else ADVICE[key].replace(" ({top})", "")
        out.append((c, line))
    return out
