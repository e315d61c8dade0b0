"""What a step's name says: its kind (prefill, decode, mixed, none, unknown) and the tokens it
processed, from the annotation families' counts (vLLM's context/generation counts, SGLang's
forward mode, TensorRT-LLM's ctx/gen requests: the engine's own account of its batch) or kind
words (rules/steps.toml: a person's or a framework's label)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .vocab import Vocab


def name_evidence(names: pd.Series, vocab: Vocab) -> pd.DataFrame:
    """Per step name: kind ('prefill' | 'decode' | 'mixed' | 'none' (no forward) | 'unknown'),
    tokens (-1 unknown) and source ('counts': an engine's counts or mode; 'words': kind words; ''
    nothing), read once per distinct name."""
    uniq, inv = np.unique(names.astype(str).to_numpy(), return_inverse=True)
    got = [_one_name(n, vocab) for n in uniq]
    inv = inv.reshape(-1)
    return pd.DataFrame({"kind": np.array([g[0] for g in got], dtype=object)[inv],
                         "tokens": np.array([g[1] for g in got], dtype=np.int64)[inv],
                         "source": np.array([g[2] for g in got], dtype=object)[inv]})


def _one_name(name: str, vocab: Vocab) -> tuple[str, int, str]:
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
                     (False, False): "none"}[(c > 0, n > 0)], tok, "counts")
        if "new_reqs" in g:
            new, cached = int(g["new_reqs"]), int(g["cached_reqs"])
            # 'cached' also counts continuing prefill chunks: new == 0 is decode or chunked prefill,
            # which only the step's tokens tell apart (a word-like guess, not a count of tokens)
            kind = {(True, False): "prefill", (False, True): "decode", (True, True): "mixed",
                    (False, False): "none"}[(new > 0, cached > 0)]
            return kind, -1, "words" if kind == "decode" else "counts"
        if "mode" in g:
            mode = g["mode"].upper()
            kind = next((k for k, ms in vocab.modes.items() if mode in ms), "unknown")
            tok = int(g["toks"]) if "toks" in g else (int(g["bs"]) if kind == "decode" and "bs" in g else -1)
            return kind, tok, "counts" if kind != "unknown" else ""
        break  # a family without counts: fall through to kind words
    kind = word_kind(name, vocab)
    return kind, -1, "words" if kind != "unknown" else ""


def word_kind(name: str, vocab: Vocab) -> str:
    """prefill | decode | mixed | unknown from kind words in a name."""
    hits = {k for k, p in vocab.kind_words.items() if p.search(name)}
    if "mixed" in hits or {"prefill", "decode"} <= hits:
        return "mixed"
    return hits.pop() if hits else "unknown"
