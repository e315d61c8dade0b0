"""The JSON contract both ways: the README's block is what the types say (render/contract.py), and
the JSON reports of real traces hold exactly what the types name."""
from __future__ import annotations

import copy
import json

import pytest

from traceattrib.cli import main
from traceattrib.render import contract

from conftest import FIXTURES, PUBLIC, ROOT, needs_shared, shared_files

CASES = [("tp2_eager_torch", ["--layers", "4", "--what-if", "cast=2", "--what-if-link", "pcie5"]),
         ("tp2_eager_nsys.sqlite", ["--what-if-link", "pcie4", "--link", "nvlink3"]),
         ("llama_graph_nsys.sqlite", []),
         ("llama_eager_torch.pt.trace.json.gz", ["--model", str(FIXTURES / "serve_like.config.json"),
                                                 "--batch", "1", "--context", "256"]),
         ("idle_causes_sampled_nsys.sqlite", [])]


def report_json(capsys, path, *args) -> dict:
    assert main(["report", str(path), "--format", "json", "--no-cache", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_readme_block_is_written_from_the_types():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert contract.readme_block(readme) == contract.text(), \
        "README.md's JSON contract differs from the types: run python -m traceattrib.render.contract --readme"


@pytest.mark.parametrize("name, args", CASES, ids=[c[0] for c in CASES])
def test_fixture_reports_hold_exactly_the_contract(capsys, name, args):
    doc = report_json(capsys, FIXTURES / name, *args)
    assert contract.check(doc) == []


@needs_shared
@pytest.mark.parametrize("path", shared_files(PUBLIC, "*.json.gz"), ids=lambda p: p.name)
def test_public_reports_hold_exactly_the_contract(capsys, path):
    assert contract.check(report_json(capsys, path)) == []


def test_check_finds_what_the_contract_does_not_say(capsys):
    doc = report_json(capsys, FIXTURES / "tp2_eager_torch", "--layers", "4")
    extra = copy.deepcopy(doc)
    extra["summary"]["by_kind"]["decode"]["speed_of_light"]["surprise"] = 1
    assert contract.check(extra) == ["$.summary.by_kind.decode.speed_of_light.surprise: not in the contract"]
    missing = copy.deepcopy(doc)
    del missing["summary"]["job"]["decode"]["straggler"]
    assert contract.check(missing) == ["$.summary.job.decode: lacks straggler"]
    wrong = copy.deepcopy(doc)
    wrong["steps"][0]["span_ns"] = "12"
    assert contract.check(wrong) == ["$.steps[0].span_ns: not a number"]
    assert "by_rank" in doc["summary"] and "expected_all_reduce_per_step" in doc["summary"]["by_kind"]["decode"][
        "collectives"]  # inline fields and mappings are checked too: the cases above reach them
