"""Step kinds from what the GPU did (shapes, launch grids, KV growth, spans) first, names and
engine-known kernel variants second, on the real fixtures and on edits of them that reproduce
what other engines write (tests/edits.py): vLLM V1's one varlen FlashAttention-3 kernel for
every batch, vLLM V1 on ROCm launching its paged decode kernel in prefill steps too, a capture of
one forward, a FlashInfer mixed batch."""
from __future__ import annotations

import dataclasses
import json

import edits
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traceattrib import analyze, classify, steps
from traceattrib.ingest import read
from traceattrib.render.notes import texts
from traceattrib.steps import kinds as kinds_mod
from traceattrib.steps.vocab import parse_vocab
from traceattrib.vocab import packaged_text

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared, summary_of

# every fixture with per-step truth, and the kind of each of its steps: the capture scripts' own
# (serve_*, hf_generate) or their step names (prefill, decode_step_N); idle_causes is not a model
FIXTURE_FILES = {
    "hf_generate_torch": "hf_generate_torch.pt.trace.json.gz",
    "hybrid_eager_torch_stack": "hybrid_eager_torch_stack.pt.trace.json.gz",
    "hybrid_graph_torch": "hybrid_graph_torch.pt.trace.json.gz",
    "idle_causes_nsys": "idle_causes_nsys.sqlite",
    "idle_causes_sampled_nsys": "idle_causes_sampled_nsys.sqlite",
    "idle_causes_torch": "idle_causes_torch.pt.trace.json.gz",
    "layers_eager_nsys_nvtx": "layers_eager_nsys_nvtx.sqlite",
    "layers_eager_torch_plain": "layers_eager_torch_plain.pt.trace.json.gz",
    "layers_eager_torch_stack": "layers_eager_torch_stack.pt.trace.json.gz",
    "layers_graph_nsys": "layers_graph_nsys.sqlite",
    "layers_graph_torch": "layers_graph_torch.pt.trace.json.gz",
    "llama_eager_nsys": "llama_eager_nsys.sqlite",
    "llama_eager_torch": "llama_eager_torch.pt.trace.json.gz",
    "llama_graph_nsys": "llama_graph_nsys.sqlite",
    "llama_graph_nsys_node": "llama_graph_nsys_node.sqlite",
    "llama_graph_torch": "llama_graph_torch.pt.trace.json.gz",
    "moe_eager_torch_stack": "moe_eager_torch_stack.pt.trace.json.gz",
    "moe_graph_torch": "moe_graph_torch.pt.trace.json.gz",
    "repeat_eager_a1": "repeat_eager_a1.pt.trace.json.gz",
    "repeat_eager_a2": "repeat_eager_a2.pt.trace.json.gz",
    "repeat_graph_b1": "repeat_graph_b1.pt.trace.json.gz",
    "repeat_graph_b2": "repeat_graph_b2.pt.trace.json.gz",
    "serve_eager_noann_torch": "serve_eager_noann_torch.pt.trace.json.gz",
    "serve_full_noann_torch": "serve_full_noann_torch.pt.trace.json.gz",
    "serve_mixed_noann_nsys": "serve_mixed_noann_nsys.sqlite",
    "serve_mixed_noann_torch": "serve_mixed_noann_torch.pt.trace.json.gz",
    "serve_mixed_torch": "serve_mixed_torch.pt.trace.json.gz",
    "serve_piecewise_noann_nsys": "serve_piecewise_noann_nsys.sqlite",
    "serve_piecewise_noann_torch": "serve_piecewise_noann_torch.pt.trace.json.gz",
    "serve_piecewise_nsys": "serve_piecewise_nsys.sqlite",
    "serve_piecewise_torch": "serve_piecewise_torch.pt.trace.json.gz",
    "tp2_eager_nsys": "tp2_eager_nsys.sqlite",
    "tp2_eager_torch": "tp2_eager_torch",
    "tp2_graph_torch": "tp2_graph_torch",
}


def truth(name: str) -> list[dict]:
    paths = sorted(FIXTURES.glob(f"{name}.steps.json")) or sorted(FIXTURES.glob(f"{name}.rank0.steps.json"))
    return json.load(open(paths[0]))["steps"]


def truth_kinds(name: str) -> list[str]:
    if name.startswith("idle_causes"):
        return ["unknown"] * len(truth(name))
    return [s.get("kind") or ("prefill" if s["name"] == "prefill" else "decode") for s in truth(name)]


def load(name: str):
    return read(str(FIXTURES / FIXTURE_FILES[name]))


def kinds_by_rank(rep) -> dict[int, list[str]]:
    return {int(r): list(g["kind"]) for r, g in rep.steps.groupby("rank")}


# the nsys export of a mixed batch has no shapes to tell it from a prefill: its own test says so
@pytest.mark.parametrize("name", sorted(set(FIXTURE_FILES) - {"serve_mixed_noann_nsys"}))
def test_every_fixture_gets_its_true_kinds_from_physical_evidence(name):
    """The fixtures' step names renamed step_<i> (same windows, no kind words, no counts): the
    kinds still come out right, from shapes, launch grids, KV growth, spans and graph replays;
    and with the names, every source agrees (nothing in kind_against)."""
    want = truth_kinds(name)
    named = analyze(load(name))
    for r, got in kinds_by_rank(named).items():
        assert got == want, r
    assert (named.steps["kind_against"] == "").all()
    rep = analyze(edits.neutral_step_names(load(name)))
    assert len(rep.steps) == len(named.steps)
    for r, got in kinds_by_rank(rep).items():
        assert got == want, (r, list(rep.steps["kind_evidence"]))
    ev = rep.steps["kind_evidence"].to_numpy()
    assert not any(e.startswith("name") for e in ev)  # the names said nothing
    # a prefill is slow because it holds more tokens: never a warm-up step or an outlier
    pre = rep.steps[rep.steps["kind"] == "prefill"]
    assert not pre["warmup"].any() and not pre["outlier"].any()


@pytest.mark.parametrize("name", ["serve_piecewise_torch", "serve_eager_noann_torch", "hf_generate_torch",
                                  "serve_piecewise_nsys", "serve_piecewise_noann_nsys"])
def test_tokens_from_names_shapes_or_launch_grids(name):
    """Tokens per step: from the name's counts, the GEMMs' rows, else the row kernels' grids (the
    nsys exports have no shapes: the embedding and position gathers launch one block per token)."""
    rep = analyze(load(name))
    want = [s["tokens"] for s in truth(name)]
    assert list(rep.steps["tokens"]) == want
    if name.endswith("noann_nsys"):
        assert list(analyze(edits.neutral_step_names(load(name))).steps["tokens"]) == want


def test_layers_nsys_tokens_from_layer_norm_grids():
    """nsys demangles torch's anonymous namespace as <unnamed>: the rms_norm kernel (one block per
    row) still counts rows: 16 sequences x 128 prompt tokens, then 16 per decode step."""
    rep = analyze(load("layers_eager_nsys_nvtx"))
    assert list(rep.steps["tokens"]) == [2048] + [16] * 6


# --- what other engines write ------------------------------------------------------------------

def _vllm_fa3(name: str, shapes: bool = False):
    """The fixture as vLLM V1 on Hopper would show it: no step names, every attention kernel (the
    prefill's, the decodes' split-KV kernels) one persistent varlen FA3 kernel, the split-KV
    combine kernels FA3's combine kernel."""
    t = edits.without_names(load(name))
    if not shapes:
        t = edits.without_shapes(t)
    att = edits.attention_rows(t)
    comb = t.kernels["name"].astype(str).str.contains("combine").to_numpy()
    t = edits.rename_kernels(t, att & ~comb, edits.FA3_VARLEN, grid=(edits.H100_SMS, 1, 1))
    return edits.rename_kernels(t, att & comb, edits.FA3_COMBINE)


@pytest.mark.parametrize("name", ["serve_piecewise_noann_nsys", "serve_eager_noann_torch", "serve_full_noann_torch",
                                  "llama_eager_nsys", "llama_graph_nsys_node"])
def test_one_varlen_kernel_for_every_batch_is_not_a_prefill_kernel(name):
    """vLLM V1 TP=4 on H100 (FA3 varlen for prefill, decode and mixed batches) was called all
    prefill, its real prefill flagged an outlier. Here every attention kernel of a real trace is
    that one kernel with a fixed grid: the first step is the only prefill, from launch grids (and
    tokens), and it is neither warm-up nor outlier."""
    rep = analyze(_vllm_fa3(name))
    st = rep.steps
    want = truth_kinds(name)
    assert list(st["kind"]) == want
    assert not any("attention kernel" in e for e in st["kind_evidence"])
    assert all("launch grid" in e for e in st["kind_evidence"])
    pre = st[st["kind"] == "prefill"]
    assert len(pre) == 1 and not pre["warmup"].any() and not pre["outlier"].any()
    assert summary_of(rep)["by_kind"]["prefill"]["summarized_steps"] == 1


def _engine_attention(later: str, first_even: str, first_odd: str):
    """serve_eager_noann_torch without names and shapes, its attention kernels renamed as another
    engine's: `later` in every step but the first, whose attention kernels alternate between
    `first_even` and `first_odd`."""
    t = edits.without_shapes(edits.without_names(load("serve_eager_noann_torch")))
    att = edits.attention_rows(t)
    first = analyze(t).kernels["step"].to_numpy() == 0
    pre = np.flatnonzero(att & first)
    t = edits.rename_kernels(t, att & ~first, later)
    for rows, name in ((pre[::2], first_even), (pre[1::2], first_odd)):
        mask = np.zeros(len(att), bool)
        mask[rows] = True
        t = edits.rename_kernels(t, mask, name)
    return t


def test_paged_decode_kernel_in_the_prefill_step_does_not_make_it_a_decode():
    """vLLM V1 on MI300X (its paged decode kernel launched over every sequence, prefill steps
    included) was called all decode. Here the decodes' attention is that kernel, the prefill's
    attention half that kernel, half the Triton prefill kernel: kinds from launch grids."""
    t = _engine_attention(edits.ROCM_PAGED_DECODE, edits.ROCM_PAGED_DECODE, edits.ROCM_PREFILL)
    st = analyze(t).steps
    assert list(st["kind"]) == ["prefill"] + ["decode"] * 10
    assert not st["warmup"].iloc[0] and not st["outlier"].iloc[0]


def _iteration_window(rep, i: int) -> tuple[int, int]:
    """[start, end) of step i's whole iteration: from its start to the next step's (the logits and
    sampling after the forward included) or to its last GPU op's end when that comes later (the
    host opens the next step while the GPU finishes this one): what a capture of that iteration
    alone holds."""
    s = rep.steps
    start = np.minimum(s["start_ns"].to_numpy(), s["cpu_start_ns"].to_numpy())
    end = int(s["end_ns"].iloc[i]) + 1
    return int(start[i]), max(int(start[i + 1]), end) if i + 1 < len(s) else end


@pytest.mark.parametrize("name,index,kind,source", [
    ("serve_piecewise_noann_nsys", 0, "prefill", "tokens per sequence"),  # grids: 512 tokens, 4 gathered
    ("llama_eager_torch", 0, "prefill", "tokens per sequence"),           # shapes: 256 queries, 1 sequence
    ("hf_generate_torch", 0, "prefill", "tokens per sequence"),           # shapes: 2 sequences x 64
    ("hf_generate_torch", 5, "decode", "tokens per sequence"),            # shapes: 1 query per sequence
    ("serve_eager_noann_torch", 3, "decode", "tokens per sequence"),      # shapes: 4 tokens, 4 sequences
    ("llama_eager_nsys", 0, "unknown", ""),  # 256 rows, no sequence count: nothing says how many sequences
])
def test_a_capture_of_one_forward_gets_its_kind(name, index, kind, source):
    """A trace of a single forward (vLLM on B200, one 888-token forward, was `unknown`): the kind
    from tokens per sequence, when the trace says it."""
    full = analyze(load(name))
    t = edits.without_names(load(name))
    one = edits.window(t, *_iteration_window(full, index))
    st = analyze(one).steps
    assert len(st) == 1
    assert st["kind"].iloc[0] == kind
    assert st["kind_evidence"].iloc[0].split(", ")[0] == source


@pytest.mark.parametrize("name,index,kind", [("llama_eager_torch", 0, "prefill"), ("hf_generate_torch", 0, "prefill"),
                                             ("hf_generate_torch", 5, "unknown"), ("serve_piecewise_torch", 0, "prefill"),
                                             ("serve_eager_noann_torch", 4, "unknown")])
def test_one_forward_with_flattened_tokens_counts_sequences_by_the_lm_head(name, index, kind):
    """vLLM V1's shapes count no sequences (1-D token ids, a custom attention op): the lm_head,
    which multiplies one row per sequence (the last token of each), does. A capture of one
    iteration with shapes on the GEMMs only: llama 256 tokens / 1 row, hf_generate 128 / 2, serve
    512 / 4 are prefills. A lone decode (2 / 2; 4 / 4 eager) stays unknown: as many rows as tokens is
    also what an engine that computes every token's logits shows."""
    full = analyze(load(name))
    t = edits.gemm_shapes_only(edits.without_names(load(name)))
    st = analyze(edits.window(t, *_iteration_window(full, index))).steps
    assert len(st) == 1 and st["kind"].iloc[0] == kind
    assert st["kind_evidence"].iloc[0].split(", ")[0] == ("tokens per sequence" if kind == "prefill" else "")
    assert st["tokens"].iloc[0] == full.steps["tokens"].iloc[index]


@pytest.mark.parametrize("name,index,seqs", [("serve_piecewise_noann_nsys", 0, 4), ("serve_piecewise_torch", 0, 4),
                                             ("hf_generate_torch", 0, 2), ("llama_eager_torch", 0, 1)])
def test_a_prefill_from_a_mean_over_flattened_sequences_may_be_mixed(name, index, seqs):
    """Tokens over the logits rows (512 / 4) say prefill, but not whether all four sequences were
    prefilled or one chunk was batched with three decodes (vLLM V1's mixed batch): a note says the
    trace cannot tell, counting the steps; one sequence (256 / 1) leaves no doubt."""
    full = analyze(load(name))
    t = edits.without_names(load(name))
    if name.endswith("torch"):
        t = edits.gemm_shapes_only(t)
    rep = analyze(edits.window(t, *_iteration_window(full, index)))
    assert list(rep.steps["kind"]) == ["prefill"]
    said = [n for n in rep.notes if n.code == "steps.maybe_mixed"]
    assert [n.counts for n in said] == ([(1,)] if seqs > 1 else [])
    if seqs > 1:
        assert any(x.startswith("1 prefill step(s) are called so from their tokens over their sequences")
                   for x in texts(rep.notes))


def test_a_request_joining_running_decodes_is_a_mixed_step():
    """A real capture of a new request prefilled in the same forward as three running decodes
    (serve_like.py --join-at 4, each sequence's attention its own op). Without any annotation the
    steps are still found (the once-per-forward kernels recur at two periods, before and after the
    join) and the joining step is mixed: its queries see one key more than the step before (the
    running decodes) while one attention op took 128 query tokens (the new request). The nsys
    export has no shapes: its tokens over the gathered rows say prefill, and a note says the
    trace cannot tell that from a mixed batch."""
    want = truth_kinds("serve_mixed_noann_torch")
    assert want == ["prefill", "decode", "decode", "decode", "mixed"] + ["decode"] * 4
    st = analyze(load("serve_mixed_noann_torch")).steps
    assert list(st["kind"]) == want
    assert st["kind_evidence"].iloc[4].split(", ")[0] == "KV +1 per step"
    assert list(st["tokens"]) == [s["tokens"] for s in truth("serve_mixed_noann_torch")]
    rep = analyze(load("serve_mixed_noann_nsys"))
    assert rep.evidence == "detected" and len(rep.steps) == 9
    assert list(rep.steps["kind"]) == ["prefill"] + ["decode"] * 3 + ["prefill"] + ["decode"] * 4
    assert list(rep.steps["tokens"]) == [s["tokens"] for s in truth("serve_mixed_noann_nsys")]
    assert [n.counts for n in rep.notes if n.code == "steps.maybe_mixed"] == [(2,)]


def test_packed_query_heads_of_a_decode_are_not_a_prefilled_sequence():
    """KV +1 per step votes mixed only for an attention op over 16+ query tokens of one sequence
    beside the decodes: decode code that packs 16 query heads per KV head shows 16 as the query
    length of every sequence (its GEMMs' rows per sequence are 1, its tokens its logits rows)."""
    n = 3
    none = np.full(n, -1, np.int64)

    def phys(q_max, tokens, seqs, logits):
        return kinds_mod.Physical(np.array(tokens), np.array(logits), none, np.array(seqs), np.array([100, 101, 102]),
                                  none, none, np.full(n, np.nan), np.ones(n, bool), np.array(q_max))

    def vote(p, tokens):
        f = kinds_mod._Facts(None, np.array(tokens), p, np.ones(n), np.zeros(n, np.int64), None, None, None)
        return list(kinds_mod._by_kv_growth(f))

    # 16 sequences decoding, 16 query heads per KV head packed as queries, one batched call
    assert vote(phys([16, 16, 16], [16, 16, 16], [16, 16, 16], [16, 16, 16]), [16] * 3) == ["", "decode", "decode"]
    # ... the same with one call per sequence: 16 tokens, 16 logits rows: nothing beyond one each
    assert vote(phys([16, 16, 16], [16, 16, 16], [1, 1, 1], [16, 16, 16]), [16] * 3) == ["", "decode", "decode"]
    # a request of 128 tokens joined three decodes, one call per sequence
    assert vote(phys([1, 1, 128], [3, 3, 131], [1, 1, 1], [3, 3, 4]), [3, 3, 131]) == ["", "decode", "mixed"]
    # 64 decodes in one batched call and a request of 512 tokens in its own
    assert vote(phys([4, 4, 512], [64, 64, 576], [64, 64, 64], [64, 64, 65]), [64, 64, 576]) == \
        ["", "decode", "mixed"]


@pytest.mark.parametrize("pattern,layers", [
    (["gemm", "att"] * 4, 4),                        # one attention call per layer
    (["gemm", "att", "att", "att", "att"] * 4, 4),   # one call per sequence: the runs between GEMMs
    (["graph", "att"] * 8 + ["gemm"], 8),            # a layer's GEMMs inside captured pieces (graph ops)
    (["att"] * 8, 8),                                # nothing separates them: the name count stands
])
def test_layers_are_runs_of_attention_where_names_repeat_within_a_layer(pattern, layers):
    kind = np.array(["graph" if p == "graph" else "kernel" for p in pattern], object)
    code = np.array([1 if p == "att" else 2 for p in pattern])
    ops = pd.DataFrame({"kind": pd.Categorical(kind, ["kernel", "memcpy", "memset", "graph"]), "name_code": code})
    att = np.array([p == "att" for p in pattern])
    model = np.array([p in ("att", "gemm") for p in pattern])
    got = kinds_mod.layers_per_step(ops, np.zeros(len(pattern), np.int64), 1, att, model)
    assert list(got) == [layers]


def test_flashinfer_prefill_and_decode_kernels_in_one_step_make_it_mixed():
    """A chunked-prefill batch under FlashInfer runs the ragged prefill kernel for the new tokens
    and the decode kernel for the running sequences in one forward: mixed."""
    t = _engine_attention(edits.FLASHINFER_DECODE, edits.FLASHINFER_RAGGED, edits.FLASHINFER_DECODE)
    st = analyze(t).steps
    assert list(st["kind"]) == ["mixed"] + ["decode"] * 10
    assert st["kind_evidence"].iloc[0].startswith("attention kernel")
    assert "attention kernel" in st["kind_evidence"].iloc[1]
    # the rule counts only where its engine ran: a vocabulary whose FlashInfer marker matches
    # nothing leaves the kernels unread
    text = packaged_text("steps").replace("engine = '\\bflashinfer::'", "engine = 'no engine by this name'")
    vocab = parse_vocab(text)
    buckets = classify.classify_kernels(t.kernels, classify.load_rules())["bucket"]
    got = steps.find_steps(t, kernel_buckets=buckets, vocab=vocab).table
    assert list(got["kind"]) == ["prefill"] + ["decode"] * 10
    assert not any("attention kernel" in e for e in got["kind_evidence"])


def test_evidence_that_disagrees_is_listed():
    """A step named decode whose GPU work is a prefill: the physical evidence decides and the name
    is listed against it."""
    t = load("llama_eager_torch")
    r = t.ranges.copy()
    names = r["name"].astype(str).to_numpy().astype(object)
    names[names == "prefill"] = "decode_step_first"
    r["name"] = pd.Categorical(names)
    rep = analyze(dataclasses.replace(t, ranges=r))
    s = rep.steps.iloc[0]
    assert s["kind"] == "prefill" and s["kind_against"] == "name=decode"
    assert s["kind_evidence"].startswith("tokens per sequence")
    assert any("1 step(s) where some evidence said another kind (name" in n for n in texts(rep.notes))


# --- other people's traces ---------------------------------------------------------------------

@needs_shared
def test_public_hf_forward_of_16_sequences_is_a_prefill():
    """TraceLens H100 HF Qwen1.5-0.5B: one forward of 16 sequences x 559 tokens (attention
    queries = keys = 559), no kind in its name: a prefill."""
    st = analyze(read(str(PUBLIC / "tracelens_h100_qwen15_05b_hf_eager.json.gz"))).steps
    assert list(st["kind"]) == ["prefill"] and st["tokens"].iloc[0] == 8944
    assert st["kind_evidence"].iloc[0] == "tokens per sequence"


@needs_shared
def test_public_vllm_capture_tokens_from_the_cache_write_grid():
    """vLLM on MI300X, graph capture: the KV-cache write launches one block per token (8192, what
    the shapes say); a dummy forward with no sequence count gets no kind."""
    st = analyze(read(str(PUBLIC / "tracelens_mi300_vllm_graph_capture.json.gz"))).steps
    assert st["tokens"].iloc[0] == 8192 and st["kind"].iloc[0] == "unknown"


@needs_shared
@pytest.mark.parametrize("name", ["cestwc_balinski-and-gomory-cuda__ddb2578__report13.sqlite",
                                  "GindaChen_nsys-ai__387e5a5__h100_2gpu_1s.sqlite"])
def test_public_programs_that_are_not_serving_get_no_kind(name):
    """A graph algorithm (no GEMM or attention kernels) and a model whose every step holds 2500
    rows: neither prefill nor decode."""
    path = NSYS_VERSIONS / name
    if not path.exists():
        pytest.skip("absent")
    st = analyze(read(str(path))).steps
    assert set(st["kind"]) == {"unknown"}


# --- the decision itself -----------------------------------------------------------------------

VOTE = st.sampled_from(["", "", "prefill", "decode", "mixed"])
# sources whose mixed vote refines a prefill or decode that an earlier source gave, in the order they decide
REFINERS = ("attention kernel", "KV +1 per step")


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.lists(VOTE, min_size=len(kinds_mod.ORDER), max_size=len(kinds_mod.ORDER)), min_size=1, max_size=6))
def test_the_first_vote_decides_and_the_rest_are_sorted_for_or_against(rows):
    votes = {s: np.array([r[i] for r in rows], dtype=object) for i, s in enumerate(kinds_mod.ORDER)}
    kind, ev, against = kinds_mod._decide(votes, len(rows))
    for j, r in enumerate(rows):
        said = [(s, v) for s, v in zip(kinds_mod.ORDER, r) if v]
        if not said:
            assert kind[j] == "unknown" and ev[j] == "" and against[j] == ""
            continue
        first_src, first_kind = said[0]
        refiner = next((x for x in REFINERS if votes[x][j] == "mixed"), None)
        refine = refiner is not None and first_src != "name (counts)"
        assert kind[j] == ("mixed" if refine else first_kind)
        assert ev[j].split(", ")[0] == kinds_mod._label(refiner if refine and first_kind != "mixed" else first_src)
        for a in filter(None, against[j].split(", ")):
            assert a.split("=")[1] != kind[j]
        if kind[j] == "mixed":
            assert against[j] == ""


def _decide_step_by_step(votes: dict, n: int):
    """kinds._decide's evidence and against written as a loop over the steps (its definition)."""
    order = [s for s in kinds_mod.ORDER if s in votes]
    kind, _, _ = kinds_mod._decide(votes, n)
    first = []
    for i in range(n):
        said = [s for s in order if votes[s][i] != ""]
        refiner = next((x for x in REFINERS if x in votes and votes[x][i] == "mixed"), None)
        refine = refiner is not None and said and said[0] != "name (counts)" and votes[said[0]][i] != "mixed"
        first.append(refiner if refine else (said[0] if said else ""))
    ev, ag = [], []
    for i in range(n):
        k = kind[i]
        if k == "unknown":
            ev.append("")
            ag.append("")
            continue
        agree = [first[i]] + [s for s in order if s != first[i] and votes[s][i] != "" and (votes[s][i] == k or k == "mixed")]
        ev.append(", ".join(kinds_mod._label(s) for s in dict.fromkeys(agree)))
        ag.append(", ".join(f"{kinds_mod._label(s)}={votes[s][i]}" for s in order
                            if votes[s][i] not in ("", k) and k != "mixed"))
    return ev, ag


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.lists(VOTE, min_size=len(kinds_mod.ORDER), max_size=len(kinds_mod.ORDER)), min_size=1, max_size=4),
       st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_evidence_worked_out_per_vote_combination_is_the_step_by_step_one(patterns, picks):
    """Steps repeat a few vote combinations (decode steps alike): the words worked out once per
    combination equal the words of each step worked out on its own."""
    rows = [patterns[p % len(patterns)] for p in picks]
    votes = {s: np.array([r[i] for r in rows], dtype=object) for i, s in enumerate(kinds_mod.ORDER)}
    _, ev, against = kinds_mod._decide(votes, len(rows))
    want_ev, want_ag = _decide_step_by_step(votes, len(rows))
    assert list(ev) == want_ev and list(against) == want_ag


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
          deadline=None)
@given(st.integers(min_value=1, max_value=10), st.integers(min_value=1, max_value=9))
def test_launch_grid_scale_moves_with_the_step_grids(bits, index):
    """Multiply one decode step's launch grids by 2**bits: its scale rises by `bits` and the other
    decode steps' stay (the median over steps of each kernel holds)."""
    from traceattrib.steps import physical

    t = load("serve_eager_noann_torch")
    buckets = classify.classify_kernels(t.kernels, classify.load_rules())["bucket"]
    base = steps.find_steps(t, kernel_buckets=buckets)
    step = base.ops["step"].to_numpy()
    s0 = physical.grid_scale(t, base.ops, step, len(base.table))
    k = t.kernels.copy()
    kstep = np.full(len(k), -1)
    m = (base.ops["kind"] == "kernel").to_numpy()
    kstep[base.ops["src"].to_numpy()[m]] = step[m]
    sel = kstep == index
    k["grid_x"] = np.where(sel, k["grid_x"].to_numpy().astype(np.int64) * 2 ** bits, k["grid_x"]).astype(np.int64)
    t2 = dataclasses.replace(t, kernels=k)
    s1 = physical.grid_scale(t2, base.ops, step, len(base.table))
    assert s1[index] == pytest.approx(s0[index] + bits)
    decodes = (np.arange(len(s0)) != index) & (np.arange(len(s0)) > 0)
    assert np.allclose(s1[decodes], s0[decodes])


@settings(max_examples=160, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(-3, 3), st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-10 ** 6, 10 ** 6)),
                min_size=0, max_size=40), st.sampled_from([None, True, False]), st.booleans())
def test_group_medians_are_pandas_grouped_figures(rows, select, integers):
    """stats.group_medians (the launch grids' medians per kernel and per step, the kernels' per
    name) gives, per group in ascending order, pandas' grouped median, count, min and max (equal as
    numbers: of a group holding -0.0 and 0.0 either may come back as its least value), by sorting
    or by selection alike, of float and of integer values."""
    from traceattrib.stats import group_medians

    group = np.array([r[0] for r in rows], np.int64)
    x = np.array([int(r[1]) if integers else float(r[1]) for r in rows], np.int64 if integers else np.float64)
    g, med, n, lo, hi = group_medians(group, x, select)
    ref = pd.Series(x).groupby(group)
    assert g.tolist() == sorted(set(group.tolist()))
    assert med.tolist() == ref.median().tolist() and n.tolist() == ref.size().tolist()
    assert lo.tolist() == ref.min().tolist() and hi.tolist() == ref.max().tolist()


def test_engine_counts_of_both_kinds_make_a_mixed_step():
    """vLLM names a chunked-prefill batch by its counts (context and generation requests in one
    forward): the first step of a real trace renamed so is mixed, decided by the name; the GPU's
    evidence (a prefill's tokens) does not contradict a batch that holds both."""
    t = load("serve_piecewise_torch")
    r = t.ranges.copy()
    names = r["name"].astype(str).to_numpy().astype(object)
    names[names == "execute_context_4(512)_generation_0(0)"] = "execute_context_1(509)_generation_3(3)"
    r["name"] = pd.Categorical(names)
    st = analyze(dataclasses.replace(t, ranges=r)).steps
    assert list(st["kind"]) == ["mixed"] + ["decode"] * 10
    assert st["kind_evidence"].iloc[0].split(", ")[0] == "name" and st["kind_against"].iloc[0] == ""
    assert st["tokens"].iloc[0] == 512


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([-2 ** 63, -3, -1, 0, 1, 2, 3, 2 ** 63 - 1])),
                max_size=60), st.booleans())
def test_mode_matches_pandas(rows, larger):
    """physical._mode against its plain equivalent: pandas' value counts per step, the most common
    value first, ties by the larger (or smaller) value."""
    from traceattrib.steps.physical import _mode

    step = np.array([r[0] for r in rows], np.int64)
    value = np.array([r[1] for r in rows], np.int64)
    want = np.full(6, -1, np.int64)
    if rows:
        cnt = pd.DataFrame({"s": step, "v": value}).value_counts().rename("n").reset_index()
        best = cnt.sort_values(["s", "n", "v"], ascending=[True, False, not larger]).drop_duplicates("s")
        want[best["s"].to_numpy()] = best["v"].to_numpy()
    assert _mode(step, value, 6, larger).tolist() == want.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["aten::mm", "aten::bmm", "a\0b", None]),
                          st.sampled_from(["", "[[1,2],[2,3]]", "[[4]]", None])), max_size=30), st.booleans())
def test_pairs_match_text_pairs(rows, categorical):
    """physical._pairs against its plain equivalent: each row's (name, dims) as texts (a missing
    value reads "nan"), the distinct pairs in order of first appearance."""
    from traceattrib.steps.physical import _pairs

    a = pd.Series([r[0] for r in rows], dtype="category" if categorical else object)
    b = pd.Series([r[1] for r in rows], dtype="category" if categorical else object)
    keys, uniq = _pairs(a, b)
    want = [("nan" if x is None else x, "nan" if y is None else y) for x, y in rows]
    assert [uniq[k] for k in keys] == want
    assert uniq == list(dict.fromkeys(want))
    # rows of a larger table, as the callers take them: categories no row here uses
    whole = pd.Series([r[0] for r in rows] + ["aten::addmm", "unused"], dtype="category")
    keys, uniq = _pairs(whole.iloc[:len(rows)], b)
    assert [uniq[k] for k in keys] == want
