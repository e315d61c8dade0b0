"""Packaging: one version, the license file the metadata names, typed package, matplotlib only
for `plot`."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import metadata, version

import traceattrib

from conftest import FIXTURES, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_version_has_one_source():
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "traceattrib.__version__"}
    assert version("traceattrib") == traceattrib.__version__  # stale? reinstall: pip install -e .


def test_license_file_matches_metadata():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text.splitlines()[0] and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert metadata("traceattrib")["License-Expression"] == "Apache-2.0"


def test_typed_package():
    assert (ROOT / "traceattrib" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["traceattrib"]


def test_rule_plans_ship_with_the_rules():
    """rules/default.plans.json (the rules' twins, made once) is package data beside the rules."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["traceattrib"]
    assert (ROOT / "traceattrib" / "rules" / "default.plans.json").is_file()
    assert "rules/*.json" in data and "rules/*.toml" in data


def test_matplotlib_only_for_plot():
    deps = PYPROJECT["project"]["dependencies"]
    assert not any(d.startswith("matplotlib") for d in deps)
    assert any(d.startswith("matplotlib") for d in PYPROJECT["project"]["optional-dependencies"]["plot"])
    code = ("import sys; from traceattrib.cli import main; "
            f"rc = main(['report', {str(FIXTURES / 'llama_graph_nsys.sqlite')!r}, '--no-cache', '--per-step']); "
            "assert rc == 0, rc; assert 'matplotlib' not in sys.modules, 'report imported matplotlib'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("## Quick start"):]
    block = block[block.index("```sh") + 5:]
    commands = block[:block.index("```")].strip().splitlines()
    assert len(commands) == 2 and "traceattrib report fixtures/" in commands[0]
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    ci = [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]
    assert ci == ["bash .ci/install-browser", commands[1]]  # the browser of the HTML tests, then the command
