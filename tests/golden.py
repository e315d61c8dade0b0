"""Golden outputs: the exact text of the commands the README shows, on the bundled fixtures.

    python tests/golden.py --update    # rewrite tests/golden/* from the current code
    python tests/golden.py             # compare only; exit status 1 on a difference

tests/test_golden.py fails when an output changes. When the change is intended (a new rule, a
reworded note, a fix in the numbers), run the update, read `git diff tests/golden`, and keep
README.md in step: every README sample between `<!-- golden FILE -->` and `<!-- /golden -->` must
be lines of that golden file, verbatim and in order (a line `...` marks lines left out).
"""
from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
README = ROOT / "README.md"

# file under tests/golden -> the traceattrib arguments that produce it (run from the repository root)
CASES: dict[str, list[str]] = {
    "report_tp2_graph_torch.txt": ["report", "fixtures/tp2_graph_torch", "--layers", "4"],
    "report_tp2_eager_torch.txt": ["report", "fixtures/tp2_eager_torch", "--layers", "4"],
    "report_tp2_eager_torch_link.txt": ["report", "fixtures/tp2_eager_torch", "--layers", "4", "--what-if-link", "pcie5"],
    "report_llama_eager_nsys.md": ["report", "fixtures/llama_eager_nsys.sqlite", "--format", "md",
                                   "--what-if", "cast=2"],
    "report_llama_eager_nsys_per_step.txt": ["report", "fixtures/llama_eager_nsys.sqlite", "--per-step",
                                             "--what-if", "cast=2"],
    "report_tp2_graph_torch.json": ["report", "fixtures/tp2_graph_torch", "--layers", "4",
                                    "--what-if", "communication=2", "--what-if-link", "pcie5", "--format", "json"],
    "info_llama_graph_nsys.txt": ["info", "fixtures/llama_graph_nsys.sqlite"],
    "diff_eager_graph.md": ["diff", "fixtures/llama_eager_nsys.sqlite", "fixtures/llama_graph_torch.pt.trace.json.gz",
                            "--format", "md"],
    "diff_same_code.txt": ["diff", "fixtures/repeat_eager_a1.pt.trace.json.gz",
                           "fixtures/repeat_eager_a2.pt.trace.json.gz", "--fail-if-slower", "5"],
    "diff_repeat_runs.txt": ["diff", "--before", "fixtures/repeat_eager_a1.pt.trace.json.gz",
                             "fixtures/repeat_eager_a2.pt.trace.json.gz", "--after", "fixtures/repeat_graph_b1.pt.trace.json.gz",
                             "fixtures/repeat_graph_b2.pt.trace.json.gz", "--fail-if-slower", "5"],
    "diff_repeat_runs.md": ["diff", "--before", "fixtures/repeat_eager_a1.pt.trace.json.gz",
                            "fixtures/repeat_eager_a2.pt.trace.json.gz", "--after", "fixtures/repeat_graph_b1.pt.trace.json.gz",
                            "fixtures/repeat_graph_b2.pt.trace.json.gz", "--format", "md", "--fail-if-slower", "5"],
}

_BLOCK = re.compile(r"<!-- golden (\S+) -->\n(.*?)<!-- /golden -->", re.S)


def produce(name: str) -> str:
    """Run the case's command in this process from the repository root; its stdout."""
    from traceattrib.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(CASES[name] + ["--no-cache"])
    finally:
        os.chdir(cwd)
    if rc != 0:
        raise RuntimeError(f"traceattrib {' '.join(CASES[name])} exited {rc}: {err.getvalue()}")
    return out.getvalue()


def readme_samples() -> list[tuple[str, str]]:
    """(golden file, sample text) for every marked sample in README.md, code fences removed."""
    out = []
    for name, body in _BLOCK.findall(README.read_text(encoding="utf-8")):
        lines = body.strip("\n").split("\n")
        if lines and lines[0].startswith("```"):
            lines = lines[1:-1] if lines[-1].startswith("```") else lines[1:]
        out.append((name, "\n".join(lines)))
    return out


def is_excerpt(sample: str, full: str) -> bool:
    """`sample` is whole lines of `full`: consecutive, except that a line `...` stands for any
    number of skipped lines (the pieces between them appear in order)."""
    f = full.split("\n")
    at = 0
    for piece in "\n".join(sample.split("\n")).split("\n...\n"):
        s = [line for line in piece.split("\n")]
        s = s[1:] if s and s[0] == "..." else s
        s = s[:-1] if s and s[-1] == "..." else s
        if not s:
            continue
        hit = next((i for i in range(at, len(f) - len(s) + 1) if f[i:i + len(s)] == s), None)
        if hit is None:
            return False
        at = hit + len(s)
    return True


def main(argv: list[str]) -> int:
    update = "--update" in argv
    bad = 0
    for name in CASES:
        path = GOLDEN / name
        got = produce(name)
        if update:
            GOLDEN.mkdir(exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != got:
                path.write_text(got, encoding="utf-8")
                print(f"updated {path.relative_to(ROOT)}")
        elif not path.exists() or path.read_text(encoding="utf-8") != got:
            bad += 1
            old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            sys.stdout.writelines(line + "\n" for line in difflib.unified_diff(
                old, got.splitlines(), f"tests/golden/{name}", "now", lineterm=""))
    for name, sample in readme_samples():
        if name not in CASES or not is_excerpt(sample, (GOLDEN / name).read_text(encoding="utf-8")):
            bad += 1
            print(f"README.md: the sample marked {name} is not verbatim lines of tests/golden/{name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
