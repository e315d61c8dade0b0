"""Every kernel name the tests hold (held-out batches, labelled rows, rule cases): does it read the
same cut to 1,024 characters (the longest name some exporters keep)? Prints the count and every
name that reads otherwise.

    PYTHONPATH=<tree> python bench/heldout/chk1024.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dump import labelled  # noqa: E402

from traceattrib import classify  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from test_classify_rules import CASES  # noqa: E402

names = sorted(set(labelled([])) | {c[0] for c in CASES})
rules = classify.load_rules()
full = classify.explain(names, rules)["bucket"].to_numpy()
cut = classify.explain([n[:1024] for n in names], rules)["bucket"].to_numpy()
diff = [(n, a, b) for n, a, b in zip(names, full, cut) if a != b]
for n, a, b in diff:
    print(f"{a} -> {b} at 1024: {n[:200]}")
print(f"{len(names)} names, {len(diff)} read otherwise at 1,024 characters")
