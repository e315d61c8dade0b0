"""Write traceattrib/rules/default.plans.json: the packaged rules' lower-case twins and their
branches' literals (classify.packaged_plans), made once here so that no command parses them. Run it
after any change to rules/default.toml; tests/test_classify.py fails until it is run.

    python bench/heldout/plans.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

# this tree's package, whatever else is installed: the file belongs to the tree it was made from
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from traceattrib import classify  # noqa: E402


def main() -> int:
    plans = classify.packaged_plans()
    text = json.dumps(plans, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    tmp = classify.PLANS_FILE.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(classify.PLANS_FILE)
    print(f"{classify.PLANS_FILE}: {len(plans)} patterns, "
          f"{sum(len(v['plan'] or ()) for v in plans.values())} branches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
