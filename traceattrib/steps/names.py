"""What a step's name says: its kind (prefill, decode, mixed, none, unknown) and the tokens it
processed, from the annotation families' counts (vLLM's context/generation counts, SGLang's
forward mode, TensorRT-LLM's ctx/gen requests) or kind words (rules/steps.toml)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .vocab import Vocab


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
