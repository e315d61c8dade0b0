"""What each step is: prefill, decode, mixed or unknown, how many tokens it processed and how many
layers it holds, from the best evidence, each step saying which.

Evidence, best first: the step's name (vLLM's context/generation counts, SGLang's forward mode,
TensorRT-LLM's ctx/gen requests, kind words); tokens from shapes (the M dimension of the GEMMs,
torch traces recorded with record_shapes); attention kernels that only run for one kind
(split-KV/paged decode kernels, varlen/prefill kernels); CUDA-graph replays of the whole model
(decode, unless another source says otherwise; eager steps among them are the prefills); launch
grids (a few steps launching far more thread blocks than the rest are prefills); spans (a few
steps far longer than the rest). A prefill is slow by nature: warm-up flagging never takes one.
"""
from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pandas as pd

from ..model import Trace
from ..notes import Note, note
from .ops import name_in, pair_counts
from .vocab import Vocab, gemm_token_ops

GEMM_OPS = gemm_token_ops()


def name_evidence(names: pd.Series, vocab: Vocab) -> pd.DataFrame:
    """Per step name: kind ('prefill' | 'decode' | 'mixed' | 'none' (no forward) | 'unknown') and
    tokens (-1 unknown), read once per distinct name."""
    uniq, inv = np.unique(names.astype(str).to_numpy(), return_inverse=True)
    kinds, tokens = [], []
    for n in uniq:
        k, t = _one_name(n, vocab)
        kinds.append(k)
        tokens.append(t)
    return pd.DataFrame({"kind": np.array(kinds, dtype=object)[inv.reshape(-1)],
                         "tokens": np.array(tokens, dtype=np.int64)[inv.reshape(-1)]})


def _one_name(name: str, vocab: Vocab) -> tuple[str, int]:
    for fam in vocab.families:
        m = fam.regex.search(name)
        if not m:
            continue
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        if "ctx_reqs" in g or "gen_reqs" in g:
            c, n = int(g.get("ctx_reqs", 0)), int(g.get("gen_reqs", 0))
            tok = int(g["ctx_tokens"]) + int(g.get("gen_tokens", 0)) if "ctx_tokens" in g else -1
            if "total_tokens" in g:
                tok = int(g["total_tokens"])
            return ({(True, False): "prefill", (False, True): "decode", (True, True): "mixed",
                     (False, False): "none"}[(c > 0, n > 0)], tok)
        if "new_reqs" in g:
            new, cached = int(g["new_reqs"]), int(g["cached_reqs"])
            # 'cached' also counts continuing prefill chunks: new == 0 is decode or chunked prefill
            return ({(True, False): "prefill", (False, True): "decode", (True, True): "mixed",
                     (False, False): "none"}[(new > 0, cached > 0)], -1)
        if "mode" in g:
            mode = g["mode"].upper()
            kind = next((k for k, ms in vocab.modes.items() if mode in ms), "unknown")
            tok = int(g["toks"]) if "toks" in g else (int(g["bs"]) if kind == "decode" and "bs" in g else -1)
            return kind, tok
        break  # a family without counts: fall through to kind words
    return word_kind(name, vocab), -1


def word_kind(name: str, vocab: Vocab) -> str:
    """prefill | decode | mixed | unknown from kind words in a name."""
    hits = {k for k, p in vocab.kind_words.items() if p.search(name)}
    if "mixed" in hits or {"prefill", "decode"} <= hits:
        return "mixed"
    return hits.pop() if hits else "unknown"


def is_training(trace: Trace) -> bool:
    """Backward kernels or autograd ops in the trace: a training step, not prefill or decode."""
    words = ("backward", "bwd", "wgrad", "dgrad", "autograd::engine")
    for col in (trace.kernels["name"], trace.kernels["op"]):
        cats = col.cat.categories if hasattr(col, "cat") else pd.Index(col.unique())
        if any(any(w in str(c).lower() for w in words) for c in cats):
            return True
    return False


# --- tokens from shapes --------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def gemm_rows(op: str, dims: str) -> int:
    """Rows (tokens) a GEMM op multiplies, from its input dims text; -1 when not a GEMM or unknown."""
    if op not in GEMM_OPS or not dims:
        return -1
    try:
        d = json.loads(dims)
    except ValueError:
        return -1
    try:
        if op in ("aten::mm", "aten::_scaled_mm"):
            return int(d[0][0])
        if op == "aten::addmm":
            return int(d[1][0])
        if op in ("aten::linear", "aten::matmul"):
            return int(np.prod(d[0][:-1])) if len(d[0]) >= 2 else 1
        if op in ("aten::bmm", "aten::baddbmm"):
            x = d[0] if op == "aten::bmm" else d[1]
            return int(x[0] * x[1])
    except (IndexError, TypeError, ValueError):
        return -1
    return -1


def tokens_from_shapes(trace: Trace, ops: pd.DataFrame, nsteps: int) -> np.ndarray:
    """Tokens per step: the most common row count (ties: the larger) of the GEMM ops whose kernels
    the step holds, each op counted once; -1 where no GEMM has shapes."""
    out = np.full(nsteps, -1, np.int64)
    k, c = trace.kernels, trace.cpu_ops
    if not len(k) or not len(c):
        return out
    shaped = ~name_in(c["input_dims"], [""])
    if not shaped.any():
        return out
    kern = (ops["kind"] == "kernel").to_numpy() & (ops["step"].to_numpy() >= 0)
    if not kern.any():
        return out
    src = ops["src"].to_numpy()[kern]
    op_id = k["op_id"].to_numpy()[src]
    has = op_id >= 0
    if not has.any():
        return out
    inst = pd.DataFrame({"rank": k["rank"].to_numpy()[src][has], "ext_id": op_id[has],
                         "step": ops["step"].to_numpy()[kern][has]}).drop_duplicates(["rank", "ext_id"])
    # only GEMM ops have rows (gemm_rows is -1 for the others, which are not counted)
    shapes = c.loc[shaped & name_in(c["name"], GEMM_OPS), ["rank", "ext_id", "name", "input_dims"]]
    inst = inst.merge(shapes, on=["rank", "ext_id"], how="inner")
    if not len(inst):
        return out
    pairs = inst[["name", "input_dims"]].astype(str)
    keys, uniq = pd.factorize(pairs["name"] + "\0" + pairs["input_dims"])
    rows = np.array([gemm_rows(*u.split("\0", 1)) for u in uniq], np.int64)[keys]
    g = pd.DataFrame({"step": inst["step"].to_numpy(), "m": rows})
    g = g[g["m"] > 0]
    if not len(g):
        return out
    cnt = g.groupby(["step", "m"]).size().rename("n").reset_index()
    best = cnt.sort_values(["step", "n", "m"], ascending=[True, False, False]).drop_duplicates("step")
    out[best["step"].to_numpy()] = best["m"].to_numpy()
    return out


# --- layers --------------------------------------------------------------------------------------

def layers_per_step(ops: pd.DataFrame, nsteps: int, attention: np.ndarray | None) -> np.ndarray:
    """Layers each step holds: the most common count (ties: the smaller) among its attention kernel
    names (each layer calls attention once), else among all its kernel names that repeat; -1 none.

    attention: per op, True for attention kernels (None: unknown)."""
    out = np.full(nsteps, -1, np.int64)
    kern = (ops["kind"] == "kernel").to_numpy() & (ops["step"].to_numpy() >= 0)
    for sel in ((kern & attention) if attention is not None else None, kern):
        if sel is None or not sel.any() or (out >= 0).all():
            continue
        cnt = pair_counts(ops["step"].to_numpy()[sel], ops["name_code"].to_numpy()[sel], ("step", "name", "c"))
        if sel is kern:
            cnt = cnt[cnt["c"] >= 2]
        freq = pair_counts(cnt["step"].to_numpy(), cnt["c"].to_numpy(), ("step", "c", "n"))
        best = freq.sort_values(["step", "n", "c"], ascending=[True, False, True]).drop_duplicates("step")
        todo = out[best["step"].to_numpy()] < 0
        out[best["step"].to_numpy()[todo]] = best["c"].to_numpy()[todo]
    return out


# --- kinds ---------------------------------------------------------------------------------------

def infer_kinds(table: pd.DataFrame, ops: pd.DataFrame, trace: Trace, vocab: Vocab,
                attention: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, list[Note]]:
    """Kinds and their evidence for steps whose name said nothing. Returns (kind, evidence, notes);
    `table` needs kind (from names), tokens, rank."""
    kind = table["kind"].to_numpy(object).copy()
    ev = np.where(kind != "unknown", "name", "").astype(object)
    notes: list[Note] = []
    n = len(table)
    todo = kind == "unknown"
    if not todo.any():
        return kind, ev, notes
    sid = ops["step"].to_numpy()
    kern = (ops["kind"] == "kernel").to_numpy() & (sid >= 0)
    if is_training(trace):
        notes.append(note("steps.training"))
        return kind, ev, notes
    # 1. tokens: decode processes one token per sequence; prefill many
    tok = table["tokens"].to_numpy(np.int64)
    known = todo & (tok > 0)
    if known.sum() >= 2:
        tmin = tok[known].min()
        big = known & (tok >= 4 * tmin) & (tok >= 16)
        small = known & ~big
        # a clear split, or uniform small batches over several steps (decode alone)
        if big.any() or (tmin <= 256 and known.sum() >= 3):
            kind[big], ev[big] = "prefill", "tokens"
            kind[small], ev[small] = "decode", "tokens"
            todo = kind == "unknown"
    # 2. attention kernels that run for one kind only
    if todo.any() and attention is not None and (kern & attention).any():
        sel = kern & attention
        codes = ops["name_code"].to_numpy()[sel]
        cats = trace.kernels["name"].cat.categories
        uc = np.unique(codes[codes >= 0])
        dec = {int(c) for c in uc if vocab.decode_attention.search(cats[c])}
        pre = {int(c) for c in uc if vocab.prefill_attention.search(cats[c])}
        s_dec = np.bincount(sid[sel][np.isin(codes, list(dec))], minlength=n)[:n] > 0
        s_pre = np.bincount(sid[sel][np.isin(codes, list(pre))], minlength=n)[:n] > 0
        s_any = np.bincount(sid[sel], minlength=n)[:n] > 0
        if s_dec.any():  # where decodes run decode-only kernels, a forward running none is a prefill
            s_pre |= s_any & ~s_dec
        for m, k in ((todo & s_dec & ~s_pre, "decode"), (todo & s_pre & ~s_dec, "prefill")):
            kind[m], ev[m] = k, "attention kernel"
        todo = kind == "unknown"
    # 3. CUDA-graph replays of the whole model are decode; eager steps among them prefill
    if todo.any():
        gk = trace.kernels["graph_id"].notna().to_numpy() if len(trace.kernels) else np.zeros(0, bool)
        graphed = np.zeros(len(ops), bool)
        m = (ops["kind"] == "kernel").to_numpy()
        graphed[m] = gk[ops["src"].to_numpy()[m]]
        graphed |= (ops["kind"] == "graph").to_numpy()
        inside = sid >= 0
        share = np.bincount(sid[inside & graphed], minlength=n)[:n] / \
            np.maximum(np.bincount(sid[inside], minlength=n)[:n], 1)
        replay = todo & (share >= 0.5)
        if (share >= 0.5).sum() >= 2:
            kind[replay], ev[replay] = "decode", "graph replay"
            eager = todo & (share < 0.05)
            kind[eager], ev[eager] = "prefill", "eager among graph replays"
            todo = kind == "unknown"
    # 4. launch grids: a few steps launching far more thread blocks than the typical step
    if todo.sum() >= 3:
        kt = trace.kernels
        blocks = kt["grid_x"].to_numpy(np.int64) * kt["grid_y"].to_numpy(np.int64) * kt["grid_z"].to_numpy(np.int64)
        work = np.bincount(sid[kern], weights=blocks[ops["src"].to_numpy()[kern]], minlength=n)[:n]
        med = np.median(work[todo])
        if med > 0:
            big = todo & (work > 4 * med)
            rest = todo & ~big
            if big.any() and rest.sum() >= 2:
                kind[big], ev[big] = "prefill", "launch grid"
                kind[rest], ev[rest] = "decode", "launch grid"
    # 5. relative span: a few steps far longer than the rest (a kernel-only trace: a 400 ms prefill
    #    among 14 ms decodes)
    todo = kind == "unknown"
    if todo.sum() >= 3:
        span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
        med = np.median(span[todo])
        big = todo & (span > 4 * med)
        rest = todo & ~big
        if big.any() and big.sum() <= rest.sum() / 2:
            kind[big], ev[big] = "prefill", "span"
            kind[rest], ev[rest] = "decode", "span"
    inferred = pd.Series(ev[(ev != "name") & (ev != "")]).value_counts()
    if len(inferred):
        notes.append(note("steps.kinds_inferred", *inferred.index, counts=tuple(inferred.to_numpy())))
    return kind, ev, notes


def flag(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(warmup, outlier) per step. Warm-up: leading steps of a kind much slower than that kind's
    median (never a prefill: prefills are slow by nature); outlier: any other step whose span is
    far from its kind's median (median absolute deviation based)."""
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    warm = np.zeros(len(table), bool)
    out = np.zeros(len(table), bool)
    for (_rank, kind), grp in table.groupby(["rank", "kind"], sort=False):
        idx = grp.index.to_numpy()
        if idx.size < 4:
            continue
        s = span[idx]
        med = np.median(s)
        mad = np.median(np.abs(s - med)) or med * 0.01
        far = np.abs(s - med) > max(6 * mad, 0.25 * med)
        slow = s > med + max(6 * mad, 0.25 * med)
        if kind != "prefill":
            j = 0
            while j < idx.size and slow[j]:
                warm[idx[j]] = True
                j += 1
        out[idx] = far & ~warm[idx]
    return warm, out


def attention_mask(ops: pd.DataFrame, kernel_buckets: pd.Series | None) -> np.ndarray | None:
    """Per op: True for attention kernels (from the classification), None when not classified."""
    if kernel_buckets is None:
        return None
    b = pd.Categorical(kernel_buckets)
    if "attention" not in b.categories:
        return np.zeros(len(ops), bool)
    is_att = b.codes == b.categories.get_loc("attention")
    m = (ops["kind"] == "kernel").to_numpy()
    out = np.zeros(len(ops), bool)
    out[m] = is_att[ops["src"].to_numpy()[m]]
    return out

