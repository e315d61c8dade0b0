"""render.safe.clean: what a trace name may hold never reaches the terminal raw."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceattrib.render.safe import clean, clean_frame, clean_obj


@pytest.mark.parametrize("raw, shown", [
    ("gemm_kernel", "gemm_kernel"),
    ("a\nb", "a\\nb"),
    ("a\r\tb", "a\\r\\tb"),
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    ("bell\x07 del\x7f c1\x9b", "bell\\x07 del\\x7f c1\\x9b"),
    ("rtl\u202eevil", "rtl\\u202eevil"),
    ("lone\ud800", "lone\\ud800"),
    ("ünïcödé ≤ 1.5x", "ünïcödé ≤ 1.5x"),
    (b"bytes\xff", "bytes\ufffd"),
    (7, "7"),
])
def test_clean(raw, shown):
    assert clean(raw) == shown


def test_clean_keeps_line_breaks_of_a_document_when_asked():
    assert clean("row 1\nrow\x1b 2\n", keep_newlines=True) == "row 1\nrow\\x1b 2\n"


def test_clean_frame_touches_categories_only_and_merges_collisions():
    df = pd.DataFrame({"name": pd.Categorical(["ok", "a\nb", "ok", "a\\nb"]), "n": [1, 2, 3, 4],
                       "text": ["x\x1b", "y", "z", None]})
    out = clean_frame(df)
    assert list(out["name"].astype(str)) == ["ok", "a\\nb", "ok", "a\\nb"]
    assert list(out["text"])[:3] == ["x\\x1b", "y", "z"] and pd.isna(out["text"].iloc[3])
    assert list(df["name"].astype(str))[1] == "a\nb"  # the input is not modified
    same = pd.DataFrame({"name": pd.Categorical(["ok"]), "n": [1]})
    assert clean_frame(same) is same


def test_clean_obj_nested():
    assert clean_obj({"gpus": ["H200\n", b"x\xff"], "n": 3, "k\x1b": ("t\t",)}) == \
        {"gpus": ["H200\\n", "x\ufffd"], "n": 3, "k\\x1b": ("t\\t",)}


def test_clean_frame_string_columns_cleaned_only_where_needed():
    # every string safe (and non-strings): the frame comes back as it was, not copied
    safe = pd.DataFrame({"name": ["gemm", "attn ≤ 2", None], "x": [1.5, None, 2.0]}, dtype=object)
    assert clean_frame(safe) is safe
    # one unsafe string among many safe ones, a bytes value, a string dtype column
    n = 5000
    names = [f"kernel_{i}" for i in range(n)]
    df = pd.DataFrame({"name": names[:-1] + ["evil\u202e"], "raw": [b"b\xff"] + ["s"] * (n - 1),
                       "s": pd.array(names[:-2] + ["a\tb", None], dtype="string")})
    out = clean_frame(df)
    assert out["name"].iloc[-1] == "evil\\u202e" and out["name"].iloc[0] == "kernel_0"
    assert out["raw"].iloc[0] == "b\ufffd" and out["raw"].iloc[1] == "s"
    assert out["s"].iloc[-2] == "a\\tb" and pd.isna(out["s"].iloc[-1])


def test_clean_frame_checks_distinct_values_and_unhashable_ones():
    """Columns are checked by their distinct values; a column holding an unhashable value (a list)
    is checked value by value and still cleaned."""
    n = 10_000
    df = pd.DataFrame({"bucket": ["gemm", "attention"] * (n // 2),
                       "odd": pd.Series([[1]] + ["ok"] * (n - 2) + ["x\x1b"], dtype=object)})
    out = clean_frame(df)
    assert out["bucket"] is df["bucket"] or out["bucket"].equals(df["bucket"])
    assert out["odd"].iloc[-1] == "x\\x1b" and out["odd"].iloc[0] == [1] and out["odd"].iloc[1] == "ok"


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.none(), st.text(max_size=4), st.binary(max_size=3)), min_size=1, max_size=30),
       st.integers(1, 50))
def test_clean_frame_is_clean_of_every_value(values, repeat):
    """clean_frame of an object column is `clean` applied to each str/bytes value, however often
    each value repeats (a missing value stays missing: None or NaN)."""
    col = pd.Series(values * repeat, dtype=object)
    out = [None if v is None or v != v else v for v in clean_frame(pd.DataFrame({"v": col}))["v"]]
    assert out == [clean(v) if isinstance(v, (str, bytes)) else v for v in col]
