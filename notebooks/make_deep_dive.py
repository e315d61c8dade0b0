"""Writes deep_dive.ipynb (no outputs: the test suite executes it, so it cannot rot).

Run `python notebooks/make_deep_dive.py` after editing the cells below.
"""
import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
cells = [
    md("# traceattrib deep dive\n\nWhere a decode step's GPU time goes, on the project's own fixtures "
       "(a 4-layer Llama-style model with int8 weights on an NVIDIA H200), and what each fix could win at most."),
    code("%matplotlib inline\nimport pathlib\nimport pandas as pd\nimport traceattrib as ta\n\n"
         "FIX = pathlib.Path('..') / 'fixtures'\n"
         "pd.set_option('display.width', 160, 'display.max_colwidth', 60)"),
    md("## Load\n`ta.load` reads an Nsight Systems SQLite export, a torch.profiler JSON, or a directory of "
       "per-rank JSON files, into columnar tables with int64 ns times (cached as Parquet)."),
    code("trace = ta.load(str(FIX / 'llama_eager_nsys.sqlite'))\n"
         "print(trace.meta['profiler'], trace.meta['profiler_version'], trace.meta['gpus'])\n"
         "{name: len(t) for name, t in trace.tables().items()}"),
    code("trace.kernels[['start_ns', 'end_ns', 'name', 'stream', 'correlation']].head()"),
    md("## Breakdown per step\nBucket times come from interval unions; `exposed` is time when only that bucket "
       "runs. Exposed + overlapped + idle add up to the span of every step."),
    code("rep = ta.analyze(trace, what_if={'cast': 2, 'elementwise': 2})\n"
         "cols = ['index', 'name', 'kind', 'span_ns', 'busy_ns', 'idle_ns'] + "
         "[f'{b}_exposed_ns' for b in ('linear', 'attention', 'cast', 'elementwise')]\n"
         "rep.steps[cols].head()"),
    code("d = rep.summary.by_kind['decode'].attribution  # typed: traceattrib.report.KindAttribution\n"
         "table = pd.DataFrame({'share of span': d.bucket_share, 'exposed share': d.exposed_share,\n"
         "                      'bound if removed': d.speedup_bound_if_removed})\n"
         "table.round(3)"),
    md("## Top kernels per bucket (decode steps)"),
    code("k = rep.kernels[rep.kernels['step'].isin(rep.kind_steps('decode').index)]\n"
         "top = (k.assign(ms=(k.end_ns - k.start_ns) / 1e6).groupby(['bucket', 'short_name'], observed=True)['ms']\n"
         "        .sum().div(len(rep.kind_steps('decode'))).rename('ms per step').reset_index()\n"
         "        .sort_values('ms per step', ascending=False).groupby('bucket', observed=True).head(2))\n"
         "top"),
    md("## One step on the timeline"),
    code("from traceattrib.render.plot import steps_figure, timeline_figure\n"
         "timeline_figure(rep, step=3)"),
    code("steps_figure(rep)"),
    md("## What-if bounds\nMaking a bucket k times faster saves at most its exposed time times (1 - 1/k)."),
    code("pd.DataFrame([{'bucket': v.bucket, 'factor': v.factor, 'speedup_bound': v.speedup_bound,\n"
         "               'speedup_bound_p90': v.speedup_bound_p90} for v in d.what_if.values()])"),
    md("## Diff: eager launches vs CUDA graphs\nThe same workload captured with CUDA-graph replays: "
       "what moved the decode step?"),
    code("graph = ta.analyze(ta.load(str(FIX / 'llama_graph_torch.pt.trace.json.gz')))\n"
         "res = ta.diff(rep, graph).kinds['decode']  # typed: traceattrib.diff.types.KindDiff\n"
         "m = res.median  # the change of the median step, with its 95% bootstrap interval\n"
         "print(f\"median decode step {m.before/1e6:.2f} ms -> {m.after/1e6:.2f} ms \"\n"
         "      f\"({m.change:+.1%}, 95% CI {m.ci[0]:+.1%} to {m.ci[1]:+.1%})\")\n"
         "pd.DataFrame([{'part': c.part, 'change_ns': c.change_ns, 'fraction_of_change': c.fraction_of_change}\n"
         "              for c in res.contributions]).head(4)"),
    md("## Tensor parallel (TP=2): waiting vs transferring, and the job\n"
       "Per rank: exposed communication, how much of it is waiting for the other rank, and the bound if "
       "communication were removed, for the rank alone and for the job (the job cannot get faster than its "
       "slowest rank)."),
    code("tp = ta.analyze(ta.load(str(FIX / 'tp2_eager_torch')), layers=4)\n"
         "job = tp.summary.job['decode']\n"
         "pd.DataFrame({r: {'comm exposed': v['decode'].exposed_share['communication'],\n"
         "                  'idle': v['decode'].idle_share,\n"
         "                  'comm wait (ms/step)': v['decode'].comm.comm_wait_ns / 1e6,\n"
         "                  'comm transfer (ms/step)': v['decode'].comm.comm_transfer_ns / 1e6,\n"
         "                  'bound if comm removed (rank alone)': v['decode'].speedup_bound_if_removed['communication'],\n"
         "                  'bound if comm removed (job)': job.speedup_bound_if_removed['communication']}\n"
         "              for r, v in tp.summary.by_rank.items()}).T"),
    code("from traceattrib.render.notes import text\n\nfor note in tp.notes:\n    print('-', text(note))"),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                "language": "python"}})
nbf.write(nb, __file__.replace("make_deep_dive.py", "deep_dive.ipynb"))
