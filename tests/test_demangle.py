"""Mangled kernel names (traceattrib/demangle.py): read by the demangler on every mangled name of
the shared public traces, left whole when they cannot be read, never an error on hostile text."""
from __future__ import annotations

import gzip
import re
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from traceattrib import demangle as dm

from conftest import NSYS_VERSIONS, PUBLIC, needs_demangler, shared_files

GATHER = "_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb"  # from an nsys export's StringIds
GATHER_READ = "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)"


def shared_mangled() -> list[str]:
    """Every distinct mangled name in the shared traces: torch.profiler event names (ROCm traces
    keep them mangled) and Nsight Systems string tables (mangledName)."""
    out: set[str] = set()
    for f in shared_files(PUBLIC, "*.json.gz"):
        out.update(re.findall(r'"name": *"(_Z[^"]*)"', gzip.decompress(f.read_bytes()).decode("utf-8", "replace")))
    for f in shared_files(NSYS_VERSIONS, "*.sqlite"):
        con = sqlite3.connect(f"file:{f}?immutable=1", uri=True)
        try:
            out.update(v for (v,) in con.execute(r"select value from StringIds where value like '\_Z%' escape '\'"))
        except sqlite3.Error:
            pass
        finally:
            con.close()
    return sorted(out)


@needs_demangler
def test_every_shared_mangled_name_is_read():
    names = shared_mangled()
    if not names:
        pytest.skip("../shared/traces not present")
    unread = [n for n in names if dm.demangle(n) == n]
    assert len(names) >= 100
    # the one name cpp_demangle refuses: a template argument that is the address of another
    # function template (`XadL_Z4silu...E`), which it reads as malformed; kept as written
    assert unread == ["_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_"
                      "S5_EEEEvPS3_PS4_i"]
    assert all(not dm.demangle(n).startswith("_Z") for n in names if n not in unread)


@needs_demangler
def test_demangled_form():
    assert dm.demangle(GATHER) == GATHER_READ
    assert dm.demangle(GATHER + ".kd") == GATHER_READ + " [clone .kd]"  # ROCm code-object suffix


def test_runtime_fallback_reads_the_same():
    """Without cpp_demangle, the C++ runtime's __cxa_demangle gives the same text."""
    fn = dm._cxa()
    if fn is None:
        pytest.skip("no C++ runtime with __cxa_demangle")
    assert fn(GATHER) == GATHER_READ
    assert fn("_Znot a name") is None


def test_no_demangler_keeps_names(monkeypatch):
    monkeypatch.setattr(dm, "backend", lambda: ("none", None))
    assert dm.demangle(GATHER) == GATHER


def test_other_names_unchanged():
    for n in ("nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "void at::native::foo<1>(int)", "", "_Z", "_Zzz",
              "_Z" + "N" * (dm.MAX_CHARS + 1)):
        assert dm.demangle(n) == n


@given(st.text(max_size=300))
def test_hostile_text_never_raises(s):
    for name in (s, "_Z" + s, "_ZN" + s):
        out = dm.demangle(name)
        assert isinstance(out, str) and (out or not name)  # the demangled text, or the name as written
        if not name.startswith("_Z"):
            assert out == name
