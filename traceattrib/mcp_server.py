"""`traceattrib mcp`: the analyses as Model Context Protocol tools over stdio, for coding agents.

A front end like the command line (traceattrib.cli), on the official SDK (`pip install
'traceattrib[mcp]'`; only `traceattrib mcp` imports this module). It reaches the analyses through
the orchestrator the CLI uses (parallel.analyze_path, through the cache) and computes nothing
itself: results are the JSON report's data (render/jsonout: the same field names and numbers as
`report --format json`, times in ns), words come from render/ (notes, findings' what/evidence,
idle advice). Results are compact: the summary first, the step list paged.

The rules of the CLI hold: only a regular file or a directory of rank files is read, read-only
(cache.check_input refuses a FIFO or a device before anything opens it); bad input is a tool
error of one cleaned line (render.safe.error_line), never a traceback, and a bug of ours says so.
Each result carries the reader's and the cache's warnings and `cached` (the analysis came from
the cache). Analyses run one at a time in a worker thread, reporting progress as the protocol's
progress notifications when the caller asks for them.
"""
from __future__ import annotations

import functools
import json
import os
import sys
import time
import traceback
from typing import TYPE_CHECKING, Annotated, Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict  # pydantic needs it below Python 3.12

from . import __version__
from .attribute import ALL_BUCKETS
from .errors import TraceError, warnings_of
from .render.safe import clean, error_line
from .report import KINDS

if TYPE_CHECKING:
    from .analysis import Report

INSTRUCTIONS = (
    "traceattrib attributes the GPU time of LLM-inference steps in Nsight Systems SQLite exports and "
    "torch.profiler JSON traces (a file, or a directory of per-rank files): where each step goes by bucket "
    "(linear, attention, communication, ...), exposed communication, idle time and its causes, and how much "
    "faster a step could be at most if something went away. Give absolute paths. Times are in ns (fields "
    "ending _ns), shares and speedup bounds are ratios, bandwidths GB/s. Start with `findings` or `report`; "
    "`steps` pages the per-step table; `top_kernels` names the kernels behind a bucket; "
    "`layers_and_modules` says which layers and modules (q_proj, attention, experts, ...) the time is in.")
PAGE_MAX = 500  # steps per page at most
PROGRESS_EVERY_S = 0.2
BUG = "bug: {what}; please report with TRACEATTRIB_DEBUG=1 output"

Kind = Literal[KINDS]  # type: ignore[valid-type]
Bucket = Literal[ALL_BUCKETS]  # type: ignore[valid-type]
TracePath = Annotated[str, Field(min_length=1, description="Trace file (.sqlite, .json, .json.gz) or directory of "
                                                           "per-rank traces; absolute path")]
KindArg = Annotated[Kind | None, Field(description="Only this step kind")]


class About(TypedDict):
    trace: dict[str, Any]  # what the reader says about the trace (the JSON report's `trace`)
    cached: bool  # the analysis came from the cache
    warnings: list[str]  # rows the reader dropped or repaired, cache entries rebuilt or refused


class ReportResult(About):
    """`report --format json` without its per-step list (the `steps` tool pages it): the summary,
    by kind, rank and job; notes. Times ns, shares and bounds ratios."""

    evidence: str
    evidence_why: str
    buckets: list[str]
    notes: list[str]
    summary: dict[str, Any]


class StepsResult(About):
    """One page of the JSON report's `steps` (in its order: rank, then time), of `kind` when given."""

    kind: str | None
    total: int
    offset: int
    next_offset: int | None  # pass as offset for the next page; null on the last one
    steps: list[dict[str, Any]]


class Kernel(TypedDict):
    bucket: str
    name: str
    total_ns: int  # over the kind's `steps` summarized steps
    count: int
    per_step_ns: float
    per_step_count: float


class TopKernelsResult(About):
    """The heaviest kernels of each bucket (or of `bucket`) inside the kind's summarized steps
    (warm-up excluded), as the text report's "top kernels per bucket"."""

    kind: str
    steps: int
    kernels: list[Kernel]


class LayersResult(About):
    """Inside a kind's steps: per layer (index, type, time and time per bucket, median per step),
    per module summed over the layers (time, count, share of the span, bound if removed), the
    layers well above the median layer of their kind, and how layers and modules were found
    (`layer_evidence.source`: nvtx, names, shapes or position; `names_known` false: modules are named by
    their place in the layer). Empty lists when the steps show no repeating layers."""

    kind: str
    layer_evidence: dict[str, Any] | None
    layers: list[dict[str, Any]]
    modules: list[dict[str, Any]]
    slow_layers: list[dict[str, Any]]


class Explained(TypedDict):
    name: str
    bucket: str
    rule: str


class ExplainResult(TypedDict):
    """The bucket and rule each kernel name gets (`traceattrib explain --format json`)."""

    kernels: list[Explained]


class DiffResult(TypedDict):
    """`traceattrib diff --format json`: the runs on each side, the capture checks (`refused` when
    they make the comparison meaningless), per kind the median, p90 and mean step span and each
    bucket's exposed time before and after with 95% bootstrap intervals and a verdict, what moved
    the span, and `gate` when a limit is given."""

    traceattrib_version: str
    schema_version: int
    before: list[dict[str, Any]]
    after: list[dict[str, Any]]
    method: dict[str, Any]
    refused: bool
    checks: list[dict[str, Any]]
    kinds: dict[str, Any]
    gate: dict[str, Any] | None
    cached: bool
    warnings: list[str]


class Finding(TypedDict):
    what: str
    bound: float  # the most the step could speed up if it went away (median over the kind's steps)
    evidence: str


class Advice(TypedDict):
    cause: str
    share: float  # of the span
    speedup_bound_if_no_idle_cause: float
    advice: str


class FindingsResult(About):
    """What to fix first in the headline kind's steps, largest bound first, with the evidence; the
    ceiling on all fixes together; advice on the idle causes; the report's notes."""

    kind: str | None
    evidence: str
    findings: list[Finding]
    ceiling: Finding | None
    idle_advice: list[Advice]
    notes: list[str]


def serve(use_cache: bool = True, cache_dir: str | None = None) -> None:
    """Answer on stdin/stdout until the client closes them."""
    build(use_cache, cache_dir).run("stdio")


def build(use_cache: bool = True, cache_dir: str | None = None) -> MCPServer:
    """The server: every tool of _Tools, read-only, with one-line errors."""
    app = MCPServer("traceattrib", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                    middleware=[_one_line_tool_errors])
    tools = _Tools(use_cache, cache_dir)
    for fn in (tools.report, tools.steps, tools.top_kernels, tools.layers_and_modules, tools.explain, tools.diff, tools.findings):
        app.add_tool(_one_line_errors(fn), annotations=ToolAnnotations(
            read_only_hint=True, idempotent_hint=True, open_world_hint=False))
    return app


class _Tools:
    """The tools (their signatures and docstrings are what clients see), over one cache and one
    analysis at a time: each uses the cores it needs."""

    def __init__(self, use_cache: bool, cache_dir: str | None):
        self.use_cache, self.cache_dir = use_cache, cache_dir
        self.lock = anyio.Lock()

    async def analyzed(self, ctx: Context, path: str, part: tuple[int, int] = (0, 1), **options) -> Report:
        """analyze_path(path, **options) through the cache, in a worker thread; progress as
        part (i, n) of the call's work."""
        from .parallel import analyze_path

        run = functools.partial(analyze_path, path, use_cache=self.use_cache, cache_dir=self.cache_dir,
                                progress=_progress(ctx, *part), **options)
        async with self.lock:
            return await anyio.to_thread.run_sync(run)

    async def report(self, path: TracePath, ctx: Context, kind: KindArg = None,
                     model: Annotated[str | None, Field(description="Hugging Face config.json (or a directory "
                                                        "holding one) for the speed-of-light floor")] = None,
                     layers: Annotated[int | None, Field(ge=1, description="Model layers: checks 2 all-reduces "
                                                         "per layer (tensor parallel)")] = None,
                     ) -> Annotated[CallToolResult, ReportResult]:
        """The report of a trace (`traceattrib report --format json` without the per-step list): per
        step kind the time by bucket (mean, median, exposed), idle and its causes, speedup bounds, the
        speed-of-light floor, collectives; per rank and the job with 2+ ranks; findings; notes. kind
        keeps only that kind's sections (by_kind, by_rank, job)."""
        from .render.jsonout import to_dict
        from .sol import Options

        rep = await self.analyzed(ctx, path, layers=layers, sol_options=Options(model=model) if model else None)
        doc = to_dict(rep, with_steps=False)
        if kind:
            _has_kind(rep, kind)
            doc["summary"] = _only_kind(doc["summary"], kind)
        return _result(_about(rep) | {k: doc[k] for k in ("evidence", "evidence_why", "buckets", "notes", "summary")})

    async def steps(self, path: TracePath, ctx: Context, kind: KindArg = None,
                    offset: Annotated[int, Field(ge=0, description="First step of the page")] = 0,
                    limit: Annotated[int, Field(ge=1, le=PAGE_MAX, description="Steps per page")] = 20,
                    ) -> Annotated[CallToolResult, StepsResult]:
        """A page of the per-step table (the JSON report's `steps`): each step's window (ns), kind,
        warm-up/outlier flags, time and exposed time per bucket, idle causes, collectives, floor."""
        from .render.jsonout import step_list

        rep = await self.analyzed(ctx, path)
        if kind:
            _has_kind(rep, kind)
        rows = [s for s in step_list(rep) if not kind or s["kind"] == kind]
        end = offset + limit
        return _result(_about(rep) | {"kind": kind, "total": len(rows), "offset": offset,
                                      "next_offset": end if end < len(rows) else None, "steps": rows[offset:end]})

    async def top_kernels(self, path: TracePath, ctx: Context,
                          bucket: Annotated[Bucket | None, Field(description="Only this bucket")] = None,
                          kind: Annotated[Kind | None, Field(description="Step kind (default: the headline kind, "
                                                             "decode when there is any)")] = None,
                          limit: Annotated[int, Field(ge=1, le=100, description="Kernels per bucket")] = 5,
                          ) -> Annotated[CallToolResult, TopKernelsResult]:
        """The heaviest kernels per bucket inside a kind's summarized steps: total time and launches,
        and per step."""
        from .analysis import top_kernels as top

        rep = await self.analyzed(ctx, path)
        kind = kind or rep.summary.kind
        _has_kind(rep, kind)
        g = top(rep, kind, limit)
        n = int(g["steps"].iloc[0]) if len(g) else 0
        if bucket:
            g = g[g["bucket"] == bucket]
        rows = [{"bucket": r.bucket, "name": r.name, "total_ns": int(r.total_ns), "count": int(r.count),
                 "per_step_ns": r.total_ns / r.steps, "per_step_count": r.count / r.steps} for r in g.itertuples()]
        return _result(_about(rep) | {"kind": kind, "steps": n, "kernels": rows})

    async def layers_and_modules(self, path: TracePath, ctx: Context,
                                 kind: Annotated[Kind | None, Field(description="Step kind (default: the headline "
                                                                    "kind, decode when there is any)")] = None,
                                 ) -> Annotated[CallToolResult, LayersResult]:
        """Which part of the model the time goes to: per layer and per module (q/k/v/o projections,
        attention, MLP gate/up/down, router, experts, lm_head, ...), also for CUDA-graph replays
        (labels by kernel position from a step with names), and the slow layers."""
        from .render.jsonout import to_dict

        rep = await self.analyzed(ctx, path)
        kind = kind or rep.summary.kind
        _has_kind(rep, kind)
        ks = to_dict(rep, with_steps=False)["summary"]["by_kind"][kind]
        return _result(_about(rep) | {"kind": kind, "layer_evidence": ks.get("layer_evidence"),
                                      "layers": ks.get("layers") or [], "modules": ks.get("modules") or [],
                                      "slow_layers": ks.get("slow_layers") or []})

    async def explain(self, kernel_names: Annotated[list[str], Field(min_length=1, max_length=1000,
                                                               description="Kernel names")],
                      op: Annotated[str, Field(description="Launching CPU op chain (torch traces), e.g. "
                                               "'aten::to > aten::_to_copy > aten::copy_'")] = "",
                      input_types: Annotated[str, Field(description="Input dtypes of the launching op, "
                                                        "comma-joined")] = "",
                      ) -> Annotated[CallToolResult, ExplainResult]:
        """Which bucket and classification rule each kernel name gets (no trace needed)."""
        from .classify import load_rules
        from .render.classify import render_explain

        text = await anyio.to_thread.run_sync(lambda: render_explain(kernel_names, load_rules(), op, input_types,
                                                                     "json"))
        return _result({"kernels": json.loads(text)})

    async def diff(self, before: TracePath, after: TracePath, ctx: Context,
                   fail_if_slower: Annotated[float | None, Field(allow_inf_nan=False, description=(
                       "Percent: the gate trips when a kind's median step got slower by more, with the "
                       "whole 95% interval above it"))] = None,
                   allow_mismatch: Annotated[bool, Field(description="Compare captures the checks refuse "
                                                         "(other GPU, GPU or rank count, layers)")] = False,
                   ) -> Annotated[CallToolResult, DiffResult]:
        """Two captures of one workload compared (any formats): per kind the median and p90 step span
        and each bucket's exposed time before and after, with 95% bootstrap intervals and whether the
        change is beyond noise; the capture checks; what moved the span (`traceattrib diff
        --format json`)."""
        from .diff import diff as compare
        from .render.diff import to_dict

        reps = [await self.analyzed(ctx, p, part=(i, 2)) for i, p in enumerate((before, after))]
        limits = [] if fail_if_slower is None else [("median", fail_if_slower)]
        res = to_dict(compare(reps[0], reps[1], fail_if_slower=limits, allow_mismatch=allow_mismatch))
        return _result(res | {"gate": res.get("gate"), "cached": all(_about(r)["cached"] for r in reps),
                              "warnings": list(dict.fromkeys(w for r in reps for w in warnings_of(r.meta)))})

    async def findings(self, path: TracePath, ctx: Context) -> Annotated[CallToolResult, FindingsResult]:
        """What to fix first: the largest opportunities in the headline kind's steps (decode when there
        is any), each with the most the step could speed up and the evidence from the trace."""
        from .render.findings import advice
        from .render.jsonout import to_dict

        rep = await self.analyzed(ctx, path)
        doc = to_dict(rep, with_steps=False)
        ks = rep.summary.main()
        main = doc["summary"]["by_kind"].get(rep.summary.kind) or {}  # the idle figures inline there
        tips = [{"cause": c, "share": main["idle_causes_share"][c],
                 "speedup_bound_if_no_idle_cause": main["speedup_bound_if_no_idle_cause"][c], "advice": line}
                for c, line in advice(ks.idle)] if ks is not None and ks.idle is not None else []
        return _result(_about(rep) | {"kind": rep.summary.kind, "evidence": rep.evidence,
                                      "findings": doc["summary"]["findings"],
                                      "ceiling": doc["summary"]["ceiling"], "idle_advice": tips,
                                      "notes": doc["notes"]})




# --- what every tool shares ---------------------------------------------------------------------

def _one_line_errors(fn):
    """The tool, with bad input as a tool error of one cleaned line and a bug of ours said so (its
    traceback on stderr with TRACEATTRIB_DEBUG=1), as the CLI's exit statuses 2 and 3."""
    @functools.wraps(fn)
    async def guarded(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except TraceError as e:
            raise ToolError(error_line(e)) from None
        except Exception as e:  # noqa: BLE001 - anything else is our bug, and says so
            if os.environ.get("TRACEATTRIB_DEBUG"):
                traceback.print_exc(file=sys.stderr)
            raise ToolError(BUG.format(what=f"{type(e).__name__}: {error_line(e)}".rstrip(": "))) from None
    return guarded


async def _one_line_tool_errors(ctx, call_next):
    """Every tool error one cleaned line, the SDK's own too (arguments that fail the schema)."""
    result = await call_next(ctx)
    if ctx.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        for block in result.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                lines = [x.strip() for x in block["text"].splitlines()]
                block["text"] = clean("; ".join(x for x in lines if x and not x.startswith("For further information")))
    return result


def _progress(ctx: Context, part: int, parts: int):
    """A progress(fraction, what) callback for the analysis thread: the caller's progress
    notifications (none when it did not ask): increasing, at most every PROGRESS_EVERY_S but the
    last."""
    last = [0.0, -1.0]  # when, how far

    def report(fraction: float, what: str = "") -> None:
        now, done = time.monotonic(), (part + min(max(fraction, 0.0), 1.0)) / parts
        if done <= last[1] or (fraction < 1.0 and now - last[0] < PROGRESS_EVERY_S):
            return
        last[:] = now, done
        anyio.from_thread.run(ctx.report_progress, done, 1.0, what or None)
    return report


def _about(rep: Report) -> dict[str, Any]:
    from .render.jsonout import trace_info

    return {"trace": trace_info(rep.meta), "cached": bool(rep.meta.get("results_cached")),
            "warnings": warnings_of(rep.meta)}


def _has_kind(rep: Report, kind: str | None) -> None:
    counts = rep.summary.step_counts
    if not kind or not counts.get(kind):
        have = ", ".join(k for k in KINDS if counts.get(k)) or "none"
        raise TraceError(f"no {kind} steps in this trace (kinds: {have})" if kind else "no steps in this trace")


def _only_kind(summary: dict[str, Any], kind: str) -> dict[str, Any]:
    """The summary with only `kind`'s sections in by_kind, by_rank and job."""
    out = dict(summary, by_kind={k: v for k, v in summary["by_kind"].items() if k == kind})
    if "by_rank" in out:
        out["by_rank"] = {r: {k: v for k, v in ks.items() if k == kind} for r, ks in out["by_rank"].items()}
    if "job" in out:
        out["job"] = {k: v for k, v in out["job"].items() if k == kind}
    return out


def _result(data: dict[str, Any]) -> CallToolResult:
    """The result as structured content and, for clients that read text only, compact JSON."""
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(data, separators=(",", ":")))],
                          structured_content=data)
