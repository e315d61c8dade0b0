"""Bucket and rule of every kernel name at hand, for a before/after comparison of a rules change.

    PYTHONPATH=<tree> python bench/heldout/dump.py OUT.json [extra.tsv ...]
    python bench/heldout/dump.py --compare BEFORE.json AFTER.json

Names: every held-out batch (tests/data/heldout_*.tsv), the labelled rows
(tests/data/labelled_kernels.csv) and any extra rNNN.tsv. --compare prints every name whose bucket
changed, with its label where one is known, and counts those that moved toward or away from it.
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score import rows as tsv_rows  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def labelled(extra: list[str]) -> dict[str, str]:
    """name -> label (the last one read wins)."""
    out: dict[str, str] = {}
    for f in sorted(DATA.glob("heldout_*.tsv")) + [Path(e) for e in extra]:
        for r in tsv_rows(f):
            out[r["name"]] = r["bucket"]
    with open(DATA / "labelled_kernels.csv", newline="") as fh:
        for r in csv.DictReader(fh):
            out[r["name"]] = r["bucket"]
    return out


def dump(out: str, extra: list[str]) -> None:
    from traceattrib import classify
    names = sorted(labelled(extra))
    got = classify.explain(names, classify.load_rules())
    Path(out).write_text(json.dumps({n: [b, r] for n, b, r in zip(names, got["bucket"], got["rule"])}))
    print(len(names), "names")


def compare(before: str, after: str, extra: list[str]) -> None:
    a, b = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    labels = labelled(extra)
    toward = away = other = 0
    for n in sorted(set(a) & set(b)):
        if a[n][0] == b[n][0]:
            continue
        lab = labels.get(n)
        verdict = "toward" if b[n][0] == lab else "AWAY" if a[n][0] == lab else "neither"
        toward += verdict == "toward"
        away += verdict == "AWAY"
        other += verdict == "neither"
        print(f"{verdict}\t{a[n][0]}->{b[n][0]}\tlabel={lab}\t{b[n][1]}\t{n[:200]}")
    print(f"{len(set(a) & set(b))} names: {toward} toward their label, {away} away, {other} neither")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        dump(sys.argv[1], sys.argv[2:])
