#!/usr/bin/env python3
"""lab/bin/torch-pool over three runs made from a real torch-bench run (the H200's torch.json):
as measured, padtune's times 5% lower, and 10% higher, with P9 f16 skipped (with an error) in the
third and P9 bf16 in the last two. The pooled medians are the middle process's, so every target
reads as in the run itself; P9 f16 is pooled over the two that measured it, its per-process row
has a - for the third, and the third's error is kept under its name; P9 bf16's targets say they
were measured in one process; a GPU-sleep warning of one process stays; the narrowed dy's ratio
is the pooled medians'. Then what is refused: one run, a run twice, runs of two devices, of two
torch versions or two sample settings, a file that is not JSON, --out onto a run.

Usage: torch_pool.py SCRIPT TORCH_JSON SCRATCH_DIR"""
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys

script, source, scratch = sys.argv[1:4]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(script))))  # lab/, for padtune_lab
from padtune_lab import torch_bench  # noqa: E402  (the targets as torch-bench judges them today)
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def write(name, doc):
    os.makedirs(os.path.join(scratch, name))
    path = os.path.join(scratch, name, "torch.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def pool(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


with open(source) as f:
    base = json.load(f)
runs = [base]
for factor in (0.95, 1.10):
    doc = copy.deepcopy(base)
    for r in doc["cases"]:
        if r.get("methods", {}).get("padtune", {}).get("median_us"):
            r["methods"]["padtune"]["median_us"] *= factor
    runs.append(doc)


def case(doc, tag, dt):
    return next(r for r in doc["cases"] if (r["tag"], r["dtype"]) == (tag, dt))


def stand_in(doc, tag, dt, errors):
    r = case(doc, tag, dt)
    shape = r["shape"]
    r.clear()
    r.update({"tag": tag, "shape": shape, "dtype": dt, "errors": errors, "skipped": "error: a stand-in"})


stand_in(runs[2], "P9", "f16", {"case": "a stand-in error"})
for d in runs[1:]:
    stand_in(d, "P9", "bf16", {})
case(runs[1], "P1", "f32")["methods"]["padtune"]["gpu_busy_throughout"] = False
paths = [write(n, d) for n, d in zip("abc", runs)]
out = os.path.join(scratch, "pooled")
r = pool(*paths, "--out", out)
check(r.returncode == 0, f"pooling three runs: exit {r.returncode}: {r.stderr[-500:]}")
if r.returncode == 0:
    with open(os.path.join(out, "torch.json")) as f:
        pooled = json.load(f)
    with open(os.path.join(out, "torch.md")) as f:
        md = f.read()
    rows = {(c["tag"], c["dtype"]): c for c in pooled["cases"]}
    orig = {(c["tag"], c["dtype"]): c for c in base["cases"]}
    p8 = rows[("P8", "f16")]
    want = statistics.median(d["cases"][base["cases"].index(orig[("P8", "f16")])]["methods"]["padtune"]["median_us"]
                             for d in runs)
    check(abs(p8["methods"]["padtune"]["median_us"] - want) < 1e-9, f"P8 f16 padtune {p8['methods']['padtune']} != {want}")
    check(p8["methods"]["padtune"]["n"] == 3 and p8["processes"] == 3, f"P8 f16 counts {p8['processes']} processes")
    check(abs(p8["methods"]["padtune"]["ratio"] * p8["copy"]["median_us"] - want) < 1e-9, "P8 f16's ratio is not over the copy")
    q9 = rows[("P9", "f16")]
    check(q9["processes"] == 2 and q9["methods"]["padtune"]["n"] == 2, f"P9 f16 pooled over {q9.get('processes')}, not 2")
    # The run's own targets as today's torch-bench judges them (a stored run may predate a target).
    same = [t for t in torch_bench.targets(base) if (t["tag"], t["dtype"]) != ("P9", "f16")]
    got = {(t["target"], t["tag"], t["dtype"]): t["result"] for t in pooled["targets"]}
    moved = [(t["tag"], t["dtype"], t["result"], got.get((t["target"], t["tag"], t["dtype"]))) for t in same
             if got.get((t["target"], t["tag"], t["dtype"])) != t["result"]]
    check(not moved, f"targets moved in the pool of the middle run: {moved[:4]}")
    def compile_over_padtune(tag, dt, factors):
        """compile/padtune in each made-up run: base's padtune time scaled by the run's factor."""
        m = case(base, tag, dt)["methods"]
        return [m["compile"]["median_us"] / (f * m["padtune"]["median_us"]) for f in factors]

    per_run = compile_over_padtune("P8", "f16", (1, 0.95, 1.10))
    row8 = (f"| P8 (8, 128, 1000, 7, 9) | f16 | {' '.join(f'{x:.3f}' for x in per_run)} | "
            f"{sum(x > 1 for x in per_run)} of 3 |")
    check(row8 in md, f"no per-process row {row8!r}")
    row9 = f"| P9 (2, 4, 8, 2, 3) | f16 | {' '.join(f'{x:.3f}' for x in compile_over_padtune('P9', 'f16', (1, 0.95)))} - | "
    check(row9 in md, f"no per-process row {row9!r} with a - for the run that skipped it")
    check(q9["errors"].get("c: case") == "a stand-in error", f"the third run's P9 f16 error is lost: {q9['errors']}")
    check("a stand-in error" in md, "torch.md does not show the third run's error")
    one = [t for t in pooled["targets"] if (t["tag"], t["dtype"]) == ("P9", "bf16")]
    check(one and all("measured in one process only" in t["detail"] for t in one),
          f"P9 bf16's targets do not say they rest on one process: {[t['detail'] for t in one]}")
    check(rows[("P1", "f32")]["methods"]["padtune"].get("gpu_busy_throughout") is False,
          "the second run's GPU-sleep warning at P1 f32 is lost")
    check("the GPU's sleep ended before" in md, "torch.md does not show the GPU-sleep warning")
    for n in pooled["narrow"]:
        if n.get("narrow", {}).get("median_us") and n.get("contiguous", {}).get("median_us"):
            want = round(n["narrow"]["median_us"] / n["contiguous"]["median_us"], 4)
            check(n["narrow"]["vs_contiguous"] == want, f"{n['tag']} {n['dtype']}: narrow vs contiguous "
                  f"{n['narrow']['vs_contiguous']}, the pooled medians give {want}")
    check("Pooled from 3 processes" in md and md.count("`" + paths[0] + "`") == 1, "torch.md does not list the runs")

two = copy.deepcopy(base)
two["device"] = "NVIDIA H100"
older = copy.deepcopy(base)
older["torch"] = "2.10.0"
fewer = copy.deepcopy(base)
fewer["settings"]["samples"] = 7
cases = [
    ((paths[0],), 2, "give at least two runs"),
    ((paths[0], paths[0]), 2, "a file is given twice"),
    ((paths[0], write("other", two)), 3, "different devices (NVIDIA H100, NVIDIA H200)"),
    ((paths[0], write("older", older)), 3, "the runs differ in torch"),
    ((paths[0], write("fewer", fewer)), 3, "the runs differ in settings"),
    ((paths[0], os.path.join(scratch, "nope.json")), 3, "nope.json"),
]
with open(os.path.join(scratch, "text.json"), "w") as f:
    f.write("not json")
cases.append(((paths[0], os.path.join(scratch, "text.json")), 3, "text.json: not JSON"))
for args, code, text in cases:
    r = pool(*args, "--out", os.path.join(scratch, "refused"))
    check(r.returncode == code and text in r.stderr, f"{args}: exit {r.returncode} (wanted {code}), said {r.stderr[-300:]!r}")
r = pool(paths[0], paths[1], "--out", os.path.dirname(paths[1]))
check(r.returncode == 2 and "holds one of the runs" in r.stderr, f"--out onto a run: exit {r.returncode}, {r.stderr[-300:]!r}")
with open(paths[1]) as f:
    check(json.load(f)["cases"][0]["tag"] == base["cases"][0]["tag"], "--out onto a run changed the run")

if failures:
    print("torch-pool checks FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("torch-pool: three runs pooled to their middle one's targets; P9 f16 over the 2 that measured it, its error "
      "and a GPU-sleep warning kept, P9 bf16 flagged as one process; 8 refusals")
