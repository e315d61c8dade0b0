"""Communication lines of the text and Markdown reports: the job block (2+ ranks), bytes and
bandwidth per collective, interconnect what-ifs. Reads only the report's summary."""
from __future__ import annotations

from msgspec import UNSET

from ..links import Link
from ..report import KindSummary, Summary
from .fmt import bound, dur, ms, pct, trunc
from .notes import text

WIDTH = 100


def size(b: float | None) -> str:
    if b is None or b < 0:
        return "?"
    for unit, f in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= f:
            v = b / f
            return f"{v:.0f} {unit}" if v >= 100 or v == int(v) else f"{v:.1f} {unit}"
    return f"{b:.0f} B"


def gbps(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:.0f} GB/s" if x >= 100 else (f"{x:.1f} GB/s" if x >= 1 else f"{x:.2f} GB/s")


def job_text(summary: Summary, buckets: tuple[str, ...], kind: str) -> list[str]:
    """The job block of one step kind: the job's step, bounds on the job next to each rank's own,
    wait vs transfer per rank, the straggler and the clocks."""
    j = (summary.job or {}).get(kind)
    if not j:
        return []
    by_rank = {r: k[kind] for r, k in (summary.by_rank or {}).items() if kind in k}
    ranks = sorted(by_rank)
    out = [trunc(f"JOB {kind.upper()}  {j.ranks} ranks · {j.summarized_steps} step(s) · median step "
                 f"{dur(j.median_span_ns)} · p90 {dur(j.p90_span_ns)} (first start to last end)", WIDTH),
           trunc(f"slowest rank {j.slowest_rank}: ends {pct(j.slowest_rank_share, 0)} of the job's steps, median "
                 f"span {dur(j.median_slowest_span_ns)}; ranks start {dur(j.median_start_spread_ns)} apart", WIDTH)]
    shown = [r for r in ranks][:6]
    out.append(f"{'bound if removed':<21}{'job':>9}" + "".join(f"{'rank ' + str(r):>9}" for r in shown))
    jb = j.speedup_bound_if_removed
    for b in list(buckets) + ["communication_wait"]:
        if b not in jb:
            continue
        label = "communication wait" if b == "communication_wait" else b
        per = "".join(f"{bound(by_rank[r].speedup_bound_if_removed.get(b, float('nan'))):>9}"
                      if b in by_rank[r].speedup_bound_if_removed else f"{'':>9}" for r in shown)
        out.append(f"{label:<21}{'≤ ' + bound(jb[b]):>9}{per}")
    if any(by_rank[r].comm is not None for r in shown):
        out.append(f"{'communication (ms/step)':<24}{'total':>8}{'wait':>8}{'transfer':>10}")
        for r in shown:
            c = by_rank[r].comm
            if c is not None:
                out.append(f"{'rank ' + str(r):<24}{ms(c.comm_ns):>8}{ms(c.comm_wait_ns):>8}"
                           f"{ms(c.comm_transfer_ns):>10}")
    st = j.straggler
    if st:
        out.append(trunc(f"straggler: rank {st.rank} arrives last at {st.last_count} of {st.calls} collectives "
                         f"({pct(st.last_share, 0)}), {dur(st.late_by_median_ns)} after the next (median)", WIDTH))
    offs = j.clock_offsets_ns or {}
    if j.clocks is not None and len(offs) > 1:
        ref = min(offs)
        txt = ", ".join(f"rank {r} {v / 1e3:+.2f} us" for r, v in offs.items() if r != ref)
        out.append(trunc(f"clocks: {text(j.clocks)}" + (f" ({txt} vs rank {ref})" if j.clocks.code == "clocks.aligned"
                                                        else ""), WIDTH))
    return out


def collective_text(ks: KindSummary, link: Link | None) -> list[str]:
    """Bytes and bandwidth per collective and size class of one kind block."""
    out = []
    peak = f" of {link.label.split(' (')[0]} ({gbps(link.peak_GBps)})" if link else ""
    for coll, c in ks.collectives.by_collective.items():
        v = c.bandwidth
        if v is None:
            continue
        name = coll.replace("_", "-")
        basis = "transfer" if v.time_basis == "transfer" else "duration"
        if not v.size_classes:
            out.append(trunc(f"{name}: bytes unknown ({pct(1 - v.bytes_known_share, 0)} of calls)", WIDTH))
            continue
        for k in v.size_classes[:4]:
            t = k.median_ns if k.median_transfer_ns is UNSET else k.median_transfer_ns
            frac = f" = {pct(k.link_fraction)}{peak}" if k.link_fraction is not None else ""
            out.append(trunc(f"{name} {size(k.bytes_per_call)} x{k.count}: {basis} {dur(t)} (median), "
                             f"busbw {gbps(k.busbw_GBps)}{frac}", WIDTH))
        if len(v.size_classes) > 4:
            out.append(f"  ... {len(v.size_classes) - 4} more size classes (--format json)")
    return out


def what_if_text(summary: Summary, kind: str) -> list[str]:
    out = []
    for name, w in (summary.what_if_link or {}).items():
        p = w.by_kind.get(kind)
        if not p:
            continue
        job = p.job or None
        tail = (f", job {ms(job.median_span_ns, 2)}->{ms(job.projected_median_span_ns, 2)} ms "
                f"({bound(job.speedup)})") if job else f" ({bound(p.speedup)})"
        out.append(trunc(f"  {name} ({gbps(w.link.peak_GBps)}): comm {ms(p.comm_ns)}->"
                         f"{ms(p.projected_comm_ns)} ms/step, step {ms(p.median_span_ns, 2)}->"
                         f"{ms(p.projected_median_span_ns, 2)} ms{tail}", WIDTH))
    if out:
        out.insert(0, "what if the link were (projected, transfer time fitted on this trace):")
    return out


def job_md(summary: Summary, buckets: tuple[str, ...], kind: str) -> list[str]:
    j = (summary.job or {}).get(kind)
    if not j:
        return []
    by_rank = {r: k[kind] for r, k in (summary.by_rank or {}).items() if kind in k}
    ranks = sorted(by_rank)
    out = [f"### job, {kind} — {j.ranks} ranks, {j.summarized_steps} steps, median step "
           f"{dur(j.median_span_ns)} (first start to last end over ranks)", "",
           f"Slowest rank {j.slowest_rank} (ends the job's step in {pct(j.slowest_rank_share, 0)} of steps, median "
           f"span {dur(j.median_slowest_span_ns)}); ranks start {dur(j.median_start_spread_ns)} apart (median).", "",
           "| bucket | bound if removed (job) | " + " | ".join(f"rank {r}" for r in ranks) + " |",
           "|---|---:|" + "---:|" * len(ranks)]
    jb = j.speedup_bound_if_removed
    for b in list(buckets) + ["communication_wait"]:
        if b in jb:
            label = "communication wait" if b == "communication_wait" else b
            out.append(f"| {label} | ≤ {bound(jb[b])} | " + " | ".join(
                bound(by_rank[r].speedup_bound_if_removed[b]) if b in by_rank[r].speedup_bound_if_removed
                else "" for r in ranks) + " |")
    if any(by_rank[r].comm is not None for r in ranks):
        out += ["", "| rank | communication (ms/step) | wait | transfer |", "|---:|---:|---:|---:|"]
        out += [f"| {r} | {ms(by_rank[r].comm.comm_ns)} | {ms(by_rank[r].comm.comm_wait_ns)} | "
                f"{ms(by_rank[r].comm.comm_transfer_ns)} |" for r in ranks if by_rank[r].comm is not None]
    offs = j.clock_offsets_ns or {}
    if j.clocks is not None and j.clocks.code == "clocks.aligned" and len(offs) > 1:
        ref = min(offs)
        out += ["", "Clocks aligned on matched collective end times: " + ", ".join(
            f"rank {r} {v / 1e3:+.2f} us" for r, v in offs.items() if r != ref) + f" vs rank {ref}."]
    st = j.straggler
    if st:
        out += ["", f"Straggler: rank {st.rank} arrives last at {st.last_count} of {st.calls} collective calls "
                    f"({pct(st.last_share, 0)}), {dur(st.late_by_median_ns)} after the next rank (median)."]
    return out
