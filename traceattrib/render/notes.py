"""The words of every note (traceattrib.notes.Note): code -> a sentence from its counts and values."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..notes import Note
from .fmt import human_bytes, rank_list


def _forwards(med: float | None, mean: float | None) -> str:
    """Forward passes per step as the chooser measured them: the median, or the mean under one."""
    if med is None:
        return "?"
    return f"{med:.0f}" if med >= 1 else f"{mean:.2f}"


def _label(n: Note) -> str:
    return text(n)


def _annotations(framework: str, names: tuple[str, ...], more: bool) -> str:
    return f"{framework} (" + ", ".join(f"'{x}'" for x in names) + (", ..." if more else "") + ")"


def _graphs(per: tuple[int, ...]) -> str:
    return ("CUDA-graph launches, one per step" if per == (1,) else
            f"CUDA-graph launches grouped by their repeating cycle ({', '.join(map(str, per))} launches per forward)")


def _bytes_unknown(unknown: int, total: int, share: float, nsys: bool) -> str:
    how = ("re-export with `nsys export --type sqlite --include-blobs=true` (NCCL's NVTX payloads carry "
           "the message size), or give the model (hidden size, dtype, tokens per step)" if nsys else
           "calls inside CUDA graphs or launched before the profiler started carry no collective arguments; "
           "the model (hidden size, dtype, tokens per step) gives the tensor-parallel all-reduce size")
    return f"bytes unknown for {unknown} of {total} communication calls ({share:.0%}): {how}"


def _straggler(rank, last_share, calls, kind, late_ns, waiter, wait_ns, wait_share, transfer_ns, b_comm, b_wait) -> str:
    late = f"{late_ns / 1e6:.2f} ms" if late_ns >= 1e6 else f"{late_ns / 1e3:.1f} us"
    return (f"rank {rank} arrives last at {last_share:.0%} of the {calls} {kind} collective calls, "
            f"{late} after the next rank (median): rank {waiter} waits "
            f"{wait_ns / 1e6:.2f} ms per step in collectives ({wait_share:.0%} of its collective time) and "
            f"transfers {transfer_ns / 1e6:.3f} ms. The job cannot get faster than its slowest rank: "
            f"removing communication would win the job at most {b_comm:.2f}x, removing the "
            f"waiting at most {b_wait:.2f}x; look at what rank {rank} does before "
            "its collectives (CPU launch overhead, CUDA graphs) before tuning NCCL")


Words = Callable[[tuple[int, ...], tuple[Any, ...]], str]

# what each integrity check found, said after its counts and ranks (_integrity)
_INTEGRITY = {
    "stream_overlap": "GPU op(s) start before the op before them on their stream ended (beyond the profiler's "
                      "timestamp noise): records were lost or misordered, so busy and idle time on those streams "
                      "are not what ran",
    "durations": "GPU op(s) have a zero, negative or impossible duration (longer than any real op, or orders of "
                 "magnitude longer than other calls of the same kernel): the profiler's timestamps are wrong there",
    "drops": "sign(s) that records were lost (rows the reader dropped, the profiler's messages that it lost "
             "records, its message table unreadable); where in the trace cannot be told, so every step of the rank "
             "is affected (a larger profiler buffer, or a shorter capture, avoids it)",
    "unlaunched": "GPU op(s) inside steps have no launch call in the trace: API records were lost, so launch and "
                  "idle causes of those steps are not known",
    "lost_ops": "kernel or graph launch call(s) within the steps ran no GPU op in the trace: GPU records were lost, "
                "so those steps miss GPU time",
    "clocks": "collective call(s) cannot be lined up across ranks on one timeline (the ranks' clocks drift, or no "
              "collective matched): wait, transfer and job figures of those steps are not reliable",
}


PEAKS_HINT = "pass --peak-bw and --peak-flops for the speed-of-light floor"  # where no peaks are known

TEXT: dict[str, Words] = {
    # what a reader passed on verbatim
    "input": lambda c, a: a[0],
    # step finding (steps/)
    "label.regex": lambda c, a: f"ranges matching --steps {a[0]!r}",
    "label.annotations": lambda c, a: _annotations(*a),
    "label.frames": lambda c, a: "Python frames " + ", ".join(a[0]),
    "label.graphs": lambda c, a: _graphs(a[0]),
    "label.detected": lambda c, a: "the repeating kernel sequence (model-level period)",
    "label.whole": lambda c, a: "the whole trace",
    "label.given": lambda c, a: "the steps stated in a traceattrib export" + (f" of {a[0]}" if a[0] else ""),
    "why.from": lambda c, a: f"from {_label(a[0])}" + (
        ("; each holds one forward pass and its backward, a training iteration (checked against the "
         "kernel stream)" if a[2] else "; each holds one forward pass (checked against the kernel stream)")
        if a[1] else ""),
    "why.whole": lambda c, a: ("from the whole trace: nothing marks steps and the kernel stream has no repeating "
                               "forward, so the whole trace is one step"),
    "why.ranks": lambda c, a: "; ".join(f"rank(s) {rank_list(n.ranks)} {text(Note(n.code, n.counts, n.args))}"
                                        for n in a),
    "steps.detected": lambda c, a: (
        "no step annotations, Python frames or CUDA-graph launches mark the forwards: steps were "
        "detected from the repeating kernel sequence; boundaries are inferred (name steps with "
        "NVTX ranges or record_function, or pass --steps REGEX, for exact ones)"),
    "steps.layers_mismatch": lambda c, a: f"--layers {a[0]} but the steps hold {a[1]} layers each (attention calls per step)",
    "steps.empty_ranges": lambda c, a: f"{c[0]} step range(s) launched no GPU work and are left out",
    "steps.warmup": lambda c, a: f"{c[0]} warm-up step(s) flagged and left out of the summaries",
    "steps.outliers": lambda c, a: f"{c[0]} outlier step(s) flagged (span far from the median); kept in summaries",
    "steps.graph_capture": lambda c, a: (
        f"{c[0]} step(s) hold CUDA-graph captures ({c[1]} stream capture(s) begun in them): kernels launched "
        "while capturing are recorded into a graph, not run, so these steps are graph capture, not forward "
        "passes (profile after the engine's start-up)"),
    "steps.outside": lambda c, a: f"{c[0]} GPU op(s) were launched outside every step and are not in any step",
    "steps.regex_forwards": lambda c, a: (f"--steps ranges hold {_forwards(*a)} forward passes each, "
                                          "by the kernel stream's once-per-forward kernels"),
    "steps.rejected": lambda c, a: (f"not used: {c[0]} step(s) from {_label(a[0])}: each holds {_forwards(a[1], a[2])} "
                                    f"forward passes ({'more than one forward each' if a[3] == 'many' else 'part of a forward'})"),
    "steps.idle_ranges": lambda c, a: f"{c[0]} step range(s) say no forward ran (zero requests) and are left out",
    "steps.partial_cycles": lambda c, a: f"{c[0]} partial cycle(s) of graph launches at the trace's edges are not steps",
    "steps.eager_beside_graphs": lambda c, a: (f"{c[0]} eager forward(s) beside the graph replays (e.g. a prefill) "
                                               "are steps too"),
    "steps.training": lambda c, a: "the trace holds backward kernels (training): steps are iterations, not prefill or decode",
    "steps.kinds_inferred": lambda c, a: "step kinds inferred, not named: " + ", ".join(
        f"{v} from {k}" for v, k in zip(c, a)),
    "steps.maybe_mixed": lambda c, a: (f"{c[0]} prefill step(s) are called so from their tokens over their "
                                       "sequences (the logits rows): a batch of prefills and a chunked prefill "
                                       "batched with decodes (mixed) look the same in the trace; step names with "
                                       "the engine's batch counts would tell"),
    "steps.kinds_disputed": lambda c, a: (f"{c[0]} step(s) where some evidence said another kind ("
                                          + ", ".join(a) + "; each step's kind_against in the JSON says which)"),
    # the merge (analysis.py)
    "rank.unmatched": lambda c, a: f"rank {a[0]}: no range matches --steps {a[1]!r}; its {c[0]} GPU op(s) are in no step",
    "other_share": lambda c, a: (f"{a[0]:.1%} of the {a[1]} step time is in kernels no rule classifies "
                                 "(bucket 'other'); see `traceattrib classify` and --rules to add rules"),
    "evidence.mixed": lambda c, a: "ranks found their steps from different evidence: " + "; ".join(
        f"{e} on rank(s) {rank_list(r)}" for e, r in a),
    # attribution
    "graph_bucket": lambda c, a: ("steps that are whole-graph executions have no per-kernel rows: their time is in "
                                  "bucket 'graph' and cannot be split; re-capture with "
                                  "`nsys profile --cuda-graph-trace=node` for a bucket breakdown"),
    # idle causes
    "idle.kernel_only": lambda c, a: ("the trace has no CPU-side CUDA API calls (kernel-only): GPU idle time cannot "
                                      "be explained and is all `unexplained`; capture CUDA API calls (nsys -t cuda, "
                                      "torch.profiler with CPU activity) to see why the GPU waited"),
    "idle.unexplained": lambda c, a: (f"{a[0]:.0%} of GPU idle time has no CPU evidence "
                                      "(no launch call recorded for the ops that ended those gaps, or gaps outside the "
                                      "launching thread's recorded calls): `unexplained`"),
    "idle.unnamed_host": lambda c, a: (f"{a[0]:.0%} of host idle time (CPU busy between CUDA calls) has no name: "
                                       "no range, Python frame or CPU op covers it; add NVTX ranges / record_function, "
                                       "or capture with torch.profiler(with_stack=True) or nsys -t osrt,nvtx to see what "
                                       "the CPU did"),
    # speed of light
    "sol.quant_unknown": lambda c, a: (f"quantization method {a[0]!r} not understood: weights counted at {a[1]:g} "
                                       "bytes (torch_dtype), which may overstate their stored size"),
    "sol.gpus_differ": lambda c, a: (f"the trace holds different GPUs ({', '.join(a[0])}); speed of light uses "
                                     f"{a[1] or 'no'} peaks"),
    "sol.gpu_unknown": lambda c, a: f"GPU {a[0]!r} is not in rules/gpus.toml: {PEAKS_HINT}",
    "sol.gpu_no_peaks": lambda c, a: f"rules/gpus.toml lists no peaks for GPU {a[0]!r} ({a[1]}): {PEAKS_HINT}",
    "sol.gpu_unnamed": lambda c, a: (f"the trace does not name its GPU{'s' if len(a[0]) > 1 else ''} "
                                     f"({', '.join(a[0])}): {PEAKS_HINT}"),
    "sol.tp": lambda c, a: (f"--model: tensor parallel size {a[0]} (from {a[1]}): weights, KV heads and "
                            "vocabulary split over the ranks"),
    "sol.kv_needs_context": lambda c, a: ("--model: KV-cache bytes and attention FLOPs need the batch and the context: "
                                          "pass --batch and --context (the floor counts weights only until then)"),
    "sol.flops_need_tokens": lambda c, a: "--model: FLOPs need the tokens per step: pass --batch (and --context for prefills)",
    "sol.weights_differ": lambda c, a: (f"weight bytes from shapes and from --model differ by {a[0]:+.0%} "
                                        f"({human_bytes(a[1])} vs {human_bytes(a[2])} per step); "
                                        "shapes are used: check the config matches the traced model"),
    "sol.graph_steps": lambda c, a: (f"{c[0]} step(s) run most of their GEMMs inside CUDA graphs, whose kernels carry "
                                     "no shapes: their speed of light is unknown; pass --model config.json (and "
                                     "--batch, --context)"),
    "sol.dequant": lambda c, a: ("weights converted from a narrower dtype inside the step (dequantized on the fly) are "
                                 "counted at their stored width"),
    "sol.attention_layout": lambda c, a: ("attention ops with a paged or custom KV layout: their KV bytes and FLOPs are "
                                          "not read from shapes, so the floor of those steps counts weights only"),
    "sol.unknown": lambda c, a: "speed of light unknown: " + (
        "the steps' kernels carry no op shapes" if a[0] else "the trace has no op shapes (torch.profiler record_shapes=True)"
    ) + "; pass --model config.json (with --batch and --context) for the floor on step time",
    "sol.floor_over_span": lambda c, a: (f"the speed-of-light floor exceeds the measured span on {c[0]} of {c[1]} step(s): "
                                         "those steps are not whole forward passes (check the step boundaries, --steps) "
                                         "or the evidence does not match the run (--model, --batch, --context, --peak-bw)"),
    # communication
    "comm.mismatch": lambda c, a: (f"{c[0]} collective call(s) issued at the same position on every rank differ in kind "
                                   "or bytes across ranks: ranks did not issue the same collectives in the same order (or "
                                   "the profiler windows differ); those calls are not split into wait and transfer"),
    "comm.partial": lambda c, a: (f"{c[0]} collective call(s) have no counterpart on every rank of their group (profiler "
                                  "windows differ, or calls outside the traced range); they count as transfer, not split"),
    "comm.unaligned": lambda c, a: (f"rank(s) {', '.join(map(str, a[0]))} share no collective with rank {a[1]}: their "
                                    "clocks are taken as aligned (offset 0)"),
    "comm.apart": lambda c, a: (f"{c[0]} collective call(s) paired by order of issue do not overlap in time across "
                                "ranks (one rank's call ended before another's started): not split into wait and transfer"),
    "comm.job_names": lambda c, a: (f"{c[0]} job step(s) pair steps of different names across ranks: the job figures "
                                    "pair each rank's steps by their index (step boundaries found per rank)"),
    "comm.one_rank": lambda c, a: ("one rank's trace: waiting for other ranks cannot be told apart from transferring, so "
                                   "bandwidths are computed on whole kernel durations (a lower bound on the link's speed)"),
    "comm.what_if_one_rank": lambda c, a: ("--what-if-link on one rank's trace: the fitted times are kernel durations, "
                                           "which include waiting for the other ranks, so the projection overstates "
                                           "communication on any link"),
    "comm.what_if_no_link": lambda c, a: "--what-if-link needs the trace's own link: none is known for these GPUs; pass --link",
    "comm.bytes_unknown": lambda c, a: _bytes_unknown(*a),
    "comm.straggler": lambda c, a: _straggler(*a),
    "comm.link": lambda c, a: (f"link: {a[0]}, {a[1]:g} GB/s per direction ({a[2]}); a P2P-disabled or "
                               "host-memory (SHM) path cannot be seen in a trace: pass --link NAME|GBPS if that is not the path"),
    "comm.link_given": lambda c, a: f"link: {a[0]}, {a[1]:g} GB/s per direction (--link)",
    "comm.link_unknown": lambda c, a: "link: unknown for these GPUs; pass --link NAME|GBPS to compare bandwidths with a peak",
    # integrity (counts: records that failed, records looked at, steps affected; args: ranks, what was said)
    **{f"integrity.{check}": (lambda c, a, what=what: _integrity(c, a, what)) for check, what in _INTEGRITY.items()},
    "clocks.one": lambda c, a: "one capture, one clock",
    "clocks.aligned": lambda c, a: "aligned on matched collective end times",
    "clocks.own": lambda c, a: "each file's own clock (no collectives matched across ranks to align them)",
    "fit.lsq": lambda c, a: "least squares over size classes",
    "fit.one_class": lambda c, a: "one size class: bytes taken at the link's peak, the rest is latency",
    "fit.negative": lambda c, a: "least squares gave a negative term: bytes taken at the link's peak",
    "fit.no_link": lambda c, a: "no link known: bandwidth only",
}


def _integrity(c: tuple[int, ...], a: tuple, what: str) -> str:
    """An integrity note: how many of how many, what it means, the steps affected, what was said."""
    ranks, said = a[0], a[1]
    where = f" on rank(s) {rank_list(ranks)}" if len(ranks) > 0 else ""
    quoted = "; the profiler or reader said: " + " | ".join(f"'{x}'" for x in said) if said else ""
    return (f"trace integrity: {c[0]:,} of {c[1]:,} {what}{where}; {c[2]} step(s) affected{quoted}")


def text(n: Note) -> str:
    """The note's sentence; a note that holds for some ranks only says which."""
    s = TEXT[n.code](n.counts, n.args)
    return f"rank(s) {rank_list(n.ranks)}: {s}" if n.ranks else s


def texts(notes: list[Note]) -> list[str]:
    return [text(n) for n in notes]


