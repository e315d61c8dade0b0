"""What each step is: prefill, decode, mixed or unknown, how many tokens it processed and how many
layers it holds, from what the GPU did first and from names and kernel variants second.

Every source of evidence votes on every step it can say something about; the first source in
ORDER that has a vote decides, and the step's `kind_evidence` lists the sources that agreed (the
deciding one first), `kind_against` the ones that said another kind. ORDER:

  name (counts)        the engine's own account of its batch: vLLM's context/generation counts,
                       SGLang's forward mode, TensorRT-LLM's ctx/gen requests
  tokens per sequence  measured: query tokens per sequence of the attention ops (shapes), of the
                       embedding lookup, or tokens over the sequences whose last token is gathered
                       for the logits (the lm_head GEMM's rows, or launch grids); 1 is decode, 16
                       or more a prefill (from a mean over several sequences, a prefill the
                       trace cannot tell from a mixed batch: a note says so)
  KV +1 per step       measured: the keys each query sees grew by one since the previous step;
                       mixed where one of its attention ops also took a sequence's PREFILL_Q or
                       more new tokens (a request prefilled beside the running decodes), a vote
                       that refines an earlier source's prefill or decode, as the attention
                       kernels' mixed vote does
  tokens               a step with 4x the fewest tokens of the trace (and 16+) is a prefill, the
                       rest decode (tokens from the name, the GEMMs' rows, row kernels' grids)
  launch grid          the same kernels launch 4x the thread blocks: two groups of forwards
                       apart by a gap of 4x are prefill (above) and decode (below)
  span and tokens      a step 2x as long as the median of its neighbours with 4x their tokens
                       (or launch grids) is a prefill
  name (words)         kind words in the step's name (`prefill`, `decode_step_3`)
  attention kernel     attention kernels that run for one kind only in the engine that ran them
                       (rules/steps.toml [[variant]]); a step running both kinds is mixed, and a
                       mixed vote refines what tokens and grids say (a mixed batch holds both)
  graph replay         CUDA-graph replays of the whole model are decode; eager steps among them
                       prefill
  span                 a few steps 4x longer than the rest are prefills

Relative sources (tokens, launch grid, span) only vote for steps that hold GEMM or attention
kernels (a model's forward). Training traces keep what their names say.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..gpuops import in_graph
from ..intervals import row_keys
from ..notes import Note, note
from .arrays import pair_counts
from .inputs import Context, trained_ranks
from .names import name_evidence
from .physical import GEMM_OPS, Physical, measure

__all__ = ["GEMM_OPS", "ORDER", "describe", "infer_kinds", "layers_per_step"]

ORDER = ("name (counts)", "tokens per sequence", "KV +1 per step", "tokens", "launch grid", "span and tokens",
         "name (words)", "attention kernel", "graph replay", "span")
PREFILL_Q = 16    # query tokens per sequence from which a forward is a prefill (a verify step has a few)
FACTOR = 2.0      # log2 of "much more": 4x the tokens or the thread blocks
NEIGHBOURS = 4    # steps each side a step's span and tokens are compared with
# the most tokens a decode step is taken to hold when only relative evidence says decode (vLLM's
# max_num_seqs is 256 to 1024): larger steps are left unknown rather than called decode
MAX_DECODE = 1024


def describe(table: pd.DataFrame, step: np.ndarray, ctx: Context) -> tuple[dict[str, np.ndarray], list[Note]]:
    """Per step: kind, kind_evidence, kind_against, tokens (-1 unknown), layers (-1 unknown) and
    work (log2 of the step's size against the typical step: tokens where known, else launch grids;
    NaN unknown), as new columns, and what the reader should know. table: the step table (table.py:
    name, rank, start_ns, end_ns); step: per op, its step (-1 outside)."""
    n = len(table)
    names = name_evidence(table["name"], ctx.vocab)
    phys = measure(ctx, step, n)
    tok = names["tokens"].to_numpy()
    tokens = np.where(tok > 0, tok, np.where(phys.tokens_shapes > 0, phys.tokens_shapes, phys.rows_grid))
    layers = layers_per_step(ctx.ops, step, n, ctx.attention, ctx.model)
    span = (table["end_ns"] - table["start_ns"]).to_numpy(np.float64)
    kind, evidence, against, notes = infer_kinds(names, tokens, phys, span, step, ctx, table["rank"].to_numpy())
    return {"kind": kind, "kind_evidence": evidence, "kind_against": against, "tokens": tokens, "layers": layers,
            "work": _work(tokens, phys.scale, table["rank"].to_numpy())}, notes


def _work(tokens: np.ndarray, scale: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """log2 of each step's size against the typical step's of its rank: tokens where every step's
    of the rank are known, else the launch-grid scale."""
    out = scale.astype(np.float64, copy=True)
    for r in np.unique(rank):
        idx = np.flatnonzero(rank == r)
        if (tokens[idx] > 0).all():
            lt = np.log2(tokens[idx].astype(np.float64))
            out[idx] = lt - np.median(lt)
    return out


# --- layers --------------------------------------------------------------------------------------

def layers_per_step(ops: pd.DataFrame, step: np.ndarray, nsteps: int, attention: np.ndarray | None,
                    model: np.ndarray | None = None) -> np.ndarray:
    """Layers each step holds: the most common count (ties: the smaller) among its attention kernel
    names (each layer calls attention once), else among all its kernel names that repeat; -1 none.
    Where fewer, the runs of attention kernels between GEMMs: a layer that calls attention once per
    sequence (a batch of unequal lengths, each sequence its own call) runs its names several times.

    step: per op, its step (-1 outside); attention: per op, True for attention kernels (None: unknown);
    model: per op, True for GEMM and attention kernels (None: unknown)."""
    out = np.full(nsteps, -1, np.int64)
    kern = (ops["kind"] == "kernel").to_numpy() & (step >= 0)
    for sel in ((kern & attention) if attention is not None else None, kern):
        if sel is None or not sel.any() or (out >= 0).all():
            continue
        cnt = pair_counts(step[sel], ops["name_code"].to_numpy()[sel], ("step", "name", "c"))
        if sel is kern:
            cnt = cnt[cnt["c"] >= 2]
        freq = pair_counts(cnt["step"].to_numpy(), cnt["c"].to_numpy(), ("step", "c", "n"))
        best = freq.sort_values(["step", "n", "c"], ascending=[True, False, True]).drop_duplicates("step")
        todo = out[best["step"].to_numpy()] < 0
        out[best["step"].to_numpy()[todo]] = best["c"].to_numpy()[todo]
    if attention is not None and model is not None:
        graph = (ops["kind"] == "graph").to_numpy() & (step >= 0)
        runs = _attention_runs(step, (kern & model) | graph, attention & kern, nsteps)
        out = np.where((runs > 0) & (out > 0) & (runs < out) & (out % np.maximum(runs, 1) == 0), runs, out)
    return out


def _attention_runs(step: np.ndarray, model: np.ndarray, attention: np.ndarray, nsteps: int) -> np.ndarray:
    """Per step: its runs of attention kernels that no GEMM or graph launch separates (a layer's
    GEMMs may run inside a captured piece that the trace shows as one graph op; op rows in time order
    within a rank, steps of one rank); 0 where nothing separates them (vLLM's start-up graph
    capture runs attention's cache writes alone). model: GEMM and attention kernels, graph ops."""
    i = np.flatnonzero(model)
    s, a = step[i], attention[i]
    after_gemm = np.r_[True, (s[1:] != s[:-1]) | ~a[:-1]]
    runs = np.bincount(s[a & after_gemm], minlength=nsteps)[:nsteps]
    return np.where(np.bincount(s[~a], minlength=nsteps)[:nsteps] > 0, runs, 0)


# --- kinds ---------------------------------------------------------------------------------------

class _Facts(NamedTuple):
    """What the votes read: per step (names' evidence, tokens, measurements, span in ns, rank) and
    per op (step, kernel inside a step)."""

    names: pd.DataFrame
    tokens: np.ndarray
    phys: Physical
    span: np.ndarray
    rank: np.ndarray
    sid: np.ndarray
    kern: np.ndarray
    ctx: Context


def infer_kinds(names: pd.DataFrame, tokens: np.ndarray, phys: Physical, span: np.ndarray, step: np.ndarray,
                ctx: Context, rank: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[Note]]:
    """(kind, kind_evidence, kind_against, notes) per step.

    names: names.name_evidence of the steps; tokens: per step (-1 unknown); phys: physical.measure;
    span: per step, end - start (ns); step: per op, its step (-1 outside); rank: per step (None:
    one rank). kind_evidence: the sources that agreed, the deciding one first, ", "-joined ("" when
    unknown); kind_against: "source=kind" of the sources that said another kind, ", "-joined."""
    n = len(names)
    rank = np.zeros(n, np.int64) if rank is None else rank
    kern = (ctx.ops["kind"] == "kernel").to_numpy() & (step >= 0)
    f = _Facts(names, tokens.astype(np.int64, copy=False), phys, span, rank, step, kern, ctx)
    notes: list[Note] = []
    votes = {"name (counts)": _by_name(f, "counts"), "name (words)": _by_name(f, "words")}
    train = _training_steps(f)
    q, flat = _per_sequence(f)
    if not train.all():
        votes.update({"tokens per sequence": _by_tokens_per_sequence(q), "KV +1 per step": _by_kv_growth(f),
                      "tokens": _each_rank(f, _by_tokens), "launch grid": _each_rank(f, _by_launch_grids),
                      "span and tokens": _by_span_and_tokens(f), "attention kernel": _by_attention(f),
                      "graph replay": _by_graph_replays(f), "span": _each_rank(f, _by_spans)})
        for s, v in votes.items():
            if not s.startswith("name"):
                v[train] = ""  # a training iteration is neither prefill nor decode, whatever it looks like
    kind, evidence, against = _decide(votes, n)
    notes += _maybe_mixed(flat, kind, evidence)
    if (train & (kind == "unknown")).any():
        notes.append(note("steps.training"))
    # kinds the step names did not say (a name that agreed makes the kind named, whatever decided)
    named = np.array(["name" in e.split(", ") for e in evidence], dtype=bool)
    inferred = pd.Series(evidence[(kind != "unknown") & ~named]).map(lambda e: e.split(", ")[0]).value_counts()
    if len(inferred):
        notes.append(note("steps.kinds_inferred", *inferred.index, counts=tuple(inferred.to_numpy())))
    disputed = against != ""
    if disputed.any():
        labels = list(dict.fromkeys(_label(s) for s in ORDER))
        srcs = sorted({a.split("=")[0] for x in against[disputed] for a in x.split(", ")}, key=labels.index)
        notes.append(note("steps.kinds_disputed", *srcs, counts=(int(disputed.sum()),)))
    return kind, evidence, against, notes


def _training_steps(f: _Facts) -> np.ndarray:
    """Per step: True where its rank ran a training program (backward kernels or autograd ops)."""
    if not f.ctx.training:
        return np.zeros(f.span.size, bool)
    return np.isin(f.rank, sorted(trained_ranks(f.ctx.trace)))


def _decide(votes: dict[str, np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step the first vote in ORDER; a mixed vote of the attention kernels or of KV growth
    refines a prefill or decode that other evidence gave (a mixed batch holds both; the engine's
    counts stand). (kind, evidence, against)."""
    order = [s for s in ORDER if s in votes]
    kind = np.full(n, "unknown", dtype=object)
    first = np.full(n, "", dtype=object)
    for s in reversed(order):
        v = votes[s]
        kind = np.where(v != "", v, kind)
        first = np.where(v != "", s, first)
    for src in ("attention kernel", "KV +1 per step"):  # the former decides where both refine
        v = votes.get(src)
        if v is not None:
            refine = (v == "mixed") & (first != "name (counts)") & (kind != "mixed")
            kind[refine], first[refine] = "mixed", src
    evidence = np.full(n, "", dtype=object)
    against = np.full(n, "", dtype=object)
    rows = np.flatnonzero(kind != "unknown")
    if not rows.size:
        return kind, evidence, against
    # steps with the same votes get the same words: worked out once per distinct combination
    cols = [kind[rows], first[rows]] + [votes[s][rows] for s in order]
    codes = [pd.factorize(c)[0] for c in cols]
    combo = pd.factorize(row_keys(codes))[0]
    one = np.unique(combo, return_index=True)[1]  # a step of each combination
    ev_u = np.empty(one.size, dtype=object)
    ag_u = np.empty(one.size, dtype=object)
    for j, i in enumerate(one):
        k, top = cols[0][i], cols[1][i]
        vote = {s: c[i] for s, c in zip(order, cols[2:])}
        agree = [top] + [s for s in order if s != top and vote[s] != "" and (vote[s] == k or k == "mixed")]
        ev_u[j] = ", ".join(_label(s) for s in dict.fromkeys(agree))
        ag_u[j] = ", ".join(f"{_label(s)}={vote[s]}" for s in order if vote[s] not in ("", k) and k != "mixed")
    evidence[rows], against[rows] = ev_u[combo], ag_u[combo]
    return kind, evidence, against


def _label(source: str) -> str:
    """How kind_evidence names a source: both name sources are the step's name."""
    return "name" if source.startswith("name") else source


def _votes(n: int, *pairs: tuple[np.ndarray, str]) -> np.ndarray:
    """A vote array ('' no vote) with `kind` where each mask is set (later pairs win)."""
    out = np.full(n, "", dtype=object)
    for m, k in pairs:
        out[m] = k
    return out


def _by_name(f: _Facts, source: str) -> np.ndarray:
    """What the step's name says (source 'counts': an engine's counts or mode; 'words')."""
    k = f.names["kind"].to_numpy()
    ok = (f.names["source"].to_numpy() == source) & np.isin(k, ["prefill", "decode", "mixed"])
    return np.where(ok, k, "").astype(object)


def _by_tokens_per_sequence(q: np.ndarray) -> np.ndarray:
    """Query tokens per sequence (per step, _per_sequence's): 1 is decode; PREFILL_Q or more prefill."""
    return _votes(q.size, (q == 1, "decode"), (q >= PREFILL_Q, "prefill"))


def _per_sequence(f: _Facts) -> tuple[np.ndarray, np.ndarray]:
    """Per step (query tokens per sequence, NaN unknown; True where that is a mean over a flattened
    batch): from the attention ops' (or the embedding's) shapes, else the step's tokens over the
    rows of its last GEMM (the lm_head) or of its last row-kernel launch when those are fewer (the
    last token of each sequence, gathered for the logits)."""
    p = f.phys
    # the attention ops' query length, unless the GEMMs' rows over the sequences say fewer: code
    # that packs a KV head's query heads as queries (FlashAttention's GQA decode trick, done in
    # Python) shows them as the query length
    q = np.where(p.q_shapes > 0, np.minimum(p.q_shapes, _rows_per_sequence(p)), np.nan)
    shaped = q > 0
    # the GEMMs' rows over the lm_head's (one row per sequence where the engine computes the
    # logits of each sequence's last token only): vLLM flattens the batch, so neither its
    # attention nor its embedding shapes count the sequences
    lm = (p.last_gemm_rows > 0) & (p.tokens_shapes > p.last_gemm_rows)
    q = np.where(q > 0, q, np.where(lm, p.tokens_shapes / np.maximum(p.last_gemm_rows, 1), np.nan))
    grid = (p.last_rows > 0) & (p.rows_grid > p.last_rows)
    q = np.where(q > 0, q, np.where(grid, p.rows_grid / np.maximum(p.last_rows, 1), np.nan))
    seqs = np.where(lm, p.last_gemm_rows, np.where(grid, p.last_rows, 1))
    return q, ~shaped & (q > 0) & (seqs > 1)


def _rows_per_sequence(p: Physical) -> np.ndarray:
    """Per step: its GEMMs' rows over its attention ops' sequences (inf where either is unknown)."""
    ok = (p.tokens_shapes > 0) & (p.seqs_shapes > 0)
    return np.where(ok, p.tokens_shapes / np.maximum(p.seqs_shapes, 1), np.inf)


def _maybe_mixed(flat: np.ndarray, kind: np.ndarray, evidence: np.ndarray) -> list[Note]:
    """A prefill decided by tokens per sequence that is a mean over several flattened sequences
    may as well be a chunked prefill batched with decodes: the trace holds no per-sequence query
    lengths (vLLM V1 passes them in Python objects, not shapes) to tell them apart, unless an
    engine's prefill-only attention kernel agreed. flat: per step, _per_sequence's mean over
    several flattened sequences."""
    said = [e.split(", ") for e in evidence]
    # an engine's decode-only attention kernel would have run for decodes in the batch (and made
    # the step mixed): where its prefill kernel agreed, the batch held none
    first = np.array([x[0] == "tokens per sequence" and "attention kernel" not in x for x in said], dtype=bool)
    m = flat & (kind == "prefill") & first
    return [note("steps.maybe_mixed", counts=(int(m.sum()),))] if m.any() else []


def _by_kv_growth(f: _Facts) -> np.ndarray:
    """Decode adds one token to every sequence: a step whose queries see one key more than the
    previous step's (same rank) is a decode, or mixed when one of its attention ops also took
    PREFILL_Q or more query tokens of a sequence (a new request prefilled in the same forward)."""
    kv = f.phys.kv_shapes
    prev = np.r_[-1, kv[:-1]]
    same = np.r_[False, f.rank[1:] == f.rank[:-1]]
    grew = same & (kv > 0) & (prev > 0) & (kv == prev + 1)
    # a prefill's share: an attention op over PREFILL_Q query tokens of a sequence that fit in the
    # step's tokens beyond one per logits row (decode code that packs a KV head's query heads as
    # queries shows them as the query length, with no tokens beyond); without the logits rows, not
    # more than the step's tokens per sequence of its attention
    p = f.phys
    room = np.where(p.last_gemm_rows > 0, f.tokens - p.last_gemm_rows + 1, _rows_per_sequence(p))
    prefilled = (p.q_max >= PREFILL_Q) & (p.q_max <= room)
    return _votes(kv.size, (grew, "decode"), (grew & prefilled, "mixed"))


def _each_rank(f: _Facts, vote: Callable[[_Facts, np.ndarray], np.ndarray]) -> np.ndarray:
    """A relative vote taken within each rank: a step is compared with its own rank's steps only,
    so a rank file analysed alone votes as it does inside the whole trace. vote(f, idx): the votes
    of the steps idx (one rank's)."""
    out = _votes(f.span.size)
    for r in np.unique(f.rank):
        idx = np.flatnonzero(f.rank == r)
        out[idx] = vote(f, idx)
    return out


def _by_tokens(f: _Facts, idx: np.ndarray) -> np.ndarray:
    """A clear split of the steps' tokens: steps with 4x the fewest (and PREFILL_Q or more) are
    prefills, the others decode; uniform small batches over several steps are decode."""
    tok = f.tokens[idx]
    known = (tok > 0) & f.phys.model[idx]
    if known.sum() < 2:
        return _votes(tok.size)
    tmin = tok[known].min()
    big = known & (tok >= 2 ** FACTOR * tmin) & (tok >= PREFILL_Q)
    if big.any() or (tmin <= 256 and known.sum() >= 3):
        return _votes(tok.size, (known & ~big & _may_decode(f)[idx], "decode"), (big, "prefill"))
    return _votes(tok.size)


def _may_decode(f: _Facts) -> np.ndarray:
    """Steps relative evidence may call decode: a model's forward of at most MAX_DECODE tokens (or
    an unknown count)."""
    return f.phys.model & (f.tokens <= MAX_DECODE)


def _by_launch_grids(f: _Facts, idx: np.ndarray) -> np.ndarray:
    """The steps' launch-grid scales fall in two groups 4x apart: the upper are prefills, the lower
    decode (the same kernels over 4x the tokens launch 4x the blocks)."""
    sc = f.phys.scale[idx]
    ok = np.isfinite(sc) & f.phys.model[idx]
    if ok.sum() < 2:
        return _votes(sc.size)
    v = np.sort(sc[ok])
    gaps = np.diff(v)
    j = int(np.argmax(gaps))
    if gaps[j] < FACTOR:
        return _votes(sc.size)
    cut = (v[j] + v[j + 1]) / 2
    return _votes(sc.size, (ok & (sc < cut) & _may_decode(f)[idx], "decode"), (ok & (sc > cut), "prefill"))


def _neighbour_median(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Per step: the median of x over up to NEIGHBOURS steps on each side of the same rank, the step
    itself left out (NaN where none is known)."""
    out = np.full(x.size, np.nan)
    for r in np.unique(rank):
        idx = np.flatnonzero(rank == r)
        v = np.r_[np.full(NEIGHBOURS, np.nan), x[idx].astype(np.float64), np.full(NEIGHBOURS, np.nan)]
        win = np.lib.stride_tricks.sliding_window_view(v, 2 * NEIGHBOURS + 1).copy()
        win[:, NEIGHBOURS] = np.nan
        has = (~np.isnan(win)).any(axis=1)
        med = np.full(idx.size, np.nan)
        if has.any():
            med[has] = np.nanmedian(win[has], axis=1)
        out[idx] = med
    return out


def _by_span_and_tokens(f: _Facts) -> np.ndarray:
    """A step twice as long as the median of its neighbours that processed 4x their tokens (or
    launched 4x their blocks) is a prefill."""
    n = f.span.size
    if n < 2:
        return _votes(n)
    work = _work(f.tokens, f.phys.scale, f.rank)
    # a rank with no launch-grid scale and some tokens known compares those tokens
    blind = pd.Series(np.isnan(work)).groupby(f.rank).transform("all").to_numpy()
    work = np.where(blind & (f.tokens > 0), np.log2(np.maximum(f.tokens, 1).astype(np.float64)), work)
    ok = f.phys.model & np.isfinite(work)
    med_span = _neighbour_median(np.where(f.phys.model, f.span, np.nan), f.rank)
    med_work = _neighbour_median(np.where(ok, work, np.nan), f.rank)
    big = ok & (f.span >= 2 * med_span) & (work >= med_work + FACTOR)
    return _votes(n, (big, "prefill"))


def _by_attention(f: _Facts) -> np.ndarray:
    """Attention kernels that run for one kind only in the engine that ran them (rules/steps.toml
    [[variant]]): decode, prefill, or mixed when a step runs both."""
    vocab, n = f.ctx.vocab, f.span.size
    att = f.ctx.attention
    if not vocab.variants or att is None or not (f.kern & att).any():
        return _votes(n)
    cats = f.ctx.trace.kernels["name"].cat.categories
    ops = f.ctx.ops
    all_codes = ops["name_code"].to_numpy()
    op_rank = ops["rank"].to_numpy()
    is_kernel = (ops["kind"] == "kernel").to_numpy() & (all_codes >= 0)
    sel = f.kern & att
    codes, sel_rank = all_codes[sel], op_rank[sel]
    has = {"decode": np.zeros(n, bool), "prefill": np.zeros(n, bool)}
    for r in np.unique(sel_rank):
        # the engine or library a rule knows must have run on this rank (any of its kernels)
        every = [str(cats[c]) for c in np.flatnonzero(np.bincount(all_codes[is_kernel & (op_rank == r)],
                                                                 minlength=len(cats)))]
        mine = sel_rank == r
        uc = np.unique(codes[mine & (codes >= 0)])
        names = [str(cats[c]) for c in uc]
        for v in vocab.variants:
            if not any(v.engine.search(x) for x in every):
                continue
            hit = [int(c) for c, x in zip(uc, names) if v.kernel.search(x)]
            if hit:
                has[v.kind] |= np.bincount(f.sid[sel][mine & np.isin(codes, hit)], minlength=n)[:n] > 0
    return _votes(n, (has["decode"], "decode"), (has["prefill"], "prefill"), (has["decode"] & has["prefill"], "mixed"))


def _by_graph_replays(f: _Facts) -> np.ndarray:
    """CUDA-graph replays of the whole model are decode; eager steps among them prefill."""
    n, sid = f.span.size, f.sid
    graphed = in_graph(f.ctx.ops, f.ctx.trace.kernels)
    inside = sid >= 0
    share = np.bincount(sid[inside & graphed], minlength=n)[:n] / np.maximum(np.bincount(sid[inside], minlength=n)[:n], 1)
    # within each rank: replays of the whole model on two steps or more
    replayed = pd.Series(share >= 0.5).groupby(f.rank).transform("sum").to_numpy() >= 2
    return _votes(n, (replayed & (share >= 0.5), "decode"), (replayed & (share < 0.05), "prefill"))


def _by_spans(f: _Facts, idx: np.ndarray) -> np.ndarray:
    """A few steps far longer than the rest are prefills (a kernel-only trace: a 400 ms prefill
    among 14 ms decodes)."""
    ok = f.phys.model[idx]
    n = idx.size
    if ok.sum() < 3:
        return _votes(n)
    span = f.span[idx]
    med = np.median(span[ok])
    big = ok & (span > 4 * med)
    rest = ok & ~big
    # the long ones are prefills only beside decodes: steps that may be decode (a few thousand
    # tokens each are something else)
    if big.any() and big.sum() <= rest.sum() / 2 and (rest <= _may_decode(f)[idx]).all():
        return _votes(n, (big, "prefill"), (rest, "decode"))
    return _votes(n)
