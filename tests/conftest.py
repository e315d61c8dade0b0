"""Shared test helpers: where fixtures and the shared real traces live."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# ../shared/traces beside the checkout: real traces from public repositories (never committed here)
SHARED = Path(os.environ.get("TRACEATTRIB_SHARED", ROOT.parent / "shared" / "traces"))
NSYS_VERSIONS = SHARED / "nsys-versions"
PUBLIC = SHARED / "public"


def shared_files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern)) if folder.is_dir() else []


needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/traces is absent")


def _demangler() -> str:
    from traceattrib.demangle import backend

    return backend()[0]


# mangled-name tests need a demangler that reads every name they use (the `demangle` extra)
needs_demangler = pytest.mark.skipif(_demangler() != "cpp_demangle", reason="cpp_demangle is not installed")


@pytest.fixture(autouse=True)
def _no_user_cache(tmp_path, monkeypatch):
    """Keep tests from reading or writing the user's parquet cache."""
    monkeypatch.setenv("TRACEATTRIB_CACHE_DIR", str(tmp_path / "cache"))


def summary_of(rep) -> dict:
    """A report's summary as the JSON report writes it (the contract tests assert on)."""
    from traceattrib.render.jsonout import summary_dict

    return summary_dict(rep.summary)
