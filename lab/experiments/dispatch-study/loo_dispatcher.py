#!/usr/bin/env python3
"""The C++ dispatcher left one entry out at a time: for each entry of TABLE, a table without it, and
what `padtune explain` serves at the entry's shape, over the best of every candidate there by CACHE's
L2-cold medians (no GPU: --backend cuda --any-device). study.py's leave-one-out with the shipped
vote itself (its span, its tiny-problem rule, its table) instead of a model of it.

    python3 lab/experiments/dispatch-study/loo_dispatcher.py TABLE CACHE build/ci/tuner/padtune [JOBS]

Prints the geometric mean and worst of served/best, over every entry and over those whose best runs
over 10 us, with the shapes over 1.05."""
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # lab/
from padtune_lab.cache import kernel_medians  # noqa: E402


def served(padtune, table, i, work):
    """What the dispatcher serves at entry i's shape from `table` without entry i."""
    e = table["entries"][i]
    path = os.path.join(work, f"loo-{i}.json")
    with open(path, "w") as f:
        json.dump(dict(table, entries=table["entries"][:i] + table["entries"][i + 1:]), f)
    out = subprocess.run([padtune, "explain", "--backend", "cuda", "--dtype", e["dtype"], "--shape",
                          ",".join(map(str, e["shape"])), "--json", "--results", path, "--any-device"],
                         capture_output=True, text=True, check=True)
    os.remove(path)
    return json.loads(out.stdout)["instantiation"]


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    table_path, cache, padtune = sys.argv[1:4]
    jobs = int(sys.argv[4]) if len(sys.argv) == 5 else os.cpu_count()
    table = json.load(open(table_path))
    median = kernel_medians(cache)
    with tempfile.TemporaryDirectory() as work, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        picks = list(pool.map(lambda i: served(padtune, table, i, work), range(len(table["entries"]))))
    rows = []
    for e, pick in zip(table["entries"], picks):
        times = median.get((e["dtype"], tuple(e["shape"])), {})
        if pick not in times:
            sys.exit(f"{e['dtype']} {tuple(e['shape'])}: the cache has no ok measurement of {pick}")
        best = min(times.values())
        rows.append((times[pick] / best, best, e["dtype"], tuple(e["shape"]), pick.split("__", 2)[2]))
    for name, sel in (("every entry", rows), ("best over 10 us", [r for r in rows if r[1] > 10])):
        if not sel:
            continue
        g = math.exp(sum(math.log(r[0]) for r in sel) / len(sel))
        print(f"{name}: {len(sel)} entries, served/best geomean {g:.4f}, worst {max(r[0] for r in sel):.3f}, "
              f"over 1.05: {sum(r[0] > 1.05 for r in sel)}")
    for r in sorted(rows, reverse=True)[:8]:
        print(f"  {r[0]:.3f} {r[2]} {r[3]} ({r[1]:.1f} us): {r[4]}")


if __name__ == "__main__":
    main()
