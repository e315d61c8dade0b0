"""The HTML report, looked at the way people look at it: opened from file:// in a real headless
Chromium (Debian's package, driven by Playwright with the system browser; nothing downloads a
browser). It loads with no console error and no request, the step strip has one bar per step,
clicking a step opens its timeline, the numbers shown are the JSON report's, and names from the
trace are text, never markup or script."""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib.cli import main
from traceattrib.render import html

from conftest import FIXTURES, ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
HOSTILE = ["</script><script>window.__pwned=1</script>", '<img src=x onerror="window.__pwned=2">',
           "\u202e}]);window.__pwned=3;//", "<!--", "&lt;b&gt;"]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def write_report(tmp_path, src, *args) -> tuple[str, dict]:
    out = tmp_path / "report.html"
    assert main(["report", str(src), "--format", "html", "-o", str(out), "--no-cache", *args]) == 0
    js = tmp_path / "report.json"
    assert main(["report", str(src), "--format", "json", "-o", str(js), "--no-cache", *args]) == 0
    return str(out), json.loads(js.read_text())


class Page:
    """A page opened from file:// with its console errors and every request it made."""

    def __init__(self, browser, path: str, viewport=(1300, 1800)):
        self.page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"{m.type}: {m.text}") if m.type in ("error", "warning")
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = "file://" + path
        self.page.goto(self.url)
        self.page.wait_for_function("window.__ta !== undefined")

    def js(self, expr: str):
        return self.page.evaluate(expr)

    def wait_until(self, expr: str, tries: int = 100) -> None:
        """Poll `expr` until true (wait_for_function would need 'unsafe-eval', which the page's
        Content-Security-Policy forbids)."""
        for _ in range(tries):
            if self.js(expr):
                return
            self.page.wait_for_timeout(50)
        raise AssertionError(f"never true: {expr}")

    def click_step(self, i: int) -> None:
        """Click the middle of step i's bar in the step strip, as a user would."""
        x, y = self.js(f"""(() => {{
            const c = window.__ta.strip, o = c.getOption();
            const total = o.series.reduce((a, s) => a + (s.data[{i}] || 0), 0);
            const p = c.convertToPixel({{xAxisIndex: 0, yAxisIndex: 0}}, [{i}, total / 2]);
            const r = document.getElementById('strip').getBoundingClientRect();
            return [r.left + p[0], r.top + p[1]];
        }})()""")
        self.page.mouse.click(x, y)


def test_report_loads_offline_with_one_bar_per_step(browser, tmp_path):
    path, doc = write_report(tmp_path, FIXTURES / "tp2_eager_torch", "--layers", "4")
    p = Page(browser, path)
    assert p.errors == [] and p.requests == [p.url]  # every script, style and datum inline
    assert p.js("window.__ta.strip.getOption().series.every(s => s.data.length === window.__ta.view.steps.n)")
    assert p.js("window.__ta.view.steps.n") == len(doc["steps"]) == 26
    legend = p.js("window.__ta.strip.getOption().series.map(s => s.name)")
    assert legend == doc["buckets"] + ["overlapped", "idle: launch", "idle: sync", "idle: host", "idle: unexplained"]
    # the headline kind's median step is open at first
    assert p.js("window.__ta.view.steps.shown[window.__ta.shownStep]") == "median"
    # the title names profiler, GPUs and ranks once; the lines under it add only what it does not say
    head = p.js("document.getElementById('head').innerText").splitlines()
    assert head[0].startswith("traceattrib report · tp2_eager_torch · torch.profiler") and head[0].endswith(
        "2x NVIDIA H200, 2 ranks"), head
    assert not any(line.startswith("profiler:") or line == "2 ranks" for line in head[1:]), head
    if os.environ.get("TRACEATTRIB_SCREENSHOTS"):  # README screenshot: TRACEATTRIB_SCREENSHOTS=docs pytest ...
        p.page.screenshot(path=str(ROOT / os.environ["TRACEATTRIB_SCREENSHOTS"] / "html_report.png"))


def test_clicking_a_step_opens_its_timeline(browser, tmp_path):
    path, doc = write_report(tmp_path, FIXTURES / "llama_eager_nsys.sqlite")
    p = Page(browser, path)
    shown = p.js("window.__ta.view.steps.shown")
    kept = [i for i, w in enumerate(shown) if w and i != p.js("window.__ta.shownStep")]
    slowest = max(kept, key=lambda i: doc["steps"][i]["span_ns"])
    p.click_step(slowest)
    assert p.js("window.__ta.shownStep") == slowest
    step = doc["steps"][slowest]
    title = p.page.inner_text("#step-title")
    assert f"step {step['index']} · {step['name']} · {step['kind']}" in title
    # the timeline holds exactly that step's ops, each inside the step's span
    ops = p.js("window.__ta.step().getOption().series[0].data")
    assert len(ops) == sum(b["count"] for b in step["buckets"].values())
    assert all(0 <= a <= b <= step["span_ns"] / 1e3 + 1e-6 for _, a, b, _, _ in ops)
    # a step kept without detail says so instead of drawing nothing
    plain = next(i for i, w in enumerate(shown) if w == "")
    p.click_step(plain)
    assert "No op-level detail" in p.page.inner_text("#step-hint")
    assert p.errors == []


def test_numbers_shown_are_the_json_reports(browser, tmp_path):
    path, doc = write_report(tmp_path, FIXTURES / "idle_causes_nsys.sqlite", "--what-if", "cast=2")
    p = Page(browser, path)
    s = doc["summary"]
    d = s["by_kind"][s["kind"]]
    rows = p.js(f"""Array.from(document.querySelectorAll('table.buckets[data-kind="{s['kind']}"] tr'))
                   .map(tr => Array.from(tr.children).map(td => td.textContent))""")
    table = {r[0].strip(): r[1:] for r in rows[1:]}
    for b in doc["buckets"]:
        label = b + (" (unclassified)" if b == "other" else "")
        assert table[label][2] == f"{d['mean_exposed_ns'][b] / 1e6:.3f}"
        assert table[label][3] == f"{100 * d['exposed_share'][b]:.1f}%"
        assert table[label][5] == f"≤ {d['speedup_bound_if_removed'][b]:.2f}x"
    assert table["idle: host (CPU busy)"][2] == f"{d['mean_idle_causes_ns']['host'] / 1e6:.3f}"
    fixes = p.js("Array.from(document.querySelectorAll('#fix li')).map(li => li.textContent)")
    assert [f"{f['what']}: ≤ {f['bound']:.2f}x · {f['evidence']}" for f in s["findings"]] == fixes
    strip = p.js("window.__ta.strip.getOption().series.find(s => s.name === 'linear').data")
    assert strip == [st["buckets"]["linear"]["exposed_ns"] / 1e6 for st in doc["steps"]]


def test_layers_and_modules_shown_are_the_json_reports(browser, tmp_path):
    """A CUDA-graph decode whose modules were found by kernel position: every module and layer."""
    path, doc = write_report(tmp_path, FIXTURES / "moe_graph_torch.pt.trace.json.gz")
    p = Page(browser, path)
    d = doc["summary"]["by_kind"]["decode"]

    def rows(cls):
        return p.js(f"""Array.from(document.querySelectorAll('table.{cls}[data-kind="decode"] tr'))
                       .map(tr => Array.from(tr.children).map(td => td.textContent))""")[1:]

    assert [(r[0], r[1], r[4]) for r in rows("modules")] == [
        (m["name"], f"{m['time_ns'] / 1e6:.3f}", f"≤ {m['speedup_bound_if_removed']:.2f}x") for m in d["modules"]]
    layers = rows("layers")
    assert [(int(r[0]), r[1], r[2]) for r in layers] == [
        (lt["index"], lt["type"], f"{lt['time_ns'] / 1e6:.3f}") for lt in d["layers"]]
    assert len(layers) == 8 and layers[3][1] == "attention + moe"
    heads = p.js("Array.from(document.querySelectorAll('#kinds h3')).map(h => h.textContent)")
    assert heads[0] == "inside the decode step: 8 layers of 2 types (names by kernel position from the prefill step)"
    lines = p.js("Array.from(document.querySelectorAll('#kinds ul.lines li')).map(li => li.textContent)")
    assert "layer 3 takes 1.67x the median attention + moe layer: experts 1.9x" in lines
    assert p.errors == [] and all(u.startswith("file://") for u in p.requests)


def _hostile_copy(tmp_path):
    """llama_eager_nsys.sqlite with kernel names that are markup and script."""
    src = tmp_path / "hostile.sqlite"
    shutil.copy(FIXTURES / "llama_eager_nsys.sqlite", src)
    con = sqlite3.connect(src)
    ids = [r[0] for r in con.execute(
        "SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY demangledName LIMIT ?", (len(HOSTILE),))]
    for i, name in zip(ids, HOSTILE):
        con.execute("UPDATE StringIds SET value = ? WHERE id = ?", (name, i))
    con.commit()
    con.close()
    return src


def test_names_from_the_trace_are_text(browser, tmp_path):
    path, _ = write_report(tmp_path, _hostile_copy(tmp_path))
    text = open(path, encoding="utf-8").read()
    data = text[text.index('<script type="application/json" id="data">'):]
    assert "</script><script>window.__pwned" not in data and "<img" not in data
    p = Page(browser, path)
    assert p.js("window.__pwned") is None and p.errors == []
    names = p.js("window.__ta.view.detail.names")
    assert set(HOSTILE) & set(names)  # the names are there, as data
    # shown as text where the page shows names: the timeline tooltip of a hostile op
    assert "\\u202e}]);window.__pwned=3;//" in names  # a bidi override shown as a visible escape
    i = next(i for i, n in enumerate(names) if n in HOSTILE and "<" in n)
    tip = p.js(f"""(() => {{
        const D = window.__ta.view.detail, j = D.name.indexOf({i});
        window.__ta.showStep(D.steps[D.op_step[j]].row);
        const o = window.__ta.step().getOption();
        return o.tooltip[0].formatter({{value: o.series[0].data.find(v => v[4] === {i})}});
    }})()""")
    assert names[i] not in tip and "&lt;" in tip and p.js("window.__pwned") is None


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.text() | st.integers() | st.floats(allow_nan=False, allow_infinity=False),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4), max_leaves=20))
def test_embedded_data_cannot_end_its_script_element(value):
    """Whatever the names, the page's data has no character that could close the <script> element
    or open a comment, and reads back as it was."""
    text = html._script_json(value)
    assert not re.search(r"[<>&]", text)
    assert json.loads(text) == value


def test_size_stays_bounded_for_many_steps(tmp_path):
    """A 10,000-step trace gives a file under 10 MB: per-op detail only for the steps kept."""
    from tracegen import Event, Timeline, kineto_text

    ev = []
    t = 0
    for i in range(10_000):
        kind = "prefill" if i % 1000 == 0 else "decode_step"
        ev.append(Event("step", f"{kind}_{i}", t, t + 90_000))
        for j in range(6):
            s = t + 1000 + j * 14_000
            ev.append(Event("launch", "cudaLaunchKernel", s - 800, s - 200, corr=i * 10 + j + 1))
            ev.append(Event("kernel", "ampere_bf16_gemm_128x64" if j % 2 else "flash_fwd_kernel", s, s + 12_000,
                            corr=i * 10 + j + 1))
        t += 100_000
    src = tmp_path / "many.json"
    src.write_text(kineto_text(Timeline(ev)))
    out = tmp_path / "many.html"
    assert main(["report", str(src), "--format", "html", "-o", str(out), "--no-cache"]) == 0
    size = out.stat().st_size
    assert 1.2e6 < size < 10e6, size
    view = json.loads(re.search(r'id="data">(.*?)</script>', out.read_text(), re.S).group(1))
    assert view["steps"]["n"] == 10_000 and 2 <= len(view["detail"]["steps"]) <= 6  # <= 3 per kind, one rank


def _gap_tooltip(p: Page, j: int) -> tuple[str, str]:
    """Hover over gap j of the step open in the step view, as a user would, then click it: the
    tooltip's text and the line the click keeps under the chart."""
    x, y = p.js(f"""(() => {{
        const G = window.__ta.view.detail.gaps, c = window.__ta.step();
        const q = c.convertToPixel({{xAxisIndex: 0, yAxisIndex: 0}}, [(G.t0[{j}] + G.t1[{j}]) / 2e3, 0]);
        const r = document.getElementById('step').getBoundingClientRect();
        return [r.left + q[0], r.top + q[1]];
    }})()""")
    p.page.mouse.move(x - 40, y + 60)
    p.page.mouse.move(x, y)
    p.wait_until("""Array.from(document.querySelectorAll('#step div'))
                                .some(d => d.innerText.startsWith('idle '))""")
    tip = p.js("""Array.from(document.querySelectorAll('#step div')).map(d => d.innerText)
                  .filter(t => t.startsWith('idle ')).pop()""")
    p.page.mouse.click(x, y)
    return tip, p.page.inner_text("#gap")


def _dur(ns: int) -> str:
    """report.js's dur(): how the page writes a time."""
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.1f} us" if ns < 1e4 else f"{ns / 1e3:.0f} us"
    return f"{ns / 1e6:.2f} ms" if ns < 1e8 else f"{ns / 1e6:.1f} ms"


def test_idle_gaps_show_their_causes_and_the_cpu(browser, tmp_path):
    """Each idle gap of a step in the step view: its length, its largest cause and what the CPU was
    doing, on hover and on click; a step's gaps add up to the JSON report's idle causes of it."""
    src = tmp_path / "idle.sqlite"
    shutil.copy(FIXTURES / "idle_causes_nsys.sqlite", src)
    con = sqlite3.connect(src)  # the CPU's busy range named with markup
    con.execute("UPDATE NVTX_EVENTS SET text = ? WHERE text = 'host_busy_wait'", (HOSTILE[1],))
    con.commit()
    con.close()
    path, doc = write_report(tmp_path, src)
    p = Page(browser, path)
    v = p.js("window.__ta.view")
    g, shown = v["detail"]["gaps"], v["detail"]["steps"]
    assert len(g["step"]) > 100 and set(v["causes"]) == set(g["ns"])
    for k, d in enumerate(shown):  # every kept step: its gaps' causes are the JSON step's
        step = doc["steps"][d["row"]]
        mine = [j for j, s in enumerate(g["step"]) if s == k]
        assert {c: sum(g["ns"][c][j] for j in mine) for c in v["causes"]} == step["idle_causes_ns"]
        assert all(g["t1"][j] - g["t0"][j] == sum(g["ns"][c][j] for c in v["causes"]) for j in mine)
    # the longest gap where the CPU was in the range named with markup: its step opened from the
    # strip, the gap hovered and clicked
    named = [j for j in range(len(g["step"])) if g["what"][j] >= 0 and g["whats"][g["what"][j]] == HOSTILE[1]]
    j = max(named, key=lambda j: g["t1"][j] - g["t0"][j])
    row = shown[g["step"][j]]["row"]
    if row != p.js("window.__ta.shownStep"):
        p.click_step(row)
    assert p.js("window.__ta.shownStep") == row
    cause = v["causes"][g["cause"][j]]
    assert g["ns"][cause][j] == max(g["ns"][c][j] for c in v["causes"])
    tip, kept = _gap_tooltip(p, j)
    head = f"idle {_dur(g['t1'][j] - g['t0'][j])} at {g['t0'][j] / 1e3:.1f} us · largest cause: {v['idle_words'][cause]}"
    assert tip.startswith(head) and kept.startswith(head)
    what = HOSTILE[1]
    assert f"CPU: {what} (from range)" in tip and f"CPU: {what} (from range)" in kept
    for c in v["causes"]:
        if g["ns"][c][j]:
            assert f"{v['idle_words'][c]}: {_dur(g['ns'][c][j])}" in tip
    # the markup in the range's name stayed text, in the tooltip and below the chart
    assert p.js("window.__pwned") is None and p.js("document.querySelectorAll('#step img, #gap img').length") == 0
    assert p.errors == []
