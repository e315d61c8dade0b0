"""Kernel classification: rules file, evidence handling, labelled real kernel names, traps."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from traceattrib import classify
from traceattrib.classify import (
    BUCKETS,
    base_name,
    classify_kernels,
    classify_memops,
    dtype_change,
    explain,
    load_rules,
)
from traceattrib.errors import TraceError
from traceattrib.ingest import read

from conftest import FIXTURES, NSYS_VERSIONS, PUBLIC, needs_shared, shared_files

LABELLED = Path(__file__).parent / "data" / "labelled_kernels.csv"
MAIN = ("linear", "attention", "communication", "cast")
STRICT = MAIN + ("norm", "memory")  # buckets where every labelled row must match exactly
FIXTURE_FILES = ["llama_eager_nsys.sqlite", "llama_eager_torch.pt.trace.json.gz", "llama_graph_nsys.sqlite",
                 "llama_graph_nsys_node.sqlite", "llama_graph_torch.pt.trace.json.gz"]

DEQUANT = ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
           "::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}, "
           "std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, "
           "TrivialOffsetCalculator<1, unsigned int>, "
           "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int)")
NOCAST_COPY = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
               "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::"
               "operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&)::{lambda(int)#1}>(int)")


@pytest.fixture(scope="module")
def rules():
    return load_rules()


@pytest.fixture(scope="module")
def labelled(rules):
    df = pd.read_csv(LABELLED, keep_default_na=False, dtype=str)
    c = classify_kernels(df, rules)
    return df.assign(pred=c["bucket"].astype(str).to_numpy(), rule=c["rule"].astype(str).to_numpy())


@pytest.fixture(scope="module")
def fixture_traces():
    return {f: read(str(FIXTURES / f)) for f in FIXTURE_FILES}


# ------------------------------------------------------------------------------------------------
# API shape

def test_buckets_fixed_order():
    assert BUCKETS == ("linear", "attention", "communication", "cast", "norm", "elementwise", "memory", "other")


def test_default_rules_are_named_and_valid(rules):
    assert rules.sources == ("default",)
    names = [r.name for r in rules]
    assert len(names) == len(set(names)) > 40
    assert {r.bucket for r in rules} <= set(BUCKETS)
    assert {r.target for r in rules} == {"kernel", "memop"}
    assert rules.get("nccl").bucket == "communication"
    assert rules.get("no-such-rule") is None


def test_result_aligned_with_index_and_typed(rules):
    names = ["nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)",
             "mystery_kernel_xyz", "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT"]
    df = pd.DataFrame({"name": pd.Categorical(names)}, index=[40, 10, 30, 20])
    out = classify_kernels(df, rules)
    assert list(out.index) == [40, 10, 30, 20]
    assert list(out.columns) == ["bucket", "rule"]
    assert isinstance(out["bucket"].dtype, pd.CategoricalDtype)
    assert list(out["bucket"].cat.categories) == list(BUCKETS)
    assert isinstance(out["rule"].dtype, pd.CategoricalDtype)
    assert out["bucket"].astype(str).tolist() == ["linear", "communication", "other", "linear"]
    assert out["rule"].astype(str).tolist() == ["gemm", "nccl", "unmatched", "gemm"]


def test_empty_and_missing_columns(rules):
    empty = classify_kernels(pd.DataFrame({"name": pd.Series([], dtype="category")}), rules)
    assert len(empty) == 0 and list(empty.columns) == ["bucket", "rule"]
    assert list(empty["bucket"].cat.categories) == list(BUCKETS)
    # op / op_input_types absent or null -> treated as unknown ("")
    df = pd.DataFrame({"name": [DEQUANT, DEQUANT],
                       "op": pd.Categorical([None, "aten::to > aten::_to_copy > aten::copy_"]),
                       "op_input_types": pd.Categorical([None, "c10::BFloat16,signed char,Scalar"])})
    out = classify_kernels(df, rules)
    assert out["rule"].astype(str).tolist() == ["copy-with-cast", "copy-dtype-change"]
    assert out["bucket"].astype(str).tolist() == ["cast", "cast"]
    with pytest.raises(ValueError):
        classify_kernels(pd.DataFrame({"op": ["x"]}), rules)


def test_rules_run_once_per_distinct_evidence(rules, monkeypatch):
    """10,000 events with 3 distinct (name, op, types) combinations: the matcher sees 3 rows."""
    seen = []
    real = classify._match

    def spy(rl, ev):
        seen.append(len(ev))
        return real(rl, ev)

    monkeypatch.setattr(classify, "_match", spy)
    names = np.array(["nvjet_sm90_tst_64x8_64x16_2x1_v_bz_splitK_TNT", NOCAST_COPY, NOCAST_COPY])
    ops = np.array(["", "aten::to > aten::_to_copy > aten::copy_", "aten::clone > aten::copy_"])
    types = np.array(["", "c10::BFloat16,float,Scalar", "c10::BFloat16,c10::BFloat16,Scalar"])
    pick = np.random.default_rng(0).integers(0, 3, 10_000)
    df = pd.DataFrame({"name": pd.Categorical(names[pick]), "op": pd.Categorical(ops[pick]),
                       "op_input_types": pd.Categorical(types[pick])})
    out = classify_kernels(df, rules)
    assert seen == [3]
    expect = np.array(["linear", "cast", "elementwise"])[pick]
    assert (out["bucket"].astype(str).to_numpy() == expect).all()


def test_rules_read_a_texts_first_chars(rules):
    """A name's words past classify.TEXT_CHARS are not read (a hostile name of a million characters
    is classified by its beginning, in bounded time), nor an op chain's; within it they are."""
    pad = "x" * (classify.TEXT_CHARS - 20)
    far = "x" * classify.TEXT_CHARS
    df = pd.DataFrame({"name": [pad + "_gemm_kernel", far + "_gemm_kernel", "moe_" * 250_000,
                                "some_kernel", "some_kernel"],
                       "op": ["", "", "", "aten::x > " * 10 + "aten::scaled_dot_product_attention",
                              "aten::x > " * 1000 + "aten::scaled_dot_product_attention"]})
    out = classify_kernels(df, rules)
    assert out["bucket"].astype(str).tolist() == ["linear", "other", "other", "attention", "other"]
    assert out["rule"].astype(str).tolist()[:3] == ["gemm", "unmatched", "unmatched"]


# ------------------------------------------------------------------------------------------------
# evidence helpers

@pytest.mark.parametrize("types,expect", [
    ("c10::BFloat16,signed char,Scalar", True),
    ("float,c10::BFloat16,Scalar", True),
    ("int,long int,Scalar", True),
    ("c10::BFloat16,c10::BFloat16,Scalar", False),
    ("c10::BFloat16,Scalar", None),          # second input is not a tensor
    ("TensorList,Scalar", None),
    ("c10::BFloat16", None),
    ("", None),
])
def test_dtype_change(types, expect):
    assert dtype_change(types) is expect


@pytest.mark.parametrize("name,base", [
    ("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, float, int)", "vllm::rms_norm_kernel"),
    ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
     "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<"
     "at::native::(anonymous namespace)::OpaqueType<2u>>(int)",
     "at::native::CatArrayBatchedCopy"),
    ("void at::native::<unnamed>::CatArrayBatchedCopy<OpaqueType<(unsigned int)2>>(T1 *)",
     "at::native::CatArrayBatchedCopy"),
    ("void vllm::rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*) [clone .kd]", "vllm::rms_norm_kernel"),
    ("triton_poi_fused_add_1.kd", "triton_poi_fused_add_1"),
    ("Memcpy DtoD (Device -> Device)", "Memcpy DtoD"),
    ("nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT"),
    # a SFINAE return type: the kernel's own name follows it, whatever the condition holds
    ("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<float>::exists, void>::type "
     "vllm::fused_add_rms_norm_kernel<float, 8>(float*, int)", "vllm::fused_add_rms_norm_kernel"),
    ("std::enable_if<cusparse::(anonymous namespace)::sizeof_bits<signed char>::value>=(8), void>::type "
     "cusparselt::pruning_kernel<64u, 8u, signed char>(int)", "cusparselt::pruning_kernel"),
    ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float>(int)", "internal::gemvx::kernel"),
    ("std::enable_if<std::is_same<T, U>::type::value, void>::type scale_kernel<1>(int)", "scale_kernel"),
    # profiler tables cut such names after the function name
    ("std::enable_if<!T7, void>::type vllm::rms_norm_kernel", "vllm::rms_norm_kernel"),
    # no name after it: kept as it is
    ("std::enable_if<(a>b), void>::type", "std::enable_if"),
    ("enable_if_kernel<1>(int)", "enable_if_kernel"),
])
def test_base_name(name, base):
    assert base_name(name) == base


def test_regexes_case_insensitive_with_fast_twin(tmp_path):
    assert classify._lower_pattern(r"(?P<Grp>AB)\D\x4A[A-Z]\S(?P=Grp)") == r"(?P<grp>ab)\D\x4a[a-z]\S(?P=grp)"
    path = write(tmp_path, """
[[rule]]
name = "upper"
bucket = "attention"
base = 'MYATTN\\d+\\B'
[[rule]]
name = "keeps-case"
bucket = "norm"
base = '(?-i:Zeta)'
""")
    rl = load_rules(path)
    assert rl.get("upper").fast[0] is not None and rl.get("keeps-case").fast[0] is None
    df = explain(["myattn12x", "MyAttn7y", "myattn3", "Zeta_kernel", "zeta_kernel"], rl)
    assert df["rule"].tolist() == ["upper", "upper", "unmatched", "keeps-case", "unmatched"]


def test_packaged_patterns_compile_late_and_read_as_their_case_insensitive_form():
    """The packaged rules' IGNORECASE forms are compiled on first search only: each must still be a
    valid expression, report the flags re.compile gives it (inline flags too, as a user rule's
    `(?s)` would), and its lower-cased twin must match what it matches on the names of the
    labelled set and their upper-cased forms."""
    import re

    names = pd.read_csv(LABELLED)["name"].astype(str).tolist()[::7]
    names += [x.upper() for x in names[::3]]
    rules = classify._default()
    assert sum(isinstance(v, classify.Pattern) for r in rules for _, v in r.conditions) > 80
    for p in ("(?s)a.b", "(?a)x\\w", "plain"):
        assert classify.Pattern(p, eager=False).flags == re.compile(p, re.IGNORECASE).flags
    for r in rules:
        for (_, v), fast in zip(r.conditions, r.fast):
            if not isinstance(v, classify.Pattern):
                continue
            rx = re.compile(v.pattern, re.IGNORECASE)
            assert v.flags == rx.flags
            for n in names:
                want = rx.search(n) is not None
                if fast is not None:
                    assert (fast.search(n.lower()) is not None) == want, (r.name, n)


# ------------------------------------------------------------------------------------------------
# labelled real kernel names (fixtures with op evidence, shared traces by name, traps)

def test_labelled_set_is_substantial(labelled):
    counts = labelled["bucket"].value_counts()
    assert set(counts.index) == set(BUCKETS)
    for b in MAIN:
        assert counts[b] >= 15, b
    # heldout2-sample / heldout3-sample: a few names of the second and third held-out rounds
    # (tests/data/heldout_note.md) kept as regression rows; most of those sets stay outside the repository
    assert set(labelled["source"].str.split(":").str[0]) == {"fixture", "shared", "trap", "heldout2-sample",
                                                             "heldout3-sample"}


@pytest.mark.parametrize("source, size", [("heldout2-sample", (15, 40)), ("heldout3-sample", (25, 45))])
def test_heldout_sample_rows(labelled, source, size):
    """A sample of each later held-out round (round 3: NVIDIA inference traces) covers every main
    bucket and is classified exactly, from names alone (no op evidence)."""
    sample = labelled[labelled["source"].str.startswith(source + ":")]
    assert size[0] <= len(sample) <= size[1]
    assert set(MAIN) <= set(sample["bucket"])
    assert (sample["op"] == "").all()
    bad = sample[sample["pred"] != sample["bucket"]]
    assert bad.empty, bad[["name", "bucket", "pred", "rule"]].to_string()


@pytest.mark.parametrize("bucket", STRICT)
def test_labelled_bucket_exact(labelled, bucket):
    """Every row labelled `bucket` gets it, and no row labelled otherwise does."""
    missed = labelled[(labelled["bucket"] == bucket) & (labelled["pred"] != bucket)]
    wrong = labelled[(labelled["pred"] == bucket) & (labelled["bucket"] != bucket)]
    def fmt(d):
        return [f"{r.bucket}->{r.pred} [{r.rule}] {r.name[:90]} | {r.op}" for r in d.itertuples()]
    assert missed.empty, fmt(missed)
    assert wrong.empty, fmt(wrong)


def test_labelled_elementwise_other(labelled):
    """elementwise/other may only be confused with each other, and rarely."""
    rest = labelled[labelled["bucket"].isin(["elementwise", "other"])]
    assert rest["pred"].isin(["elementwise", "other"]).all()
    assert (rest["pred"] == rest["bucket"]).mean() >= 0.97


def test_traps(labelled):
    traps = labelled[labelled["source"].str.startswith("trap:")]
    assert len(traps) >= 40
    bad = traps[traps["pred"] != traps["bucket"]]
    assert bad.empty, bad[["name", "op", "bucket", "pred", "rule"]].to_string()
    by = {(r.name, r.op): r for r in traps.itertuples()}
    assert by[("triton_poi_fused_all_to_all_0", "")].rule == "inductor-pointwise"
    # the all_to_all triton kernel stays local even when launched under a collective op
    key = ("triton_poi_fused_all_to_all_single_permute_1", "c10d_functional::all_to_all_single")
    assert by[key].pred == "elementwise"
    assert by[("multimem_all_reduce_kernel", "")].rule == "custom-allreduce"
    assert by[("_fwd_kernel", "vllm::unified_attention_with_output")].pred == "attention"


def test_fixture_kernels_all_labelled(labelled, fixture_traces):
    keys = set(zip(labelled["name"], labelled["op"], labelled["op_input_types"]))
    for f, t in fixture_traces.items():
        k = t.kernels[["name", "op", "op_input_types"]].astype(str).drop_duplicates()
        missing = [x for x in k.itertuples(index=False, name=None) if x not in keys]
        assert not missing, (f, missing[:3])


@needs_shared
def test_shared_kernel_names_all_labelled(labelled):
    names = set(labelled["name"])
    files = shared_files(PUBLIC, "*.json.gz") + shared_files(NSYS_VERSIONS, "*.sqlite")
    assert files
    for f in files:
        t = read(str(f), require_gpu=False)
        missing = sorted(set(t.kernels["name"].astype(str)) - names)
        assert not missing, (f.name, missing[:3])


# ------------------------------------------------------------------------------------------------
# whole fixture traces: op evidence, cross-format agreement

def test_eager_torch_fixture_decisions(rules, fixture_traces):
    t = fixture_traces["llama_eager_torch.pt.trace.json.gz"]
    k = t.kernels.assign(**{c: v.to_numpy() for c, v in classify_kernels(t.kernels, rules).items()})
    k["bucket"] = k["bucket"].astype(str)
    k["rule"] = k["rule"].astype(str)
    deq = k[(k["op"] == "aten::to > aten::_to_copy > aten::copy_")
            & (k["op_input_types"] == "c10::BFloat16,signed char,Scalar")]
    assert len(deq) == 700 and (deq["bucket"] == "cast").all() and (deq["rule"] == "copy-dtype-change").all()
    clone = k[k["op"] == "aten::repeat_interleave > aten::clone > aten::copy_"]
    assert len(clone) and (clone["bucket"] == "elementwise").all()
    sdpa = k[k["op"].str.startswith("aten::scaled_dot_product_attention")]
    assert set(sdpa["bucket"]) == {"attention"}
    assert set(sdpa["rule"]) == {"attention", "sdpa-op"}   # the cuDNN kernel by name, where/fill helpers by op
    mean = k[k["op"] == "aten::mean"]
    assert len(mean) and set(mean["bucket"]) == {"elementwise"}  # eager RMSNorm in plain ops: no norm evidence
    assert set(k.loc[k["op"].str.endswith("aten::mm"), "bucket"]) == {"linear"}


def _shares(t, rules):
    c = classify_kernels(t.kernels, rules)
    d = (t.kernels["end_ns"] - t.kernels["start_ns"]).to_numpy()
    s = pd.Series(d).groupby(c["bucket"].to_numpy(), observed=False).sum()
    return (s / d.sum()).reindex(list(BUCKETS), fill_value=0.0)


def test_fixture_shares_agree_across_formats(rules, fixture_traces):
    """The same eager workload through nsys (names only) and torch.profiler (names + ops)."""
    a = _shares(fixture_traces["llama_eager_nsys.sqlite"], rules)
    b = _shares(fixture_traces["llama_eager_torch.pt.trace.json.gz"], rules)
    assert 0.40 < a["cast"] < 0.44 and 0.40 < b["cast"] < 0.44      # int8 -> bf16 weight dequant
    assert 0.11 < a["linear"] < 0.13 and 0.11 < b["linear"] < 0.13
    assert a["other"] == 0 and b["other"] == 0                     # nothing unclassified
    assert (a - b).abs().max() < 0.01
    # the SDPA mask helpers are attention only where op evidence shows them inside SDPA
    assert b["attention"] > a["attention"] > 0.015


# ------------------------------------------------------------------------------------------------
# memory operations

def test_memops(rules, fixture_traces):
    m = fixture_traces["llama_eager_torch.pt.trace.json.gz"].memops
    out = classify_memops(m, rules)
    assert list(out.index) == list(m.index)
    assert set(out["bucket"].astype(str)) == {"memory"}
    synthetic = pd.DataFrame({
        "kind": pd.Categorical(["memcpy_dtod", "memcpy_dtod", "memset", "memcpy_htod", "weird_kind"]),
        "op": pd.Categorical(["c10d::allreduce_ > record_param_comms > nccl:all_reduce",
                              "vllm::all_reduce", "", "aten::copy_", ""])})
    out = classify_memops(synthetic, rules)
    assert out["bucket"].astype(str).tolist() == ["memory"] * 5
    assert out["rule"].astype(str).tolist() == ["memcpy-in-collective", "memcpy-in-collective", "memset",
                                                "memcpy", "memop-other"]


# ------------------------------------------------------------------------------------------------
# explain

def test_explain(rules):
    df = explain(["nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "Memcpy DtoD (Device -> Device)",
                  "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT",
                  "flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>"], rules)
    assert list(df.columns) == ["name", "bucket", "rule"]
    assert df["bucket"].tolist() == ["linear", "memory", "linear", "norm"]
    # op evidence changes the answer for a copy kernel that names no dtypes
    assert explain([NOCAST_COPY], rules)["bucket"].tolist() == ["elementwise"]
    with_op = explain([NOCAST_COPY], rules, op="aten::to > aten::_to_copy > aten::copy_",
                      op_input_types="c10::BFloat16,signed char,Scalar")
    assert with_op[["bucket", "rule"]].values.tolist() == [["cast", "copy-dtype-change"]]
    assert explain([], rules).empty


# ------------------------------------------------------------------------------------------------
# user rules

def write(tmp_path, text, name="rules.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_base_patterns_also_read_the_last_component(tmp_path):
    """A base pattern meets a namespaced name by its last component too (`(^|_)word` finds
    `ns::word_kernel`, not a namespace `lib::word_sum::kernel`), and a not_base pattern excludes by
    either the full name or the last component."""
    path = write(tmp_path, """
[[rule]]
name = "word"
bucket = "norm"
base = '(^|_)word(_|$)'
not_base = '^skipped_|^lib::other::'
""")
    names = ["void ns::word_kernel<int>(int)", "void a::b::(anonymous namespace)::my_word<1>()", "word_kernel",
             "void ns::sword_kernel<int>(int)", "void ns::skipped_word(int)", "void lib::other::word_kernel()",
             "void lib::word_sum::kernel()"]
    got = explain(names, load_rules(path))
    assert got["rule"].tolist() == ["word", "word", "word", "unmatched", "unmatched", "unmatched", "unmatched"]


def test_user_rules_first_and_override(tmp_path):
    path = write(tmp_path, """
[[rule]]
name = "gemm"                       # same name as a default: the user's takes effect
bucket = "other"
kernel = 'nvjet'

[[rule]]
name = "house-attention"
bucket = "attention"
base = '^my_paged_decode_v\\d$'

[[rule]]
name = "shadowed"
bucket = "norm"
base = '^my_paged_decode'

[[rule]]
name = "dtod-is-comm"
bucket = "communication"
kind = 'memcpy_dtod'
op = 'all_reduce'
""")
    rl = load_rules(path)
    assert rl.sources == (path, "default")
    assert [r.name for r in rl][:4] == ["gemm", "house-attention", "shadowed", "dtod-is-comm"]
    df = explain(["nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", "my_paged_decode_v2", "my_paged_decode_x",
                  "void cublasLt::splitKreduce_kernel<32, 16, int, float>(int)"], rl)
    assert df[["bucket", "rule"]].values.tolist() == [
        ["other", "gemm"], ["attention", "house-attention"], ["norm", "shadowed"], ["linear", "gemm"]]
    # a default-named rule overridden by the user: both resolve to one category 'gemm'
    assert list(classify_kernels(pd.DataFrame({"name": ["nvjet_x"]}), rl)["rule"].cat.categories).count("gemm") == 1
    mem = classify_memops(pd.DataFrame({"kind": ["memcpy_dtod", "memcpy_dtod"], "op": ["vllm::all_reduce", ""]}), rl)
    assert mem["bucket"].astype(str).tolist() == ["communication", "memory"]


@pytest.mark.parametrize("text,needle", [
    ("[[rule]\nname = 'x'", "not valid TOML"),
    ("[[rule]]\nname = 'x'\nbucket = 'gemm'\nkernel = 'a'", "bucket 'gemm' is not one of"),
    ("[[rule]]\nname = 'x'\nbucket = 'linear'\nkernel = '(unclosed'", "bad regular expression in 'kernel'"),
    ("[[rule]]\nname = 'x'\nbucket = 'linear'\nkernal = 'a'", "unknown key(s) kernal"),
    ("[[rule]]\nbucket = 'linear'\nkernel = 'a'", "missing 'name'"),
    ("[[rule]]\nname = 'x'\nbucket = 'linear'", "no match condition"),
    ("[[rule]]\nname = 'x'\nbucket = 'linear'\nkernel = 'a'\n[[rule]]\nname = 'x'\nbucket = 'other'\nkernel = 'b'",
     "duplicate rule name"),
    ("[[rule]]\nname = 'x'\nbucket = 'memory'\nkind = 'memcpy'\nkernel = 'a'", "memop rule (kind) cannot use kernel"),
    ("[[rule]]\nname = 'x'\nbucket = 'cast'\ndtype_change = 'yes'", "'dtype_change' must be true or false"),
    ("[[rule]]\nname = 'x'\nbucket = 'cast'\nkernel = 3", "'kernel' must be a string"),
    ("title = 'rules'", "unknown top-level key(s) title"),
    ("version = 1\n", "no [[rule]] tables"),
])
def test_bad_rules_file(tmp_path, text, needle):
    path = write(tmp_path, text)
    with pytest.raises(TraceError) as e:
        load_rules(path)
    msg = str(e.value)
    assert needle in msg and path in msg and "\n" not in msg


def test_missing_and_binary_rules_file(tmp_path):
    with pytest.raises(TraceError, match="cannot read rules file"):
        load_rules(str(tmp_path / "absent.toml"))
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe\x00rule")
    with pytest.raises(TraceError, match="not UTF-8"):
        load_rules(str(p))


# ------------------------------------------------------------------------------------------------
# op evidence on real public traces (not copied into the repository)

@needs_shared
def test_public_traces_op_evidence(rules):
    files = {f.name: f for f in shared_files(PUBLIC, "*.json.gz")}
    need = ["hta_a100_2rank_nccl_args.json.gz", "tracelens_mi300_sglang_qwen3_8b_prefilldecode.json.gz",
            "tracelens_mi300_vllm_graph_capture.json.gz"]
    if not all(n in files for n in need):
        pytest.skip("public traces missing")
    hta = read(str(files[need[0]]))
    c = classify_kernels(hta.kernels, rules)
    nccl = hta.kernels["op"].astype(str).str.contains("nccl:")
    assert nccl.sum() >= 21 and (c["bucket"][nccl] == "communication").all()
    sg = read(str(files[need[1]]))
    c = classify_kernels(sg.kernels, rules)
    op, types = sg.kernels["op"].astype(str), sg.kernels["op_input_types"].astype(str)
    conv = (op == "aten::copy_") & (types == "int,long int,Scalar")
    assert conv.any() and (c["bucket"][conv] == "cast").all()
    same = (op == "aten::copy_") & (types == "int,int,Scalar")
    assert same.any() and (c["bucket"][same] == "elementwise").all()
    vg = read(str(files[need[2]]))
    c = classify_kernels(vg.kernels, rules)
    attn = vg.kernels["op"].astype(str).str.startswith("vllm::unified_attention_with_output")
    assert attn.any() and (c["rule"][attn] == "attention-op").all() and (c["bucket"][attn] == "attention").all()
    kv = vg.kernels["name"].astype(str).str.contains("reshape_and_cache")
    assert kv.any() and (c["bucket"][kv] == "attention").all()


def test_labelled_csv_well_formed():
    with open(LABELLED, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        assert next(r) == ["name", "op", "op_input_types", "bucket", "source"]
        rows = list(r)
    assert all(len(x) == 5 and x[0] and x[3] in BUCKETS and x[4] for x in rows)
    assert len({(x[0], x[1], x[2]) for x in rows}) == len(rows)  # no duplicate evidence rows


# ------------------------------------------------------------------------------------------------
# held-out rounds 116-146 (tests/data/heldout_note.md): names labelled before the rules ran on them

HELDOUT = Path(__file__).parent / "data"


# names read right when their batch ended whose label the DECISIONS (rules/default.toml) contradict,
# later outvoted by other rounds' labels of the same family: the bucket they read now, and why
OUTVOTED = {
    "void nchwAddPaddingKernel<__nv_bfloat16, float, float, false, (cudnnKernelDataType_t)2>(int, int, int, int, "
    "int, int, int, int, __nv_bfloat16 const*, float*, int, int, int, int, int, float, float, cudnn::reduced_divisor, "
    "cudnn::reduced_divisor, cudnn::reduced_divisor)":
        ("cast", "a padding copy whose input and output types differ: cast by the DECISIONS, and labelled so in "
                 "three other rounds (the layout-cast rule since rounds 516-520)"),
    "void ilu0_schur_complement<float, 6, 6, 3, 4, 3>(int, int, int, float*, int, float*, int, float*, int*, int)":
        ("linear", "a Schur-complement update is GEMM-class compute by the DECISIONS, and labelled linear in three "
                   "other rounds (getrf_schur, glu_tile_schur and round 602's ilu0_schur_complement<float2>)"),
    "void cudnn::detail::cubeTransposeDeviceGeneric_kernel<__half, float, float, 8, 8, 8, 8, 8, 11, 5>(int, int, int, "
    "int, int, int, int, int, int, float, __half const*, float*)":
        ("cast", "a transpose whose input and output types differ: cast by the DECISIONS, and labelled so in rounds "
                 "501 and 608 (the layout-cast rule since rounds 606-610)"),
    "void scal_kernel<__nv_bfloat16, float, float, 1, true, 6, 5, 5, 3>(cudnnTransposeParams<float>, __nv_bfloat16 "
    "const*, float*, float)":
        ("cast", "cuDNN's scaled transpose from one type to another: cast by the DECISIONS, and labelled so in rounds "
                 "481, 574 and 629 (the layout-cast rule since rounds 626-630)"),
    "void convert_CooToCsr_kernel<0>(int const*, int, int, int*)":
        ("other", "COO to CSR compresses row indices into row offsets, a count and a scan (scans are other by the "
                  "DECISIONS), and it is labelled other in rounds 631 and 632"),
    "void ormql_cta_kernel<float, 4, 0>(long, long, long, float const*, long, long, float const*, long, float*, long, "
    "long, long, long, long, int)":
        ("linear", "applying a QL factor's block reflectors is the GEMM-class work ormqr_* is (the GEMM rule), and its "
                   "double forms are labelled linear in rounds 689 and 714"),
    "void chol_check_singularity<double, double, 256>(int, int const*, double const*, double, int*)":
        ("elementwise", "a search of the diagonal for zeros, a simple reduction: its float form and the trtri_ and qr_ "
                        "checks are labelled elementwise in rounds 684, 689 and 720"),
    "void cusparse::coo_init_diagonal_ker<int, float, 1>(int, float*, unsigned int*, unsigned int*)":
        ("elementwise", "it writes a diagonal's values and indices, a fill (data movement by the DECISIONS), and its "
                        "other instances are labelled elementwise in rounds 703, 726 and 735"),
    "void cudss::factorize_ker<long, float, int, float, 32, 0, 0, 0, 1, 0, 16, 32, 0>(int, unsigned int, int, "
    "int, float*, float*, long const*, int const*, int const*, int*, int const*, long const*, long const*, long "
    "const*, int const*, int*, int, int, int, int, int*, int*, float, float*, int, int*, int, long, long, int "
    "const*, long const*, long const*, long, long, int const*, int, int*, int, int const*, int*, float*, float)":
        ("linear", "cuDSS's supernodal numeric factorization, dense work on supernodes (the GEMM rule): its other "
                   "instances and forms are labelled linear in rounds 742, 746, 751 and 756 (other in 768)"),
    "void reduce_nmoduli_kernel<oz2_s1z4m11_dgemm>(int, int, int const*, int const*, int, bool, int*, int*)":
        ("elementwise", "a maximum over the emulated GEMM's moduli counts, a simple reduction: its other instances "
                        "are labelled elementwise in rounds 711 and 787"),
    "void xmma__5x_cudnn::implicit_gemm::strided_dgrad_indexed::kernel_helper_stage_1<xmma__5x_cudnn::imp"
    "licit_gemm::strided_dgrad_indexed::Params_pre_hopper>(xmma__5x_cudnn::implicit_gemm::strided_dgrad_i"
    "ndexed::Params_pre_hopper)":
        ("other", "a strided dgrad's index tables built before its GEMM, no GEMM: the other stages are labelled "
                  "other in rounds 707, 793 (twice) and 796 (twice)"),
}


def _batch_name(path: str, prefix: str) -> str:
    """The one name of a held-out batch that starts with `prefix` (for names of thousands of characters)."""
    names = [n for n in pd.read_csv(HELDOUT / path, sep="\t", quoting=3, dtype=str)["name"] if n.startswith(prefix)]
    assert len(names) == 1, (path, prefix, len(names))
    return names[0]


OUTVOTED[_batch_name(
    "heldout_175_177.tsv",
    "void cub::CUB_200802_SM_500_600_700_800_900_1000_1200::detail::for_each::static_kernel<cub::CUB_200802_SM_500_"
    "600_700_800_900_1000_1200::detail::for_each::policy_hub_t::policy_350_t, long long, thrust::THRUST_200802_SM_"
    "500_600_700_800_900_1000_1200_NS::cuda_cub::__transform::unary_transform_f<thrust::THRUST_200802_SM_500_600_"
    "700_800_900_1000_1200_NS::transform_iterator<xgboost::linalg::detail::IterOp<xgboost::GradientPairInt64")] = (
    "elementwise", "a Thrust transform (XGBoost's gradient pairs) that newer Thrust runs as a CUB for_each: "
                   "elementwise by the DECISIONS, as the other transforms and fills run so are labelled in rounds "
                   "210, 258, 297, 393 and 835 (by all three labellers there)")


def _keeps_what_it_read(df: pd.DataFrame, now: np.ndarray, right: int, show: list[str]) -> None:
    """The names of a held-out batch read right when it ended (`reads` == `bucket`: `right` of them)
    all still read so (`now`), those in OUTVOTED as it says."""
    right_then = (df["reads"] == df["bucket"]).to_numpy()
    assert right_then.sum() == right
    want = df["name"].map({n: b for n, (b, _) in OUTVOTED.items()}).fillna(df["bucket"]).to_numpy()
    lost = df[right_then & (now != want)]
    assert lost.empty, lost[show].assign(now=now[lost.index]).to_string()


@pytest.mark.parametrize("path, names, rounds, right", [("heldout_116_127.tsv", 666, 12, 598),
                                                        ("heldout_128_133.tsv", 418, 6, 406),
                                                        ("heldout_134_139.tsv", 404, 6, 374),
                                                        ("heldout_140_145.tsv", 303, 6, 247),
                                                        ("heldout_147_150.tsv", 232, 4, 220),
                                                        ("heldout_151_154.tsv", 253, 4, 209),
                                                        ("heldout_155_158.tsv", 255, 4, 191),
                                                        ("heldout_159_162.tsv", 286, 4, 253),
                                                        ("heldout_164_167.tsv", 296, 4, 260),
                                                        ("heldout_168_170.tsv", 223, 3, 201),
                                                        ("heldout_171_174.tsv", 265, 4, 235),
                                                        ("heldout_175_177.tsv", 172, 3, 126),
                                                        ("heldout_178.tsv", 80, 1, 59),
                                                        ("heldout_179_182.tsv", 215, 4, 192),
                                                        ("heldout_183_185.tsv", 141, 3, 124),
                                                        ("heldout_186_189.tsv", 278, 4, 250),
                                                        ("heldout_190_193.tsv", 251, 4, 201),
                                                        ("heldout_194_197.tsv", 238, 4, 203),
                                                        ("heldout_198_201.tsv", 199, 4, 170),
                                                        ("heldout_202_205.tsv", 223, 4, 198),
                                                        ("heldout_206_212.tsv", 428, 7, 395),
                                                        ("heldout_213_217.tsv", 265, 5, 250),
                                                        ("heldout_218_222.tsv", 340, 5, 314),
                                                        ("heldout_223_227.tsv", 205, 5, 192),
                                                        ("heldout_228_232.tsv", 270, 5, 242),
                                                        ("heldout_233_237.tsv", 231, 5, 216),
                                                        ("heldout_238_242.tsv", 244, 4, 231),
                                                        ("heldout_243_247.tsv", 297, 5, 282),
                                                        ("heldout_248_252.tsv", 283, 5, 253),
                                                        ("heldout_253_257.tsv", 196, 5, 182),
                                                        ("heldout_258_262.tsv", 210, 4, 153),
                                                        ("heldout_263_266.tsv", 189, 3, 159),
                                                        ("heldout_267_270.tsv", 238, 4, 220),
                                                        ("heldout_271_275.tsv", 246, 4, 242),
                                                        ("heldout_276_280.tsv", 226, 5, 210),
                                                        ("heldout_281_285.tsv", 283, 5, 273),
                                                        ("heldout_286_290.tsv", 309, 5, 289),
                                                        ("heldout_291_295.tsv", 262, 5, 260),
                                                        ("heldout_296_300.tsv", 295, 5, 288),
                                                        ("heldout_301_305.tsv", 251, 5, 248),
                                                        ("heldout_306_310.tsv", 275, 5, 273),
                                                        ("heldout_311_315.tsv", 306, 5, 301),
                                                        ("heldout_316_320.tsv", 277, 5, 274),
                                                        ("heldout_321_325.tsv", 265, 5, 265),
                                                        ("heldout_326_330.tsv", 289, 5, 286),
                                                        ("heldout_331_335.tsv", 222, 5, 222),
                                                        ("heldout_336_340.tsv", 342, 5, 338),
                                                        ("heldout_341_345.tsv", 268, 5, 265),
                                                        ("heldout_346_350.tsv", 269, 5, 263),
                                                        ("heldout_351_355.tsv", 213, 5, 209),
                                                        ("heldout_356_360.tsv", 295, 5, 295),
                                                        ("heldout_361_365.tsv", 263, 5, 260),
                                                        ("heldout_366_370.tsv", 256, 5, 252),
                                                        ("heldout_371_375.tsv", 335, 5, 331),
                                                        ("heldout_376_380.tsv", 239, 4, 232),
                                                        ("heldout_381_385.tsv", 297, 5, 293),
                                                        ("heldout_386_390.tsv", 232, 5, 227),
                                                        ("heldout_391_395.tsv", 203, 5, 190),
                                                        ("heldout_396_400.tsv", 173, 5, 157),
                                                        ("heldout_401_405.tsv", 247, 5, 239),
                                                        ("heldout_406_410.tsv", 213, 5, 205),
                                                        ("heldout_411_415.tsv", 232, 5, 226),
                                                        ("heldout_416_420.tsv", 162, 5, 158),
                                                        ("heldout_421_425.tsv", 242, 5, 240),
                                                        ("heldout_426_430.tsv", 164, 5, 161),
                                                        ("heldout_432_435.tsv", 231, 4, 217),
                                                        ("heldout_436_440.tsv", 206, 5, 190),
                                                        ("heldout_441_445.tsv", 269, 5, 242),
                                                        ("heldout_446_450.tsv", 206, 5, 201),
                                                        ("heldout_451_455.tsv", 223, 5, 211),
                                                        ("heldout_456_460.tsv", 97, 3, 97),
                                                        ("heldout_461_465.tsv", 279, 5, 253),
                                                        ("heldout_466_470.tsv", 229, 4, 210),
                                                        ("heldout_471_475.tsv", 218, 5, 197),
                                                        ("heldout_476_480.tsv", 211, 5, 204),
                                                        ("heldout_481_485.tsv", 226, 5, 213),
                                                        ("heldout_486_490.tsv", 234, 5, 221),
                                                        ("heldout_491_495.tsv", 245, 5, 237),
                                                        ("heldout_496_500.tsv", 271, 5, 253),
                                                        ("heldout_501_505.tsv", 269, 5, 257),
                                                        ("heldout_506_510.tsv", 157, 5, 153),
                                                        ("heldout_511_515.tsv", 292, 5, 285),
                                                        ("heldout_516_520.tsv", 202, 5, 196),
                                                        ("heldout_521_525.tsv", 105, 5, 100),
                                                        ("heldout_526_530.tsv", 175, 4, 163),
                                                        ("heldout_531_535.tsv", 221, 5, 212),
                                                        ("heldout_536_540.tsv", 157, 3, 154),
                                                        ("heldout_541_545.tsv", 220, 4, 217),
                                                        ("heldout_546_550.tsv", 280, 5, 267),
                                                        ("heldout_551_555.tsv", 239, 5, 222),
                                                        ("heldout_556_560.tsv", 272, 5, 267),
                                                        ("heldout_561_565.tsv", 291, 5, 284),
                                                        ("heldout_566_570.tsv", 214, 5, 193),
                                                        ("heldout_571_575.tsv", 266, 5, 259),
                                                        ("heldout_576_580.tsv", 185, 5, 182),
                                                        ("heldout_581_585.tsv", 251, 5, 241),
                                                        ("heldout_586_590.tsv", 227, 5, 226),
                                                        ("heldout_591_595.tsv", 35, 4, 35),
                                                        ("heldout_601_605.tsv", 279, 5, 276),
                                                        ("heldout_606_610.tsv", 253, 5, 250),
                                                        ("heldout_611_615.tsv", 316, 5, 310),
                                                        ("heldout_616_620.tsv", 259, 5, 257),
                                                        ("heldout_621_625.tsv", 247, 4, 241),
                                                        ("heldout_626_630.tsv", 271, 5, 268),
                                                        ("heldout_631_635.tsv", 278, 5, 270),
                                                        ("heldout_636_640.tsv", 318, 5, 314),
                                                        ("heldout_641_645.tsv", 316, 5, 306),
                                                        ("heldout_646_650.tsv", 278, 5, 267),
                                                        ("heldout_651_655.tsv", 217, 5, 213),
                                                        ("heldout_656_660.tsv", 316, 5, 311),
                                                        ("heldout_661_665.tsv", 270, 5, 267),
                                                        ("heldout_666_670.tsv", 317, 5, 310),
                                                        ("heldout_671_675.tsv", 264, 5, 259),
                                                        ("heldout_676_680.tsv", 328, 5, 318),
                                                        ("heldout_681_685.tsv", 312, 5, 304),
                                                        ("heldout_686_690.tsv", 327, 5, 320),
                                                        ("heldout_691_695.tsv", 315, 5, 306),
                                                        ("heldout_696_700.tsv", 313, 5, 306),
                                                        ("heldout_701_705.tsv", 267, 5, 245),
                                                        ("heldout_706_710.tsv", 311, 5, 303),
                                                        ("heldout_711_715.tsv", 319, 5, 306),
                                                        ("heldout_716_720.tsv", 299, 5, 289),
                                                        ("heldout_721_725.tsv", 290, 5, 284),
                                                        ("heldout_726_730.tsv", 320, 5, 310),
                                                        ("heldout_731_735.tsv", 267, 5, 254),
                                                        ("heldout_736_740.tsv", 210, 5, 209),
                                                        ("heldout_741_745.tsv", 190, 5, 169),
                                                        ("heldout_746_750.tsv", 311, 5, 285),
                                                        ("heldout_751_755.tsv", 315, 5, 304),
                                                        ("heldout_756_760.tsv", 275, 5, 265),
                                                        ("heldout_761_770.tsv", 338, 9, 315),
                                                        ("heldout_771_775.tsv", 321, 5, 309),
                                                        ("heldout_776_780.tsv", 295, 5, 285),
                                                        ("heldout_781_785.tsv", 216, 5, 208),
                                                        ("heldout_786_790.tsv", 255, 5, 239),
                                                        ("heldout_791_795.tsv", 169, 5, 147),
                                                        ("heldout_796_800.tsv", 315, 5, 308),
                                                        ("heldout_801_805.tsv", 282, 5, 271),
                                                        ("heldout_806_810.tsv", 262, 5, 255),
                                                        ("heldout_811_815.tsv", 246, 5, 225),
                                                        ("heldout_816_820.tsv", 85, 5, 82),
                                                        ("heldout_821_825.tsv", 127, 5, 113),
                                                        ("heldout_826_830.tsv", 229, 5, 190),
                                                        ("heldout_831_835.tsv", 300, 5, 264),
                                                        ("heldout_836_840.tsv", 242, 5, 218),
                                                        ("heldout_841_845.tsv", 181, 5, 142),
                                                        ("heldout_846_850.tsv", 270, 5, 258),
                                                        ("heldout_851_855.tsv", 244, 5, 204),
                                                        ("heldout_856_860.tsv", 300, 5, 288),
                                                        ("heldout_861_865.tsv", 190, 5, 158),
                                                        ("heldout_866_870.tsv", 300, 5, 249),
                                                        ("heldout_871_875.tsv", 295, 5, 261),
                                                        ("heldout_876_880.tsv", 118, 5, 107)])
def test_heldout_recent_rounds_keep_what_they_read_right(path, names, rounds, right):
    """Every name of a batch of held-out rounds that the rules read as labelled when the batch
    ended still reads so; `reads` records what each name read then, misses included."""
    df = pd.read_csv(HELDOUT / path, sep="\t", keep_default_na=False, dtype=str)
    assert len(df) == names and df["round"].nunique() == rounds and df["name"].is_unique
    assert set(df["bucket"]) <= set(BUCKETS)
    now = classify.explain(df["name"].tolist(), classify.load_rules())["bucket"].to_numpy()
    _keeps_what_it_read(df, now, right, ["round", "name", "bucket"])


def test_outvoted_names_are_batch_names_read_right_then_and_differently_now():
    """Each OUTVOTED name is in a batch, read as labelled when it ended, and reads the bucket OUTVOTED
    gives now, which is not its label: an entry that no longer excuses anything fails here."""
    found = {}
    for f in sorted(HELDOUT.glob("heldout_*.tsv")):
        df = pd.read_csv(f, sep="\t", keep_default_na=False, dtype=str)
        for n, b, r in zip(df["name"], df["bucket"], df.get("reads", df["bucket"])):
            if n in OUTVOTED:
                found[n] = (b, r)
    assert set(found) == set(OUTVOTED)
    now = classify.explain(list(OUTVOTED), classify.load_rules())["bucket"].tolist()
    for (n, (bucket, _)), got in zip(OUTVOTED.items(), now):
        label, read = found[n]
        assert read == label != bucket == got, n


@pytest.mark.parametrize("path, names, right", [("heldout_146_zoo.tsv", 173, 168), ("heldout_163_ops.tsv", 152, 128)])
def test_heldout_captured_rounds_keep_what_they_read_right(path, names, right):
    """Rounds captured here on an H100, labelled blind with the ops that launched each kernel: 146,
    random-weight Hugging Face models of many families (fixtures/capture/zoo_kernel_names.py); 163,
    PyTorch's own operator families (fixtures/capture/op_zoo_kernel_names.py: SDPA backends, fp8
    matmuls, RNNs, FFT and linear algebra, sorting and sampling, AMP training). Read with that op
    evidence (outermost > innermost op) as a torch trace gives it, every name read right when the
    round ended still reads so."""
    df = pd.read_csv(HELDOUT / path, sep="\t", keep_default_na=False, dtype=str)
    assert len(df) == names and df["name"].is_unique and set(df["bucket"]) <= set(BUCKETS)
    op = [i if o in ("", i) else f"{o} > {i}" for i, o in zip(df["inner"], df["outer"])]
    k = classify.classify_kernels(pd.DataFrame({"name": df["name"], "op": op, "op_input_types": ""}),
                                  classify.load_rules())
    _keeps_what_it_read(df, k["bucket"].astype(str).to_numpy(), right, ["name", "inner", "bucket"])


def test_packaged_plans_are_the_rules_twins():
    """rules/default.plans.json holds what each packaged rule's twin would be made of (its lower-case
    pattern and its branches' literals): a rules change without `python bench/heldout/plans.py`
    fails here (the twins would still be right, made at run time, only slower)."""
    import json

    from traceattrib import classify

    held = json.loads(classify.PLANS_FILE.read_text(encoding="utf-8"))
    fresh = classify.packaged_plans()
    assert not set(fresh) - set(held), "rules changed: run python bench/heldout/plans.py"
    assert held == fresh
    # every twin of the packaged rules is in it; a branch of plain letters is its own literal, one
    # with an optional start keeps the rest
    assert len(held) > 150
    branches = {b: lit for v in held.values() for b, lit in (v["plan"] or ())}
    assert branches["nvjet"] == "nvjet"
    assert branches["(^|_)dgmm(_|$)"] == "dgmm"


def test_twins_from_plans_read_as_twins_from_patterns(monkeypatch, tmp_path):
    """The packaged names read the same (bucket and rule) with the plans file, with none, and with
    one that is not JSON."""
    from traceattrib import classify

    names = pd.read_csv(LABELLED, keep_default_na=False, dtype=str)["name"].tolist()
    names += pd.read_csv(LABELLED.parent / "heldout_666_670.tsv", sep="\t", quoting=3, dtype=str)["name"].tolist()
    def read(plans_file):
        monkeypatch.setattr(classify, "PLANS_FILE", plans_file)
        classify._plans.cache_clear()
        classify._default.cache_clear()
        got = classify.explain(names, classify.load_rules())
        return got["bucket"].tolist(), got["rule"].tolist()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    try:
        with_plans = read(classify.PLANS_FILE)
        assert classify._plans()  # (the packaged file was read)
        assert read(tmp_path / "missing.json") == with_plans
        assert classify._plans() == {}
        assert read(bad) == with_plans
    finally:
        classify._plans.cache_clear()
        classify._default.cache_clear()


# names the three labels split three ways on (no majority: they count against every measure)
THREE_WAY = {"agreement_866_870.tsv": 2, "agreement_871_875.tsv": 2}


@pytest.mark.parametrize("path, names, ab, ac, bc, unanimous, first, now, now_unanimous", [
    ("agreement_480.tsv", 480, 467, 458, 463, 454, 450, 456, 439),
    ("agreement_811_815.tsv", 246, 222, 221, 243, 220, 233, 234, 217),
    ("agreement_816_820.tsv", 85, 82, 82, 85, 82, 85, 85, 82),
    ("agreement_821_825.tsv", 127, 117, 117, 127, 117, 104, 109, 106),
    ("agreement_826_830.tsv", 229, 224, 225, 226, 223, 189, 193, 190),
    ("agreement_831_835.tsv", 300, 280, 287, 283, 275, 250, 257, 249),
    ("agreement_836_840.tsv", 242, 233, 231, 238, 230, 202, 211, 210),
    ("agreement_841_845.tsv", 181, 159, 159, 173, 155, 148, 152, 140),
    ("agreement_846_850.tsv", 270, 269, 269, 270, 269, 240, 257, 257),
    ("agreement_851_855.tsv", 244, 221, 220, 239, 218, 175, 202, 191),
    ("agreement_856_860.tsv", 300, 291, 291, 298, 290, 274, 289, 284),
    ("agreement_861_865.tsv", 190, 181, 183, 188, 181, 155, 165, 158),
    ("agreement_866_870.tsv", 300, 277, 285, 284, 274, 203, 246, 242),
    ("agreement_871_875.tsv", 295, 283, 285, 285, 280, 255, 264, 260),
    ("agreement_876_880.tsv", 118, 114, 116, 116, 114, 107, 107, 105)])
def test_agreement_labels_and_rules_against_their_majority(path, names, ab, ac, bc, unanimous, first, now,
                                                           now_unanimous):
    """Held-out names labelled three times blind (tests/data/heldout_note.md, 'How far the labels
    agree'): the labellers' agreement the note states, what the rules read at first sight against
    the majority of three, and the rules now keep at least the agreement they have with the
    majority and with the unanimous labels."""
    df = pd.read_csv(HELDOUT / path, sep="\t", keep_default_na=False, dtype=str, quoting=csv.QUOTE_NONE)
    assert len(df) == names and df["name"].is_unique
    labels = df[["label", "label_b", "label_c"]]
    assert set(labels.to_numpy().ravel()) <= set(BUCKETS)
    assert (df["label"] == df["label_b"]).sum() == ab
    assert (df["label"] == df["label_c"]).sum() == ac
    assert (df["label_b"] == df["label_c"]).sum() == bc
    same = (df["label"] == df["label_b"]) & (df["label"] == df["label_c"])
    assert same.sum() == unanimous
    majority = labels.mode(axis=1)[0].where(labels.nunique(axis=1) < 3)
    assert majority.isna().sum() == THREE_WAY.get(path, 0)
    assert (df["reads"] == majority).sum() == first
    got = classify.explain(df["name"].tolist(), classify.load_rules())["bucket"]
    assert (got == majority).sum() >= now
    assert (got[same] == df["label"][same]).sum() >= now_unanimous
