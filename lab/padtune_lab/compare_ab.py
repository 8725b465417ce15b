#!/usr/bin/env python3
"""The A/B of lab/bin/ab-perf: caches of alternating rounds (A1 B1 A2 B2 ...) of the same tune.

Prints, per shape and dtype, the best candidate's time as a multiple of the same round's memcpy
for each side and round; then, per variant, the geometric mean over every (shape, dtype, candidate)
of B's time over A's in the same round, one column per round (their difference is the noise).
"""
import argparse
import collections
import math

from padtune_lab.cache import MEMCPY_FLOOR, read_ok
from padtune_lab.ids import kernel_key


def variant(candidate_id):
    """rowtile for a rowtile kernel, "jit rowtile" for a JIT one, the id itself for the memcpy floor."""
    key, jit = kernel_key(candidate_id)
    if key is None:
        return candidate_id
    return f"jit {key[1]}" if jit else key[1]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--a", default="A", help="what side A is (its CUDA flags)")
    ap.add_argument("--b", default="B", help="what side B is")
    ap.add_argument("caches", nargs="+", help="A1 B1 A2 B2 ...")
    args = ap.parse_args()
    if len(args.caches) % 2:
        ap.error("caches come in pairs: A1 B1 A2 B2 ...")
    rounds = [(read_ok(a), read_ok(b)) for a, b in zip(args.caches[0::2], args.caches[1::2])]

    print(f"# A/B: A = `{args.a or '(none)'}`, B = `{args.b or '(none)'}`, {len(rounds)} rounds\n")
    print("Best candidate per shape and dtype, time / memcpy of the same round (A rounds | B rounds):\n")
    print("| shape | dtype | A | B | best of B |")
    print("| --- | --- | --- | --- | --- |")
    keys = [k for k in rounds[0][0] if all(k in a and k in b for a, b in rounds)]  # the suite's order

    def best(cands):
        rows = [(t, i) for i, t in cands.items() if i != MEMCPY_FLOOR]
        return min(rows) if rows and MEMCPY_FLOOR in cands else None

    for key in keys:
        cols = []
        for side in (0, 1):
            cells = []
            for rnd in rounds:
                b = best(rnd[side].get(key, {}))
                cells.append(f"{b[0] / rnd[side][key][MEMCPY_FLOOR]:.3f}" if b else "-")
            cols.append(" ".join(cells))
        b = best(rounds[-1][1].get(key, {}))
        print(f"| {key[1]} | {key[0]} | {cols[0]} | {cols[1]} | {b[1].split('__', 2)[-1] if b else '-'} |")

    print("\nB's time / A's, same round, geometric mean over shapes, dtypes and candidates (per round):\n")
    print("| variant | " + " | ".join(f"round {r + 1}" for r in range(len(rounds))) + " | pairs per round |")
    print("| --- | " + " | ".join("---" for _ in rounds) + " | --- |")
    per_variant = collections.defaultdict(lambda: [[] for _ in rounds])
    for r, (a, b) in enumerate(rounds):
        for key in set(a) & set(b):
            for cid in set(a[key]) & set(b[key]):
                per_variant[variant(cid)][r].append(b[key][cid] / a[key][cid])
                if cid != MEMCPY_FLOOR:
                    per_variant["(all kernels)"][r].append(b[key][cid] / a[key][cid])
    for v in sorted(per_variant):
        cells = [f"{geomean(xs):.4f}" for xs in per_variant[v]]
        counts = sorted({len(xs) for xs in per_variant[v]})
        print(f"| {v} | " + " | ".join(cells) + f" | {'-'.join(map(str, counts))} |")


if __name__ == "__main__":
    main()
