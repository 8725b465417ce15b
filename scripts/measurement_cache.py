"""padtune's measurement cache (the .cache.jsonl that `padtune tune` writes), read for the compare
scripts: its successful measurements, and what a kernel id says about the kernel."""
import json
import re
import sys

MEMCPY_FLOOR = "cudaMemcpyAsync_d2d"
SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2}
AOT = re.compile(r"^constant_pad1d_backward__(\w+?)__(\w+?)__bo(\d+)__t(\d+)__w(\d+)$")
JIT = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)__(\w+?)__t(\d+)__w(\d+)$")
# A JIT seed with the seed's default threads has the seed's own id: no variant, threads or width.
JIT_SEED = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)$")
SEED_THREADS = 256  # the JIT's default max_threads (padtune::jit::variant_choice)


def kernel_key(cand_id):
    """(dtype, variant, BLOCK_OL, threads, width) for a kernel id, and whether it is a JIT one;
    (None, False) for an id that names no kernel (the memcpy floor)."""
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
