#!/usr/bin/env python3
"""How close a table's winners come to the best of an exhaustive run.

Usage: scripts/compare-tables.py EXHAUSTIVE.cache.jsonl TABLE.json [--within 0.03]

For every entry of TABLE (for example from `padtune tune --budget S`), looks up the exhaustive
run's median of that winner on the entry's shape, and the best median of any candidate there, and
prints the ratio. Exits 1 if any winner is more than --within slower than the exhaustive best.
"""
import argparse
import json
import sys

from measurement_cache import MEMCPY_FLOOR, read_ok


def key(dtype, shape):
    return (dtype, tuple(shape))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache")
    ap.add_argument("table")
    ap.add_argument("--within", type=float, default=0.03)
    a = ap.parse_args()

    medians = {k: {i: t for i, t in by_id.items() if i != MEMCPY_FLOOR} for k, by_id in read_ok(a.cache).items()}
    with open(a.table) as f:
        table = json.load(f)

    ratios = []
    for e in table["entries"]:
        times = medians.get(key(e["dtype"], e["shape"]))
        if not times or e["winner"]["id"] not in times:
            print(f"{e['dtype']} {e['bucket']}: no exhaustive measurement of {e['winner']['id']}")
            continue
        r = times[e["winner"]["id"]] / min(times.values())
        ratios.append((r, e["dtype"], e["bucket"], e["winner"]["id"]))
    if not ratios:
        sys.exit("no entry of the table was measured by the exhaustive run")
    ratios.sort(reverse=True)
    within = sum(1 for r in ratios if r[0] <= 1 + a.within)
    print(f"{len(ratios)} buckets: {within} within {a.within:.0%} of the exhaustive best; "
          f"mean {sum(r[0] for r in ratios) / len(ratios):.4f}x, worst {ratios[0][0]:.4f}x")
    for r, dtype, bucket, wid in ratios[:5]:
        print(f"  {r:.4f}x  {dtype} {bucket} {wid}")
    sys.exit(0 if within == len(ratios) else 1)


if __name__ == "__main__":
    main()
