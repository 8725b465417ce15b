#!/usr/bin/env python3
"""scripts/torch-pool.py over three runs made from a real torch-bench run (the H200's torch.json):
as measured, padtune's times 5% lower, and 10% higher, with P9 f16 skipped in the third. The pooled
medians are the middle process's, so every target reads as in the run itself; P9 f16 is pooled
over the two that measured it; the per-process table counts where padtune was ahead. Then what
is refused: one run, a run twice, runs of two devices, a file that is not JSON, --out onto a run.

Usage: torch_pool.py SCRIPT TORCH_JSON SCRATCH_DIR"""
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys

script, source, scratch = sys.argv[1:4]
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
p9 = next(r for r in runs[2]["cases"] if (r["tag"], r["dtype"]) == ("P9", "f16"))
p9.clear()
p9.update({"tag": "P9", "shape": [2, 4, 8, 2, 3], "dtype": "f16", "errors": {}, "skipped": "error: a stand-in"})
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
    same = [t for t in base["targets"] if (t["tag"], t["dtype"]) != ("P9", "f16")]
    got = {(t["target"], t["tag"], t["dtype"]): t["result"] for t in pooled["targets"]}
    moved = [(t["tag"], t["dtype"], t["result"], got.get((t["target"], t["tag"], t["dtype"]))) for t in same
             if got.get((t["target"], t["tag"], t["dtype"])) != t["result"]]
    check(not moved, f"targets moved in the pool of the middle run: {moved[:4]}")
    check("| P8 (8, 128, 1000, 7, 9) | f16 | 0.959 1.010 0.872 | 1 of 3 |" in md,
          "no per-process row for P8 f16 with 1 of 3 ahead")
    check("Pooled from 3 processes" in md and md.count("`" + paths[0] + "`") == 1, "torch.md does not list the runs")

two = copy.deepcopy(base)
two["device"] = "NVIDIA H100"
cases = [
    ((paths[0],), 2, "give at least two runs"),
    ((paths[0], paths[0]), 2, "a file is given twice"),
    ((paths[0], write("other", two)), 3, "different devices (NVIDIA H100, NVIDIA H200)"),
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
print("torch-pool: three runs pooled to their middle one's targets; P9 f16 over the 2 that measured it; 6 refusals")
