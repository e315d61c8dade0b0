"""Command line: `traceattrib report|info|classify|explain|export|diff|plot|cache|mcp`.

Exit status: 0 done; 1 the `diff --fail-if-slower` gate tripped; 2 bad input or usage (one line
on stderr, never a traceback); 3 a bug of ours (one line saying so; TRACEATTRIB_DEBUG=1 adds the
traceback). Names from the trace reach the terminal only through `render.safe.clean`.
"""
from __future__ import annotations

import math
import os
import re
import stat
import sys
import traceback

import click

from . import __version__
from .errors import TraceError, warnings_of

FORMATS_REPORT = ("text", "md", "json", "csv", "html")
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
MCP_HINT = "pip install 'traceattrib[mcp]'"
EXIT_OK, EXIT_GATE, EXIT_INPUT, EXIT_BUG = 0, 1, 2, 3
# library parameters -> the options that set them, for errors about a parameter (errors.TraceError)
OPTIONS = {"steps_regex": "--steps", "model": "--model", "link": "--link", "workers": "--workers",
           "scheduler": "--scheduler", "step": "--step"}


def _load(path: str, no_cache: bool, cache_dir: str | None, require_gpu: bool = True, for_analysis: bool = False):
    """The trace at `path` through the cache; for_analysis: read as the analyses read it
    (cache.ANALYSIS_LEAN: without the columns only `export` writes), sharing their cache entry."""
    from .cache import ANALYSIS_LEAN, load
    from .progress import Progress
    from .render.safe import clean

    # a bar on stderr only when it is a terminal; pipes and files get nothing
    with Progress(f"loading {clean(os.path.basename(path.rstrip('/')) or path)}") as bar:
        trace = load(path, use_cache=not no_cache, cache_dir=cache_dir, require_gpu=require_gpu, progress=bar,
                     lean=for_analysis and ANALYSIS_LEAN)
    _warn(trace.meta)
    return trace


def _warn(meta: dict) -> None:
    """Keep the reader's warnings (rows dropped, values repaired), cached or not, for `main` to print
    when the command succeeds: a failing command prints its one error line only."""
    ctx = click.get_current_context(silent=True)
    pending = ctx.find_root().obj if ctx is not None else None
    said = warnings_of(meta)
    if isinstance(pending, list):
        pending.extend(said)
    else:  # called outside `main` (tests invoking the click group directly)
        _print_warnings(said)


def _print_warnings(warnings: list[str]) -> None:
    from .render.safe import clean

    for w in dict.fromkeys(warnings):  # once each, in order
        click.echo(f"traceattrib: warning: {clean(w)}", err=True)


def _rules(path: str | None):
    from .classify import load_rules

    return load_rules(path)


# --- option values: checked by click, reported in one style -------------------------------------

def _what_if(ctx, param, values: tuple[str, ...]) -> dict[str, float]:
    if not values:
        return {}
    from .attribute import ALL_BUCKETS

    out = {}
    for v in values:
        bucket, sep, factor = v.partition("=")
        try:
            k = float(factor)
        except ValueError:
            k = math.nan
        if not sep or bucket not in ALL_BUCKETS or not (0 < k < math.inf):
            raise click.BadParameter(f"{v!r}: expected BUCKET=FACTOR with BUCKET one of {', '.join(ALL_BUCKETS)} "
                                     "and FACTOR a number > 0 (e.g. communication=2)", ctx, param)
        out[bucket] = k
    return out


class Rate(click.ParamType):
    """A rate per second: 4.8e12, 4.8T, '4.8 TB/s', '989 TFLOPS' (speed-of-light peaks)."""

    name = "RATE"

    def convert(self, value, param, ctx):
        from .sol import parse_rate

        try:
            return parse_rate(value)
        except ValueError as e:
            self.fail(str(e), param, ctx)


def _link(ctx, param, value: str | None):
    """--link NAME|GBPS as a links.Link (None when not given)."""
    if value is None:
        return None
    from . import links

    try:
        return links.parse(value)
    except TraceError as e:
        raise click.BadParameter(e.text(OPTIONS), ctx, param) from None


def _links(ctx, param, values: tuple[str, ...]):
    """--what-if-link NAME (repeatable) as a tuple of links.Link."""
    if not values:
        return ()
    from . import links

    try:
        return tuple(links.get(v) for v in values)
    except TraceError as e:
        raise click.BadParameter(e.text(OPTIONS), ctx, param) from None


def _regex(ctx, param, value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as e:
            raise click.BadParameter(f"{value!r} is not a valid regular expression ({e})", ctx, param) from None
    return value


def _plot_file(ctx, param, value: str) -> str:
    if not value.lower().endswith(PLOT_SUFFIXES):
        raise click.BadParameter(f"{value!r}: the extension picks the image format; use "
                                 f"{', '.join(PLOT_SUFFIXES)}", ctx, param)
    return value


def _rules_file(ctx, param, value: str | None) -> str | None:
    """A rules file must be a regular file (a FIFO would block the read)."""
    if value is None:
        return None
    try:
        st = os.stat(value)
    except OSError as e:
        raise click.BadParameter(f"{value!r}: {e.strerror or e}", ctx, param) from None
    if not stat.S_ISREG(st.st_mode):
        raise click.BadParameter(f"{value!r}: not a regular file", ctx, param)
    return value


ECHO_CHARS = 1 << 24


def _emit(text: str, output: str | None) -> None:
    if output:
        try:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise TraceError(f"{output}: cannot write ({e.strerror or e})") from None
    else:
        # in slices: a report of hundreds of MB is not encoded into a second copy at once
        for i in range(0, len(text), ECHO_CHARS):
            click.echo(text[i:i + ECHO_CHARS], nl=False)


def _safe_text(text: str) -> str:
    """Last guard of the terminal: control characters other than line breaks escaped."""
    from .render.safe import clean

    return clean(text, keep_newlines=True)


cache_options = [
    click.option("--no-cache", is_flag=True, help="Parse the trace again; do not read or write the Parquet cache."),
    click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
                 help="Cache location (default: $TRACEATTRIB_CACHE_DIR or the user cache directory)."),
    click.option("--shared-cache", is_flag=True,
                 help="Use a cache directory that other users can write (a team cache; the same as "
                      "TRACEATTRIB_CACHE_SHARED=1). Without it such a directory is not used."),
]


def with_cache(f):
    """The cache options, and the check that the cache may be used: a directory that another user
    owns or others can write is not (one warning; the command runs as with --no-cache) unless
    --shared-cache says it is shared on purpose."""
    import functools

    @functools.wraps(f)
    def checked(*args, no_cache: bool, cache_dir: str | None, shared_cache: bool, **kwargs):
        from .store import SHARED_ENV, Store

        st = Store.at(cache_dir, True if shared_cache else None)
        if not no_cache:
            why = st.refusal()
            if why:
                _warn({"cache_warnings": [why]})
                no_cache = True
        old = os.environ.get(SHARED_ENV)
        if shared_cache:  # for every reader of this process and the workers it starts
            os.environ[SHARED_ENV] = "1"
        try:
            return f(*args, no_cache=no_cache, cache_dir=cache_dir, **kwargs)
        finally:
            if shared_cache:
                if old is None:
                    os.environ.pop(SHARED_ENV, None)
                else:
                    os.environ[SHARED_ENV] = old

    for opt in reversed(cache_options):
        checked = opt(checked)
    return checked


# --- many ranks: per-rank work in parallel on a Dask cluster (traceattrib.parallel) ---
cluster_options = [
    click.option("--workers", type=int, default=None, metavar="N",
                 help="Analyze rank files in parallel on a local Dask cluster of N worker processes "
                      "(pip install 'traceattrib[dask]')."),
    click.option("--scheduler", default=None, metavar="ADDRESS",
                 help="Use a running Dask scheduler (e.g. tcp://host:8786); its workers must see the "
                      "trace files at the same paths (shared filesystem)."),
]


def with_cluster(f):
    for opt in reversed(cluster_options):
        f = opt(f)
    return f


def _analyze(paths, no_cache, cache_dir, workers, scheduler, **options):
    """Reports of trace files or rank-file directories, one per path (options: analyze()'s):
    per-rank work in this process or on the cluster, a progress bar per rank file on a terminal."""
    from .parallel import analyze_path, cluster
    from .progress import Progress
    from .render.safe import clean

    reps = []
    with cluster(workers, scheduler) as client:
        for path in paths:
            name = clean(os.path.basename(path.rstrip('/')) or path)
            with Progress(f"{'analyzing' if client is not None else 'loading'} {name}") as bar:
                reps.append(analyze_path(path, use_cache=not no_cache, cache_dir=cache_dir, client=client,
                                         progress=bar, **options))
    for rep in reps:
        _warn(rep.meta)
    return reps


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="traceattrib")
def cli() -> None:
    """Where each step of an LLM-inference GPU trace goes, and how much a fix could win at most.

    FILE is an Nsight Systems SQLite export (`nsys export --type sqlite`), a torch.profiler trace
    (.json / .json.gz), or a directory of per-rank torch.profiler traces.
    """


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--steps", "steps_regex", metavar="REGEX", callback=_regex,
              help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="TOML file of extra classification rules, tried before the defaults.")
@click.option("--what-if", "what_if", multiple=True, metavar="BUCKET=K", callback=_what_if,
              help="Bound if BUCKET were K times faster (repeatable), e.g. communication=2.")
@click.option("--layers", type=click.IntRange(min=1),
              help="Model layers: expected all-reduce count is 2 per layer (tensor parallel).")
@click.option("--link", "link", metavar="NAME|GBPS", callback=_link,
              help="Interconnect to compare bandwidths with: a name from rules/links.toml (nvlink4, pcie5, "
                   "xgmi-mi300x, ...) or a peak in GB/s per direction (default: from the GPU name).")
@click.option("--what-if-link", "what_if_links", multiple=True, metavar="NAME", callback=_links,
              help="Project every step on another interconnect (repeatable), e.g. pcie4.")
@click.option("--per-step", is_flag=True, help="Add the per-step table.")
@click.option("--model", "model", type=click.Path(exists=True), metavar="PATH",
              help="Hugging Face config.json (or a directory holding one) for the speed-of-light floor where the "
                   "trace has no op shapes (Nsight Systems, CUDA graphs).")
@click.option("--batch", type=click.IntRange(min=1), help="With --model: sequences per step.")
@click.option("--context", type=click.IntRange(min=0),
              help="With --model: tokens per sequence at the first step (a prefill's prompt length).")
@click.option("--peak-bw", type=Rate(), help="GPU memory bandwidth, bytes/s (e.g. 4.8T); default from the GPU name.")
@click.option("--peak-flops", type=Rate(),
              help="GPU peak FLOP/s for the GEMMs' dtype (e.g. 989T); default from the GPU name.")
@click.option("--format", "fmt", type=click.Choice(FORMATS_REPORT), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
@with_cache
@with_cluster
def report(file, steps_regex, rules, what_if, layers, link, what_if_links, per_step, model, batch, context, peak_bw,
           peak_flops, fmt, output, no_cache, cache_dir, workers, scheduler):
    """Per-step breakdown by bucket, exposed communication, idle, speedup bounds and the speed-of-light floor."""
    from . import cache
    from .store import shared_from_env

    # the same report again (same input, options, format): its text from the cache, no analysis
    entry = None
    if not no_cache and workers is None and not scheduler:
        entry = _output_entry(file, cache_dir, steps_regex=steps_regex, rules=rules, what_if=what_if, layers=layers,
                              link=link, what_if_links=what_if_links, per_step=per_step, model=model, batch=batch,
                              context=context, peak_bw=peak_bw, peak_flops=peak_flops, fmt=fmt)
        damage: list[str] = []
        hit = cache.read_output(entry, shared_from_env(), damage) if entry else None
        _warn({"cache_warnings": damage})
        if hit is not None:
            _warn({"warnings": hit[1]})
            _emit(hit[0], output)
            return
    started = _start_reads(file, no_cache, cache_dir, workers, scheduler)
    try:
        from .sol import Options

        rl = _rules(rules)
        so = Options(model=model, batch=batch, context=context, peak_bw=peak_bw, peak_flops=peak_flops)
        so.model_spec()  # a bad config fails before the trace is loaded
        rep, = _analyze([file], no_cache, cache_dir, workers, scheduler, steps_regex=steps_regex, rules=rl,
                        what_if=what_if, layers=layers, sol_options=so, link=link, what_if_links=what_if_links,
                        started=started)
    finally:
        if started is not None:
            started.close()
    text = render_report(rep, fmt, per_step)
    warnings = rep.meta.get("warnings") or []
    del rep  # its tables are not held beside the text while it is written
    if entry:
        cache.write_output(entry, text, warnings, shared_from_env())
    _emit(text, output)


def _start_reads(path: str, no_cache: bool, cache_dir: str | None, workers, scheduler):
    """An Nsight Systems export's table reads, begun before the analysis modules are imported
    (pandas and the rest: about 0.7 s that then overlaps ADBC's reading); None for any other
    input, a cluster run, or an export whose tables are cached."""
    if workers is not None or scheduler:
        return None
    from . import cache
    from .ingest import detect

    try:
        cache.check_input(path)  # never opens a FIFO or a device
        if os.path.isdir(path) or (not no_cache and cache.has_tables(path, cache_dir, lean=cache.ANALYSIS_LEAN)) or \
                detect(path) != "nsys":
            return None
        from .ingest.nsys_tables import PIECE_KERNELS, start

        return start(path, split_above=PIECE_KERNELS, lean=cache.ANALYSIS_LEAN)  # as parallel.file_task reads
    except Exception:  # noqa: BLE001 - only a head start: the reader meets the same problem and reports it
        return None


def _output_entry(path: str, cache_dir: str | None, **options) -> str | None:
    """Where the text of `report PATH` with these options is kept: keyed on the input's identity
    (cache.input_stamp), every option, and the rules file and --model config by content; None
    when the input or those files cannot be examined (the report then says why)."""
    from . import cache

    files = {}
    if options["rules"]:
        files["rules"] = cache.content_stamp(options["rules"])
    if options["model"]:  # as sol.load_model reads it: config.json, or a directory holding one
        cfg = os.path.join(options["model"], "config.json") if os.path.isdir(options["model"]) else options["model"]
        files["model"] = cache.content_stamp(cfg)
        files["quant"] = cache.content_stamp(os.path.join(os.path.dirname(cfg), "hf_quant_config.json"))
    try:
        stamp = cache.input_stamp(path)
    except OSError:
        return None
    if None in files.values():
        return None
    return cache.output_entry(repr(("report", path, stamp, sorted(options.items()), sorted(files.items()))),
                              cache_dir)


def render_report(rep, fmt: str, per_step: bool = False) -> str:
    """The report in `fmt`; text and Markdown see only cleaned names (JSON and CSV escape their own)."""
    if fmt == "json":
        from .render.jsonout import render
        return render(rep)
    if fmt == "csv":
        from .render.jsonout import render_csv
        return render_csv(rep)
    if fmt == "html":  # names stay as they are: the page shows them as text (render/html.py)
        from .render.html import render
        return render(rep)
    from .render.safe import clean_report
    rep = clean_report(rep)
    if fmt == "md":
        from .render.markdown import render
        return _safe_text(render(rep, per_step=per_step))
    from .render.text import render
    return _safe_text(render(rep, per_step=per_step))


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@with_cache
def info(file, fmt, no_cache, cache_dir):
    """What the trace holds: format, versions, devices, table sizes, time span, annotations."""
    from .render.info import render_info
    from .render.safe import clean_trace

    trace = _load(file, no_cache, cache_dir, require_gpu=False, for_analysis=True)
    click.echo(render_info(trace, "json") if fmt == "json" else _safe_text(render_info(clean_trace(trace), fmt)),
               nl=False)


@cli.command("classify")
@click.argument("file", type=click.Path())
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="TOML file of extra rules, tried before the defaults.")
@click.option("--top", type=click.IntRange(min=0), default=40, show_default=True, help="Kernels to list (0 = all).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@with_cache
def classify_cmd(file, rules, top, fmt, no_cache, cache_dir):
    """Kernels by total time with their bucket, share and the rule that matched."""
    from .render.classify import render_classify
    from .render.safe import clean_trace

    rl = _rules(rules)
    trace = _load(file, no_cache, cache_dir, for_analysis=True)
    click.echo(render_classify(trace, rl, top, "json") if fmt == "json" else
               _safe_text(render_classify(clean_trace(trace), rl, top, fmt)), nl=False)


@cli.command()
@click.argument("names", nargs=-1, required=True)
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="TOML file of extra rules, tried before the defaults.")
@click.option("--op", default="",
              help="Launching CPU op chain to consider (torch traces), e.g. 'aten::to > aten::_to_copy > aten::copy_'.")
@click.option("--input-types", default="", help="Input dtypes of the launching op, comma-joined.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def explain(names, rules, op, input_types, fmt):
    """Which bucket and rule each kernel NAME gets (`-` reads names from stdin, one per line)."""
    from .render.classify import render_explain

    if names == ("-",):
        names = tuple(line.rstrip("\n") for line in sys.stdin if line.strip())
    rl = _rules(rules)
    text = render_explain(list(names), rl, op, input_types, fmt)
    click.echo(text if fmt == "json" else _safe_text(text), nl=False)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False),
              help="Directory for <table>.parquet files and meta.json.")
@click.option("--perfetto", "perfetto", type=click.Path(dir_okay=False), metavar="OUT.json.gz",
              help="Write a Chrome trace-event file (Perfetto, chrome://tracing, Speedscope): the GPU ops on their "
                   "streams with their buckets, and tracks of the steps, idle gaps and collectives "
                   "(gzip when the name ends in .gz).")
@click.option("--steps", "steps_regex", metavar="REGEX", callback=_regex,
              help="With --perfetto: regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="With --perfetto: TOML file of extra classification rules.")
@with_cache
@with_cluster
def export(file, outdir, perfetto, steps_regex, rules, no_cache, cache_dir, workers, scheduler):
    """Write the normalized tables as Parquet for your own notebooks (-o DIR), or the trace with
    traceattrib's steps, buckets, idle causes and collectives as a trace-event file (--perfetto FILE)."""
    from .render.safe import clean

    if not outdir and not perfetto:
        raise click.UsageError("give -o DIR (Parquet tables) or --perfetto FILE (trace-event file), or both")
    if perfetto:
        if workers is not None or scheduler:
            raise click.UsageError("--perfetto runs in this process: leave out --workers and --scheduler")
        _export_perfetto(file, perfetto, steps_regex, rules, no_cache, cache_dir)
        if not outdir:
            return
    try:
        if workers is not None or scheduler:
            from .parallel import cluster, export_path
            from .progress import Progress

            with cluster(workers, scheduler) as client, \
                    Progress(f"exporting {clean(os.path.basename(file.rstrip('/')))}") as bar:
                counts = export_path(file, outdir, use_cache=not no_cache, cache_dir=cache_dir, client=client,
                                     progress=bar)
        else:
            from .cache import write_tables

            trace = _load(file, no_cache, cache_dir, require_gpu=False)
            write_tables(trace, outdir)
            counts = {n: len(t) for n, t in trace.tables().items()}
    except OSError as e:
        raise TraceError(f"{outdir}: cannot write ({e.strerror or e})") from None
    click.echo(f"wrote {', '.join(f'{n}.parquet ({c} rows)' for n, c in counts.items())} "
               f"and meta.json to {clean(outdir)}")


def _export_perfetto(file: str, out: str, steps_regex: str | None, rules: str | None, no_cache: bool,
                     cache_dir: str | None) -> None:
    """`export --perfetto`: the whole analysis here (it keeps every op), then the trace-event file."""
    from .analysis import analyze
    from .render import perfetto
    from .render.safe import clean

    rep = analyze(_load(file, no_cache, cache_dir), steps_regex=steps_regex, rules=_rules(rules))
    try:
        counts = perfetto.write(rep, out)
    except OSError as e:
        raise TraceError(f"{out}: cannot write ({e.strerror or e})") from None
    said = ", ".join(f"{n:,} {k}" for k, n in counts.events.items() if k != "metadata")
    click.echo(f"wrote {clean(out)}: {said}" + (f"; {counts.overlapping:,} slices still overlap in their track's "
                                                  "last lane" if counts.overlapping else ""))


@cli.command("cache")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Cache location (default: $TRACEATTRIB_CACHE_DIR or the user cache directory).")
@click.option("--clear", is_flag=True, help="Remove every entry.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def cache_cmd(cache_dir, clear, fmt):
    """Where the cache is, what it holds and its size budget ($TRACEATTRIB_CACHE_MAX_MB)."""
    import json

    from . import cache
    from .render.safe import clean

    root = cache_dir or cache.default_dir()
    freed = cache.clear(root) if clear else 0
    info = cache.usage(root, freed)
    if fmt == "json":
        click.echo(json.dumps(info, indent=1))
        return
    if clear:
        click.echo(f"removed {freed / 2**20:.1f} MiB")
    click.echo(f"{clean(root)}: {info['trace_files']} table entries, {info['reports']} stored reports, "
               f"{info['bytes'] / 2**20:.1f} MiB of a {info['max_bytes'] / 2**20:.0f} MiB budget "
               "(least recently used entries go first)")


def _gate_limits(ctx, param, values: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """--fail-if-slower PCT | PART=PCT (repeatable) as (part, percent) pairs; PCT alone: the median."""
    if not values:
        return ()
    from .attribute import ALL_BUCKETS
    from .diff import GATE_PARTS

    parts = GATE_PARTS + ALL_BUCKETS + ("idle",)
    out = []
    for v in values:
        part, sep, number = v.rpartition("=")
        try:
            pct = float(number)
        except ValueError:
            pct = math.nan
        part = part if sep else "median"
        if part not in parts or not (0 <= pct < math.inf):
            raise click.BadParameter(f"{v!r}: expected PCT or PART=PCT, PCT a number >= 0 and PART one of "
                                     f"{', '.join(parts)} (e.g. 5 or communication=5)", ctx, param)
        out.append((part, pct))
    return tuple(out)


RUN_OPTIONS = ("--before", "--after")


class RunsCommand(click.Command):
    """A command whose --before / --after take one or more values: `--before A B --after C D` is
    read as `--before A --before B --after C --after D` (values up to the next option)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, spread_runs(list(args)))


def spread_runs(args: list[str]) -> list[str]:
    """`--before A B` -> `--before A --before B`, up to the next argument that starts with '-'
    (or `--`, after which nothing is rewritten); an option without a value is left for click."""
    out: list[str] = []
    opt, took = None, 0
    for i, a in enumerate(args):
        if a == "--":
            out += ([opt] if opt and not took else []) + args[i:]
            return out
        if a in RUN_OPTIONS:
            if opt and not took:
                out.append(opt)
            opt, took = a, 0
        elif opt and not a.startswith("-"):
            out += [opt, a]
            took += 1
        else:
            if opt and not took:
                out.append(opt)
            opt = None
            out.append(a)
    if opt and not took:
        out.append(opt)
    return out


@cli.command(cls=RunsCommand)
@click.argument("paths", nargs=-1, type=click.Path(), metavar="[BEFORE AFTER]")
@click.option("--before", "before_paths", multiple=True, metavar="PATH...",
              help="Runs before the change (one or more: trace files, run directories of per-rank files, or "
                   "directories of runs); with --after, instead of BEFORE AFTER.")
@click.option("--after", "after_paths", multiple=True, metavar="PATH...", help="Runs after the change.")
@click.option("--steps", "steps_regex", metavar="REGEX", callback=_regex,
              help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="TOML file of extra classification rules.")
@click.option("--format", "fmt", type=click.Choice(("text", "md", "json", "html")), default="text", show_default=True,
              help="html: one self-contained page (every script, style and datum inline; best with -o).")
@click.option("--fail-if-slower", "fail_if_slower", multiple=True, metavar="[PART=]PCT", callback=_gate_limits,
              help="Exit with status 1 when a step kind got slower by more than PCT percent with 95% confidence "
                   "(the whole interval above PCT): PCT alone gates the median step, p90=PCT the p90, "
                   "BUCKET=PCT (or idle=PCT) that bucket's exposed time per step. Repeatable.")
@click.option("--allow-mismatch", is_flag=True,
              help="Compare even when the captures differ in a way that makes the comparison meaningless "
                   "(another GPU, GPU count, rank count or model depth).")
@click.option("--allow-untrusted", is_flag=True,
              help="Let --fail-if-slower decide even when a run's trace failed an integrity check (records lost, "
                   "impossible durations, unalignable clocks: the report's trust line); without it the gate "
                   "exits with status 2 on such traces.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
@with_cache
@with_cluster
def diff(paths, before_paths, after_paths, steps_regex, rules, fmt, fail_if_slower, allow_mismatch, allow_untrusted,
         output, no_cache, cache_dir, workers, scheduler):
    """Compare traces before and after a change: each step kind's median and p90 step span and each
    bucket's exposed time, with 95% bootstrap intervals, checked for comparable captures.

    BEFORE and AFTER are trace files, directories of one run's per-rank files, or directories of
    runs (`--before A B --after C D` names runs one by one); steps are pooled over a side's runs."""
    from .diff import diff as compare
    from .diff.runs import runs_of
    from .render import diff as r

    ctx = click.get_current_context()
    if before_paths or after_paths:
        if paths or not before_paths or not after_paths:
            raise click.UsageError("give BEFORE AFTER, or --before PATH... and --after PATH...", ctx)
    elif len(paths) != 2:
        raise click.UsageError(f"expected BEFORE and AFTER, got {len(paths)} path(s) (or --before PATH... "
                               "--after PATH...)", ctx)
    else:
        before_paths, after_paths = paths[:1], paths[1:]
    runs_b = [run for p in before_paths for run in runs_of(p)]
    runs_a = [run for p in after_paths for run in runs_of(p)]
    rl = _rules(rules)
    reps = _analyze(runs_b + runs_a, no_cache, cache_dir, workers, scheduler, steps_regex=steps_regex, rules=rl)
    res = compare(reps[:len(runs_b)], reps[len(runs_b):], fail_if_slower=fail_if_slower,
                  allow_mismatch=allow_mismatch, allow_untrusted=allow_untrusted)
    if res.refused:
        from .render.safe import clean
        raise TraceError(clean(r.refusal(res)))
    from .diff import gate_refused
    if gate_refused(res):
        from .render.safe import clean
        raise TraceError(clean(r.untrusted_line(res)))
    if fmt == "json":
        _emit(r.render_json(res), output)
    elif fmt == "html":  # names stay as they are: the page sets them as text (render/html_diff.py)
        from .render.html_diff import render as render_html
        _emit(render_html(res), output)
    else:
        from .render.safe import clean_obj
        _emit(_safe_text({"text": r.render_text, "md": r.render_md}[fmt](clean_obj(res))), output)
    if res.gate is not None and res.gate.tripped:
        from .render.safe import clean
        click.echo(f"traceattrib: {clean(r.trip_line(res.gate))}", err=True)
        raise click.exceptions.Exit(EXIT_GATE)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), callback=_plot_file,
              help="Image file; the extension picks the format (.png, .svg, .pdf).")
@click.option("--step", type=click.IntRange(min=0), default=None,
              help="Draw the timeline of this step (one row per stream).")
@click.option("--rank", type=click.IntRange(min=0), default=None, help="Rank of --step (default: the first).")
@click.option("--layers", "layers_of", is_flag=True,
              help="Draw a layer x bucket heatmap of a step kind (see --kind).")
@click.option("--kind", default=None, metavar="KIND",
              help="Step kind of --layers: decode, prefill, mixed or unknown (default: the headline kind, "
                   "decode when there is any).")
@click.option("--steps", "steps_regex", metavar="REGEX", callback=_regex,
              help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(dir_okay=False), callback=_rules_file,
              help="TOML file of extra classification rules.")
@with_cache
def plot(file, output, step, rank, layers_of, kind, steps_regex, rules, no_cache, cache_dir):
    """Stacked bars of every step by bucket, with --step N that step's timeline, or with --layers a
    layer x bucket heatmap."""
    from .analysis import analyze
    from .render.safe import clean

    p = _plot_module()
    rl = _rules(rules)
    rep = analyze(_load(file, no_cache, cache_dir, for_analysis=True), steps_regex=steps_regex, rules=rl)
    if step is not None:
        st = rep.steps
        ranks = sorted(int(r) for r in st["rank"].unique())
        if rank is not None and rank not in ranks:
            raise click.BadParameter(f"no rank {rank} in this trace (ranks: {', '.join(map(str, ranks))})",
                                     param_hint="'--rank'")
        r = ranks[0] if rank is None else rank
        idx = st.loc[st["rank"] == r, "index"]
        if step not in set(idx.tolist()):
            raise click.BadParameter(f"no step {step} on rank {r} (steps are {int(idx.min())}..{int(idx.max())})"
                                     if len(idx) else f"rank {r} has no steps", param_hint="'--step'")
        fig = p.timeline_figure(rep, step, r)
    elif layers_of:
        from .report import KINDS

        if kind is not None and kind not in KINDS:
            raise click.BadParameter(f"{kind!r} is not a step kind ({', '.join(KINDS)})", param_hint="'--kind'")
        k = kind or rep.summary.kind
        ks = rep.summary.by_kind.get(k)
        if ks is None or ks.inside is None:
            found = ", ".join(x for x, v in rep.summary.by_kind.items() if v.inside is not None) or "none"
            raise click.BadParameter(f"no layers found in the {k} steps (kinds with layers: {found})",
                                     param_hint="'--layers'")
        fig = p.layers_figure(rep, k)
    else:
        fig = p.steps_figure(rep)
    try:
        p.save(fig, output)
    except OSError as e:
        raise TraceError(f"{output}: cannot write ({e.strerror or e})") from None
    click.echo(f"wrote {clean(output)}")


@cli.command("mcp")
@click.option("--no-cache", is_flag=True, help="Parse every trace again; do not read or write the Parquet cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Cache location (default: $TRACEATTRIB_CACHE_DIR or the user cache directory).")
@click.option("--shared-cache", is_flag=True,
              help="Use a cache directory that other users can write (the same as TRACEATTRIB_CACHE_SHARED=1).")
def mcp_cmd(no_cache, cache_dir, shared_cache):
    """Serve the analyses to coding agents: a Model Context Protocol server on stdin/stdout (tools report,
    steps, top_kernels, explain, diff, findings); needs the `mcp` extra."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise TraceError(f"`traceattrib mcp` needs the MCP SDK: {MCP_HINT}") from None
    from .mcp_server import serve
    from .store import SHARED_ENV

    if shared_cache:  # this process is the server: for every read it makes
        os.environ[SHARED_ENV] = "1"
    serve(use_cache=not no_cache, cache_dir=cache_dir)


def _plot_module():
    """render.plot, or a one-line error when matplotlib (the `plot` extra) is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise TraceError("`traceattrib plot` needs matplotlib: pip install 'traceattrib[plot]'") from None
    from .render import plot
    return plot


def _usage_line(e: click.ClickException) -> str:
    """A click usage error as one line, with where to find help."""
    from .render.safe import clean

    msg = clean(e.format_message())
    ctx = getattr(e, "ctx", None)
    if ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return f"traceattrib: error: {msg}"


def _first_line(e: BaseException) -> str:
    from .render.safe import error_line

    return error_line(e, OPTIONS)


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2


def _cache_failures() -> list[str]:
    """The one warning of a cache write that failed in this process (full disk, read-only)."""
    from .store import take_failures

    return take_failures()


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (see the module docstring)."""
    debug = bool(os.environ.get("TRACEATTRIB_DEBUG"))
    warnings: list[str] = []  # the readers' warnings, printed only when the command succeeds
    try:
        rv = cli.main(args=argv, prog_name="traceattrib", standalone_mode=False, obj=warnings)
        sys.stdout.flush()  # a closed pipe shows here, inside the handlers below
        _print_warnings(warnings + _cache_failures())
        return rv if isinstance(rv, int) else EXIT_OK  # not standalone: click returns Exit codes
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("traceattrib: aborted", err=True)
        return 130
    except click.exceptions.Exit as e:  # the diff gate (1) or --help / --version (0)
        _print_warnings(warnings + _cache_failures())
        return e.exit_code
    except _NO_ARGS as e:  # `traceattrib` alone: the help, as click prints it
        click.echo(e.format_message(), err=True)
        return EXIT_INPUT
    except click.ClickException as e:  # usage errors and bad option values (click.BadParameter)
        if debug:
            traceback.print_exc()
        click.echo(_usage_line(e), err=True)
        return EXIT_INPUT
    except TraceError as e:
        if debug:
            traceback.print_exc()
        click.echo(f"traceattrib: error: {_first_line(e)}", err=True)
        return EXIT_INPUT
    except BrokenPipeError:
        # the reader of our output went away (`| head`): not an error; keep Python from
        # complaining again when it flushes stdout at exit
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - anything else is our bug, and says so
        if debug:
            traceback.print_exc()
        detail = f"{type(e).__name__}: {_first_line(e)}".rstrip(": ")
        click.echo(f"traceattrib: bug: {detail}; please report with TRACEATTRIB_DEBUG=1 output", err=True)
        return EXIT_BUG


def run() -> None:
    """Console entry point: main(), then exit without the interpreter's teardown, which spends
    0.15-0.2 s freeing pandas', pyarrow's and ADBC's modules after the answer is printed. Nothing
    of ours waits for exit (no atexit hooks or temporary-file finalizers; pools and clusters are
    closed where they were opened), so only the standard streams need flushing first. The process
    keeps the pages it frees while it works (heap.keep_freed)."""
    from . import heap

    heap.keep_freed()
    rc = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: the usual exit deals with it
        sys.exit(rc)
    os._exit(rc)


if __name__ == "__main__":
    run()
