"""How far blind labellers agree with each other, and the rules with them (tests/data/agreement_*.tsv).

    PYTHONPATH=<tree> python bench/heldout/agree.py [tests/data/agreement_*.tsv ...] [--disagree]

Each file holds names with their round's label (`label`), two more labels given blind by
labellers who saw only the name, its source and the DECISIONS of rules/default.toml (`label_b`,
`label_c`), and what the rules read at first sight (`reads`): agreement_480.tsv, 480 names drawn
at random (seed 20261206) from the held-out rounds 147-810; agreement_A_B.tsv, every name of the
batch of rounds A-B, labelled three times as it was gathered (tests/data/heldout_note.md).
Prints pairwise agreement (strict, and lenient as score.py counts it), the names all three labels
agree on, and the rules at first sight and at the tree on PYTHONPATH against each label, the
majority of three and the unanimous names.
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

from score import lenient

from traceattrib import classify

LABELS = ("label", "label_b", "label_c")
DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def agree(a: str, b: str) -> bool:
    """Two labels agree leniently: each met by the other as score.py's `lenient` counts it."""
    return lenient(a, b) and lenient(b, a)


def line(what: str, hits: int, n: int) -> str:
    """One row of the table: what was compared, hits of n and their share."""
    return f"{what:<44}{hits:>4} / {n:<4}{hits / max(n, 1):7.1%}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--disagree", action="store_true", help="list the names the labels split on")
    a = ap.parse_args(argv)
    for f in a.files or sorted(DATA.glob("agreement_*.tsv")):
        print(f"== {f.name}")
        with open(f, newline="") as fh:
            table(list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)), a.disagree)
    return 0


def table(rows: list[dict[str, str]], disagree: bool) -> None:
    """Prints the agreement table of one file's rows."""
    n = len(rows)
    for i, x in enumerate(LABELS):
        for y in LABELS[i + 1:]:
            print(line(f"{x} = {y}", sum(r[x] == r[y] for r in rows), n))
            print(line(f"{x} ~ {y} (lenient)", sum(agree(r[x], r[y]) for r in rows), n))
    same = [r["label"] == r["label_b"] == r["label_c"] for r in rows]
    print(line("all three labels the same", sum(same), n))
    major = [Counter(r[x] for x in LABELS).most_common(1)[0] for r in rows]
    print(line("a majority of two or three", sum(c >= 2 for _, c in major), n))
    now = classify.explain([r["name"] for r in rows], classify.load_rules())["bucket"].tolist()
    for what, reads in (("rules at first sight", [r["reads"] for r in rows]), ("rules of this tree", now)):
        for x in LABELS:
            print(line(f"{what} = {x}", sum(b == r[x] for b, r in zip(reads, rows)), n))
        maj = [(b, m) for b, (m, c) in zip(reads, major) if c >= 2]
        print(line(f"{what} = majority", sum(b == m for b, m in maj), len(maj)))
        print(line(f"{what} ~ majority (lenient)", sum(lenient(m, b) for b, m in maj), len(maj)))
        on = [(b, r["label"]) for b, r, s in zip(reads, rows, same) if s]
        print(line(f"{what} = unanimous", sum(b == m for b, m in on), len(on)))
        print(line(f"{what} ~ unanimous (lenient)", sum(lenient(m, b) for b, m in on), len(on)))
    if disagree:
        for r, b, s in zip(rows, now, same):
            if not s:
                print(f"  {r['label']}/{r['label_b']}/{r['label_c']} reads={b}\t{r['name'][:160]}")


if __name__ == "__main__":
    sys.exit(main())
