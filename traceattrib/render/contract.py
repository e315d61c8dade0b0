"""The JSON report's contract, written from the types it is made of, and checked against output.

`text()` is the README's "JSON contract" block: the document (jsonout.Document) walked field by
field with the JSON's layout rules (jsonout.plain: inline fields merged into their parent, UNSET
fields optional, a note a string, a finding {what, bound, evidence}). `check(doc)` walks a JSON
report against the same types and lists every key it holds that the types do not name and every
required key it lacks: the two together keep README, types and output in step.

    python -m traceattrib.render.contract            # print the report's contract
    python -m traceattrib.render.contract --diff     # print the diff's contract
    python -m traceattrib.render.contract --readme   # rewrite the README's two blocks in place
"""
from __future__ import annotations

import functools
import inspect
import operator
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from msgspec import Struct, UnsetType

from ..notes import Note
from ..report import Finding

# what the keys of a mapping field are, by field name (the JSON shows them as "<key>")
KEYS = {
    "step_counts": "kind", "by_kind": "kind", "job": "kind", "by_rank": "rank", "last_counts": "rank",
    "clock_offsets_ns": "rank", "by_collective": "collective", "comm_by_collective": "collective",
    "interconnect_fit": "collective", "model": "collective", "collectives": "collective",
    "what_if": "bucket=factor", "what_if_link": "link", "buckets": "bucket", "kinds": "kind",
}
INNER_KEYS = {"by_rank": "by_kind"}  # a mapping of mappings: what the inner keys are
CAUSE_FIELDS = ("idle_causes", "no_idle_cause", "idle_causes_ns")
MARKERS = ("<!-- contract -->", "<!-- /contract -->")
DIFF_MARKERS = ("<!-- diff contract -->", "<!-- /diff contract -->")


def _key(field: str) -> str:
    if any(c in field for c in CAUSE_FIELDS):
        return "<cause>"
    return f"<{KEYS.get(field, 'bucket')}>"


def _split(tp: Any) -> tuple[Any, bool, bool]:
    """(the type without None / UNSET, may be null, may be absent)."""
    args = get_args(tp) if get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    rest = [a for a in args if a not in (type(None), UnsetType)]
    inner = rest[0] if len(rest) == 1 else functools.reduce(operator.or_, rest) if rest else type(None)
    return inner, type(None) in args, UnsetType in args


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Struct)


@functools.cache
def _comments(cls: type) -> dict[str, str]:
    """The comment after each field's line in the struct's source (what its values are)."""
    try:
        src = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^\s+(\w+): [^#\n]*#\s*(.*)$", src, re.M)}


def _fields(cls: type) -> list[tuple[str, Any, bool]]:
    """(JSON key, type, optional) of a struct's object, inline fields expanded."""
    hints = get_type_hints(cls)
    out = []
    for f in cls.__struct_fields__:
        inner, _, absent = _split(hints[f])
        if f in getattr(cls, "__inline__", ()):
            if _is_struct(inner):
                out += [(k, t, True if absent or _split(hints[f])[1] else o) for k, t, o in _fields(inner)]
            else:  # a mapping merged into the parent
                out.append((_key(f), get_args(inner)[1], True))
        else:
            out.append((f, hints[f], absent))
    return out


def _type(tp: Any, field: str, depth: int) -> str:
    inner, null, _ = _split(tp)
    if inner is Note or inner is str:
        s = "str"
    elif inner is Finding:
        s = '{"what": str, "bound": float, "evidence": str}'
    elif inner in (int, float, bool):
        s = inner.__name__
    elif _is_struct(inner):
        s = _object(inner, depth)
    elif get_origin(inner) is dict:
        value = get_args(inner)[1]
        inner_field = INNER_KEYS.get(field, field) if get_origin(value) is dict else field
        s = "{" + f'"{_key(field)}": ' + _type(value, inner_field, depth) + "}"
    elif get_origin(inner) in (list, tuple):
        s = "[" + _type(get_args(inner)[0], field, depth) + "]"
    elif inner is Any:
        s = "any"
    else:
        s = getattr(inner, "__name__", str(inner))
    return s + (" | null" if null else "")


def _object(cls: type, depth: int) -> str:
    pad = "  " * (depth + 1)
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    lines = [f"{pad}// {cls.__name__}: {' '.join(doc.split())}"] if doc else []
    notes = _comments(cls)
    for k, t, opt in _fields(cls):
        lines.append(f'{pad}"{k}"{"?" if opt else ""}: {_type(t, k, depth + 1)},'
                     + (f"  // {notes[k]}" if k in notes else ""))
    return "{\n" + "\n".join(lines) + "\n" + "  " * depth + "}"


def _report_root() -> type:
    from .jsonout import Document

    return Document


def diff_root() -> type:
    """The root type of `traceattrib diff --format json` (render/diff.py's Document)."""
    from .diff import Document

    return Document


def text(root: type | None = None) -> str:
    """The contract: the JSON document's every key with its type; `?` marks a key that may be
    absent, `| null` a value that may be null, "<...>" a key that stands for many. root: the
    document's type (default: the report's, jsonout.Document; the diff's: diff_root())."""
    what = "report's" if root is None or root is _report_root() else "diff's"
    return (f"// written by traceattrib/render/contract.py from the {what} types: do not edit by hand\n"
            + _object(root or _report_root(), 0))


def check(doc: Any, tp: Any = None, path: str = "$") -> list[str]:
    """Where the JSON value `doc` disagrees with the types: keys they do not name, required keys
    missing, values of another JSON kind."""
    if tp is None:
        tp = _report_root()
    inner, null, _ = _split(tp)
    if doc is None:
        return [] if null or inner is float else [f"{path}: null"]
    if inner is Note or inner is str:
        return [] if isinstance(doc, str) else [f"{path}: not a string"]
    if inner is Finding:
        return check(doc, _FindingDoc, path)
    if inner in (int, float):
        return [] if isinstance(doc, (int, float)) and not isinstance(doc, bool) else [f"{path}: not a number"]
    if inner is bool:
        return [] if isinstance(doc, bool) else [f"{path}: not a boolean"]
    if inner is Any:
        return []
    if _is_struct(inner):
        if not isinstance(doc, dict):
            return [f"{path}: not an object"]
        fields = _fields(inner)
        mapping = [(k, t) for k, t, _ in fields if k.startswith("<")]
        errs = [f"{path}: lacks {k}" for k, _, opt in fields if not opt and not k.startswith("<") and k not in doc]
        for k, v in doc.items():
            t = next((t for f, t, _ in fields if f == k), None)
            if t is None and mapping:
                t = mapping[0][1]
            errs += [f"{path}.{k}: not in the contract"] if t is None else check(v, t, f"{path}.{k}")
        return errs
    if get_origin(inner) is dict:
        if not isinstance(doc, dict):
            return [f"{path}: not an object"]
        return [e for k, v in doc.items() for e in check(v, get_args(inner)[1], f"{path}.{k}")]
    if get_origin(inner) in (list, tuple):
        if not isinstance(doc, list):
            return [f"{path}: not a list"]
        return [e for i, v in enumerate(doc) for e in check(v, get_args(inner)[0], f"{path}[{i}]")]
    return []


class _FindingDoc(Struct):
    what: str
    bound: float
    evidence: str


def readme_block(readme: str, markers: tuple[str, str] = MARKERS) -> str | None:
    """The text between the README's contract markers (without the code fence), None without them."""
    a, b = readme.find(markers[0]), readme.find(markers[1])
    if a < 0 or b < 0:
        return None
    body = readme[a + len(markers[0]):b].strip("\n").split("\n")
    return "\n".join(body[1:-1]) if body and body[0].startswith("```") else "\n".join(body)


def with_contract(readme: str, root: type | None = None, markers: tuple[str, str] = MARKERS) -> str:
    """The README with the contract block between `markers` written anew from `root`'s types."""
    a, b = readme.index(markers[0]), readme.index(markers[1])
    return readme[:a + len(markers[0])] + "\n```jsonc\n" + text(root) + "\n```\n" + readme[b:]


if __name__ == "__main__":
    if "--readme" in sys.argv:
        path = Path(__file__).resolve().parents[2] / "README.md"
        readme = with_contract(path.read_text(encoding="utf-8"))
        path.write_text(with_contract(readme, diff_root(), DIFF_MARKERS), encoding="utf-8")
    elif "--diff" in sys.argv:
        print(text(diff_root()))
    else:
        print(text())
