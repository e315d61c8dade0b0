"""Which bucket every kernel and memory operation belongs to, decided by an ordered rule table.

The rules are data (`traceattrib/rules/default.toml`, format documented at its top); a user file
given with `--rules` is tried first, then the defaults. The first rule whose every condition holds
wins; a kernel no rule matches gets bucket `other` and rule `unmatched`.

Evidence per kernel: its demangled name (names still mangled in the trace are demangled here,
`demangle.py`) (and the `base` name derived from it: no return type,
no template arguments, no parameters), and in torch traces the launching CPU op chain (`op`,
outermost first, " > " joined) and the innermost op's input dtypes (`op_input_types`). Rules are
evaluated once per distinct evidence combination, never per event, and the result is broadcast
back to every row.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from . import vocab
from .branches import BranchSearch, plan
from .demangle import demangle
from .errors import TraceError

BUCKETS: tuple[str, ...] = ("linear", "attention", "communication", "cast", "norm", "elementwise",
                            "memory", "other")
UNMATCHED = "unmatched"

# match fields a rule may carry; regexes are searched (not anchored) and case-insensitive
REGEX_FIELDS = ("kernel", "not_kernel", "base", "not_base", "op", "not_op", "types", "not_types",
                "kind", "not_kind")
BOOL_FIELDS = ("dtype_change",)
RULE_KEYS = set(vocab.RuleRow.__struct_fields__)  # name, bucket, doc and the match fields
KERNEL_ONLY = ("kernel", "not_kernel", "base", "not_base", "types", "not_types", "dtype_change")

# "Input type" entries of a torch op that are not tensors (None is written as "")
NON_TENSOR_TYPES = frozenset({"", "Scalar", "ScalarList", "TensorList", "GenericList", "String",
                              "Device", "Layout", "ScalarType", "MemoryFormat", "Generator",
                              "Storage", "None"})


class Pattern:
    """A rule's case-insensitive regular expression (`pattern`, `flags`, `search` as re.Pattern's),
    compiled with re.IGNORECASE when first searched, or at once when `eager`. The packaged rules
    are matched through their lower-cased forms (Rule.fast): compiling all of them with IGNORECASE,
    which folds every character class, cost 0.15-0.4 s of every command."""

    __slots__ = ("pattern", "_rx")

    def __init__(self, pattern: str, eager: bool = True):
        self.pattern = pattern
        self._rx = re.compile(pattern, re.IGNORECASE) if eager else None

    @property
    def flags(self) -> int:
        """re.compile(pattern, re.IGNORECASE).flags: inline flags ((?s), (?a), ...) included."""
        if self._rx is None and "(?" not in self.pattern:
            return int(re.IGNORECASE | re.UNICODE)
        return self._compiled().flags

    def search(self, text: str) -> re.Match | None:
        return self._compiled().search(text)

    def _compiled(self) -> re.Pattern:
        if self._rx is None:
            self._rx = re.compile(self.pattern, re.IGNORECASE)
        return self._rx


@dataclass(frozen=True)
class Rule:
    """One row of the rule table. `target` is 'kernel' or 'memop' (a rule with `kind` is a memop rule).

    Each condition is (field, value): a case-insensitive regex (Pattern) or a bool (dtype_change).
    `fast` holds, per condition, its lower-case Twin (an equivalent case-sensitive regex to run on
    lower-cased text, much faster than IGNORECASE on long names), or None where none can be derived.
    """

    name: str
    bucket: str
    conditions: tuple[tuple[str, Pattern | bool], ...]
    target: str
    source: str
    fast: tuple[Twin | None, ...] = ()

    def describe(self) -> str:
        parts = [f"{f}={v.pattern!r}" if isinstance(v, Pattern) else f"{f}={str(v).lower()}"
                 for f, v in self.conditions]
        return f"{self.name} -> {self.bucket} ({', '.join(parts)})"


@dataclass(frozen=True)
class Rules:
    """An ordered rule table: user rules (if any) first, then the packaged defaults."""

    rules: tuple[Rule, ...]
    sources: tuple[str, ...]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def for_target(self, target: str) -> list[Rule]:
        return [r for r in self.rules if r.target == target]

    def get(self, name: str) -> Rule | None:
        """The first rule with this name (the one that takes effect)."""
        return next((r for r in self.rules if r.name == name), None)

    def digest(self) -> str:
        """A hash of everything the rules decide by (order, names, buckets, conditions, sources)."""
        import hashlib

        # a Pattern is its text: every one is compiled with IGNORECASE, so its flags follow from
        # the text (and asking for them would compile it)
        rows = [(r.name, r.bucket, r.target, r.source,
                 tuple((f, v.pattern if isinstance(v, Pattern) else v) for f, v in r.conditions))
                for r in self.rules]
        return hashlib.sha256(repr((rows, self.sources)).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# loading

def _lower_pattern(pattern: str) -> str:
    """The pattern with its literal letters lower-cased and its escapes (\\D, \\S, \\x41, ...) kept."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
        elif pattern.startswith("(?P", i):  # named groups: (?P<name>...), (?P=name)
            out.append("(?P")
            i += 3
        else:
            out.append(pattern[i].lower())
            i += 1
    return "".join(out)


# the packaged rules' twins made once, beside the rules (bench/heldout/plans.py writes it; a test
# holds it to what Twin would make): parsing every branch for its literal cost about 0.1 s of every
# command, most of classifying a trace's names
PLANS_FILE = Path(__file__).parent / "rules" / "default.plans.json"


@lru_cache(maxsize=1)
def _plans() -> dict[str, tuple[str, list[tuple[str, str]] | None]]:
    """original pattern -> (its lower-case twin, the twin's `plan`), from PLANS_FILE; {} where it
    is missing or not of that shape (each twin is then made from its pattern)."""
    try:
        raw = json.loads(PLANS_FILE.read_text(encoding="utf-8"))
        out = {k: (v["lower"], None if v["plan"] is None else [(b, lit) for b, lit in v["plan"]])
               for k, v in raw.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}
    texts = [k for k in out] + [lower for lower, _ in out.values()] + \
        [t for _, parts in out.values() for pair in (parts or ()) for t in pair]
    return out if all(isinstance(t, str) for t in texts) else {}


def twin_plan(pattern: str) -> tuple[str, list[tuple[str, str]] | None]:
    """(the lower-case twin of a rule pattern, its branches' plan): what PLANS_FILE holds for it.
    re.error where a branch of the twin does not parse."""
    lower = _lower_pattern(pattern)
    return lower, plan(lower)


class Twin:
    """A rule regex's lower-case twin (`_lower_pattern`), to search lower-cased text with: made on
    first use (the packaged rules have over a hundred; compiling them all cost about 0.2 s of every
    command, and a trace's names are usually all matched before the last rules), from PLANS_FILE
    where it holds the pattern. `compiled()` is None when the twin does not compile: the rule then
    reads the original text with its own regex."""

    __slots__ = ("original", "_rx", "_done")

    def __init__(self, original: Pattern):
        self.original = original
        self._rx: BranchSearch | None = None
        self._done = False

    def compiled(self) -> BranchSearch | None:
        if not self._done:
            try:
                lower, parts = _plans().get(self.original.pattern) or twin_plan(self.original.pattern)
                self._rx = BranchSearch(lower, planned=parts)
            except re.error:
                self._rx = None
            self._done = True
        return self._rx

    def search(self, lowered: str) -> re.Match | None:
        """The twin's search of lower-cased text (the original's where the twin does not compile)."""
        rx = self.compiled()
        return rx.search(lowered) if rx is not None else self.original.search(lowered)


def _fast(rx: Pattern | bool) -> Twin | None:
    if not isinstance(rx, Pattern):
        return None
    if re.search(r"\\[pPN]|\(\?[a-zA-Z-]*i", rx.pattern):  # unicode names, inline (?i)/(?-i:): keep IGNORECASE
        return None
    return Twin(rx)


def _check(doc: dict, source: str) -> None:
    """The shape of a hand-written rules file, said rule by rule (what the typed conversion would
    say by path alone): top-level keys, names, keys and value types."""
    extra = set(doc) - {"rule", "version"}
    if extra:
        raise TraceError(f"{source}: unknown top-level key(s) {', '.join(sorted(extra))} "
                         "(expected [[rule]] tables)")
    items = doc.get("rule", [])
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        raise TraceError(f"{source}: 'rule' must be an array of tables ([[rule]])")
    for i, item in enumerate(items, 1):
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise TraceError(f"{source}: rule {i}: missing 'name'")
        where = f"{source}: rule {i} ({name.strip()!r})"
        unknown = set(item) - RULE_KEYS
        if unknown:
            raise TraceError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                             f"allowed: {', '.join(sorted(RULE_KEYS))}")
        if not isinstance(item.get("bucket"), str):
            raise TraceError(f"{where}: bucket {item.get('bucket')!r} is not one of {', '.join(BUCKETS)}")
        for f in REGEX_FIELDS:
            if f in item and not isinstance(item[f], str):
                raise TraceError(f"{where}: '{f}' must be a string (a regular expression)")
        for f in BOOL_FIELDS:
            if f in item and not isinstance(item[f], bool):
                raise TraceError(f"{where}: '{f}' must be true or false")
        if "doc" in item and not isinstance(item["doc"], str):
            raise TraceError(f"{where}: 'doc' must be a string")


def _compile(rows: tuple[vocab.RuleRow, ...], source: str, eager: bool = True) -> list[Rule]:
    """The rules of one file, in order: buckets checked, regexes compiled (the case-insensitive
    forms only when first needed unless `eager`: the packaged rules, checked by the tests), each
    rule's target."""
    out: list[Rule] = []
    seen: set[str] = set()
    for i, row in enumerate(rows, 1):
        name = row.name.strip()
        where = f"{source}: rule {i} ({name!r})"
        if not name:
            raise TraceError(f"{source}: rule {i}: missing 'name'")
        if name in seen:
            raise TraceError(f"{where}: duplicate rule name in this file")
        seen.add(name)
        if row.bucket not in BUCKETS:
            raise TraceError(f"{where}: bucket {row.bucket!r} is not one of {', '.join(BUCKETS)}")
        conds: list[tuple[str, Pattern | bool]] = []
        for f in REGEX_FIELDS:
            v = getattr(row, f)
            if v is None:
                continue
            try:
                conds.append((f, Pattern(v, eager)))
            except re.error as e:
                raise TraceError(f"{where}: bad regular expression in '{f}': {e}") from None
        conds += [(f, getattr(row, f)) for f in BOOL_FIELDS if getattr(row, f) is not None]
        if not conds:
            raise TraceError(f"{where}: no match condition (give kernel, base, op, types, dtype_change or kind)")
        fields = {f for f, _ in conds}
        if fields & {"kind", "not_kind"}:
            bad = fields & set(KERNEL_ONLY)
            if bad:
                raise TraceError(f"{where}: a memop rule (kind) cannot use {', '.join(sorted(bad))}")
            target = "memop"
        else:
            target = "kernel"
        out.append(Rule(name, row.bucket, tuple(conds), target, source, tuple(_fast(v) for _, v in conds)))
    return out


@lru_cache(maxsize=1)
def _default() -> tuple[Rule, ...]:
    """The packaged rules (rules/default.toml), compiled once per process."""
    return tuple(_compile(vocab.load("default", vocab.RulesFile).rule, "default rules", eager=False))


def packaged_plans() -> dict[str, dict]:
    """PLANS_FILE's content made afresh: for each twin of the packaged rules, its original pattern ->
    {"lower": the twin, "plan": its branches' [text, literal] pairs (null: searched whole)}; twins
    with a branch that does not parse are left out (made, and refused, at run time)."""
    out: dict[str, dict] = {}
    for rule in _default():
        for twin in rule.fast:
            if twin is None or twin.original.pattern in out:
                continue
            try:
                lower, parts = twin_plan(twin.original.pattern)
            except re.error:
                continue
            out[twin.original.pattern] = {"lower": lower, "plan": None if parts is None else [list(p) for p in parts]}
    return out


def load_rules(path: str | None = None) -> Rules:
    """The packaged rules, preceded by the rules of `path` when given (so a user adds or overrides).

    Raises TraceError (one line) for a missing or unreadable file, invalid TOML, an unknown bucket
    or key, or a bad regular expression.
    """
    user: list[Rule] = []
    sources = ["default"]
    if path is not None:
        source = str(path)
        doc = vocab.parse(vocab.read_file(path, "rules file"), source)
        _check(doc, source)
        user = _compile(vocab.convert(doc, vocab.RulesFile, source).rule, source)
        if not user:
            raise TraceError(f"{path}: no [[rule]] tables in rules file")
        sources.insert(0, source)
    return Rules(tuple(user) + _default(), tuple(sources))


# ---------------------------------------------------------------------------------------------
# evidence

# the rules read a text's first TEXT_CHARS characters: what decides a real kernel name comes early
# (none of the several thousand names the tests and held-out rounds hold, the longest near 5,000
# characters, reads otherwise at 1,024), and some rule regexes take time that grows with the square
# of a text's length on hostile ones (a name of 100,000 characters would hold a report for minutes)
TEXT_CHARS = 4096

_ANON = re.compile(r"\(anonymous namespace\)::|<unnamed>::")
_CUT = re.compile(r"[<(\[]")
_SUFFIX = re.compile(r"(\s*\[clone [^\]]*\])+$|\.kd$")  # ROCm code-object suffixes
# a SFINAE return type (`std::enable_if<COND, void>::type kernel<...>(...)`, as c++filt prints a
# kernel templated that way): the kernel's own name follows it, after the first `>::type ` that a
# name's first character follows (the condition's own `::type`s are followed by `::`, `,` or `>`,
# never a space, and its comparisons make brackets no guide)
_ENABLE_IF = re.compile(r"(?:[\w:]*::)?enable_if<.*?>::type (?=[\w(~:])")


def base_name(name: str) -> str:
    """Kernel name without return type, template arguments and parameters.

    'void vllm::rms_norm_kernel<c10::BFloat16>(...)' -> 'vllm::rms_norm_kernel';
    'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)' ->
    'ncclDevKernel_AllReduce_Sum_bf16_RING_LL'; ROCm's ' [clone .kd]' / '.kd' suffixes are dropped.
    Names starting with '[' or '(' are kept whole.
    """
    s = _SUFFIX.sub("", name.strip())
    if s.startswith("void "):
        s = s[5:]
    elif (m := _ENABLE_IF.match(s)) is not None:
        s = s[m.end():]
    s = _ANON.sub("", s)
    m = _CUT.search(s, 1)
    if m:
        s = s[:m.start()]
    return s.strip()


def dtype_change(types: str) -> bool | None:
    """Whether the first two inputs of the op are tensors of different dtypes (None: unknown)."""
    if not types:
        return None
    parts = types.split(",")
    if len(parts) < 2:
        return None
    a, b = parts[0].strip(), parts[1].strip()
    if a in NON_TENSOR_TYPES or b in NON_TENSOR_TYPES:
        return None
    return a != b


def _column(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series([""] * len(df), index=df.index, dtype=object)
    s = df[col]
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.cat.add_categories([""]) if "" not in s.cat.categories else s
        return s.fillna("")
    return s.astype(object).where(s.notna(), "")


def _codes(s: pd.Series) -> tuple[np.ndarray, int]:
    """(code per row, number of codes) with equal texts equal codes, NaN counted as ""."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        # the categorical's own codes: no text per row is made or hashed
        cats = s.cat.categories
        codes = s.cat.codes.to_numpy().astype(np.int64)
        blank = cats.get_loc("") if "" in cats else len(cats)
        return np.where(codes < 0, blank, codes), len(cats) + 1
    codes, uniq = pd.factorize(s.astype(object).where(s.notna(), ""), use_na_sentinel=False)
    return codes, max(len(uniq), 1)


def _distinct(df: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """(row -> distinct index, distinct evidence table with string columns `cols`); distinct rows
    numbered in order of first appearance."""
    n = len(df)
    key = np.zeros(n, dtype=np.int64)
    for c in cols:
        if c in df.columns:  # an absent column is "" everywhere: it splits nothing
            codes, k = _codes(df[c])
            key, _ = pd.factorize(key * k + codes)
    # keys count up in order of first appearance: a row whose key exceeds every earlier one is a first
    seen = np.maximum.accumulate(key)
    first = np.flatnonzero(np.concatenate([[n > 0], key[1:] > seen[:-1]])) if n else np.zeros(0, np.int64)
    uniq = pd.DataFrame({c: _column(df, c).take(first).astype(str).to_numpy() if c in df.columns
                         else np.full(first.size, "", dtype=object) for c in cols})
    return key, uniq


def _match(rules: list[Rule], ev: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(bucket index, rule index or -1) for every distinct evidence row.

    Regexes run once per distinct value of the column they test (names, op chains and type lists
    repeat across evidence rows), on lower-cased text where the rule has a lower-case twin. A base
    condition also reads a namespaced name's last component (`last`), so that a pattern anchored
    at the start or on `_` meets `ns::word` as it meets `word`.
    """
    n = len(ev)
    bucket = np.full(n, BUCKETS.index("other"), dtype=np.int64)
    rule = np.full(n, -1, dtype=np.int64)
    if not n:
        return bucket, rule
    cols: dict[str, tuple[np.ndarray, np.ndarray, list[str] | None]] = {}

    def column(field: str):
        if field not in cols:
            codes, uniq = pd.factorize(ev[field].to_numpy(), use_na_sentinel=False)
            cols[field] = (codes, np.array([u[:TEXT_CHARS] for u in uniq], dtype=object), None)
        return cols[field]

    def lowered(field: str) -> list[str]:
        codes, uniq, low = column(field)
        if low is None:
            low = [u.lower() for u in uniq]
            cols[field] = (codes, uniq, low)
        return low

    def hits(src: str, fast, v, cand: np.ndarray) -> np.ndarray:
        codes, uniq, _ = column(src)
        twin = fast.compiled() if fast is not None else None
        texts, search = (lowered(src), twin.search) if twin is not None else (uniq, v.search)
        sub = codes[cand]
        u = np.unique(sub)
        hit_u = np.zeros(len(uniq), dtype=bool)
        hit_u[u] = np.fromiter((search(texts[j]) is not None for j in u), bool, u.size)
        return hit_u[sub]

    nested = (ev["last"].to_numpy() != ev["base"].to_numpy()) if "last" in ev.columns else None
    dchange: np.ndarray | None = None
    open_ = np.ones(n, dtype=bool)
    for ri, r in enumerate(rules):
        cand = np.flatnonzero(open_)
        if not cand.size:
            break
        for (field, v), fast in zip(r.conditions, r.fast or (None,) * len(r.conditions)):
            if not cand.size:
                break
            if field == "dtype_change":
                if dchange is None:
                    codes, uniq, _ = column("types")
                    dchange = np.array([dtype_change(t) for t in uniq], dtype=object)[codes]
                keep = np.array([dchange[i] is v for i in cand], dtype=bool)
            else:
                neg = field.startswith("not_")
                src = field[4:] if neg else field
                hit = hits(src, fast, v, cand)
                if src == "base" and nested is not None:
                    # a base pattern also reads the name's last component: `(^|_)word` meets `ns::word`
                    at = np.flatnonzero(nested[cand] & ~hit)  # (a name its full base met needs no second look)
                    hit[at] |= hits("last", fast, v, cand[at])
                keep = ~hit if neg else hit
            cand = cand[keep]
        if cand.size:
            bucket[cand] = BUCKETS.index(r.bucket)
            rule[cand] = ri
            open_[cand] = False
    return bucket, rule


def _result(index: pd.Index, key: np.ndarray, bucket: np.ndarray, rule: np.ndarray,
            rules: list[Rule]) -> pd.DataFrame:
    # rule names may repeat (a user rule named like the default it overrides): map to unique categories
    cats = list(dict.fromkeys([r.name for r in rules] + [UNMATCHED]))
    pos = {c: i for i, c in enumerate(cats)}
    lut = np.array([pos[r.name] for r in rules] + [pos[UNMATCHED]], dtype=np.int64)
    rcodes = lut[np.where(rule < 0, len(rules), rule)][key]
    return pd.DataFrame({
        "bucket": pd.Categorical.from_codes(bucket[key], categories=list(BUCKETS)),
        "rule": pd.Categorical.from_codes(rcodes, categories=cats),
    }, index=index)


def _classify(df: pd.DataFrame, rules: Rules, target: str, cols: list[str],
              rename: dict[str, str]) -> pd.DataFrame:
    rl = rules.for_target(target)
    key, ev = _distinct(df, cols)
    ev = ev.rename(columns=rename)
    if target == "kernel":
        # mangled names (`_ZN2at6native...`) are read demangled: no rule reads the mangled form
        ev["kernel"] = [demangle(s) for s in ev["kernel"]]
        ev["base"] = [base_name(s) for s in ev["kernel"]]
        ev["last"] = [b.rsplit("::", 1)[-1] for b in ev["base"]]
    bucket, rule = _match(rl, ev)
    return _result(df.index, key, bucket, rule, rl)


def classify_kernels(kernels: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """Bucket and rule of every kernel row (aligned with kernels.index).

    Uses columns `name` and, when present, `op` and `op_input_types`.
    """
    if "name" not in kernels.columns:
        raise ValueError("classify_kernels needs a 'name' column")
    return _classify(kernels, rules, "kernel", ["name", "op", "op_input_types"],
                     {"name": "kernel", "op_input_types": "types"})


def classify_memops(memops: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """Bucket and rule of every memcpy/memset row (columns `kind` and, when present, `op`)."""
    if "kind" not in memops.columns:
        raise ValueError("classify_memops needs a 'kind' column")
    return _classify(memops, rules, "memop", ["kind", "op"], {})


def explain(names: list[str], rules: Rules, op: str = "", op_input_types: str = "") -> pd.DataFrame:
    """Bucket and rule for kernel names (one row per name, in order), with the given op evidence."""
    names = [str(n) for n in names]
    df = pd.DataFrame({"name": names, "op": [op] * len(names), "op_input_types": [op_input_types] * len(names)})
    c = classify_kernels(df, rules)
    return pd.DataFrame({"name": names, "bucket": c["bucket"].astype(str).to_numpy(),
                         "rule": c["rule"].astype(str).to_numpy()})
