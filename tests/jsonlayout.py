"""Write a torch trace back as JSON in any layout with every number's text unchanged (tests only).

`load` parses a trace keeping each number as a marked string; `dump` writes the document with the
given indentation / separators and puts the numbers back verbatim, so every layout holds exactly
the values of the original file."""
from __future__ import annotations

import gzip
import json
import random
import re

NUM = "\x00num:"


def load(path) -> dict:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        return json.loads(f.read(), parse_float=lambda s: NUM + s, parse_int=lambda s: NUM + s)


def num(text: str) -> str:
    """A number to place in a loaded document (written verbatim by `dump`)."""
    return NUM + text


def dump(doc, indent=None, separators=None, sort_keys=False) -> bytes:
    out = json.dumps(doc, indent=indent, separators=separators, sort_keys=sort_keys, ensure_ascii=False)
    return re.sub(r'"\\u0000num:([^"]*)"', r"\1", out).encode()


def shuffled(v, rng: random.Random):
    """The same JSON value with the keys of every object in a random order."""
    if isinstance(v, dict):
        keys = list(v)
        rng.shuffle(keys)
        return {k: shuffled(v[k], rng) for k in keys}
    if isinstance(v, list):
        return [shuffled(x, rng) for x in v]
    return v


def events_last(doc: dict) -> dict:
    out = {k: v for k, v in doc.items() if k != "traceEvents"}
    out["traceEvents"] = doc["traceEvents"]
    return out
