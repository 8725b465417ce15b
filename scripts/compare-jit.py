#!/usr/bin/env python3
"""Which won where: JIT kernels (pads compiled in) against the ahead-of-time ones (pads at run time).

Reads the measurement cache of a `padtune tune --jit` run and prints, per shape and dtype, the best
ahead-of-time candidate, the best JIT candidate and their ratio, then each JIT kernel against its
own twin (same variant, BLOCK_OL, threads and access width) over all shapes.

Usage: scripts/compare-jit.py CACHE.jsonl     (prints a markdown table)
"""
import argparse
import json
import re
import statistics
import sys

AOT = re.compile(r"^constant_pad1d_backward__(\w+?)__(\w+?)__bo(\d+)__t(\d+)__w(\d+)$")
JIT = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)__(\w+?)__t(\d+)__w(\d+)$")
# A JIT seed with the seed's default threads has the seed's own id: no variant, threads or width.
JIT_SEED = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)$")
SEED_THREADS = 256  # the JIT's default max_threads (padtune::jit::variant_choice)
SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}


def twin_key(cand_id):
    """(dtype, variant, BLOCK_OL, threads, width) for a kernel id, and whether it is a JIT one."""
    m = JIT.match(cand_id)
    if m:
        dtype, _, _, bo, variant, t, w = m.groups()
        return (dtype, variant, int(bo), int(t), int(w)), True
    m = JIT_SEED.match(cand_id)
    if m and m.group(1) in SIZE:
        dtype, bo = m.group(1), int(m.group(4))
        return (dtype, "seed", bo, min(bo, SEED_THREADS), SIZE[dtype]), True
    m = AOT.match(cand_id)
    if m:
        dtype, variant, bo, t, w = m.groups()
        return (dtype, variant, int(bo), int(t), int(w)), False
    return None, False


def short(cand_id):
    """'rowtile bo1024 t256 w16' (the dtype has its own column; a JIT kernel's pads are the shape's)."""
    (_, variant, bo, t, w), _ = twin_key(cand_id)
    return f"{variant} bo{bo} t{t} w{w}"


def load(path):
    """{(dtype, shape): {id: median_us}} of the successful measurements of kernels."""
    times = {}
    with open(path) as f:
        header = f.readline()
        if '"padtune_cache"' not in header:
            sys.exit(f"{path}: not a padtune measurement cache (its first line has no padtune_cache)")
        for n, line in enumerate(f, start=2):
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                print(f"{path}:{n}: skipped, not JSON (a torn last line?)", file=sys.stderr)
                continue
            if r.get("status") != "ok" or twin_key(r.get("id", ""))[0] is None:
                continue
            times.setdefault((r["dtype"], tuple(r["shape"])), {})[r["id"]] = r["cold"]["median_us"]
    return times


def compare(times):
    """Rows (dtype, shape, best AOT, its us, best JIT, its us) and the JIT/twin ratios."""
    rows, twins = [], []
    for (dtype, shape), by_id in sorted(times.items()):
        aot = {i: t for i, t in by_id.items() if not twin_key(i)[1]}
        jit = {i: t for i, t in by_id.items() if twin_key(i)[1]}
        if not aot or not jit:
            continue
        best_aot = min(aot, key=aot.get)
        best_jit = min(jit, key=jit.get)
        rows.append((dtype, shape, best_aot, aot[best_aot], best_jit, jit[best_jit]))
        aot_by_key = {twin_key(i)[0]: t for i, t in aot.items()}
        for i, t in jit.items():
            key = twin_key(i)[0]
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
