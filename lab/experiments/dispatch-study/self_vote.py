#!/usr/bin/env python3
"""What the dispatcher serves at each table entry's own shape, against that entry's winner, judged by
the cache's L2-cold medians (no GPU: `padtune explain --backend cuda --results TABLE --any-device`):

  python3 lab/experiments/dispatch-study/self_vote.py results/nvidia-h200.json results/nvidia-h200.cache.jsonl build/ci/tuner/padtune

A sweep entry is not an exact entry: the 8 nearest entries vote even at its own shape, so neighbours
that agree can outvote the shape's own measurement."""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # lab/
from padtune_lab.cache import read_ok  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    table, cache, padtune = sys.argv[1:]
    entries = json.load(open(table))["entries"]
    median = read_ok(cache)
    overruled, ratios = [], []
    for e in entries:
        shape = tuple(e["shape"])
        out = subprocess.run([padtune, "explain", "--backend", "cuda", "--dtype", e["dtype"], "--shape",
                              ",".join(map(str, shape)), "--json", "--results", table, "--any-device"],
                             capture_output=True, text=True, check=True)
        pick, winner = json.loads(out.stdout)["instantiation"], e["winner"]["id"]
        times = median.get((e["dtype"], shape), {})
        served, best = times.get(pick), times.get(winner)
        if served is None or best is None:
            sys.exit(f"{e['dtype']} {shape}: the cache has no ok measurement of {pick if served is None else winner}")
        ratios.append(served / best)
        if pick != winner:
            overruled.append((served / best, e["dtype"], shape, pick.split("__", 2)[2], winner.split("__", 2)[2]))
    overruled.sort(reverse=True)
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{len(entries)} entries; at its own shape the vote serves another kernel than the entry's winner in "
          f"{len(overruled)}; served/winner: geomean {geomean:.4f}, worst {max(ratios):.3f}, "
          f"over 1.01: {sum(r > 1.01 for r in ratios)}")
    for r in overruled[:10]:
        print(f"  {r[0]:.3f} {r[1]} {r[2]}: {r[3]} for the winner {r[4]}")


if __name__ == "__main__":
    main()
