"""The per-rank part of the analysis over a trace's files, in this process or on a Dask cluster.

One task per trace file: load it through the Parquet cache (`cache.read_file`), run
classify -> steps -> attribute on each rank it holds (`analysis.analyze_rank`) and return only
the small per-rank results. Kernel tables never leave the process that read them, so the
client's memory grows with the per-rank results only, and a worker holds one rank at a time
(one thread per worker process). The merge (`analysis.merge`) is the same as in `analyze(trace)`.

Dask is optional (`pip install 'traceattrib[dask]'`): without a client the tasks run here, one
file after another. With `--workers N` a local cluster of N worker processes is started; with
`--scheduler ADDRESS` a running cluster is used, whose workers must see the trace files (and
the export directory) at the same paths: a shared filesystem.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from . import cache, classify, comm, heap, sol
from .analysis import RankResult, Report, analyze_rank, comm_model, merge, split_ranks
from .concurrency import beside
from .errors import TraceError
from .ingest import merge_meta, rank_files, renumbered
from .progress import ProgressFn, noop
from .store import Store

if TYPE_CHECKING:  # the Nsight Systems reader is imported where a file needs it
    from .ingest.nsys_tables import Process, Started

DASK_HINT = "pip install 'traceattrib[dask]'"


@contextlib.contextmanager
def cluster(workers: int | None = None, scheduler: str | None = None) -> Iterator[Any]:
    """A dask.distributed Client for --workers N (a local cluster of N processes, one thread
    each) or --scheduler ADDRESS (a running cluster); None when neither is given."""
    if workers is None and not scheduler:
        yield None
        return
    if workers is not None and scheduler:
        raise TraceError("{workers} and {scheduler} exclude each other: start a local cluster or use a running one",
                         ("workers", "scheduler"))
    if workers is not None and workers < 1:
        raise TraceError(f"{{workers}} {workers}: need at least 1", "workers")
    try:
        import logging

        from distributed import Client, LocalCluster
    except ImportError:
        flag = "workers" if workers is not None else "scheduler"
        raise TraceError(f"{{{flag}}} needs Dask, which is not installed: {DASK_HINT}", flag) from None
    if workers is not None:
        # processes, not threads: parsing and pandas work hold the GIL; ":0": any free port for the
        # scheduler's HTTP endpoint (a second cluster on this machine must not collide)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=logging.ERROR) as lc, Client(lc) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise TraceError(f"{{scheduler}} {scheduler}: cannot connect "
                         f"({str(e).splitlines()[0] if str(e) else type(e).__name__})", "scheduler") from None
    with client:
        yield client



def file_task(path: str, steps_regex: str | None, rules: classify.Rules | None, use_cache: bool, cache_dir: str | None,
              layers: int | None = None, sol_options: sol.Options | None = None, model: comm.Model | None = None,
              n_files: int = 1, progress: ProgressFn = noop, started: Started | None = None,
              shared: bool | None = None, process: Process | None = None) -> tuple[dict, list[RankResult]]:
    """Load one trace file (cached) and run the per-rank part on each rank in it: its meta and
    the per-rank results. n_files: rank files in the directory (the world size where the file
    does not give one, as the merged trace's meta would say). With use_cache, the results are
    kept beside the file's tables per set of options, and read back instead of loading and
    analyzing again (meta['results_cached'] says which). started: the file's reads already begun
    (nsys_tables.start), used when it is parsed; the caller closes it. shared: see store.Store; a
    cache directory the store refuses is not used (cache.read_file says why in the meta's warnings).
    process: one process of an Nsight Systems export, read and analyzed alone (its meta is that
    process's: `nsys.merge_process_metas`)."""
    entry = None
    damage: list[str] = []  # stored results that did not decode: rebuilt, and said
    st = Store.at(cache_dir, shared)
    if use_cache and st.refusal() is None:
        try:
            entry = cache.results_entry(path, _options_text(steps_regex, rules, layers, sol_options, model, n_files),
                                        cache_dir, process, lean=cache.ANALYSIS_LEAN)
        except OSError:  # the file went away: read_file says so in its words
            entry = None
        hit = cache.read_results(entry, st.shared, damage) if entry else None
        if hit is not None:
            meta, results = hit
            return dict(meta, path=path, cached=True, results_cached=True), results
    stores: list = []  # the file's tables are written to the cache beside the analysis
    t = cache.read_file(path, use_cache=use_cache, cache_dir=cache_dir, progress=progress, started=started,
                        deferred=stores, shared=shared, process=process, lean=cache.ANALYSIS_LEAN)
    heap.give_back()  # what parsing freed: about a third of the tables' size on a large export
    meta = dict(t.meta)
    if n_files > 1 and not t.meta.get("world_size"):
        t.meta["world_size"] = n_files
    with beside(lambda: [s() for s in stores], name="traceattrib-cache") as stored:
        results = [analyze_rank(sub, steps_regex, rules, layers=layers, sol_options=sol_options, model=model)
                   for sub, _ in split_ranks(t)]
        stored.result()  # (a bug in the store surfaces here; cache errors are caught inside it)
    del t
    stores.clear()  # the cache's copy of the tables, written by now
    heap.give_back()  # the tables let go: the next file or process does not stand on their pages
    if entry:
        cache.write_results(entry, {k: v for k, v in meta.items() if k not in ("cached", cache.WARNINGS)}, results,
                            st.shared)
        meta["results_cached"] = False
    if damage:  # said in this run, not stored with the results
        meta[cache.WARNINGS] = list(meta.get(cache.WARNINGS) or []) + damage
    return meta, results


def _options_text(steps_regex: str | None, rules: classify.Rules | None, layers: int | None,
                  sol_options: sol.Options | None, model: comm.Model | None, n_files: int) -> str:
    """Every option that changes file_task's results, as text (the results cache's key): the
    rules and --model's config by content."""
    if sol_options is not None:
        sol_options.model_spec()  # the config's content, not only its path
    return repr((steps_regex, rules.digest() if rules is not None else None, layers, sol_options, model, n_files))


def analyze_path(path: str, steps_regex: str | None = None, rules: classify.Rules | None = None,
                 what_if: dict[str, float] | None = None, layers: int | None = None,
                 sol_options: sol.Options | None = None, link=None, what_if_links: tuple = (),
                 model: comm.Model | None = None, use_cache: bool = True, cache_dir: str | None = None,
                 client: Any = None, progress: ProgressFn = noop, started: Started | None = None) -> Report:
    """The report of a trace file or a directory of rank files (options as analysis.analyze), one
    task per file, on `client`'s cluster when given; Report.kernels stays None. started: the
    file's reads already begun (nsys_tables.start; a file analyzed in this process only)."""
    cache.check_input(path)  # a FIFO, a symlink loop, ...: the same one line as every command
    rules = rules if rules is not None else classify.load_rules()
    if sol_options is not None:
        sol_options.model_spec()  # read --model's config here: workers may not see the file
    model = comm_model(model, sol_options)
    is_dir = os.path.isdir(path)
    files = rank_files(path) if is_dir else [path]
    # said explicitly: workers of a running cluster do not see this process's environment
    shared = Store.at(cache_dir).shared
    kwargs = dict(steps_regex=steps_regex, rules=rules, use_cache=use_cache, cache_dir=cache_dir,
                  layers=layers, sol_options=sol_options, model=model, n_files=len(files), shared=shared)
    if started is not None and client is None and not is_dir:
        kwargs["started"] = started
    opts = dict(steps_regex=steps_regex, what_if=what_if, layers=layers, sol_options=sol_options, link=link,
                what_if_links=what_if_links)
    split = None if is_dir else _processes(path, started, client)
    if split:
        # an export of several GPU processes too large to hold whole: one task per process
        if started is not None:
            started.close()
        kwargs.pop("started", None)
        outs = [(m, _unpack(p)) for m, p in _run_processes(path, split, kwargs, client, progress)]
        from .ingest.nsys import merge_process_metas

        meta = merge_process_metas([m for m, _ in outs])
        for flag in ("cached", "results_cached"):
            if any(flag in m for m, _ in outs):
                meta[flag] = all(m.get(flag) for m, _ in outs)
        return merge([r for _, rs in outs for r in rs], meta, **opts)
    outs = run_files(files, kwargs, client, progress)
    metas = [m for m, _ in outs]
    if not is_dir:
        return merge(outs[0][1], metas[0], **opts)
    results = [r for _, rs in outs for r in rs]
    if renumbered(metas):  # as ingest.merge_ranks: ranks numbered by file order
        results = [r.relabel(i) for i, (_, rs) in enumerate(outs) for r in rs]
    meta = merge_meta(metas, path, files)
    for flag in ("cached", "results_cached"):  # a directory is cached only when every rank file was
        if any(flag in m for m in metas):
            meta[flag] = all(m.get(flag) for m in metas)
    return merge(results, meta, **opts)


def _processes(path: str, started: Started | None, client: Any, above: int | None = None) -> list[Process] | None:
    """The GPU processes of an Nsight Systems export to analyze one at a time, or None (the file is
    read whole): on a cluster any export of several; here, one with more kernel rows than
    `above` (default nsys_tables.PIECE_KERNELS)."""
    if started is not None:
        return started.processes
    from .ingest import detect
    from .ingest.nsys_tables import PIECE_KERNELS, processes

    try:
        if detect(path) != "nsys":
            return None
    except (OSError, TraceError):
        return None  # the reader says what is wrong with it
    return processes(path, None if client is not None else (PIECE_KERNELS if above is None else above))


def _run_processes(path: str, tasks: list[Process], kwargs: dict, client: Any, progress: ProgressFn) -> list:
    """_process_task(path, p) for every process, in order, here or on the cluster."""
    if client is not None:
        return _on_cluster(client, _process_task, [(path, p) for p in tasks], kwargs, progress, star=True)
    return _in_order([dict(path=path, process=p) for p in tasks], kwargs, progress, "process", _process_task)


def _process_task(path: str, process: Process, **kwargs) -> tuple[dict, tuple[int, bytes]]:
    """file_task for one process of the file, its results packed (`_pack`): those of the processes
    done wait for the merge beside the next one's analysis."""
    meta, results = file_task(path, process=process, **kwargs)
    return meta, _pack(results)


def _pack(results: list[RankResult]) -> tuple[int, bytes]:
    """(size, bytes) of results_codec's encoding, zstd-compressed where pyarrow has zstd (a 6M-kernel
    process's results: 66 MiB as tables, 0.7 MiB packed, 0.1 s each way)."""
    import pyarrow as pa

    from . import results_codec

    blob = results_codec.encode({}, results)
    if not pa.Codec.is_available("zstd"):
        return -1, blob
    return len(blob), pa.compress(blob, codec="zstd", asbytes=True)


def _unpack(packed: tuple[int, bytes]) -> list[RankResult]:
    import pyarrow as pa

    from . import results_codec

    size, data = packed
    if size >= 0:
        data = pa.decompress(data, decompressed_size=size, codec="zstd", asbytes=True)
    return results_codec.decode(data)[1]


def run_files(files: list[str], kwargs: dict, client: Any = None, progress: ProgressFn = noop) -> list:
    """file_task(f, **kwargs) for every file, results in file order; progress after each file
    (and, in this process, while parsing)."""
    if client is None:
        return _in_order([dict(path=f) for f in files], kwargs, progress, "rank file")
    return _on_cluster(client, file_task, files, kwargs, progress)


def _in_order(tasks: list[dict], kwargs: dict, progress: ProgressFn, what_each: str, fn=None) -> list:
    """fn(**task, **kwargs) (file_task when None) for every task in this process, in order; progress
    as each advances ("<what_each> i/n" when there are several)."""
    fn = fn or file_task  # looked up at call time, not bound when the module loads
    n = len(tasks)
    out = []
    for i, task in enumerate(tasks):
        def part(fraction: float, what: str = "", i: int = i) -> None:
            progress((i + fraction) / n, f"{what_each} {i + 1}/{n} {what}" if n > 1 else what)
        out.append(fn(**task, progress=part, **kwargs))
        part(1.0, "done")  # also when it came from the cache (no parsing progress)
    return out


def _on_cluster(client: Any, fn, files: list, kwargs: dict, progress: ProgressFn, star: bool = False) -> list:
    """fn(file, **kwargs) (star: fn(*file, **kwargs)) on the cluster, results in input order."""
    from concurrent.futures import CancelledError

    from distributed import as_completed

    n = len(files)
    if kwargs.get("rules") is not None:
        # sent once per worker, not with every task: unpickling recompiles hundreds of regexes
        kwargs = dict(kwargs, rules=client.scatter(kwargs["rules"], broadcast=True, hash=False))
    futures = client.map(fn, *zip(*files), pure=False, **kwargs) if star else \
        client.map(fn, files, pure=False, **kwargs)
    where = {f.key: i for i, f in enumerate(futures)}
    out: list = [None] * n
    progress(0.0, f"0/{n} rank files")
    try:
        for done, fut in enumerate(as_completed(futures), 1):
            i = where[fut.key]
            try:
                out[i] = fut.result()
            except TraceError:
                raise
            except Exception as e:  # noqa: BLE001 - a worker lost (memory) or an error of ours, name the file
                f = files[i][0] if star else files[i]
                if type(e).__name__ == "KilledWorker":
                    raise TraceError(f"{f}: the Dask worker processing it died (out of memory?)") from None
                if isinstance(e, CancelledError):  # the workers that held its inputs (the rules) died
                    raise TraceError(f"{f}: the Dask worker processing it died, and the workers holding its "
                                     "inputs with it (out of memory?)") from None
                raise
            fut.release()  # the result lives on here only
            progress(done / n, f"{done}/{n} rank files")
    except BaseException:
        client.cancel(futures)
        raise
    return out


# --- export: tables of every rank file into one Parquet file per table, rows in time order ---

EXPORT_BATCH_ROWS = 8192  # rows read per rank file at a time while merging


def export_task(path: str, part_dir: str, use_cache: bool, cache_dir: str | None, shared: bool | None = None) -> dict:
    """Load one trace file (cached) and write its tables, rows in (start_ns, end_ns) order, to
    part_dir; its meta comes back."""
    from .analysis import sort_rows

    t = cache.read_file(path, use_cache=use_cache, cache_dir=cache_dir, require_gpu=False, shared=shared)
    cache.write_tables(sort_rows(t)[0], part_dir)
    return t.meta


def export_path(path: str, outdir: str, use_cache: bool = True, cache_dir: str | None = None, client: Any = None,
                progress: ProgressFn = noop) -> dict[str, int]:
    """`export` with one task per rank file: each writes its tables to a part directory under
    outdir, then every table is merged into outdir/<table>.parquet streaming (a few thousand rows
    per rank file in memory at a time), rows in (start_ns, end_ns) order, ties in file order, as
    `cache.load` merges. Returns the row count per table."""
    import json
    import shutil
    import tempfile

    from .model import TABLES

    if not os.path.exists(path):
        raise TraceError(f"{path}: no such file or directory")
    is_dir = os.path.isdir(path)
    files = rank_files(path) if is_dir else [path]
    os.makedirs(outdir, exist_ok=True)
    parts_root = tempfile.mkdtemp(prefix=".parts-", dir=outdir)
    try:
        parts = [os.path.join(parts_root, str(i)) for i in range(len(files))]
        metas = _run_pairs(export_task, files, parts,
                           dict(use_cache=use_cache, cache_dir=cache_dir, shared=Store.at(cache_dir).shared),
                           client, progress)
        meta = merge_meta(metas, path, files) if is_dir else metas[0]
        ranks = list(range(len(files))) if is_dir and renumbered(metas) else None
        counts = {name: merge_parquet([os.path.join(p, f"{name}.parquet") for p in parts],
                                      os.path.join(outdir, f"{name}.parquet"), ranks)
                  for name in TABLES}
        meta.pop("cached", None)
        with open(os.path.join(outdir, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
    finally:
        shutil.rmtree(parts_root, ignore_errors=True)
    return counts


def _run_pairs(fn, files: list[str], parts: list[str], kwargs: dict, client: Any, progress: ProgressFn) -> list:
    if client is None:
        out = []
        for i, (f, p) in enumerate(zip(files, parts)):
            out.append(fn(f, p, **kwargs))
            progress((i + 1) / len(files), f"{i + 1}/{len(files)} rank files")
        return out
    return _on_cluster(client, fn, list(zip(files, parts)), kwargs, progress, star=True)


def merge_parquet(parts: list[str], out: str, ranks: list[int] | None = None) -> int:
    """Merge Parquet files whose rows are each in (start_ns, end_ns) order into one file in that
    order (stable: ties keep part order), reading EXPORT_BATCH_ROWS rows per part at a time.
    ranks: when given, part i's `rank` column is rewritten to ranks[i]. Returns the row count."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = [pq.ParquetFile(p) for p in parts]
    schema = _unified_schema([f.schema_arrow for f in files])
    its = [f.iter_batches(batch_size=EXPORT_BATCH_ROWS) for f in files]
    k = len(files)
    bufs: list = [schema.empty_table() for _ in range(k)]
    open_ = [True] * k

    def pull(i: int) -> None:
        try:
            b = pa.Table.from_batches([next(its[i])])
        except StopIteration:
            open_[i] = False
            return
        b = b.cast(schema)
        if ranks is not None:
            j = schema.get_field_index("rank")
            b = b.set_column(j, schema.field(j), pa.array(np.full(b.num_rows, ranks[i]), schema.field(j).type))
        bufs[i] = pa.concat_tables([bufs[i], b]) if bufs[i].num_rows else b

    def key(t, j: int) -> tuple[int, int]:
        return int(t.column("start_ns")[j].as_py()), int(t.column("end_ns")[j].as_py())

    total = 0
    with pq.ParquetWriter(out, schema) as w:
        while True:
            for i in range(k):
                while open_[i] and not bufs[i].num_rows:
                    pull(i)
            live = [i for i in range(k) if open_[i]]
            if not live and not any(b.num_rows for b in bufs):
                break
            # every row not yet read sorts at or after the last row read from its file: rows before
            # the smallest such last row can be written now
            bound = min((key(bufs[i], bufs[i].num_rows - 1), i) for i in live) if live else None
            taken = []
            for i in range(k):
                t = bufs[i]
                if not t.num_rows:
                    continue
                cut = t.num_rows if bound is None else _cut(t, bound[0])
                if cut:
                    taken.append(t.slice(0, cut))
                    bufs[i] = t.slice(cut)
            if not taken:
                pull(bound[1])  # all of it ties with the bound: read on in that file
                continue
            chunk = pa.concat_tables(taken).combine_chunks().unify_dictionaries()
            order = np.lexsort((chunk.column("end_ns").to_numpy(), chunk.column("start_ns").to_numpy()))
            w.write_table(chunk.take(order))
            total += chunk.num_rows
        if not total:
            w.write_table(schema.empty_table())
    return total


def _cut(t, bound: tuple[int, int]) -> int:
    """Rows of t (sorted by start_ns, end_ns) whose (start_ns, end_ns) sorts before bound."""
    import numpy as np

    s = t.column("start_ns").to_numpy()
    a, b = np.searchsorted(s, bound[0], "left"), np.searchsorted(s, bound[0], "right")
    return int(a + np.searchsorted(t.column("end_ns").to_numpy()[a:b], bound[1], "left"))


def _unified_schema(schemas: list):
    """One schema for parts of the same table: dictionary (categorical) columns as int32-indexed
    string dictionaries (pandas picks the index width per file); the first part's metadata."""
    import pyarrow as pa

    first = schemas[0]
    fields = []
    for f in first:
        if pa.types.is_dictionary(f.type):
            f = f.with_type(pa.dictionary(pa.int32(), pa.string()))
        fields.append(f)
    return pa.schema(fields, metadata=first.metadata)
