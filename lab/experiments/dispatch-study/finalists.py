#!/usr/bin/env python3
"""How good is the best of the vote's first K candidates? The bound behind first-use timing.

The vote as shipped before it ranked 16 (runtime/src/vote.hpp; the H200 table ranks 8 still), table from the sweep's cache, on the held-out shapes of
the seeds named (every candidate timed on each, held-out-caches/; default 1-7): for K = 1, 2, 4, 8,
12 and 16, the
best cached time among the vote's K best-voted candidates over the shape's best. K = 1 is the vote
alone; K = 12 is what first-use timing (runtime/src/autotune.hpp) could reach with a perfect timer.

    python3 lab/experiments/dispatch-study/finalists.py [SEED ...]
"""
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import heldout_eval as H  # noqa: E402
import study as S  # noqa: E402


def vote_order(D, fq, k=8, topm=8, pen=1.2, eps=0.25):
    """The candidates of D (indices) in the order the shipped vote ranks them for the query fq."""
    ft = {name: v[:D.nsweep] for name, v in D.f.items()}
    d = S.dist(S.NEW, fq, ft)[0]
    near = np.argsort(d, kind="stable")[:k]
    w = 1 / (eps + d[near]) ** 2
    L = D.logR[:D.nsweep]
    order = np.argsort(L, axis=1, kind="stable")
    known = np.zeros(L.shape, bool)
    np.put_along_axis(known, order[:, :topm], True, 1)
    mth = np.take_along_axis(L, order[:, topm - 1:topm], 1)
    cost = np.where(known, L, np.maximum(mth, math.log(pen)))
    total = np.where(known[near].any(0), (w[:, None] * cost[near]).sum(0), np.inf)
    return np.argsort(total, kind="stable")


def main():
    data = S.load(os.path.join(S.ROOT, "results/nvidia-h200.cache.jsonl"), os.path.join(S.ROOT, "results/nvidia-h200.json"))
    shapes = H.held_out([int(a) for a in sys.argv[1:]] or range(1, 8))
    for K in (1, 2, 4, 8, 12, 16):
        v = []
        for (dt, shape, _), t in shapes.items():
            D = data[dt]
            fq = {name: np.array([x], float) for name, x in S.feats_of(shape, D.es).items()}
            finalists = [D.ids[j] for j in vote_order(D, fq)[:K] if D.ids[j] in t]
            v.append(min(t[c] for c in finalists) / min(t.values()))
        v = np.array(v)
        print(f"best of the vote's first {K}: geomean {np.exp(np.log(v).mean()):.4f}, worst {v.max():.3f}, "
              f"over 1.05: {(v > 1.05).sum()} of {len(v)}")


if __name__ == "__main__":
    main()
