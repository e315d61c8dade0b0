"""`traceattrib mcp`, driven as a coding agent would: the SDK's own client over stdio, the server a
real subprocess (`python -m traceattrib mcp`) with its own cache directory. The numbers must be
those of `report --format json` / `diff --format json`; bad input is a tool error of one line."""
from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager

import pytest

from traceattrib import analysis, parallel
from traceattrib.cli import main

from conftest import FIXTURES, ROOT

mcp = pytest.importorskip("mcp")
anyio = pytest.importorskip("anyio")

EAGER = str(FIXTURES / "llama_eager_nsys.sqlite")
TP2 = str(FIXTURES / "tp2_eager_torch")
A1, A2 = (str(FIXTURES / f"repeat_eager_a{i}.pt.trace.json.gz") for i in (1, 2))
TOOLS = {"report", "steps", "top_kernels", "explain", "diff", "findings", "layers_and_modules"}
MOE_GRAPH = str(FIXTURES / "moe_graph_torch.pt.trace.json.gz")


@asynccontextmanager
async def server(tmp_path):
    """A session with `python -m traceattrib mcp` (its cache under tmp_path/mcp-cache, its stderr in
    tmp_path/server.err)."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = {"TRACEATTRIB_CACHE_DIR": str(tmp_path / "mcp-cache"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    params = StdioServerParameters(command=sys.executable, args=["-m", "traceattrib", "mcp"], env=env, cwd=str(ROOT))
    with open(tmp_path / "server.err", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
    err = (tmp_path / "server.err").read_text()
    assert "Traceback" not in err, err


def run_async(fn, *args):
    return anyio.run(fn, *args)


def cli_json(capsys, *args) -> dict:
    rc = main([*args, "--format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


async def call(session, name: str, args: dict, progress=None) -> dict:
    r = await session.call_tool(name, args, progress_callback=progress)
    assert not r.is_error, r.content[0].text
    assert json.loads(r.content[0].text) == r.structured_content  # the same result for text-only clients
    return r.structured_content


async def error(session, name: str, args: dict) -> str:
    r = await session.call_tool(name, args)
    assert r.is_error and r.structured_content is None
    text = r.content[0].text
    assert len(r.content) == 1 and "\n" not in text and "Traceback" not in text and "\x1b" not in text, text
    return text


def test_tools_on_one_trace_match_the_json_report(tmp_path, capsys):
    want = cli_json(capsys, "report", EAGER)
    cache_dir = tmp_path / "mcp-cache"

    async def scenario():
        async with server(tmp_path) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == TOOLS
            assert tools["steps"].input_schema["properties"]["limit"]["maximum"] == 500
            assert tools["report"].input_schema["properties"]["kind"]["anyOf"][0]["enum"] == [
                "decode", "prefill", "mixed", "unknown"]
            assert all(t.output_schema and t.annotations.read_only_hint for t in tools.values())

            progress = []

            async def on_progress(done, total, message):
                progress.append((done, total))

            first = await call(s, "report", {"path": EAGER}, on_progress)
            assert first["cached"] is False and os.listdir(cache_dir)  # analyzed, and kept in the cache
            assert progress and progress[-1] == (1.0, 1.0)
            assert [p for p, _ in progress] == sorted({p for p, _ in progress})  # increasing
            assert first["summary"] == want["summary"]
            assert {k: first[k] for k in ("trace", "evidence", "evidence_why", "buckets", "notes")} == \
                {k: want[k] for k in ("trace", "evidence", "evidence_why", "buckets", "notes")}
            assert first["warnings"] == []

            again = await call(s, "report", {"path": EAGER, "kind": "prefill"})
            assert again["cached"] is True  # the second question on the trace: from the cache
            assert list(again["summary"]["by_kind"]) == ["prefill"]
            assert again["summary"]["by_kind"]["prefill"] == want["summary"]["by_kind"]["prefill"]

            page = await call(s, "steps", {"path": EAGER, "kind": "decode", "offset": 3, "limit": 4})
            decode = [st for st in want["steps"] if st["kind"] == "decode"]
            assert page["cached"] is True and page["total"] == len(decode) == 24
            assert page["steps"] == decode[3:7] and page["next_offset"] == 7
            last = await call(s, "steps", {"path": EAGER, "offset": 20, "limit": 500})
            assert last["steps"] == want["steps"][20:] and last["next_offset"] is None

            found = await call(s, "findings", {"path": EAGER})
            assert found["kind"] == want["summary"]["kind"] == "decode"
            assert found["findings"] == want["summary"]["findings"] and found["ceiling"] == want["summary"]["ceiling"]
            assert found["notes"] == want["notes"]
            shares = want["summary"]["by_kind"]["decode"]["idle_causes_share"]
            assert [a["cause"] for a in found["idle_advice"]] == sorted((c for c in shares if shares[c] >= 0.05),
                                                                        key=lambda c: -shares[c])
            assert all(a["share"] == shares[a["cause"]] and a["advice"] for a in found["idle_advice"])

            top = await call(s, "top_kernels", {"path": EAGER, "limit": 2})
            linear = await call(s, "top_kernels", {"path": EAGER, "bucket": "linear", "kind": "prefill"})
            return top, linear

    top, linear = run_async(scenario)
    rep = parallel.analyze_path(EAGER, use_cache=False)
    for got, kind, bucket, n in ((top, "decode", None, 2), (linear, "prefill", "linear", 5)):
        g = analysis.top_kernels(rep, kind, n)
        g = g[g["bucket"] == bucket] if bucket else g
        assert got["kind"] == kind and len(got["kernels"]) == len(g) > 0
        assert got["steps"] == int(g["steps"].iloc[0])
        for k, r in zip(got["kernels"], g.itertuples()):
            assert (k["bucket"], k["name"], k["total_ns"], k["count"]) == (r.bucket, r.name, r.total_ns, r.count)
            assert k["per_step_ns"] == r.total_ns / r.steps


def test_layers_and_modules_of_a_graph_replayed_decode(tmp_path, capsys):
    want = cli_json(capsys, "report", MOE_GRAPH)["summary"]["by_kind"]

    async def scenario():
        async with server(tmp_path) as s:
            dec = await call(s, "layers_and_modules", {"path": MOE_GRAPH})
            pre = await call(s, "layers_and_modules", {"path": MOE_GRAPH, "kind": "prefill"})
            missing = await error(s, "layers_and_modules", {"path": MOE_GRAPH, "kind": "mixed"})
            return dec, pre, missing

    dec, pre, missing = run_async(scenario)
    assert dec["kind"] == "decode"
    for got, kind in ((dec, "decode"), (pre, "prefill")):
        for k in ("layer_evidence", "layers", "modules", "slow_layers"):
            assert got[k] == want[kind][k]
    assert dec["layer_evidence"]["source"] == "position" and dec["layer_evidence"]["reference"] == "prefill"
    assert dec["modules"][0]["name"] == "experts" and dec["slow_layers"][0]["index"] == 3
    assert pre["layer_evidence"]["source"] == "names"
    assert missing.endswith("no mixed steps in this trace (kinds: decode, prefill)")


def test_ranks_diff_and_explain(tmp_path, capsys):
    want = cli_json(capsys, "report", TP2)
    want_diff = cli_json(capsys, "diff", A1, A2)
    rc = main(["diff", A1, A2, "--format", "json", "--no-cache", "--fail-if-slower", "0"])
    cli_gate = json.loads(capsys.readouterr().out)["gate"]
    assert rc == 0 and cli_gate["tripped"] is False and cli_gate["part"] == "median"

    async def scenario():
        async with server(tmp_path) as s:
            rep = await call(s, "report", {"path": TP2})
            assert rep["summary"] == want["summary"] and rep["trace"]["ranks"] == [0, 1]
            assert (await call(s, "report", {"path": TP2}))["cached"] is True  # every rank file from the cache
            d = await call(s, "diff", {"before": A1, "after": A2, "fail_if_slower": 0})
            assert {k: d[k] for k in want_diff if k != "gate"} == {k: v for k, v in want_diff.items() if k != "gate"}
            assert d["gate"] == cli_gate
            assert d["kinds"]["decode"]["median"]["verdict"] == "unchanged"  # the same code run twice
            assert (await call(s, "diff", {"before": A1, "after": A2}))["gate"] is None
            names = ["nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "evil\x1b[31m\nname"]
            ex = await call(s, "explain", {"kernel_names": names})
            assert [k["name"] for k in ex["kernels"]] == names  # JSON carries names as they are
            assert ex["kernels"][0]["bucket"] == "linear"

    run_async(scenario)


def test_bad_input_is_a_one_line_tool_error(tmp_path):
    fifo = tmp_path / "trace.sqlite"
    os.mkfifo(fifo)
    junk = tmp_path / "notes.json"
    junk.write_text("hello, not a trace\n")
    evil = tmp_path / "evil\x1b[31m\nname.sqlite"

    async def scenario():
        async with server(tmp_path) as s:
            assert "no such file or directory" in await error(s, "report", {"path": "/nonexistent/trace.sqlite"})
            with anyio.fail_after(30):  # a FIFO is refused before anything opens it: never a hang
                assert "not a regular file (a named pipe)" in await error(s, "steps", {"path": str(fifo)})
                assert "named pipe" in await error(s, "diff", {"before": EAGER, "after": str(fifo)})
                assert "not a regular file (a device)" in await error(s, "findings", {"path": os.devnull})
            assert "not a trace" in await error(s, "findings", {"path": str(junk)})
            # as the CLI: the message's first line, cleaned
            assert (await error(s, "report", {"path": str(evil)})).endswith("evil\\x1b[31m")
            assert "no mixed steps in this trace (kinds: decode, prefill)" in \
                await error(s, "top_kernels", {"path": EAGER, "kind": "mixed"})
            assert "limit" in await error(s, "steps", {"path": EAGER, "limit": 0})  # the schema's own check
            assert "kind" in await error(s, "report", {"path": EAGER, "kind": "training"})
            assert "model" in await error(s, "report", {"path": EAGER, "model": str(tmp_path / "none")})
            assert (await call(s, "steps", {"path": EAGER, "limit": 1}))["total"] == 25  # still serving

    run_async(scenario)


def test_without_the_sdk_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError
    assert main(["mcp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["traceattrib: error: `traceattrib mcp` needs the MCP SDK: pip install 'traceattrib[mcp]'"]
