"""An Nsight Systems export with one zeroed page (a damaged disk block, an interrupted copy), made
from a real fixture: every table's root page in turn, and generated offsets, page-aligned or not.

The answer is a right report or bad input: exit 2 with one line naming what cannot be read, or
exit 0 with no warning and the report of the undamaged file (a page of a table the reader never
reads changes nothing; a damaged page of the profiler's messages fails the drops check, since it
no longer shows that nothing was lost)."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from harness import check_contract, run_cli

SRC = FIXTURES / "llama_graph_nsys.sqlite"  # 98 pages of 4 KiB


def _layout() -> tuple[int, int, dict[str, int]]:
    con = sqlite3.connect(f"file:{SRC}?immutable=1", uri=True)
    try:
        page = con.execute("pragma page_size").fetchone()[0]
        count = con.execute("pragma page_count").fetchone()[0]
        roots = {t: r for t, r in con.execute("select name, rootpage from sqlite_master where rootpage > 0")}
    finally:
        con.close()
    return page, count, roots


PAGE, COUNT, ROOTS = _layout()


def damaged(tmp: Path, offset: int, size: int = PAGE) -> Path:
    p = tmp / "damaged.sqlite"
    shutil.copyfile(SRC, p)
    with open(p, "r+b") as f:
        f.seek(offset)
        f.write(b"\0" * size)
    return p


def _comparable(doc: dict) -> dict:
    """The report without what names the file or the run."""
    doc = dict(doc)
    doc.pop("trace", None)
    doc.pop("traceattrib_version", None)
    return doc


@pytest.fixture(scope="module")
def clean():
    r = run_cli("report", SRC, "--no-cache", "--format", "json")
    assert r.rc == 0
    return _comparable(json.loads(r.out))


def answer(path: Path, clean: dict, table: str | None = None):
    r = run_cli("report", path, "--no-cache", "--format", "json", timeout=120)
    check_contract(r)  # exit 0 or 2 with one line; no traceback, no Python warning
    if r.rc == 2:
        assert "cannot be read" in r.err or "not a readable SQLite file" in r.err or "not a trace" in r.err, r.err
        return r
    assert r.rc == 0 and r.err == "", r
    doc = _comparable(json.loads(r.out))
    if table == "DIAGNOSTIC_EVENT":
        drops = {c["check"]: c for c in doc["summary"]["integrity"]["checks"]}["drops"]
        assert drops["status"] == "failed" and "DIAGNOSTIC_EVENT cannot be read" in drops["detail"][0]
    elif table is not None:
        assert doc == clean, f"zeroing {table}'s root page changed the report"
    return r


@pytest.mark.parametrize("table", sorted(ROOTS), ids=str)
def test_zeroed_root_page(tmp_path, clean, table):
    r = answer(damaged(tmp_path, (ROOTS[table] - 1) * PAGE), clean, table)
    if r.rc == 2 and table != "StringIds":
        assert table in r.err or "not a readable SQLite file" in r.err, r.err


READ = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "StringIds")


@pytest.mark.parametrize("table", READ)
def test_tables_the_report_stands_on_are_bad_input(tmp_path, clean, table):
    assert answer(damaged(tmp_path, (ROOTS[table] - 1) * PAGE), clean, table).rc == 2


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=st.integers(1, COUNT), shift=st.sampled_from([0, 0, 1, 100, PAGE // 2]))
def test_generated_zeroed_page(tmp_path_factory, clean, page, shift):
    """Any page zeroed, or a page's worth of zeros astride two pages."""
    tmp = tmp_path_factory.mktemp("z")
    answer(damaged(tmp, min((page - 1) * PAGE + shift, (COUNT - 1) * PAGE)), clean)
