"""The deep-dive notebook runs top to bottom on the bundled fixtures (its outputs are not committed)."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def test_deep_dive_notebook_executes():
    path = ROOT / "notebooks" / "deep_dive.ipynb"
    raw = json.loads(path.read_text())
    assert all(not c.get("outputs") for c in raw["cells"] if c["cell_type"] == "code"), "commit it without outputs"
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    texts = [o.get("text", "") + json.dumps(o.get("data", {}))
             for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    joined = "\n".join(texts)
    assert "median decode step" in joined and "image/png" in joined
    assert "arrives last at" in joined and "comm wait" in joined
