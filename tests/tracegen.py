"""Synthetic traces built by code, in both formats, from one neutral description.

A `Timeline` lists what a profiled process did (step annotations, CPU ops, API calls, kernels,
memory operations, CUDA-graph replays) in integer ns; `kineto_text` writes it as torch.profiler
JSON (Kineto's own pretty layout, which the streaming reader takes, or compact JSON, which the
exact reader takes) and `write_nsys` as an Nsight Systems SQLite export with the tables and
columns of a modern (2025) export. Values are kept as given, so a test can put anything anywhere.
`timelines` is a hypothesis strategy of plausible ones.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st


class Raw(str):
    """JSON text written as is (numbers exactly as Kineto prints them, or deliberately bad ones)."""


def us(ns: int, base_us: int = 0) -> Raw:
    """ns as Kineto's microseconds with three decimals, offset by a whole-us base."""
    if not isinstance(ns, int) or isinstance(ns, bool):
        return ns  # a deliberately odd value: written as it is
    total = base_us * 1000 + ns
    q, r = divmod(abs(total), 1000)
    return Raw(f"{'-' if total < 0 else ''}{q}.{r:03d}")


@dataclass
class Event:
    kind: str           # step | op | launch | kernel | memcpy | memset
    name: Any
    start: Any          # ns (int), or any value for hostile traces
    end: Any
    stream: int = 7
    corr: Any = 0
    grid: tuple = (1, 1, 1)
    block: tuple = (128, 1, 1)
    nbytes: int = 0
    graph: bool = False  # a kernel replayed inside a CUDA graph
    extra: dict = field(default_factory=dict)  # Kineto: fields overriding or adding to the event


@dataclass
class Timeline:
    events: list[Event]
    pid: int = 4242
    tid: int = 4242
    device: int = 0
    gpu_name: str = "NVIDIA H200"
    header: dict = field(default_factory=dict)  # Kineto: header fields overriding the defaults


# ------------------------------------------------------------------------------------------------
# Kineto JSON

def _emit(v: Any) -> str:
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_emit(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_emit(x) for x in v) + "]"
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return json.dumps(v, ensure_ascii=False)


def kineto_events(tl: Timeline, base_us: int = 0) -> list[dict]:
    out = []
    ext = 0
    for e in tl.events:
        ext += 1
        ts = us(e.start, base_us)
        dur = us(e.end - e.start, 0) if isinstance(e.start, int) and isinstance(e.end, int) else e.end
        if e.kind == "step":
            ev = {"ph": "X", "cat": "user_annotation", "name": e.name, "pid": tl.pid, "tid": tl.tid,
                  "ts": ts, "dur": dur, "args": {"External id": ext}}
        elif e.kind == "op":
            ev = {"ph": "X", "cat": "cpu_op", "name": e.name, "pid": tl.pid, "tid": tl.tid, "ts": ts, "dur": dur,
                  "args": {"External id": ext, "Input type": ["c10::BFloat16", "c10::BFloat16"]}}
        elif e.kind == "launch":
            ev = {"ph": "X", "cat": "cuda_runtime", "name": e.name, "pid": tl.pid, "tid": tl.tid, "ts": ts,
                  "dur": dur, "args": {"External id": ext, "correlation": e.corr}}
        elif e.kind == "kernel":
            ev = {"ph": "X", "cat": "kernel", "name": e.name, "pid": tl.device, "tid": e.stream, "ts": ts,
                  "dur": dur, "args": {"External id": ext, "device": tl.device, "context": 1, "stream": e.stream,
                                       "correlation": e.corr, "grid": list(e.grid), "block": list(e.block)}}
        else:
            name = e.name if e.kind == "memcpy" else "Memset (Device)"
            ev = {"ph": "X", "cat": "gpu_memcpy" if e.kind == "memcpy" else "gpu_memset", "name": name,
                  "pid": tl.device, "tid": e.stream, "ts": ts, "dur": dur,
                  "args": {"External id": ext, "device": tl.device, "context": 1, "stream": e.stream,
                           "correlation": e.corr, "bytes": e.nbytes}}
        ev.update(e.extra)
        out.append(ev)
    return out


def kineto_text(tl: Timeline, layout: str = "kineto", base_us: int = 0) -> str:
    """The trace as torch.profiler writes it (layout 'kineto') or as compact JSON ('compact')."""
    header = {"schemaVersion": 1,
              "deviceProperties": [{"id": tl.device, "name": tl.gpu_name, "totalGlobalMem": 150109880320,
                                    "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
              "cupti_version": 130001, "cuda_runtime_version": 13000}
    header.update(tl.header)
    events = kineto_events(tl, base_us)
    if layout == "compact":
        body = ",".join(_emit(e) for e in events)
        head = ",".join(f"{json.dumps(k)}:{_emit(v)}" for k, v in header.items())
        return "{" + head + ',"traceEvents":[' + body + '],"traceName":"generated"}'
    head = "".join(f'  {json.dumps(k)}: {_emit(v)},\n' for k, v in header.items())
    blocks = ",\n".join("  {\n    " + _emit(e)[1:-1] + "\n  }" for e in events)
    return "{\n" + head + '  "traceEvents": [\n' + blocks + ("\n" if blocks else "") + '  ],\n' + \
        '  "traceName": "generated"\n}\n'


# ------------------------------------------------------------------------------------------------
# Nsight Systems SQLite: the tables the reader reads, with the columns of nsys 2025.3's export

NSYS_DDL = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
    totalMemory INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
    launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
    gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
    blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
    localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
    sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
    eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
    returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
    srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER,
    dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
    globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
    category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
    domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
    int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
"""


def write_nsys(tl: Timeline, path: Path, strict: bool = True) -> Path:
    """The trace as an nsys SQLite export. strict=False drops the NOT NULL constraints (so a
    hostile timeline can hold NULLs)."""
    ddl = NSYS_DDL if strict else NSYS_DDL.replace("NOT NULL PRIMARY KEY", "PRIMARY KEY").replace(" NOT NULL", "")
    con = sqlite3.connect(path)
    con.execute("pragma synchronous = off")  # a test file: no fsync (it costs 0.2 s per file)
    con.execute("pragma journal_mode = memory")
    con.executescript(ddl)
    strings: dict[Any, int] = {}

    def sid(s: Any) -> int:
        if s not in strings:
            strings[s] = len(strings) + 1
        return strings[s]
    gpid = tl.pid << 24
    gtid = gpid | tl.tid
    kernels, runtime, memcpy, memset, nvtx = [], [], [], [], []
    # graphNodeId names a node of a graph, the same at every replay: the k-th kernel of a replay
    # of n kernels is node 100 n + k (replays of equal length are taken as the same graph)
    replay_len: dict[Any, int] = {}
    for e in tl.events:
        if e.kind == "kernel" and e.graph:
            replay_len[e.corr] = replay_len.get(e.corr, 0) + 1
    seen: dict[Any, int] = {}
    for i, e in enumerate(tl.events):
        if e.kind == "step":
            nvtx.append((e.start, e.end, 59, None, None, None, e.name, gtid, None, None, 0))
        elif e.kind == "launch":
            runtime.append((e.start, e.end, 0, gtid, e.corr, sid(e.name + "_v7000" if isinstance(e.name, str)
                                                                 else e.name), 0))
        elif e.kind == "kernel":
            node = None
            if e.graph:
                node = 100 * replay_len[e.corr] + seen.get(e.corr, 0)
                seen[e.corr] = seen.get(e.corr, 0) + 1
            kernels.append((e.start, e.end, tl.device, 1, e.stream, e.corr, gpid, sid(e.name),
                            sid(e.name.split("(")[0] if isinstance(e.name, str) else e.name), 32, *e.grid,
                            *e.block, 0, 0, 0, 0, i, node))
        elif e.kind == "memcpy":
            memcpy.append((e.start, e.end, tl.device, 1, e.stream, e.corr, gpid, e.nbytes, 1))
        elif e.kind == "memset":
            memset.append((e.start, e.end, tl.device, 1, e.stream, e.corr, gpid, 0, e.nbytes))
    con.executemany("insert into StringIds values (?, ?)", [(i, s) for s, i in strings.items()])
    con.executemany("insert into CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId, "
                    "correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY, gridZ, "
                    "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
                    "localMemoryTotal, gridId, graphNodeId) values "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", kernels)
    con.executemany("insert into CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, "
                    "nameId, returnValue) values (?, ?, ?, ?, ?, ?, ?)", runtime)
    con.executemany("insert into CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
                    "correlationId, globalPid, bytes, copyKind) values (?, ?, ?, ?, ?, ?, ?, ?, ?)", memcpy)
    con.executemany("insert into CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, "
                    "correlationId, globalPid, value, bytes) values (?, ?, ?, ?, ?, ?, ?, ?, ?)", memset)
    con.executemany("insert into NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, globalTid, "
                    "endGlobalTid, textId, domainId) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", nvtx)
    con.executemany("insert into META_DATA_EXPORT values (?, ?)",
                    [("EXPORT_PRODUCT_VERSION", "2025.3.2.0"), ("EXPORT_SCHEMA_VERSION", "3.20.3")])
    con.execute("insert into TARGET_INFO_GPU (vmId, id, name, smCount) values (0, ?, ?, 132)",
                (tl.device, tl.gpu_name))
    con.commit()
    con.close()
    return path


# ------------------------------------------------------------------------------------------------
# hypothesis: plausible timelines

KERNELS = [
    "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(Params)",
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int, float)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)",
    "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0",
]
OPS = ["aten::mm", "aten::to", "aten::add", "aten::_scaled_dot_product_flash_attention", "nccl:all_reduce"]
NAMES = st.one_of(st.sampled_from(KERNELS), st.text(min_size=1, max_size=30))


def step_name(family: str, i: int, text: str) -> str:
    return {"decode": "prefill" if i == 0 else f"decode_step_{i - 1}", "profiler": f"ProfilerStep#{i}",
            "sglang": f"step[{i}]", "any": text}[family]


@st.composite
def timelines(draw, graphs: bool = True) -> Timeline:
    """A plausible process: steps of launches, each a CPU op around an API call and its GPU work
    (graphs: some launches are CUDA-graph replays)."""
    events: list[Event] = []
    t = draw(st.integers(1_000, 10_000))  # every time >= 0 (CPU ops open 500 ns before their launch)
    corr = 0
    annotate = draw(st.booleans()) or draw(st.booleans())
    family = draw(st.sampled_from(["decode", "profiler", "sglang", "any"]))
    for i in range(draw(st.integers(0, 6))):
        step_start = t
        for _ in range(draw(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 8, 12]))):
            corr += 1
            t += draw(st.integers(0, 20_000))
            kind = draw(st.sampled_from(["kernel", "kernel", "kernel", "memcpy", "memset"] + ["graph"] * graphs))
            launch_ns = draw(st.integers(1, 8_000))
            api = {"kernel": "cudaLaunchKernel", "memcpy": "cudaMemcpyAsync", "memset": "cudaMemsetAsync",
                   "graph": "cudaGraphLaunch"}[kind]
            events.append(Event("op", draw(st.sampled_from(OPS)), t - 500, t + launch_ns + 500))
            events.append(Event("launch", api, t, t + launch_ns, corr=corr))
            g = t + draw(st.integers(0, 60_000))
            stream = draw(st.sampled_from([7, 7, 20]))
            for _ in range(draw(st.integers(2, 5)) if kind == "graph" else 1):
                d = draw(st.integers(0, 100_000))
                if kind == "memcpy":
                    events.append(Event("memcpy", "Memcpy HtoD (Pageable -> Device)", g, g + d, stream, corr,
                                        nbytes=draw(st.integers(0, 1 << 30))))
                elif kind == "memset":
                    events.append(Event("memset", "Memset (Device)", g, g + d, stream, corr, nbytes=4096))
                else:
                    events.append(Event("kernel", draw(NAMES), g, g + d, stream, corr, graph=kind == "graph",
                                        grid=(draw(st.integers(1, 4096)), 1, 1)))
                g += d + draw(st.integers(0, 2_000))
            t += launch_ns + 1_000
        if annotate:
            events.append(Event("step", step_name(family, i, draw(st.text(min_size=1, max_size=20))), step_start,
                                t + draw(st.integers(0, 10_000))))
        t += draw(st.integers(0, 50_000))
    return Timeline(events=events, gpu_name=draw(st.sampled_from(["NVIDIA H200", "NVIDIA H100 80GB HBM3"])))
