"""docs/ci/traceattrib-diff.yml: the `diff` job's shell steps run here, on the fixtures, with the two
artifacts put where its download-artifact steps put them, `pip install` skipped (this checkout is
used) and `gh` replaced by a stub that keeps the comment it would post."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

yaml = pytest.importorskip("yaml")

WORKFLOW = ROOT / "docs" / "ci" / "traceattrib-diff.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
CONTEXT = {"github.token": "not-a-token", "github.event.pull_request.number": "7", "github.repository": "example/repo"}
EAGER = ["repeat_eager_a1.pt.trace.json.gz", "repeat_eager_a2.pt.trace.json.gz"]
GRAPHS = ["repeat_graph_b1.pt.trace.json.gz", "repeat_graph_b2.pt.trace.json.gz"]


def _exe(path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def run_job(tmp_path, artifacts: dict[str, list]) -> tuple[int, str, str]:
    """Run the diff job's steps in order, as GitHub would (bash -e, pipefail); artifacts: name ->
    files or directories to download. (exit status of the first failing step or 0, the posted
    comment, the job's output)."""
    job = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["diff"]
    work, bin_dir = tmp_path / "work", tmp_path / "bin"
    work.mkdir()
    bin_dir.mkdir()
    _exe(bin_dir / "traceattrib", f'#!/bin/sh\nexec "{sys.executable}" -m traceattrib "$@"\n')
    _exe(bin_dir / "gh", '#!/bin/sh\n[ "$1 $2" = "pr comment" ] || exit 9\n'
                         'while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "$COMMENT"; shift; done\n')
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT),
               GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"), COMMENT=str(tmp_path / "comment.md"))
    log = []
    for step in job["steps"]:
        if "uses" in step:
            if step["uses"].startswith("actions/download-artifact@"):
                dest = work / step["with"]["path"]
                dest.mkdir(parents=True)
                for src in artifacts[step["with"]["name"]]:
                    (shutil.copytree if src.is_dir() else shutil.copy)(src, dest / src.name)
            continue
        cmd = step["run"]
        if cmd.startswith("pip install"):
            continue
        step_env = dict(env, **{k: EXPR.sub(lambda m: CONTEXT[m.group(1)], str(v))
                                for k, v in step.get("env", {}).items()})
        assert not EXPR.search(cmd), "expressions belong in env:, not in the command"
        p = subprocess.run(["bash", "-eo", "pipefail", "-c", cmd], cwd=work, env=step_env, capture_output=True,
                           text=True, timeout=300)
        log.append(p.stdout + p.stderr)
        if p.returncode:
            break
    comment = tmp_path / "comment.md"
    return p.returncode, comment.read_text(encoding="utf-8") if comment.exists() else "", "\n".join(log)


def test_no_change_posts_the_comment_and_passes(tmp_path):
    rc, comment, log = run_job(tmp_path, {"traces-before": [FIXTURES / EAGER[0]], "traces-after": [FIXTURES / EAGER[1]]})
    assert rc == 0, log
    assert comment.startswith("**decode median 4.20 -> 4.09 ms (-2.6%, 95% CI ")
    assert "no change beyond noise" in comment.splitlines()[0]
    assert comment.rstrip().splitlines()[-1].startswith("**gate: passed: decode median -2.6%")
    assert (tmp_path / "summary.md").read_text() == comment


def test_a_slowdown_posts_the_comment_then_fails_the_check(tmp_path):
    # the PR undoes CUDA graphs: eager decode, two runs a side
    rc, comment, log = run_job(tmp_path, {"traces-before": [FIXTURES / n for n in GRAPHS],
                                          "traces-after": [FIXTURES / n for n in EAGER]})
    assert rc == 1, log
    assert comment.startswith("**decode median 0.569 -> 4.16 ms (+632")
    assert "> Differs, may be the point of the change: decode steps are CUDA graphs before, eager after." in comment
    assert comment.rstrip().splitlines()[-1].startswith("**gate: TRIPPED: decode median +632")


def test_captures_that_do_not_compare_are_said_in_the_comment(tmp_path):
    rc, comment, log = run_job(tmp_path, {"traces-before": [FIXTURES / EAGER[0]],
                                          "traces-after": [FIXTURES / "tp2_eager_torch"]})
    assert rc == 2, log
    assert comment.startswith("**traceattrib diff could not compare the traces**")
    assert "GPU count: 1 before, 2 after" in comment
