"""Command line: `traceattrib report|info|classify|explain|export|diff|plot`.

Bad input ends with one line on stderr and exit status 2, never a traceback
(set TRACEATTRIB_DEBUG=1 to see one).
"""
from __future__ import annotations

import os
import sys

import click

from . import __version__
from .errors import TraceError

FORMATS_REPORT = ("text", "md", "json", "csv")


def _load(path: str, no_cache: bool, cache_dir: str | None, require_gpu: bool = True):
    from .cache import load
    from .progress import Progress

    # a bar on stderr only when it is a terminal; pipes and files get nothing
    with Progress(f"loading {os.path.basename(path.rstrip('/')) or path}") as bar:
        return load(path, use_cache=not no_cache, cache_dir=cache_dir, require_gpu=require_gpu, progress=bar)


def _rules(path: str | None):
    from .classify import load_rules

    return load_rules(path)


def _what_if(values: tuple[str, ...]) -> dict[str, float]:
    from .attribute import ALL_BUCKETS

    out = {}
    for v in values:
        bucket, sep, factor = v.partition("=")
        try:
            k = float(factor)
        except ValueError:
            k = 0.0
        if not sep or bucket not in ALL_BUCKETS or k <= 0:
            raise TraceError(f"--what-if {v!r}: expected BUCKET=FACTOR with BUCKET one of "
                             f"{', '.join(ALL_BUCKETS)} and FACTOR > 0 (e.g. communication=2)")
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


def _emit(text: str, output: str | None) -> None:
    if output:
        with open(output, "w") as f:
            f.write(text)
    else:
        click.echo(text, nl=False)


cache_options = [
    click.option("--no-cache", is_flag=True, help="Parse the trace again; do not read or write the Parquet cache."),
    click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
                 help="Cache location (default: $TRACEATTRIB_CACHE_DIR or the user cache directory)."),
]


def with_cache(f):
    for opt in reversed(cache_options):
        f = opt(f)
    return f


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

    reps = []
    with cluster(workers, scheduler) as client:
        for path in paths:
            name = os.path.basename(path.rstrip('/')) or path
            with Progress(f"{'analyzing' if client is not None else 'loading'} {name}") as bar:
                reps.append(analyze_path(path, use_cache=not no_cache, cache_dir=cache_dir, client=client,
                                         progress=bar, **options))
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
@click.option("--steps", "steps_regex", metavar="REGEX", help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(), help="TOML file of extra classification rules, tried before the defaults.")
@click.option("--what-if", "what_if", multiple=True, metavar="BUCKET=K",
              help="Bound if BUCKET were K times faster (repeatable), e.g. communication=2.")
@click.option("--layers", type=int, help="Model layers: expected all-reduce count is 2 per layer (tensor parallel).")
@click.option("--link", "link", metavar="NAME|GBPS",
              help="Interconnect to compare bandwidths with: a name from rules/links.toml (nvlink4, pcie5, "
                   "xgmi-mi300x, ...) or a peak in GB/s per direction (default: from the GPU name).")
@click.option("--what-if-link", "what_if_links", multiple=True, metavar="NAME",
              help="Project every step on another interconnect (repeatable), e.g. pcie4.")
@click.option("--per-step", is_flag=True, help="Add the per-step table.")
@click.option("--model", "model", type=click.Path(exists=True), metavar="PATH",
              help="Hugging Face config.json (or a directory holding one) for the speed-of-light floor where the "
                   "trace has no op shapes (Nsight Systems, CUDA graphs).")
@click.option("--batch", type=click.IntRange(min=1), help="With --model: sequences per step.")
@click.option("--context", type=click.IntRange(min=0),
              help="With --model: tokens per sequence at the first step (a prefill's prompt length).")
@click.option("--peak-bw", type=Rate(), help="GPU memory bandwidth, bytes/s (e.g. 4.8T); default from the GPU name.")
@click.option("--peak-flops", type=Rate(), help="GPU peak FLOP/s for the GEMMs' dtype (e.g. 989T); default from the GPU name.")
@click.option("--format", "fmt", type=click.Choice(FORMATS_REPORT), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
@with_cache
@with_cluster
def report(file, steps_regex, rules, what_if, layers, link, what_if_links, per_step, model, batch, context, peak_bw,
           peak_flops, fmt, output, no_cache, cache_dir, workers, scheduler):
    """Per-step breakdown by bucket, exposed communication, idle, speedup bounds and the speed-of-light floor."""
    from . import links
    from .sol import Options

    wi = _what_if(what_if)
    rl = _rules(rules)
    so = Options(model=model, batch=batch, context=context, peak_bw=peak_bw, peak_flops=peak_flops)
    so.model_spec()  # a bad config fails before the trace is loaded
    lk = links.parse(link) if link else None
    wl = tuple(links.get(x) for x in what_if_links)
    rep, = _analyze([file], no_cache, cache_dir, workers, scheduler, steps_regex=steps_regex, rules=rl, what_if=wi,
                    layers=layers, sol_options=so, link=lk, what_if_links=wl)
    _emit(render_report(rep, fmt, per_step), output)


def render_report(rep, fmt: str, per_step: bool = False) -> str:
    if fmt == "json":
        from .render.jsonout import render
        return render(rep)
    if fmt == "csv":
        from .render.jsonout import render_csv
        return render_csv(rep)
    if fmt == "md":
        from .render.markdown import render
        return render(rep, per_step=per_step)
    from .render.text import render
    return render(rep, per_step=per_step)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@with_cache
def info(file, fmt, no_cache, cache_dir):
    """What the trace holds: format, versions, devices, table sizes, time span, annotations."""
    from .render.info import render_info

    trace = _load(file, no_cache, cache_dir, require_gpu=False)
    click.echo(render_info(trace, fmt), nl=False)


@cli.command("classify")
@click.argument("file", type=click.Path())
@click.option("--rules", type=click.Path(), help="TOML file of extra rules, tried before the defaults.")
@click.option("--top", type=int, default=40, show_default=True, help="Kernels to list (0 = all).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@with_cache
def classify_cmd(file, rules, top, fmt, no_cache, cache_dir):
    """Kernels by total time with their bucket, share and the rule that matched."""
    from .render.classify import render_classify

    rl = _rules(rules)
    trace = _load(file, no_cache, cache_dir)
    click.echo(render_classify(trace, rl, top, fmt), nl=False)


@cli.command()
@click.argument("names", nargs=-1, required=True)
@click.option("--rules", type=click.Path(), help="TOML file of extra rules, tried before the defaults.")
@click.option("--op", default="", help="Launching CPU op chain to consider (torch traces), e.g. 'aten::to > aten::_to_copy > aten::copy_'.")
@click.option("--input-types", default="", help="Input dtypes of the launching op, comma-joined.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def explain(names, rules, op, input_types, fmt):
    """Which bucket and rule each kernel NAME gets (`-` reads names from stdin, one per line)."""
    from .render.classify import render_explain

    if names == ("-",):
        names = tuple(line.rstrip("\n") for line in sys.stdin if line.strip())
    rl = _rules(rules)
    click.echo(render_explain(list(names), rl, op, input_types, fmt), nl=False)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, type=click.Path(file_okay=False),
              help="Directory for <table>.parquet files and meta.json.")
@with_cache
@with_cluster
def export(file, outdir, no_cache, cache_dir, workers, scheduler):
    """Write the normalized tables as Parquet for your own notebooks."""
    if workers is not None or scheduler:
        from .parallel import cluster, export_path
        from .progress import Progress

        with cluster(workers, scheduler) as client, Progress(f"exporting {os.path.basename(file.rstrip('/'))}") as bar:
            counts = export_path(file, outdir, use_cache=not no_cache, cache_dir=cache_dir, client=client, progress=bar)
    else:
        from .cache import write_tables

        trace = _load(file, no_cache, cache_dir, require_gpu=False)
        write_tables(trace, outdir)
        counts = {n: len(t) for n, t in trace.tables().items()}
    click.echo(f"wrote {', '.join(f'{n}.parquet ({c} rows)' for n, c in counts.items())} and meta.json to {outdir}")


@cli.command()
@click.argument("before", type=click.Path())
@click.argument("after", type=click.Path())
@click.option("--steps", "steps_regex", metavar="REGEX", help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(), help="TOML file of extra classification rules.")
@click.option("--format", "fmt", type=click.Choice(("text", "md", "json")), default="text", show_default=True)
@click.option("--fail-if-slower", type=float, metavar="PCT",
              help="Exit with status 1 when the median decode step got slower by more than PCT percent.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
@with_cache
@with_cluster
def diff(before, after, steps_regex, rules, fmt, fail_if_slower, output, no_cache, cache_dir, workers, scheduler):
    """Compare two traces (any formats): per bucket time and exposed time, before and after."""
    from .diff import diff as compare, slower_than
    from .render import diff as r

    rl = _rules(rules)
    reps = _analyze([before, after], no_cache, cache_dir, workers, scheduler, steps_regex=steps_regex, rules=rl)
    res = compare(*reps)
    _emit({"text": r.render_text, "md": r.render_md, "json": r.render_json}[fmt](res), output)
    if fail_if_slower is not None and slower_than(res, fail_if_slower):
        k = res["kinds"]["decode"]
        click.echo(f"traceattrib: median decode step slower by {k['median_span_change']:.1%} "
                   f"(limit {fail_if_slower:g}%)", err=True)
        raise click.exceptions.Exit(1)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Image file; the extension picks the format (.png, .svg, .pdf).")
@click.option("--step", type=int, default=None, help="Draw the timeline of this step (one row per stream).")
@click.option("--rank", type=int, default=None, help="Rank of --step (default: the first).")
@click.option("--steps", "steps_regex", metavar="REGEX", help="Regular expression over range names that mark steps.")
@click.option("--rules", type=click.Path(), help="TOML file of extra classification rules.")
@with_cache
def plot(file, output, step, rank, steps_regex, rules, no_cache, cache_dir):
    """Stacked bars of every step by bucket, or with --step N that step's timeline."""
    from .analysis import analyze
    from .render import plot as p

    if not output.lower().endswith((".png", ".svg", ".pdf")):
        raise TraceError(f"{output}: use a .png, .svg or .pdf file name")
    rl = _rules(rules)
    rep = analyze(_load(file, no_cache, cache_dir), steps_regex=steps_regex, rules=rl)
    fig = p.timeline_figure(rep, step, rank) if step is not None else p.steps_figure(rep)
    p.save(fig, output)
    click.echo(f"wrote {output}")


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI; input errors become one line on stderr and exit status 2."""
    debug = bool(os.environ.get("TRACEATTRIB_DEBUG"))
    try:
        rv = cli.main(args=argv, prog_name="traceattrib", standalone_mode=False)
        if isinstance(rv, int):  # click returns Exit codes instead of raising when not standalone
            return rv
    except click.exceptions.Abort:
        click.echo("traceattrib: aborted", err=True)
        return 130
    except click.ClickException as e:  # usage errors: click's own message, exit 2
        e.show()
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except TraceError as e:
        if debug:
            raise
        click.echo(f"traceattrib: error: {e}", err=True)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - input we did not foresee must still not dump a traceback
        if debug:
            raise
        click.echo(f"traceattrib: error: cannot process input ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                   "set TRACEATTRIB_DEBUG=1 for details", err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
