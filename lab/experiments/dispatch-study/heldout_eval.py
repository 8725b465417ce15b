#!/usr/bin/env python3
"""Lookup rules judged on the held-out shapes of the H200 (every candidate timed on each).

The table is the sweep's cache (results/nvidia-h200.cache.jsonl, each entry's times as the tuner
ranks them); the queries are the 264 shapes of held-out seeds 1-7, whose caches are in
held-out-caches/ (gzip of the caches `lab/bin/held-out --work DIR` kept). Prints, per rule,
pick/best as geomean, worst and counts, pooled and for seeds 6-7 alone (drawn after the design).

    python3 lab/experiments/dispatch-study/heldout_eval.py
"""
import collections
import gzip
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import study as S  # noqa: E402


def held_out(seeds=range(1, 8)):
    times = collections.defaultdict(dict)
    for seed in seeds:
        with gzip.open(os.path.join(HERE, "held-out-caches", f"seed{seed}.cache.jsonl.gz"), "rt") as f:
            next(f)
            for line in f:
                d = json.loads(line)
                if d["status"] == "ok" and d["id"] != S.MEMCPY:
                    times[(d["dtype"], tuple(d["shape"]), seed)][d["id"]] = d["cold"]["median_us"]
    return times


def main():
    data = S.load(os.path.join(S.ROOT, "results/nvidia-h200.cache.jsonl"), os.path.join(S.ROOT, "results/nvidia-h200.json"))
    ho = held_out()
    W = dict(weighted=True, eps=0.25, power=2)
    rules = collections.OrderedDict()
    rules["nearest bucket (before)"] = S.rule_nearest(S.BASELINE)
    rules["nearest entry, new distance"] = S.rule_nearest(S.NEW)
    rules["vote 8, top 8 ranked (shipped to cef6b25)"] = S.rule_knn(S.NEW, 8, info="topm", topm=8, pen=1.2, **W)
    rules["vote 8, winner + runner-up"] = S.rule_knn(S.NEW, 8, info="topm", topm=2, pen=1.1, **W)
    rules["vote 8, every candidate"] = S.rule_knn(S.NEW, 8, **W)
    rules["vote 4, top 8 ranked"] = S.rule_knn(S.NEW, 4, info="topm", topm=8, pen=1.2, **W)
    for name, rule in rules.items():
        res = []
        for (dt, shape, seed), t in ho.items():
            D = data[dt]
            fq = {k: np.array([v], float) for k, v in S.feats_of(shape, D.es).items()}
            pick = D.ids[rule(D, np.arange(D.nsweep), fq, np.zeros((1, D.nsweep), bool))[0]]
            res.append((t.get(pick, math.nan) / min(t.values()), seed))
        v = np.array([r for r, _ in res])
        v67 = np.array([r for r, s in res if s in (6, 7)])
        print(f"{name:32s} geomean {np.exp(np.nanmean(np.log(v))):.4f} worst {np.nanmax(v):.3f} "
              f"over 1.05: {(v > 1.05).sum():3d}/{len(v)} | seeds 6-7: {np.exp(np.nanmean(np.log(v67))):.4f} {np.nanmax(v67):.3f}")


if __name__ == "__main__":
    main()
