"""`traceattrib diff --format html`, looked at in headless Chromium as in tests/test_html.py: the
page loads from file:// with no console error and no request, shows each kind's verdict, and its
tables of buckets, modules and layers hold the JSON diff's numbers, intervals and verdicts; a
point of the chart, hovered, says its interval; names from the traces stay text."""
from __future__ import annotations

import json
import os
import shutil

import pytest
from test_html import Page, browser  # noqa: F401  (the browser fixture)

from traceattrib.cli import main

from conftest import FIXTURES, ROOT

EAGER, GRAPH = FIXTURES / "layers_eager_torch_stack.pt.trace.json.gz", FIXTURES / "layers_graph_torch.pt.trace.json.gz"
VERDICT = {"lower": "lower", "higher": "higher", "unchanged": "no change beyond noise", "too_few": "too few to tell"}


def write_diff(tmp_path, *args) -> tuple[str, dict]:
    out, js = tmp_path / "diff.html", tmp_path / "diff.json"
    rc = main(["diff", *map(str, args), "--format", "html", "-o", str(out), "--no-cache"])
    assert main(["diff", *map(str, args), "--format", "json", "-o", str(js), "--no-cache"]) == rc
    return str(out), json.loads(js.read_text())


def rows(p: Page, cls: str, kind: str) -> list[list[str]]:
    return p.js(f"""Array.from(document.querySelectorAll('table.{cls}[data-kind="{kind}"] tr'))
                   .map(tr => Array.from(tr.children).map(td => td.textContent))""")[1:]


def ms(ns: float) -> str:
    return f"{ns / 1e6:.3f}"


def pct(x) -> str:
    return f"{x:+.1%}"


def change(c: dict) -> str:
    return pct(c["change"]) if c["change"] is not None else f"{c['change_ns'] / 1e6:+.3f} ms"


def ci(c: dict) -> str:
    if c["verdict"] == "too_few":
        return ""
    if c["ci"] is not None:
        return f"{c['ci'][0]:+.1%} to {c['ci'][1]:+.1%}"
    return f"{c['ci_ns'][0] / 1e6:+.3f} to {c['ci_ns'][1] / 1e6:+.3f} ms" if c["ci_ns"] else ""


def test_diff_page_holds_the_json_diff(browser, tmp_path):  # noqa: F811
    """Eager against CUDA graphs: the decode verdict, every bucket, module and layer with its
    interval and verdict, as the JSON has them."""
    path, doc = write_diff(tmp_path, EAGER, GRAPH)
    p = Page(browser, path)
    assert p.errors == [] and p.requests == [p.url]
    k = doc["kinds"]["decode"]
    head = p.js("""document.querySelector('h2.headline[data-kind="decode"]').textContent""")
    assert head.startswith("decode median ") and pct(k["median"]["change"]) in head and ci(k["median"]) in head
    got = rows(p, "buckets", "decode")
    assert [r[0] for r in got] == list(k["buckets"])
    for r, (name, b) in zip(got, k["buckets"].items()):
        e = b["exposed"]
        if "time_before_ns" in b:  # a bucket's own time (overlap and idle have none)
            tc = b["time_change"]
            assert r[1:4] == [ms(b["time_before_ns"]), ms(b["time_after_ns"]), pct(tc) if tc is not None else ""]
        else:
            assert r[1:4] == ["", "", ""]
        assert r[4:] == [ms(e["before"]), ms(e["after"]), change(e), ci(e), VERDICT[e["verdict"]]], name
    for cls, key, label in (("modules", "modules", str), ("layers", "layers", lambda n: f"layer {n}")):
        got = rows(p, cls, "decode")
        assert len(got) == len(k[key]) >= 8
        for r, (n, c) in zip(got, k[key].items()):
            assert r == [label(n), ms(c["before"]), ms(c["after"]), change(c), ci(c), VERDICT[c["verdict"]]]
    assert k["idle_causes"] and [r[0] for r in rows(p, "idle", "decode")] == list(k["idle_causes"])
    for r, c in zip(rows(p, "idle", "decode"), k["idle_causes"].values()):
        assert r[1:] == [ms(c["before"]), ms(c["after"]), change(c), ci(c), VERDICT[c["verdict"]]]
    span = rows(p, "span", "decode")
    assert [r[0] for r in span] == ["median", "p90", "mean"]
    assert span[0][1:] == [ms(k["median"]["before"]), ms(k["median"]["after"]), change(k["median"]), ci(k["median"]),
                           VERDICT[k["median"]["verdict"]]]
    assert sum(v["verdict"] == "lower" for v in k["modules"].values()) >= 1
    assert any(v["verdict"] == "unchanged" for v in k["modules"].values())
    if os.environ.get("TRACEATTRIB_SCREENSHOTS"):  # README screenshot: TRACEATTRIB_SCREENSHOTS=docs pytest ...
        p.page.screenshot(path=str(ROOT / os.environ["TRACEATTRIB_SCREENSHOTS"] / "html_diff.png"))
    # the chart: one point per bucket, module and layer with an interval; hover one, as a user would
    pts = p.js("window.__ta.charts.decode.points.map(p => p.label)")
    assert "modules: up_proj" in pts and "layers: layer 3" in pts
    i = pts.index("modules: up_proj")
    p.js("document.getElementById('chart-decode').scrollIntoView({block: 'center'})")
    x, y = p.js(f"""(() => {{
        const c = window.__ta.charts.decode.chart, pt = window.__ta.charts.decode.points[{i}].row;
        const q = c.convertToPixel({{xAxisIndex: 0, yAxisIndex: 0}}, [pt.point, {i}]);
        const r = document.getElementById('chart-decode').getBoundingClientRect();
        return [r.left + q[0], r.top + q[1]];
    }})()""")
    p.page.mouse.move(x + 30, y + 30)
    p.page.mouse.move(x, y)
    p.wait_until("""Array.from(document.querySelectorAll('#chart-decode div'))
                                .some(d => d.innerText.startsWith('modules: up_proj'))""")
    tip = p.js("""Array.from(document.querySelectorAll('#chart-decode div')).map(d => d.innerText)
                  .filter(t => t.startsWith('modules: up_proj')).pop()""")
    up = k["modules"]["up_proj"]
    assert f"95% CI {ci(up)} · {VERDICT[up['verdict']]}" in tip and pct(up["change"]) in tip
    # the typed diff itself rides along: the JSON's figures
    assert p.js("window.__ta.view.diff.kinds.decode.median") == k["median"]
    assert p.errors == []


def test_gate_checks_and_hostile_names(browser, tmp_path):  # noqa: F811
    """Two runs of the same code under a 5% gate: no change beyond noise, the gate passed; a run
    named with markup stays text."""
    hostile = tmp_path / '<img src=x onerror="window.__pwned=1">.pt.trace.json.gz'
    shutil.copy(FIXTURES / "repeat_eager_a2.pt.trace.json.gz", hostile)
    path, doc = write_diff(tmp_path, FIXTURES / "repeat_eager_a1.pt.trace.json.gz", hostile, "--fail-if-slower", "5")
    p = Page(browser, path)
    assert p.errors == [] and p.js("window.__pwned") is None and p.js("document.querySelectorAll('img').length") == 0
    head = p.page.inner_text("header")
    assert hostile.name in head
    gate = p.js("Array.from(document.querySelectorAll('#gate p')).map(e => e.textContent)")
    assert gate[-1].startswith("gate: passed: decode median") and doc["gate"]["tripped"] is False
    assert "no change beyond noise" in p.js("""document.querySelector('h2.headline[data-kind="decode"]').textContent""")


@pytest.mark.parametrize("fmt", ["html"])
def test_html_diff_refused_like_the_others(tmp_path, capsys, fmt):
    """Captures that do not compare are refused in one line, whatever the format."""
    out = tmp_path / "d.html"
    rc = main(["diff", str(FIXTURES / "tp2_eager_torch"), str(FIXTURES / "llama_eager_nsys.sqlite"), "--format", fmt,
               "-o", str(out), "--no-cache"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "comparison would be meaningless" in err and not out.exists()
