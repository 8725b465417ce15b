"""padtune's measurement cache (the .cache.jsonl that `padtune tune` writes; its fields:
docs/tuning.md), read for the lab: its successful measurements."""
import json
import sys

MEMCPY_FLOOR = "cudaMemcpyAsync_d2d"  # the id of the copy every shape is timed beside


def read_ok(path):
    """{(dtype, shape): {id: L2-cold median us}} of the cache's successful measurements, the memcpy
    floor's among them. Exits naming a file that is no cache; reports and skips a line that is not
    JSON (a torn last line)."""
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
            if r.get("status") == "ok":
                times.setdefault((r["dtype"], tuple(r["shape"])), {})[r["id"]] = r["cold"]["median_us"]
    return times


def kernel_medians(path):
    """read_ok's {(dtype, shape): {id: median us}}, the memcpy floor left out."""
    return {k: {i: t for i, t in by_id.items() if i != MEMCPY_FLOOR} for k, by_id in read_ok(path).items()}
