"""Every output of the command line over every trace at hand, one file per command: the
before/after comparison of a change that must not change any output.

    python tests/snapshot.py OUT [--big DIR] [--only SUBSTRING]   # write OUT/<input>/<case>.out
    diff -r BEFORE AFTER                                           # what changed

Inputs: the fixtures, the public dev traces and the nsys schema exports in ../shared/traces
(when present), and with --big the bench inputs (bench/make_inputs.py's output folder). Each
case runs in this process through `traceattrib.cli.main` with --no-cache; a case's file holds
its exit status, stdout and stderr. To snapshot other code, put its tree first on PYTHONPATH and
run from outside the repository.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "traces"
MODEL = str(ROOT / "fixtures" / "serve_like.config.json")

# case name -> arguments after the input path
REPORT_CASES: dict[str, list[str]] = {
    "report.txt": [],
    "report_per_step.txt": ["--per-step", "--what-if", "cast=2", "--what-if", "communication=2"],
    "report.md": ["--format", "md", "--per-step", "--what-if", "cast=2"],
    "report.json": ["--format", "json", "--what-if", "communication=2", "--what-if-link", "pcie5"],
    "report.csv": ["--format", "csv"],
    "report_layers.txt": ["--layers", "4", "--what-if-link", "pcie4", "--link", "nvlink3"],
    "report_model.json": ["--format", "json", "--model", MODEL, "--batch", "1", "--context", "128", "--layers", "8"],
    "report_model.txt": ["--model", MODEL, "--batch", "1", "--context", "128"],
    "info.txt": [],
    "info.json": ["--format", "json"],
    "classify.txt": [],
    "classify.json": ["--format", "json", "--top", "0"],
}
SMALL_ONLY = {"report_model.json", "report_model.txt", "classify.json"}  # skipped on the big inputs
DIFFS = [
    ("llama_eager_nsys.sqlite", "llama_graph_torch.pt.trace.json.gz"),
    ("tp2_eager_torch", "tp2_graph_torch"),
    ("serve_piecewise_nsys.sqlite", "serve_piecewise_torch.pt.trace.json.gz"),
    ("llama_graph_nsys.sqlite", "llama_graph_nsys_node.sqlite"),
    ("repeat_eager_a1.pt.trace.json.gz", "repeat_eager_a2.pt.trace.json.gz"),
    ("repeat_eager_a1.pt.trace.json.gz", "repeat_graph_b1.pt.trace.json.gz"),
]


def inputs(big: str | None) -> list[Path]:
    fx = ROOT / "fixtures"
    out = sorted(p for p in fx.iterdir() if p.name.endswith((".sqlite", ".json.gz")) or
                 (p.is_dir() and p.name not in ("capture",)))
    for sub in ("public", "nsys-versions"):
        d = SHARED / sub
        if d.is_dir():
            out += sorted(p for p in d.iterdir() if p.name.endswith((".sqlite", ".json.gz")))
    if big:
        out += sorted(p for p in Path(big).iterdir() if p.name.endswith((".sqlite", ".json", ".json.gz")))
    return out


def run(args: list[str]) -> str:
    from traceattrib.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(args + ["--no-cache"])
        except SystemExit as e:  # pragma: no cover - main returns; kept for other code under test
            rc = e.code
    return f"exit {rc}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    big = argv[argv.index("--big") + 1] if "--big" in argv else None
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    import traceattrib

    out.mkdir(parents=True, exist_ok=True)
    (out / "_code.txt").write_text(f"{traceattrib.__file__}\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(ROOT)  # fixture paths in the output are relative, as the README shows them
    try:
        for p in inputs(big):
            if only not in p.name:
                continue
            is_big = big is not None and str(p).startswith(big)
            d = out / p.name
            d.mkdir(parents=True, exist_ok=True)
            path = os.path.relpath(p, ROOT) if str(p).startswith(str(ROOT)) else str(p)
            for case, extra in REPORT_CASES.items():
                if is_big and case in SMALL_ONLY:
                    continue
                cmd = case.split(".")[0].split("_")[0]
                (d / f"{case}.out").write_text(run([cmd, path] + extra), encoding="utf-8")
            print(p.name, flush=True)
        fx = ROOT / "fixtures"
        for a, b in DIFFS:
            if only and only not in a + b:
                continue
            d = out / f"diff__{a}__{b}"
            d.mkdir(parents=True, exist_ok=True)
            for fmt in ("text", "md", "json"):
                args = ["diff", os.path.relpath(fx / a, ROOT), os.path.relpath(fx / b, ROOT), "--format", fmt]
                (d / f"{fmt}.out").write_text(run(args), encoding="utf-8")
            (d / "gate.out").write_text(run(["diff", os.path.relpath(fx / a, ROOT), os.path.relpath(fx / b, ROOT),
                                             "--fail-if-slower", "1"]), encoding="utf-8")
    finally:
        os.chdir(cwd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
