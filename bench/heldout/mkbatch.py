"""Write a batch of held-out rounds as tests/data/heldout_A_B.tsv (round, name, bucket, reads, source).

    PYTHONPATH=<tree> python bench/heldout/mkbatch.py OUT.tsv r441.tsv r442.tsv ...

`reads` is what the rules of the tree on PYTHONPATH read for the name (the batch test holds the
names read right to it). A name already in an earlier batch or in another round of this one is left
out (its first round keeps it).
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

from score import rows as tsv_rows

from traceattrib import classify

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def main(out: str, files: list[str]) -> None:
    seen = {r["name"] for f in DATA.glob("heldout_*.tsv") if f.resolve() != Path(out).resolve() for r in tsv_rows(f)}
    rows = []
    for f in files:
        rnd = re.sub(r"\D", "", Path(f).stem)
        for r in tsv_rows(Path(f)):
            if r["name"] not in seen:
                seen.add(r["name"])
                rows.append((rnd, r["name"], r["bucket"], r["source"]))
    bad = [r for r in rows if any(c in f for f in r for c in '\t\n"')]
    if bad:
        raise SystemExit(f"{len(bad)} rows hold a tab, newline or double quote, which the batch files keep "
                         f"unquoted: {bad[0][1][:80]!r}")
    reads = classify.explain([r[1] for r in rows], classify.load_rules())["bucket"]
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n")
        w.writerow(["round", "name", "bucket", "reads", "source"])
        for (rnd, name, bucket, source), read in zip(rows, reads):
            w.writerow([rnd, name, bucket, read, source])
    right = sum(r[2] == b for r, b in zip(rows, reads))
    print(f"{len(rows)} names, {len({r[0] for r in rows})} rounds, {right} read as labelled")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
