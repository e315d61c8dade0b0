"""Random mutations of the real fixtures through the command line, for as long as asked; every
answer that breaks the contract of tests/harness.py (a traceback, a Python warning, exit 3, a
negative or non-finite number in the JSON, a hang) is kept with its input and what was done to it.

    python tests/mutate_cli.py --seconds 3600 --seed 1 --out /tmp/mutate

Not a test (pytest does not collect it): a search that runs for an hour finds what the
hypothesis property tests, bounded to seconds, do not. Each finding becomes a test of its own
(tests/hostile.py, or a test beside the code it mends) once understood.

Mutations, on a copy of a fixture: Kineto JSON events with keys deleted or set to hostile values
(wrong types, huge, negative, NaN text, markup, control characters), many events of one category
changed at once, events shuffled, duplicated or dropped by category, times jittered, devices and
streams spread, phases changed, External ids made to collide, durations zeroed, the file cut
short; a rank directory with one rank's file mutated so; Nsight Systems tables with values set,
negated, swapped or jittered, rows deleted or duplicated, tables dropped, devices and processes
spread. Commands: report in every format and with its options, info, classify, export --perfetto,
diff against the unmutated fixture, plot.
"""
from __future__ import annotations

import argparse
import copy
import gzip
import json
import os
import random
import shutil
import sqlite3
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import Hang, check_contract, run_cli  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
JSONS = ["repeat_graph_b1.pt.trace.json.gz", "layers_graph_torch.pt.trace.json.gz", "hybrid_graph_torch.pt.trace.json.gz",
         "moe_graph_torch.pt.trace.json.gz", "serve_full_noann_torch.pt.trace.json.gz",
         "layers_eager_torch_plain.pt.trace.json.gz"]
SQLITES = ["llama_graph_nsys.sqlite", "layers_graph_nsys.sqlite", "idle_causes_nsys.sqlite", "layers_eager_nsys_nvtx.sqlite"]
RANK_DIRS = ["tp2_graph_torch", "tp2_eager_torch"]
CATEGORIES = ["kernel", "cuda_runtime", "cpu_op", "user_annotation", "gpu_memcpy", "gpu_memset", "ac2g",
              "python_function", "cuda_driver"]
COMMANDS = [["report"], ["report", "--format", "json"], ["report", "--format", "html"], ["report", "--format", "csv"],
            ["report", "--format", "md", "--per-step"], ["report", "--per-step", "--format", "json"],
            ["report", "--what-if-link", "pcie4", "--format", "json"], ["info"], ["classify"], ["export"], ["diff"],
            ["plot"]]


class Mutator:
    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def hostile(self):
        return self.r.choice([None, -1, 0, 2 ** 63, -2 ** 63, 1e308, -1e-9, 1.5, "", "x", "12", "-5", "1e400", [], {},
                              [1, 2], {"a": 1}, True, "\u202e\x00name", "</script><img onerror=alert(1)>", 10 ** 30,
                              "NaN", 3.000000001])

    def kineto(self, doc) -> list[str]:
        """Edits of a Kineto document in place; what was done."""
        r, done = self.r, []
        ev = doc.get("traceEvents") if isinstance(doc, dict) else None
        for _ in range(r.randint(1, 4)):
            if not ev:
                break
            e = r.choice(ev)
            m = r.randrange(14)
            if m == 0 and isinstance(e, dict) and e:
                k = r.choice(list(e))
                del e[k]
                done.append(f"del {k}")
            elif m == 1 and isinstance(e, dict) and e:
                k = r.choice(list(e))
                e[k] = self.hostile()
                done.append(f"set {k}={e[k]!r}")
            elif m == 2 and isinstance(e, dict) and isinstance(e.get("args"), dict) and e["args"]:
                k = r.choice(list(e["args"]))
                e["args"][k] = self.hostile()
                done.append(f"args {k}={e['args'][k]!r}")
            elif m == 3:
                k, v = r.choice(["ts", "dur", "ph", "name", "pid", "tid", "cat", "id", "bp"]), self.hostile()
                cat = r.choice(CATEGORIES + [None])
                n = 0
                for x in ev:
                    if isinstance(x, dict) and (cat is None or x.get("cat") == cat) and r.random() < 0.3:
                        x[k] = v
                        n += 1
                done.append(f"bulk {cat}.{k}={v!r} n={n}")
            elif m == 4:
                r.shuffle(ev)
                done.append("shuffle")
            elif m == 5:
                for _ in range(r.randint(1, 50)):
                    ev.append(copy.deepcopy(r.choice(ev)))
                done.append("duplicate")
            elif m == 6:
                cat = r.choice(CATEGORIES)
                doc["traceEvents"] = ev = [x for x in ev if not (isinstance(x, dict) and x.get("cat") == cat)]
                done.append(f"drop {cat}")
            elif m == 7 and isinstance(e, dict):
                e["dur"] = -abs(e["dur"]) if isinstance(e.get("dur"), (int, float)) else -5
                done.append("negative dur")
            elif m == 8:
                k = r.choice([k for k in doc if k != "traceEvents"] or ["x"])
                doc[k] = self.hostile()
                done.append(f"header {k}")
            elif m == 9:
                d = r.choice([1, 5, 50, 500, 5000])
                for x in ev:
                    if isinstance(x, dict) and isinstance(x.get("ts"), (int, float)) and r.random() < 0.1:
                        x["ts"] += r.uniform(-d, d)
                done.append(f"jitter ts {d} us")
            elif m == 10:
                for x in ev:
                    if isinstance(x, dict) and x.get("cat") == "kernel" and isinstance(x.get("args"), dict) \
                            and r.random() < 0.5:
                        x["args"]["device"], x["args"]["stream"] = r.randrange(4), r.choice([7, 13, 21])
                done.append("devices and streams")
            elif m == 11:
                cat = r.choice(["kernel", "cuda_runtime", "cpu_op", "user_annotation"])
                for x in ev:
                    if isinstance(x, dict) and x.get("cat") == cat and r.random() < 0.05:
                        x["ph"] = r.choice(["B", "E", "i", "b", "e", "s", "f", "M", "C", "Z"])
                done.append(f"phases {cat}")
            elif m == 12:
                ids = [x["args"]["External id"] for x in ev
                       if isinstance(x, dict) and isinstance(x.get("args"), dict) and "External id" in x["args"]]
                if ids:
                    v = r.choice(ids)
                    for x in ev:
                        if isinstance(x, dict) and isinstance(x.get("args"), dict) and "External id" in x["args"] \
                                and r.random() < 0.2:
                            x["args"]["External id"] = v
                done.append("External ids collide")
            elif m == 13:
                for x in ev:
                    if isinstance(x, dict) and isinstance(x.get("dur"), (int, float)) and r.random() < 0.3:
                        x["dur"] = 0
                done.append("durations zeroed")
        return done

    def nsys(self, path: Path) -> list[str]:
        """Edits of an Nsight Systems export in place; what was done."""
        r, done = self.r, []
        con = sqlite3.connect(path)
        tables = [t for (t,) in con.execute("select name from sqlite_master where type='table'")]
        bulk = [t for t in tables if t.startswith("CUPTI_") or t in ("NVTX_EVENTS", "StringIds", "TARGET_INFO_GPU",
                                                                      "META_DATA_EXPORT", "TARGET_INFO_CUDA_DEVICE")]
        for _ in range(r.randint(1, 3)):
            t = r.choice(bulk or tables)
            cols = [row[1] for row in con.execute(f'pragma table_info("{t}")')]
            if not cols:
                continue
            c, m = r.choice(cols), r.randrange(9)
            try:
                if m == 0:
                    v = self.hostile()
                    v = json.dumps(v) if isinstance(v, (list, dict)) else int(v) if isinstance(v, bool) else v
                    v = str(v) if isinstance(v, int) and abs(v) >= 2 ** 63 else v
                    frac = r.choice([1, 50, 500, 1000])
                    con.execute(f'update "{t}" set "{c}" = ? where abs(random()) % 1000 < {frac}', (v,))
                    done.append(f"{t}.{c} = {v!r} in {frac} of 1000")
                elif m == 1:
                    con.execute(f'delete from "{t}" where abs(random()) % 100 < {r.choice([1, 20, 100])}')
                    done.append(f"rows of {t} deleted")
                elif m == 2:
                    con.execute(f'drop table "{t}"')
                    done.append(f"{t} dropped")
                elif m == 3:
                    con.execute(f'update "{t}" set "{c}" = -"{c}" where abs(random()) % 10 = 0')
                    done.append(f"{t}.{c} negated")
                elif m == 4:
                    con.execute(f'insert into "{t}" select * from "{t}" where abs(random()) % 10 = 0')
                    done.append(f"rows of {t} duplicated")
                elif m == 5 and {"start", "end"} <= set(cols):
                    con.execute(f'update "{t}" set "start" = "end", "end" = "start" where abs(random()) % 20 = 0')
                    done.append(f"{t} start and end swapped")
                elif m == 6 and "deviceId" in cols:
                    con.execute(f'update "{t}" set "deviceId" = abs(random()) % 4 where abs(random()) % 2 = 0')
                    done.append(f"{t} devices spread")
                elif m == 7 and "globalPid" in cols:
                    con.execute(f'update "{t}" set "globalPid" = "globalPid" + 16777216 * (abs(random()) % 3) '
                                'where abs(random()) % 3 = 0')
                    done.append(f"{t} processes spread")
                elif m == 8 and {"start", "end"} <= set(cols):
                    d = r.choice([10, 1000, 100000, 10000000])
                    con.execute(f'update "{t}" set "start" = "start" + {d} * ((abs(random()) % 3) - 1), '
                                f'"end" = "end" + {d} * ((abs(random()) % 3) - 1) where abs(random()) % 10 = 0')
                    done.append(f"{t} jittered by {d} ns")
            except (sqlite3.Error, OverflowError) as e:
                done.append(f"(sqlite refused: {e})")
        con.commit()
        con.close()
        return done


def args_for(cmd: list[str], path: Path, fixture: Path, r: random.Random) -> list[str]:
    if cmd[0] == "export":
        return ["export", str(path), "--perfetto", f"{path}.perfetto.json.gz", "--no-cache"]
    if cmd[0] == "diff":
        return ["diff", str(fixture), str(path), "--format", r.choice(["text", "json"])]
    if cmd[0] == "plot":
        return ["plot", str(path), "-o", f"{path}.png", "--no-cache"] + r.choice([[], ["--step", "1"], ["--layers"]])
    return cmd + [str(path)] + (["--no-cache"] if cmd[0] in ("report", "info") else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/traceattrib-mutate")
    a = ap.parse_args()
    out, work = Path(a.out) / "found", Path(a.out) / f"work{a.seed}"
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    os.environ["TRACEATTRIB_CACHE_DIR"] = str(Path(a.out) / f"cache{a.seed}")
    mut, r = Mutator(a.seed), random.Random(a.seed + 1)
    documents: dict[str, dict] = {}
    end, n, found = time.time() + a.seconds, 0, 0
    while time.time() < end:
        n += 1
        kind = r.choices(["json", "sqlite", "ranks"], [0.5, 0.35, 0.15])[0]
        if kind == "ranks":
            fixture = FIXTURES / r.choice(RANK_DIRS)
            path = work / f"ranks{n % 3}"
            shutil.rmtree(path, ignore_errors=True)
            shutil.copytree(fixture, path)
            victim = r.choice(sorted(path.glob("*.json.gz")))
            doc = json.loads(gzip.open(victim).read())
            done = [f"in {victim.name}"] + mut.kineto(doc)
            victim.write_bytes(gzip.compress(json.dumps(doc).encode()))
            args = args_for(list(r.choice(COMMANDS[:8])), path, fixture, r)
        elif kind == "json":
            fixture = FIXTURES / r.choice(JSONS)
            if fixture.name not in documents:
                documents[fixture.name] = json.loads(gzip.open(fixture).read())
            doc = copy.deepcopy(documents[fixture.name])
            done = mut.kineto(doc)
            text = json.dumps(doc)
            if r.random() < 0.05:
                text = text[:r.randrange(len(text))]
                done.append("cut short")
            path = work / f"t{n % 3}.json"
            path.write_text(text)
            args = args_for(list(r.choice(COMMANDS)), path, fixture, r)
        else:
            fixture = FIXTURES / r.choice(SQLITES)
            path = work / f"t{n % 3}.sqlite"
            shutil.copy(fixture, path)
            done = mut.nsys(path)
            args = args_for(list(r.choice(COMMANDS)), path, fixture, r)
        try:
            check_contract(run_cli(*args, timeout=120))
            continue
        except Hang as e:
            why = f"HANG {e}"
        except AssertionError as e:
            why = f"CONTRACT {str(e)[:3000]}"
        except BaseException:  # noqa: BLE001 - whatever escaped the command line is the finding
            why = f"RAISED {traceback.format_exc()[-3000:]}"
        found += 1
        keep = out / f"seed{a.seed}_{n}{''.join(path.suffixes)}"
        (shutil.copytree if path.is_dir() else shutil.copy)(path, keep)
        (out / f"{keep.name}.txt").write_text(f"fixture {fixture.name}\nmutations {done}\nargs {args}\n{why}\n")
        print(f"[{n}] {fixture.name} {done} {args[0]}: {why.splitlines()[0][:200]}", flush=True)
    print(f"{n} runs, {found} findings", flush=True)


if __name__ == "__main__":
    main()
