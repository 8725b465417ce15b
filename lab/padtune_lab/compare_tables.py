#!/usr/bin/env python3
"""How close a table's winners come to the best of an exhaustive run.

Usage: lab/bin/compare-tables EXHAUSTIVE.cache.jsonl TABLE.json [--within 0.03]
       lab/bin/compare-tables EXHAUSTIVE.cache.jsonl TABLE.json --against EXHAUSTIVE.json

For every entry of TABLE (for example from the default `padtune tune`, or `--budget S`), looks up
the exhaustive run's median of that winner on the entry's shape, and the best median of any
candidate there, and prints the ratio. Exits 1 if any winner is more than --within slower than the
exhaustive best.

With --against (the exhaustive run's own table): per shape that both tables hold an entry for,
TABLE's winner over the exhaustive table's winner there, each timed by the exhaustive run; then the
geometric mean over those entries and the worst. That is how a faster search is judged side by
side with the exhaustive one (issue 23: 1.01 and 1.03). A table has an entry per measured shape;
older tables had one per bucket, at one of its shapes, and compare at that shape.
"""
import argparse
import json
import math
import os
import statistics
import sys

from padtune_lab.cache import kernel_medians

TIME_CLASSES = [(0, 5), (5, 10), (10, 50), (50, math.inf)]  # us, by the first run's median


def key(dtype, shape):
    return (dtype, tuple(shape))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cache")
    ap.add_argument("table")
    ap.add_argument("--within", type=float, default=0.03)
    ap.add_argument("--against", help="the exhaustive run's table: compare winners entry by entry")
    ap.add_argument("--long-us", type=float, default=10.0,
                    help="with --against, also the figures over entries whose exhaustive winner runs longer (default 10)")
    ap.add_argument("--repeat", metavar="CACHE", help="TABLE's own cache: the run-to-run drift of kernels both runs timed")
    ap.add_argument("--judge-plan", metavar="DIR", help="with --against: write the third run's shapes and filters to DIR")
    ap.add_argument("--judge-over", type=float, default=0.02, help="--judge-plan takes entries over 1 + this (default 0.02)")
    ap.add_argument("--padtune", default="build/gpu/tuner/padtune", help="the CLI the printed judge commands name")
    ap.add_argument("--judge", metavar="CACHE", help="with --against: the third run's cache; its ratios of the entries it timed")
    a = ap.parse_args()
    if (a.judge_plan or a.judge) and not a.against:
        ap.error("--judge-plan and --judge need --against (they judge the side-by-side entries)")

    medians = kernel_medians(a.cache)
    with open(a.table) as f:
        table = json.load(f)

    if a.repeat:
        repeat(medians, kernel_medians(a.repeat))
    if a.against:
        with open(a.against) as f:
            exhaustive = json.load(f)
        rows = side_by_side(medians, table, exhaustive)
        code = against(rows, a.long_us)
        if a.judge_plan:
            judge_plan(rows, a.judge_over, a.judge_plan, a.padtune)
        if a.judge:
            code = code or judge(rows, kernel_medians(a.judge), a.judge)
        sys.exit(code)
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
    print(f"{len(ratios)} entries: {within} within {a.within:.0%} of the exhaustive best; "
          f"mean {sum(r[0] for r in ratios) / len(ratios):.4f}x, worst {ratios[0][0]:.4f}x")
    for r, dtype, bucket, wid in ratios[:5]:
        print(f"  {r:.4f}x  {dtype} {bucket} {wid}")
    sys.exit(0 if within == len(ratios) else 1)


def problem(e):
    """An entry's place: its dtype and problem (rows, L, pads), however B and C split the rows."""
    B, C, L, pad_left, pad_right = e["shape"]
    return (e["dtype"], B * C, L, pad_left, pad_right)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def repeat(first, second):
    """Prints, per time class, the second run's median over the first's for each (shape, kernel)
    both timed in full."""
    pairs = [(t, second[k][i]) for k, by_id in first.items() if k in second for i, t in by_id.items() if i in second[k]]
    print(f"run to run: {len(pairs)} kernels on a shape timed in full by both runs, the second run's median over the first's")
    for lo, hi in TIME_CLASSES:
        r = sorted(b / a for a, b in pairs if lo <= a < hi)
        if not r:
            continue
        q = statistics.quantiles(r, n=20) if len(r) > 1 else [r[0]] * 19
        label = f"{lo:g}-{hi:g} us" if hi != math.inf else f"over {lo:g} us"
        print(f"  {label}: n {len(r)}, geomean {geomean(r):.4f}, 5-95% {q[0]:.3f}-{q[-1]:.3f}, min {r[0]:.3f}, "
              f"max {r[-1]:.3f}")


def side_by_side(medians, table, exhaustive):
    """[(ratio, dtype, bucket, mine, theirs, their us, shape)] of the entries both tables hold, where the
    exhaustive run timed both winners, worst first."""
    theirs = {problem(e): e["winner"]["id"] for e in exhaustive["entries"] if not e.get("exact")}
    rows = []
    for e in table["entries"]:
        k = problem(e)
        times = medians.get(key(e["dtype"], e["shape"]), {})
        if e.get("exact") or k not in theirs or e["winner"]["id"] not in times or theirs[k] not in times:
            continue
        rows.append((times[e["winner"]["id"]] / times[theirs[k]], e["dtype"], e["bucket"], e["winner"]["id"], theirs[k],
                     times[theirs[k]], tuple(e["shape"])))
    return sorted(rows, reverse=True)


FILTER_BYTES = 256  # the longest --filter padtune takes (id_filter::max_pattern_bytes)


def id_filters(ids, limit=FILTER_BYTES):
    """Anchored --filter patterns, each at most `limit` bytes, that together match exactly `ids`: the ids'
    common prefix (up to a '__') once per pattern, then as many of the rest as fit."""
    ids = sorted(ids)
    prefix = os.path.commonprefix(ids)
    prefix = prefix[:prefix.rfind("__") + 2] if "__" in prefix else ""
    patterns, part = [], []
    for rest in (i[len(prefix):] for i in ids):
        if part and len(f"^{prefix}({'|'.join(part + [rest])})$") > limit:
            patterns.append(part)
            part = []
        part.append(rest)
    patterns.append(part)
    return [f"^{prefix}({'|'.join(p)})$" for p in patterns]


def judge_plan(rows, over, out_dir, padtune):
    """Writes DIR/sizes-DTYPE.txt and DIR/filter-DTYPE-K.txt (K = 1, 2, ...: padtune takes a filter of at
    most FILTER_BYTES) for the entries over 1 + `over` whose winners differ, and prints the tune commands
    that time both winners on them into DIR/judge.*."""
    picked = {}
    for r in rows:
        if r[0] > 1 + over and r[3] != r[4]:
            shapes, ids = picked.setdefault(r[1], (set(), set()))
            shapes.add(r[6]), ids.update((r[3], r[4]))
    os.makedirs(out_dir, exist_ok=True)
    print(f"judge plan: {sum(len(s) for s, _ in picked.values())} shapes over {1 + over:.2f}, "
          f"{sum(len(i) for _, i in picked.values())} kernels; time them with:")
    for dtype, (shapes, ids) in sorted(picked.items()):
        sizes = os.path.join(out_dir, f"sizes-{dtype}.txt")
        with open(sizes, "w") as f:
            f.writelines(" ".join(map(str, s)) + "\n" for s in sorted(shapes))
        for k, pattern in enumerate(id_filters(ids), start=1):
            filt = os.path.join(out_dir, f"filter-{dtype}-{k}.txt")
            with open(filt, "w") as f:
                f.write(pattern + "\n")
            print(f'  {padtune} tune --backend cuda --dtype {dtype} --sizes {sizes} --exhaustive --filter "$(cat {filt})" '
                  f'--table {os.path.join(out_dir, "judge.json")} --cache {os.path.join(out_dir, "judge.cache.jsonl")}')


def judge(rows, third, path):
    """Prints the side-by-side ratios of the entries that the third run timed both winners of, by its
    medians and by the first run's; returns 1 if it timed none."""
    judged = []
    for r in rows:
        times = third.get((r[1], r[6]), {})
        if r[3] != r[4] and r[3] in times and r[4] in times:
            judged.append((times[r[3]] / times[r[4]], r[0], r[1], r[2], r[3], r[4], times[r[4]]))
    if not judged:
        print(f"judge: {path} timed both winners of no side-by-side entry")
        return 1
    judged.sort(reverse=True)
    print(f"judged by a third run ({path}): {len(judged)} entries; this table's winner over the exhaustive table's: "
          f"geomean {geomean([j[0] for j in judged]):.4f}, worst {judged[0][0]:.4f} ({judged[0][2]} {judged[0][3]}); "
          f"the first run on the same entries: geomean {geomean([j[1] for j in judged]):.4f}, worst {max(j[1] for j in judged):.4f}")
    for j in judged[:5]:
        print(f"  {j[0]:.4f} (first run {j[1]:.4f})  {j[2]} {j[3]} ({j[6]:.1f} us): {j[4]} against {j[5]}")
    return 0


def against(rows, long_us):
    """Prints the side-by-side figures of side_by_side's rows; returns the exit code (1: no shape in common)."""
    if not rows:
        print("no shape of the table is in the exhaustive table with measurements of both winners")
        return 1
    same = sum(1 for r in rows if r[3] == r[4])
    print(f"{len(rows)} entries side by side: the same winner in {same}; this table's winner over the exhaustive "
          f"table's, timed by the exhaustive run: geomean {geomean([r[0] for r in rows]):.4f}, worst {rows[0][0]:.4f} "
          f"({rows[0][1]} {rows[0][2]}), best {rows[-1][0]:.4f}")
    long = [r for r in rows if r[5] > long_us]
    if long:
        print(f"  over {long_us:g} us ({len(long)} entries): geomean {geomean([r[0] for r in long]):.4f}, worst "
              f"{long[0][0]:.4f} ({long[0][1]} {long[0][2]}, {long[0][5]:.1f} us)")
    for r, dtype, bucket, mine, exh, us, _ in rows[:5]:
        print(f"  {r:.4f}  {dtype} {bucket} ({us:.1f} us): {mine} against {exh}")
    return 0


if __name__ == "__main__":
    main()
