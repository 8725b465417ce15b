#!/usr/bin/env python3
"""Which won where: JIT kernels (pads compiled in) against the ahead-of-time ones (pads at run time).

Reads the measurement cache of a `padtune tune --jit` run and prints, per shape and dtype, the best
ahead-of-time candidate, the best JIT candidate and their ratio, then each JIT kernel against its
own twin (same variant, BLOCK_OL, threads and access width) over all shapes.

Usage: lab/bin/compare-jit CACHE.jsonl     (prints a markdown table)
"""
import argparse
import statistics
import sys

from padtune_lab.cache import read_ok
from padtune_lab.ids import kernel_key


def short(cand_id):
    """'rowtile bo1024 t256 w16' (the dtype has its own column; a JIT kernel's pads are the shape's)."""
    (_, variant, bo, t, w), _ = kernel_key(cand_id)
    return f"{variant} bo{bo} t{t} w{w}"


def load(path):
    """{(dtype, shape): {id: median_us}} of the successful measurements of kernels."""
    return {k: kernels for k, by_id in read_ok(path).items()
            if (kernels := {i: t for i, t in by_id.items() if kernel_key(i)[0] is not None})}


def compare(times):
    """Rows (dtype, shape, best AOT, its us, best JIT, its us) and the JIT/twin ratios."""
    rows, twins = [], []
    for (dtype, shape), by_id in sorted(times.items()):
        aot = {i: t for i, t in by_id.items() if not kernel_key(i)[1]}
        jit = {i: t for i, t in by_id.items() if kernel_key(i)[1]}
        if not aot or not jit:
            continue
        best_aot = min(aot, key=aot.get)
        best_jit = min(jit, key=jit.get)
        rows.append((dtype, shape, best_aot, aot[best_aot], best_jit, jit[best_jit]))
        aot_by_key = {kernel_key(i)[0]: t for i, t in aot.items()}
        for i, t in jit.items():
            key = kernel_key(i)[0]
            if key in aot_by_key:
                twins.append(t / aot_by_key[key])
    return rows, twins


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cache")
    args = parser.parse_args()
    rows, twins = compare(load(args.cache))
    if not rows:
        sys.exit(f"{args.cache}: no shape has both JIT and ahead-of-time measurements (was it tuned with --jit?)")
    print("| shape (B, C, L, pl, pr) | dtype | best ahead-of-time (us) | best JIT (us) | JIT / AOT | winner |")
    print("| --- | --- | --- | --- | --- | --- |")
    jit_wins = 0
    for dtype, shape, aot_id, aot_us, jit_id, jit_us in rows:
        ratio = jit_us / aot_us
        jit_wins += ratio < 1
        print(f"| {shape} | {dtype} | {short(aot_id)} ({aot_us:.2f}) | {short(jit_id)} ({jit_us:.2f}) | "
              f"{ratio:.3f} | {'JIT' if ratio < 1 else 'AOT'} |")
    print(f"\nJIT fastest on {jit_wins} of {len(rows)} shapes. ", end="")
    if twins:
        print(f"Each JIT kernel against its ahead-of-time twin ({len(twins)} pairs): median "
              f"{statistics.median(twins):.3f}, min {min(twins):.3f}, max {max(twins):.3f}")
    else:
        print("No JIT kernel has an ahead-of-time twin measured on the same shape.")


if __name__ == "__main__":
    main()
