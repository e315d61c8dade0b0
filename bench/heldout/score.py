"""Score blind-labelled kernel names (held-out rounds) against the rules of the tree on PYTHONPATH.

    PYTHONPATH=<tree> python bench/heldout/score.py r441.tsv r442.tsv ... [--misses]

Each file: a header `name<TAB>bucket<TAB>source`, one labelled name per line, the round number in
the file name (rNNN.tsv). Strict: the rules' bucket equals the label. Lenient: a label in one of
the buckets a user decides by (MAIN) must be met exactly; any other label is met by any bucket
outside MAIN. Prints per round and in all: names, strict, lenient; with --misses every miss.
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from traceattrib import classify

MAIN = frozenset({"linear", "attention", "communication", "cast"})


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE) if r.get("name")]


def lenient(label: str, read: str) -> bool:
    return read == label if label in MAIN else read not in MAIN


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args(argv)
    rules = classify.load_rules()
    tot = [0, 0, 0]
    for f in a.files:
        rs = rows(f)
        got = classify.explain([r["name"] for r in rs], rules)
        s = sum(r["bucket"] == b for r, b in zip(rs, got["bucket"]))
        le = sum(lenient(r["bucket"], b) for r, b in zip(rs, got["bucket"]))
        rnd = re.sub(r"\D", "", f.stem) or f.stem
        src = ((rs[0].get("source") or "").split() or [""])[0] if rs else ""
        print(f"{rnd}\t{len(rs)}\t{s}\t{le}\t{s / max(len(rs), 1):.1%}\t{le / max(len(rs), 1):.1%}\t{src}")
        tot = [tot[0] + len(rs), tot[1] + s, tot[2] + le]
        if a.misses:
            for r, b, rule in zip(rs, got["bucket"], got["rule"]):
                if r["bucket"] != b:
                    print(f"  MISS label={r['bucket']} read={b} rule={rule}\t{r['name'][:300]}")
    n = max(tot[0], 1)
    print(f"all\t{tot[0]}\t{tot[1]}\t{tot[2]}\t{tot[1] / n:.1%}\t{tot[2] / n:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
