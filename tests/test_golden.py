"""Golden outputs of the README's commands (tests/golden.py; regenerate with
`python tests/golden.py --update`), the README samples as verbatim excerpts of them, and the
README's JSON contract as the keys the JSON report really has."""
from __future__ import annotations

import difflib
import json

import pytest

import golden

# samples the README must keep marked (a marker silently dropped would unpin its sample)
README_SAMPLES = {"report_tp2_graph_torch.txt", "report_tp2_eager_torch_link.txt", "report_llama_eager_nsys.md"}


@pytest.mark.parametrize("name", sorted(golden.CASES))
def test_golden_output(name):
    want = (golden.GOLDEN / name).read_text(encoding="utf-8")
    got = golden.produce(name)
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"tests/golden/{name}", "now"))
        pytest.fail(f"output of traceattrib {' '.join(golden.CASES[name])} changed; if intended, run "
                    f"`python tests/golden.py --update` and update README.md samples:\n{diff[:6000]}")


def test_readme_samples_are_golden():
    samples = golden.readme_samples()
    assert {n for n, _ in samples} >= README_SAMPLES
    for name, text in samples:
        assert len(text.splitlines()) >= 5, name
        assert golden.is_excerpt(text, (golden.GOLDEN / name).read_text(encoding="utf-8")), \
            f"README sample {name} is not verbatim lines of tests/golden/{name}"


def test_excerpt_rules():
    full = "a\nb\nc\nd\ne"
    assert golden.is_excerpt("b\nc", full) and golden.is_excerpt("a\n...\nd\ne", full)
    assert golden.is_excerpt("...\nc\n...", full)
    assert not golden.is_excerpt("c\nb", full) and not golden.is_excerpt("d\n...\nb", full)
    assert not golden.is_excerpt("a\nc", full) and not golden.is_excerpt("b\nx", full)


def _keys(x, out: set[str]) -> set[str]:
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(x, list):
        for v in x:
            _keys(v, out)
    return out


@pytest.mark.parametrize("name", ["llama_eager_torch.pt.trace.json.gz", "tp2_eager_nsys.sqlite",
                                  "serve_piecewise_torch.pt.trace.json.gz", "idle_causes_sampled_nsys.sqlite"])
def test_json_dump_is_json_dumps_indent_1(name):
    """render.jsonout.dump (msgspec re-indenting compact JSON) gives json.dumps(indent=1)'s bytes."""
    from traceattrib.analysis import analyze
    from traceattrib.ingest import read
    from traceattrib.render import jsonout

    from conftest import FIXTURES

    rep = analyze(read(str(FIXTURES / name)))
    d = jsonout.to_dict(rep)
    assert jsonout.dump(d) == json.dumps(d, indent=1)
    # the report rendered in pieces of steps: the same bytes however the steps are cut
    want = json.dumps(d, indent=1) + "\n"
    n = len(d["steps"])
    assert n >= 2 and jsonout.render(rep) == want
    for rows in (1, 2, n - 1):
        parts = list(jsonout._step_parts(rep, rows))
        assert sum(map(len, parts)) == n and len(parts) == -(-n // rows)
        assert "".join(jsonout._pieces(rep, rows)) == want, rows
    # names with non-ASCII and control characters, empty containers, NaN (msgspec refuses: fallback)
    odd = {"é\u202e\x1b": ["\n\"", [], {}], "x": [1e-7, -0.0, 12345678901234567890, None, True]}
    assert jsonout.dump(odd) == json.dumps(odd, indent=1)
    assert jsonout.dump({"nan": float("nan")}) == json.dumps({"nan": float("nan")}, indent=1)
