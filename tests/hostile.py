"""Malformed variants of the real fixtures, built by code (nothing here is a committed blob).

Every class of hostile input from issue 15 has cases here: wrong JSON types, out-of-range and
non-finite values, invalid UTF-8 and lone surrogates, deep nesting, nsys tables with impossible
times, NULLs, dropped or renamed columns, BLOBs and text where integers belong, a corrupt page, a
WAL database, special files, and names that would corrupt a terminal. Torch variants are edited
in Kineto's own text layout (so the streaming pyarrow path reads them) and, for the value
classes, also re-serialized compactly (so the exact stdlib path reads them).

    python tests/hostile.py OUTDIR      # write every case under OUTDIR and list them

tests/test_hostile.py runs each case through the CLI, cold and warm cache.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TORCH = FIXTURES / "llama_graph_torch.pt.trace.json.gz"        # single GPU, CUDA graphs
TORCH_TP = FIXTURES / "tp2_graph_torch" / "rank0.pt.trace.json.gz"  # has distributedInfo
NSYS = FIXTURES / "llama_graph_nsys_node.sqlite"                # kernels inside graphs, NVTX steps
NSYS_GRAPH = FIXTURES / "llama_graph_nsys.sqlite"               # whole-graph executions
TORCH_SERVE = FIXTURES / "serve_full_noann_torch.pt.trace.json.gz"  # graph replays, no annotations

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
SEP, END = "\n  },\n  {", "\n  }\n  ]"

# What a case's answer must be, beyond the contract every run keeps (tests/harness.py):
ERROR = "error"              # exit 2 (with `needle` in the line when given)
OK = "ok"                    # exit 0
ERROR_OR_WARN = "error_or_warning"  # exit 2, or exit 0 with a "traceattrib: warning:" line
ANY = "any"                  # exit 0 or 2


# Cases that fail until the readers validate what they read: test_hostile marks them
# xfail(strict=True). Empty since the readers validate at their edge (issue 15 item 1); a new
# class a reader does not handle yet goes here, and its test XPASSes (fails) once it does.
NEEDS_READER: set[str] = set()


@dataclass
class Case:
    name: str
    klass: str
    build: Callable[[Path], Path]        # writes the input under a folder; returns what to pass
    expect: str = ERROR_OR_WARN
    needle: str | None = None
    args: tuple = ("report", "--format", "json")
    check: Callable | None = None        # extra check on a successful run: check(result, path)

    @property
    def id(self) -> str:
        return f"{self.klass}/{self.name}"

    @property
    def reader(self) -> bool:
        """Needs validation inside the readers (issue 15 item 1)."""
        return self.id in NEEDS_READER


# ------------------------------------------------------------------------------------------------
# Kineto JSON, edited in its own layout

def kineto_text(src: Path = TORCH) -> str:
    return gzip.decompress(src.read_bytes()).decode("utf-8")


def split_events(text: str) -> tuple[str, list[str], str]:
    """(head up to and including the first event's '{', event bodies, tail from the last '}')."""
    open_ = text.index("[", text.index('"traceEvents"'))
    first = text.index("{", open_)
    end = text.rindex(END)
    return text[:first + 1], text[first + 1:end].split(SEP), text[end:]


def join_events(head: str, blocks: list[str], tail: str) -> str:
    return head + SEP.join(blocks) + tail


def edit_events(text: str, pred: Callable[[str], bool], fn: Callable[[str], str], count: int | None = None,
                skip: int = 0) -> str:
    """Apply fn to the event blocks matching pred (after `skip` of them, at most `count`)."""
    head, blocks, tail = split_events(text)
    seen = done = 0
    for i, b in enumerate(blocks):
        if pred(b):
            seen += 1
            if seen > skip and (count is None or done < count):
                blocks[i] = fn(b)
                done += 1
    assert done, "no event matched"
    return join_events(head, blocks, tail)


def cat(*cats: str) -> Callable[[str], bool]:
    return lambda b: any(f'"cat": "{c}"' in b for c in cats) and '"ph": "X"' in b


def set_field(key: str, value: str) -> Callable[[str], str]:
    """Replace a top-level numeric/string field of an event block by raw JSON text `value`."""
    pat = re.compile(rf'"{key}": (?:"[^"]*"|[^,\n}}]+)')

    def fn(b: str) -> str:
        assert pat.search(b), (key, b[:200])
        return pat.sub(lambda m: f'"{key}": {value}', b, count=1)
    return fn


def drop_field(key: str) -> Callable[[str], str]:
    pat = re.compile(rf'"{key}": (?:"[^"]*"|[^,\n}}]+),?\s*')
    return lambda b: pat.sub("", b, count=1)


def set_args(value: str) -> Callable[[str], str]:
    return lambda b: b[:b.index('"args": ')] + f'"args": {value}'


def set_name(fn: Callable[[str], str]) -> Callable[[str], str]:
    pat = re.compile(r'"name": "((?:[^"\\]|\\.)*)"')
    return lambda b: pat.sub(lambda m: f'"name": "{fn(m.group(1))}"', b, count=1)


def shift_ts(us: float) -> Callable[[str], str]:
    pat = re.compile(r'"ts": ([0-9.]+)')
    return lambda b: pat.sub(lambda m: f'"ts": {float(m.group(1)) + us:.3f}', b, count=1)


def compact(text: str) -> str:
    """The same document in compact one-line JSON (not Kineto's layout: the exact reader path)."""
    return json.dumps(json.loads(text), separators=(",", ":"))


def writer(text_fn: Callable[[], str | bytes], name: str = "trace.json") -> Callable[[Path], Path]:
    def build(d: Path) -> Path:
        data = text_fn()
        raw = data.encode("utf-8", errors="surrogatepass") if isinstance(data, str) else data
        p = d / name
        p.write_bytes(gzip.compress(raw, compresslevel=1) if name.endswith(".gz") else raw)
        return p
    return build


def torch_case(name: str, klass: str, edit: Callable[[str], str | bytes], both_layouts: bool = False,
               src: Path = TORCH, filename: str = "trace.json", **kw) -> list[Case]:
    cases = [Case(name, klass, writer(lambda: edit(kineto_text(src)), filename), **kw)]
    if both_layouts:
        cases.append(Case(f"{name}-compact", klass, writer(lambda: compact(edit(kineto_text(src)))), **kw))
    return cases


def _header_sub(pattern: str, repl: str) -> Callable[[str], str]:
    def fn(text: str) -> str:
        new, n = re.subn(pattern, lambda m: repl, text, count=1, flags=re.S)
        assert n == 1, pattern
        return new
    return fn


def _non_objects(text: str) -> str:
    head, blocks, tail = split_events(text)
    return head[:-1] + '42, "stray", null, [1, 2], true,\n  {' + SEP.join(blocks) + tail


def _deep(text: str) -> str:
    depth = 100_000
    return edit_events(text, cat("cpu_op"), lambda b: b.replace('"args": {', '"args": {"deep": '
                                                               + "[" * depth + "]" * depth + ", ", 1), count=1)


def _invalid_utf8(text: str) -> bytes:
    marker = "@@BAD@@"
    t = edit_events(text, cat("kernel"), set_name(lambda n: n[:10] + marker + n[10:]), count=3)
    return t.encode("utf-8").replace(marker.encode(), b"\xff\xfe\xc3(")


def _no_gpu(text: str) -> str:
    head, blocks, tail = split_events(text)
    keep = [b for b in blocks if not cat("kernel", "gpu_memcpy", "gpu_memset")(b)]
    return join_events(head, keep, tail)


def _without(parts: tuple[str, list[str], str], pred: Callable[[str], bool]) -> tuple[str, list[str], str]:
    head, blocks, tail = parts
    return head, [b for b in blocks if not pred(b)], tail


def torch_cases() -> list[Case]:
    kern, ann = cat("kernel"), cat("user_annotation")
    c: list[Case] = []
    # wrong JSON types where objects are expected
    c += torch_case("deviceProperties-string", "json-types",
                    _header_sub(r'"deviceProperties": \[.*?\n    \]', '"deviceProperties": "NVIDIA H200"'))
    c += torch_case("deviceProperties-list-of-strings", "json-types",
                    _header_sub(r'"deviceProperties": \[.*?\n    \]', '"deviceProperties": ["NVIDIA H200", 7]'))
    c += torch_case("distributedInfo-string", "json-types", _header_sub(r'"distributedInfo": \{[^\n]*\}',
                    '"distributedInfo": "nccl"'), src=TORCH_TP)
    c += torch_case("distributedInfo-list", "json-types", _header_sub(r'"distributedInfo": \{[^\n]*\}',
                    '"distributedInfo": [0, 2]'), src=TORCH_TP)
    c += torch_case("args-string", "json-types", lambda t: edit_events(t, kern, set_args('"oops"\n'), count=5),
                    both_layouts=True)
    c += torch_case("args-list", "json-types", lambda t: edit_events(t, kern, set_args("[1, 2]\n"), count=5),
                    both_layouts=True)
    c += torch_case("non-object-events", "json-types", _non_objects, both_layouts=True)
    c += torch_case("name-number", "json-types", lambda t: edit_events(t, kern, set_field("name", "12"), count=3))
    c += torch_case("grid-string", "json-types",
                    lambda t: edit_events(t, kern, lambda b: b.replace('"grid": [', '"grid": "x", "g": [', 1), count=3),
                    both_layouts=True)
    # values out of range or of the wrong type
    for nm, key, val in [("ts-text", "ts", '"soon"'), ("dur-text", "dur", '"long"'), ("ts-nan", "ts", "NaN"),
                         ("dur-infinity", "dur", "Infinity"), ("ts-minus-infinity", "ts", "-Infinity"),
                         ("ts-1e30", "ts", "1e30"), ("dur-1e30", "dur", "1e30"),
                         ("ts-31-digits", "ts", "1234567890123456789012345678901"),
                         ("ts-past-int64-ns", "ts", "9300000000000000.000"),
                         ("dur-negative", "dur", "-5.000")]:
        c += torch_case(nm, "json-values", lambda t, k=key, v=val: edit_events(t, kern, set_field(k, v), count=3,
                                                                              skip=20), both_layouts=True)
    c += torch_case("ts-nan-gz", "json-values",
                    lambda t: edit_events(t, kern, set_field("ts", "NaN"), count=3, skip=20), filename="trace.json.gz")
    c += torch_case("correlation-text", "json-values",
                    lambda t: edit_events(t, kern, lambda b: re.sub(r'"correlation": \d+', '"correlation": "abc"', b),
                                          count=5), both_layouts=True)
    c += torch_case("correlation-2**70", "json-values",
                    lambda t: edit_events(t, kern, lambda b: re.sub(r'"correlation": \d+',
                                                                    f'"correlation": {2 ** 70}', b), count=5),
                    both_layouts=True)
    for nm, val in [("schemaVersion-negative", "-1e-09"), ("schemaVersion-text", '"one"'), ("schemaVersion-list", "[1]")]:
        c += torch_case(nm, "json-values", _header_sub(r'"schemaVersion": 1', f'"schemaVersion": {val}'),
                        expect=OK, check=_no_schema_version)
    c += torch_case("rank-text", "json-values", _header_sub(r'"rank": 0', '"rank": "zero"'), src=TORCH_TP)
    c += torch_case("rank-2**70", "json-values", _header_sub(r'"rank": 0', f'"rank": {2 ** 70}'), src=TORCH_TP)
    c += torch_case("ts-missing", "json-values", lambda t: edit_events(t, kern, drop_field("ts"), count=5, skip=20),
                    both_layouts=True)
    # names: invalid UTF-8, lone surrogates
    c += torch_case("invalid-utf8-name", "utf8", _invalid_utf8)
    # the same bytes in a piece pyarrow refuses (a text "dur"): the stdlib path must count them too
    c += torch_case("invalid-utf8-name-stdlib-path", "utf8",
                    lambda t: _invalid_utf8(edit_events(t, kern, set_field("dur", '"long"'), count=1)),
                    expect=OK, check=_warns_invalid_utf8)
    c += torch_case("lone-surrogate-name", "utf8",
                    lambda t: edit_events(t, kern, set_name(lambda n: "\\ud800" + n), count=3), expect=ANY)
    c += torch_case("lone-surrogate-annotation", "utf8",
                    lambda t: edit_events(t, ann, set_name(lambda n: n + "\\udfff"), count=2), expect=ANY,
                    args=("report", "--per-step"))
    # deep nesting (valid JSON: the nested field is one we do not read)
    c += torch_case("deep-args", "nesting", _deep, expect=ANY)
    # names that would reach the terminal raw
    esc = "\\u001b[31m"
    c += torch_case("kernel-name-ansi-newline", "terminal",
                    lambda t: edit_events(t, kern, set_name(lambda n: f"{esc}evil\\nkernel\\r\\u202e{n}"), count=40),
                    expect=OK, args=("report", "--per-step"), check=_shows_escapes)
    c += torch_case("annotation-name-ansi", "terminal",
                    lambda t: edit_events(t, ann, set_name(lambda n: f"{n}\\u001b[2J\\u0007"), count=None),
                    expect=OK, args=("report", "--per-step", "--format", "md"), check=_shows_escapes)
    c += torch_case("info-ansi", "terminal",
                    _header_sub(r'"name": "NVIDIA H200"', '"name": "NVIDIA\\u001b[5m H200\\nfake line"'),
                    expect=OK, args=("info",), check=_shows_escapes)
    # annotations with no GPU work, zero-duration annotations, no GPU work at all
    c += torch_case("annotations-without-gpu-work", "empty-steps",
                    lambda t: edit_events(t, cat("user_annotation", "gpu_user_annotation"), shift_ts(-1e6)),
                    expect=ANY, check=_steps_hold_gpu_work)
    c += torch_case("annotations-zero-duration", "empty-steps",
                    lambda t: edit_events(t, cat("user_annotation", "gpu_user_annotation"), set_field("dur", "0.000")),
                    expect=ANY, check=_steps_hold_gpu_work)
    c += torch_case("no-gpu-events", "empty-steps", _no_gpu, expect=ERROR, needle="no GPU activity")
    # steps from graph replays alone, every kernel record lost: no kernel count to hold eager blocks to
    c += torch_case("graph-replays-without-kernels", "empty-steps",
                    lambda t: join_events(*_without(split_events(t), kern)), src=TORCH_SERVE, expect=ANY)
    return c


# ------------------------------------------------------------------------------------------------
# Nsight Systems SQLite

def sqlite_case(name: str, klass: str, sql: str | Callable[[sqlite3.Connection], None], src: Path = NSYS,
                loosen: tuple[str, ...] = (), **kw) -> Case:
    def build(d: Path) -> Path:
        p = d / "trace.sqlite"
        shutil.copyfile(src, p)
        con = sqlite3.connect(p)
        con.execute("pragma synchronous = off")  # a test file: no fsync
        for t in loosen:
            loosen_table(con, t)
        if callable(sql):
            sql(con)
        else:
            con.executescript(sql)
        con.commit()
        con.close()
        return p
    return Case(name, klass, build, **kw)


def loosen_table(con: sqlite3.Connection, table: str) -> None:
    """Recreate `table` without NOT NULL constraints (same columns, same declared types)."""
    cols = con.execute(f"pragma table_info('{table}')").fetchall()
    defs = ", ".join(f'"{c[1]}" {c[2]}' for c in cols)
    con.execute(f"create table _loose ({defs})")
    con.execute(f"insert into _loose select * from {table}")
    con.execute(f"drop table {table}")
    con.execute(f"alter table _loose rename to {table}")


def kernel_name_ids(con: sqlite3.Connection, n: int = 3) -> list[int]:
    return [r[0] for r in con.execute(f"select distinct demangledName from {KERNEL_TABLE} limit {n}")]


def _strings(value_sql: str, n: int = 3) -> Callable[[sqlite3.Connection], None]:
    def fn(con: sqlite3.Connection) -> None:
        for i in kernel_name_ids(con, n):
            con.execute(f"update StringIds set value = {value_sql} where id = ?", (i,))
    return fn


def _corrupt_string_ids(p: Path) -> None:
    con = sqlite3.connect(p)
    page = con.execute("pragma page_size").fetchone()[0]
    root = con.execute("select rootpage from sqlite_master where name = 'StringIds'").fetchone()[0]
    con.close()
    with open(p, "r+b") as f:
        f.seek((root - 1) * page + 8)
        f.write(bytes((i * 37 + 11) % 256 for i in range(page - 8)))


def _corrupt_case() -> Case:
    def build(d: Path) -> Path:
        p = d / "trace.sqlite"
        shutil.copyfile(NSYS, p)
        _corrupt_string_ids(p)
        return p
    return Case("corrupt-StringIds-page", "sqlite-corrupt", build, expect=ERROR)


def _wal_case() -> Case:
    """A WAL-mode export whose last changes (half the kernels deleted) live only in the -wal file."""
    def build(d: Path) -> Path:
        work = d / "work"
        work.mkdir()
        src = work / "trace.sqlite"
        shutil.copyfile(NSYS, src)
        con = sqlite3.connect(src)
        con.execute("pragma journal_mode=wal")
        con.execute("pragma wal_autocheckpoint=0")
        con.execute(f"delete from {KERNEL_TABLE} where rowid % 2 = 0")
        con.commit()
        p = d / "trace.sqlite"
        # copied while the connection is open: closing it would checkpoint the WAL into the file
        shutil.copyfile(src, p)
        shutil.copyfile(str(src) + "-wal", str(p) + "-wal")
        con.close()
        shutil.rmtree(work)
        return p

    def check(r, path) -> None:
        # count on a copy: opening the input itself read-write would checkpoint its WAL into it
        with tempfile.TemporaryDirectory() as tmp:
            c = Path(tmp) / "copy.sqlite"
            shutil.copyfile(path, c)
            shutil.copyfile(str(path) + "-wal", str(c) + "-wal")
            con = sqlite3.connect(c)
            want = con.execute(f"select count(*) from {KERNEL_TABLE}").fetchone()[0]
            con.close()
        got = json.loads(r.out)["counts"]["kernels"]
        assert got == want, f"read {got} kernels; the WAL database holds {want}"
    return Case("wal-pending", "sqlite-wal", build, expect=ANY, args=("info", "--format", "json"), check=check)


def nsys_cases() -> list[Case]:
    K = KERNEL_TABLE
    c = [
        sqlite_case("kernel-end-before-start", "nsys-values",
                    f"update {K} set end = start - 1000 where rowid % 50 = 0"),
        sqlite_case("kernel-start-null", "nsys-values", f"update {K} set start = NULL where rowid % 100 = 0",
                    loosen=(K,)),
        sqlite_case("kernel-end-null", "nsys-values", f'update {K} set "end" = NULL where rowid % 100 = 0',
                    loosen=(K,)),
        sqlite_case("kernel-end-int64-max", "nsys-values", f"update {K} set end = 9223372036854775807 where rowid = 7"),
        sqlite_case("kernel-start-real-1e30", "nsys-values", f"update {K} set start = 1e30 where rowid = 7"),
        sqlite_case("kernel-negative-times", "nsys-values",
                    f"update {K} set start = -5000000000, end = -4999999000 where rowid % 40 = 0"),
        sqlite_case("nvtx-end-before-start", "nsys-values",
                    "update NVTX_EVENTS set end = start - 10 where rowid % 3 = 0"),
        sqlite_case("kernel-end-dropped", "nsys-columns", f'alter table {K} drop column "end"'),
        sqlite_case("kernel-start-renamed", "nsys-columns", f"alter table {K} rename column start to startTime"),
        sqlite_case("kernel-device-dropped", "nsys-columns", f"alter table {K} drop column deviceId"),
        sqlite_case("runtime-correlation-renamed", "nsys-columns",
                    "alter table CUPTI_ACTIVITY_KIND_RUNTIME rename column correlationId to corrId", expect=ANY),
        sqlite_case("string-null", "nsys-strings", _strings("NULL"), loosen=("StringIds",)),
        sqlite_case("string-blob", "nsys-strings", _strings("X'6b65726e656c00ff'")),
        sqlite_case("string-invalid-utf8", "nsys-strings", _strings("CAST(X'6b65ff726e656c' AS TEXT)")),
        sqlite_case("kernel-name-id-dangling", "nsys-strings",
                    f"update {K} set demangledName = 99999999 where rowid % 9 = 0",
                    expect=ANY),
        sqlite_case("text-in-start", "nsys-types", f"update {K} set start = 'soon' where rowid = 11"),
        sqlite_case("text-in-device", "nsys-types", f"update {K} set deviceId = 'gpu0' where rowid % 10 = 0"),
        sqlite_case("text-in-correlation", "nsys-types", f"update {K} set correlationId = 'x' where rowid % 10 = 0"),
        sqlite_case("blob-in-stream", "nsys-types", f"update {K} set streamId = X'07' where rowid % 10 = 0"),
        sqlite_case("empty-kernel-tables", "nsys-empty",
                    f"delete from {K}; delete from CUPTI_ACTIVITY_KIND_MEMCPY; delete from CUPTI_ACTIVITY_KIND_MEMSET;",
                    expect=ERROR, needle="no GPU activity"),
        sqlite_case("empty-graph-tables", "nsys-empty",
                    f"delete from {K}; delete from CUPTI_ACTIVITY_KIND_MEMCPY; delete from CUPTI_ACTIVITY_KIND_MEMSET; "
                    "delete from CUPTI_ACTIVITY_KIND_GRAPH_TRACE;", src=NSYS_GRAPH, expect=ERROR,
                    needle="no GPU activity"),
        _corrupt_case(),
        sqlite_case("metadata-blob-version", "nsys-metadata",
                    "update META_DATA_EXPORT set value = X'323032352e33ff' where name = 'EXPORT_PRODUCT_VERSION'; "
                    "update META_DATA_EXPORT set value = X'00' where name = 'EXPORT_SCHEMA_VERSION';", expect=ANY),
        sqlite_case("metadata-blob-gpu-name", "nsys-metadata", "update TARGET_INFO_GPU set name = X'4e56ff'",
                    expect=ANY,
                    args=("info", "--format", "json")),
        _wal_case(),
        sqlite_case("nsys-kernel-name-ansi-newline", "terminal",
                    _strings("char(27) || '[31m' || value || char(10) || 'x' || char(13) || char(8238)", n=50),
                    expect=OK, args=("report", "--per-step"), check=_shows_escapes),
        sqlite_case("nvtx-name-ansi", "terminal",
                    "update NVTX_EVENTS set text = text || char(27) || '[2J' || char(10) || 'line'",
                    expect=OK, args=("report", "--per-step", "--format", "md"), check=_shows_escapes),
        sqlite_case("nvtx-after-all-gpu-work", "empty-steps",
                    "update NVTX_EVENTS set start = start + 100000000000, end = end + 100000000000",
                    expect=ANY, check=_steps_hold_gpu_work),
        sqlite_case("nvtx-zero-duration", "empty-steps", "update NVTX_EVENTS set end = start",
                    expect=ANY, check=_steps_hold_gpu_work),
    ]
    return c


# ------------------------------------------------------------------------------------------------
# special files

def _fifo(d: Path) -> Path:
    p = d / "trace.json"
    os.mkfifo(p)
    return p


def _loop(d: Path) -> Path:
    os.symlink(d / "b.json", d / "a.json")
    os.symlink(d / "a.json", d / "b.json")
    return d / "a.json"


def _dangling(d: Path) -> Path:
    os.symlink(d / "gone.json", d / "trace.json")
    return d / "trace.json"


def _rank_dir_with_fifo(d: Path) -> Path:
    """A directory of rank files where one entry is a FIFO: the FIFO is not a trace file."""
    r = d / "ranks"
    r.mkdir()
    for f in sorted((FIXTURES / "tp2_graph_torch").glob("*.json.gz")):
        shutil.copyfile(f, r / f.name)
    os.mkfifo(r / "rank2.pt.trace.json")
    return r


def _rank_dir_with_nsys(d: Path) -> Path:
    """A directory of rank files where one file is an Nsight Systems export named like a rank file."""
    r = d / "ranks"
    r.mkdir()
    shutil.copyfile(sorted((FIXTURES / "tp2_graph_torch").glob("*.json.gz"))[0], r / "rank0.pt.trace.json.gz")
    shutil.copyfile(NSYS_GRAPH, r / "rank1.pt.trace.json")
    return r


def _rank_dir_only_nsys(d: Path) -> Path:
    """A directory whose one rank file is an Nsight Systems export."""
    r = d / "ranks"
    r.mkdir()
    shutil.copyfile(NSYS_GRAPH, r / "rank0.json")
    return r


def _bytes(data: bytes, name: str = "trace.json") -> Callable[[Path], Path]:
    def build(d: Path) -> Path:
        (d / name).write_bytes(data)
        return d / name
    return build


def _sqlite_not_nsys(d: Path) -> Path:
    p = d / "trace.sqlite"
    con = sqlite3.connect(p)
    con.execute("create table people (name text)")
    con.commit()
    con.close()
    return p


def _empty_dir(d: Path) -> Path:
    (d / "ranks").mkdir()
    (d / "ranks" / "readme.txt").write_text("no traces here")
    return d / "ranks"


def basic_cases() -> list[Case]:
    """The plain bad inputs: empty, not a trace, truncated, the wrong kind of SQLite."""
    raw = kineto_text().encode()
    gz = TORCH.read_bytes()
    return [
        Case("empty-file", "basic", _bytes(b""), expect=ERROR, needle="empty"),
        Case("text-file", "basic", _bytes(b"hello, not a trace\n", "notes.txt"), expect=ERROR, needle="not a trace"),
        Case("png-named-json", "basic", _bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100), expect=ERROR),
        Case("truncated-gzip", "basic", _bytes(gz[: len(gz) // 2], "trace.json.gz"), expect=ERROR,
             needle="truncated"),
        Case("truncated-json", "basic", _bytes(raw[: len(raw) // 2]), expect=ERROR),
        Case("json-array", "basic", _bytes(b"[1, 2, 3]"), expect=ERROR),
        Case("no-trace-events", "basic", _bytes(b'{"schemaVersion": 1}'), expect=ERROR),
        Case("empty-trace-events", "basic", _bytes(b'{"schemaVersion": 1, "traceEvents": []}'), expect=ERROR,
             needle="no GPU activity"),
        Case("sqlite-not-nsys", "basic", _sqlite_not_nsys, expect=ERROR, needle="not an Nsight Systems export"),
        Case("sqlite-header-then-junk", "basic", _bytes(b"SQLite format 3\x00" + b"\xff" * 200, "t.sqlite"),
             expect=ERROR),
        sqlite_case("nsys-without-cuda-tables", "basic",
                    lambda con: [con.execute(f"drop table {t}") for (t,) in con.execute(
                        "select name from sqlite_master where type='table' and name like 'CUPTI_%'").fetchall()],
                    expect=ERROR, needle="-t cuda"),
        Case("dir-without-traces", "basic", _empty_dir, expect=ERROR, needle="no torch.profiler traces"),
    ]


def file_cases() -> list[Case]:
    return [
        Case("fifo", "special-files", _fifo, expect=ERROR, needle="not a regular file"),
        Case("fifo-info", "special-files", _fifo, expect=ERROR, needle="not a regular file", args=("info",)),
        Case("symlink-loop", "special-files", _loop, expect=ERROR, needle="symbolic link loop"),
        Case("dangling-symlink", "special-files", _dangling, expect=ERROR, needle="broken symbolic link"),
        Case("rank-dir-with-fifo", "special-files", _rank_dir_with_fifo, expect=ANY),
        Case("rank-dir-with-nsys-export", "special-files", _rank_dir_with_nsys, expect=ERROR,
             needle="rank1.pt.trace.json: an Nsight Systems export"),
        Case("rank-dir-only-nsys-export", "special-files", _rank_dir_only_nsys, expect=ERROR,
             needle="rank0.json: an Nsight Systems export"),
    ]


# ------------------------------------------------------------------------------------------------
# checks on successful runs

def _no_schema_version(r, path) -> None:
    """A header schemaVersion that is not a whole number is not echoed as the trace's."""
    import json

    assert json.loads(r.out)["trace"]["schema_version"] is None


def _warns_invalid_utf8(r, path) -> None:
    """Invalid UTF-8 is said in a warning line, whichever parser read the piece."""
    from harness import warning_lines

    assert any("not valid UTF-8" in w for w in warning_lines(r)), r.err


def _shows_escapes(r, path) -> None:
    """Unsafe characters are shown escaped, not dropped silently."""
    assert "\\x1b[" in r.out, r.out[:2000]


def _steps_hold_gpu_work(r, path) -> None:
    """An answer that is not an error has steps that hold GPU work (not an empty report)."""
    steps = json.loads(r.out)["steps"]
    assert steps and any(s["busy_ns"] > 0 for s in steps), "exit 0 with no step holding GPU work"


def all_cases() -> list[Case]:
    cases = basic_cases() + torch_cases() + nsys_cases() + file_cases()
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert NEEDS_READER <= set(ids), f"unknown ids in NEEDS_READER: {NEEDS_READER - set(ids)}"
    return cases


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().split("\n\n")[-2].strip())
        return 2
    out = Path(argv[0])
    for c in all_cases():
        d = out / c.id.replace("/", "__")
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        p = c.build(d)
        print(f"{c.id:<55} {c.expect:<17} {'needs reader validation' if c.reader else 'passes':<24} {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
