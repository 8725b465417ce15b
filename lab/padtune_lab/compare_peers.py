#!/usr/bin/env python3
"""Times padtune against the peers a user would pick instead, on one GPU in one run, and writes
<out>/peers.json and <out>/peers.md: one row per shape and dtype of the performance suite.

  lab/bin/compare-peers --bench build/gpu/bench/padtune_bench --out results/nvidia-h200

Runs padtune_bench (the dispatcher, each variant, the memcpy floor, cudaMemcpy2DAsync, Thrust) into
<out>/bench.json, then times in this process, L2-cold: PyTorch's aten::constant_pad_nd(dy, [-pl, -pr]),
the autograd backward of F.pad, a Triton kernel of the same contract, and a device-to-device copy of
the same payload (the floor the peers' ratios use). Every peer's output is checked bit for bit.
--bench-json reuses a benchmark JSON instead of running padtune_bench."""
import argparse
import json
import os
import re
import subprocess
import sys
import time

from padtune_lab.output_file import write_output

NAME = re.compile(r"^(?P<suite>\w+)/(?P<tag>\w+)/(?P<B>\d+)x(?P<C>\d+)x(?P<L>\d+)/pad(?P<pl>-?\d+),(?P<pr>-?\d+)/"
                  r"(?P<dtype>f32|f64|f16|bf16)/(?P<row>\w+)")
from padtune_lab.dtypes import SIZE  # noqa: E402
DTYPES = list(SIZE)
# Issue 5's targets, as multiples of the floor (P6: of its sector floor).
TARGET = {"P6": ("sector", 1.10), "P8": ("memcpy", 1.10), "P9": ("memcpy", 1.10)}


def variant_rows(case):
    """padtune_bench's rows of one variant at its best BLOCK_OL: each is labelled with the id it ran
    (the dispatcher's row too, which is no variant); the bench's rows are what the variants are."""
    return [r for r, v in case.items() if isinstance(v, dict) and r != "dispatcher"
            and v.get("id", "").startswith("constant_pad1d_backward__")]


def case_order(key):
    tag, dtype = key
    return int(tag[1:]), DTYPES.index(dtype)


def run_bench(binary, out_json, bench_filter):
    cmd = [binary, "--padtune_suite=perf", f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def read_bench(path):
    """{(tag, dtype): {"shape": ..., row: {...}}} from a padtune_bench JSON."""
    with open(path) as f:
        doc = json.load(f)
    cases = {}
    for b in doc["benchmarks"]:
        m = NAME.match(b["name"])
        if not m or m["suite"] != "perf":
            continue
        case = cases.setdefault((m["tag"], m["dtype"]), {
            "tag": m["tag"], "dtype": m["dtype"],
            "shape": [int(m[k]) for k in ("B", "C", "L", "pl", "pr")]})
        if b.get("error_occurred"):
            case[m["row"]] = {"error": b.get("error_message", "error")}
        else:
            case[m["row"]] = {"median_us": b["median_us"], "ratio": b["ratio"], "gbps": b["GB/s"],
                              "floor_us": b["floor_us"], "id": b.get("label", "")}
    return doc.get("context", {}), cases


def sector_floor_factor(shape, dtype):
    """(bytes of dy touched in 32-byte sectors + bytes of dx) / (2 * bytes of dx): what a copy must
    move when rows start and end inside sectors. Exact; rows repeat their alignment every P rows."""
    from math import gcd
    B, C, L, pl, pr = shape
    es, OL, rows = SIZE[dtype], pl + L + pr, B * C
    lo, hi = max(0, pl), min(OL, pl + L)  # the part of each dy row that lands in dx
    if hi <= lo or rows == 0 or L == 0:
        return 1.0
    stride, span = OL * es, (hi - lo) * es
    period = 32 // gcd(stride, 32)

    def sectors(r):  # sectors row r touches that row r - 1 did not
        a = r * stride + lo * es
        first, last = a // 32, (a + span - 1) // 32
        shared = r > 0 and first == (a - stride + span - 1) // 32
        return last - first + 1 - shared

    per_residue = [sectors(k + period) for k in range(period)]
    total = sectors(0) + sum(per_residue[k] * ((rows - 1 - k) // period + (1 if k >= 1 else 0))
                             for k in range(period) if rows > 1)
    dx_bytes = rows * L * es
    return (total * 32 + dx_bytes) / (2 * dx_bytes)


def time_peers(cases, samples):
    import torch
    import torch.nn.functional as F
    from padtune_lab.peers import contract, triton_peer
    from padtune_lab.peers.timing import ColdTimer

    timer = ColdTimer(samples)
    for key, case in sorted(cases.items(), key=lambda kv: case_order(kv[0])):
        B, C, L, pl, pr = case["shape"]
        dt = case["dtype"]
        t0 = time.time()
        dy, ref = contract.case(B, C, L, pl, pr, dt)
        peers = {}

        def measure(name, fn, out_of):
            out = out_of()
            if not torch.equal(out.view(contract.BITS[dt]), ref.view(contract.BITS[dt])):
                peers[name] = {"error": "output differs from the contract"}
                return
            peers[name] = {"median_us": timer.median_us(fn)}

        dst = torch.empty_like(ref)
        measure("floor", lambda: dst.copy_(ref), lambda: dst.copy_(ref))
        del dst
        measure("torch_constant_pad_nd", lambda: torch.constant_pad_nd(dy, [-pl, -pr]),
                lambda: torch.constant_pad_nd(dy, [-pl, -pr]))
        x = torch.empty(B, C, L, device="cuda", dtype=dy.dtype, requires_grad=True)
        y = F.pad(x, (pl, pr))
        grad = lambda: torch.autograd.grad(y, x, dy, retain_graph=True)[0]
        measure("torch_autograd_pad_backward", grad, grad)
        del x, y
        out = torch.empty_like(ref)
        tri = lambda: triton_peer.constant_pad1d_backward(dy, L, pl, out)
        measure("triton", tri, tri)
        if "median_us" in peers["triton"]:  # which of its configurations the autotuner timed, per process
            peers["triton"]["block_warps"] = triton_peer.chosen_config()
        del out, dy, ref
        torch.cuda.empty_cache()
        floor = peers["floor"].get("median_us")
        for p in peers.values():
            if floor and "median_us" in p:
                p["ratio"] = p["median_us"] / floor
        case["peers"] = peers
        print(f"{case['tag']:>4} {dt:>4}: peers timed in {time.time() - t0:.1f} s "
              f"(Triton BLOCK,WARPS {peers['triton'].get('block_warps')})", flush=True)


def fmt_ratio(row):
    if not row:
        return "-"
    if "error" in row:
        return "error"
    return f"{row['median_us']:.1f} ({row['ratio']:.3f})"


def write_markdown(path, context, cases, command):
    lines = [f"# padtune and its peers on {context.get('device', '?')}", "",
             f"Made by `{command}`. L2-cold medians; each cell is microseconds (time / floor). padtune's rows",
             "use the floor padtune_bench measured, the peers the floor this script measured (a D2D copy of",
             "dx's bytes through PyTorch), both in the same run. `target` is issue 5's (P6: sector floor).", "",
             "| shape | dtype | floor us | padtune (dispatcher) | best variant | cudaMemcpy2D | Thrust | "
             "PyTorch constant_pad_nd | PyTorch autograd | Triton | vs PyTorch | target | met |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (tag, dt), c in sorted(cases.items(), key=lambda kv: case_order(kv[0])):
        d, p = c.get("dispatcher", {}), c.get("peers", {})
        speedup = "-"
        tp = p.get("torch_constant_pad_nd", {})
        if "median_us" in d and "median_us" in tp:
            speedup = f"{tp['median_us'] / d['median_us']:.2f}x"
        kind, limit = TARGET.get(tag, ("memcpy", 1.05))
        target_ratio = limit * (c["sector_factor"] if kind == "sector" else 1.0)
        met = "-" if "ratio" not in d else ("yes" if d["ratio"] <= target_ratio else "no")
        best = min((c[v] for v in variant_rows(c) if "median_us" in c[v]),
                   key=lambda r: r["median_us"], default=None)
        best_text = f"{best['id'].split('__', 2)[-1]} ({best['ratio']:.3f})" if best else "-"
        lines.append(f"| {tag} {tuple(c['shape'])} | {dt} | {d.get('floor_us', 0):.1f} | {fmt_ratio(d)} | "
                     f"{best_text} | {fmt_ratio(c.get('memcpy2d'))} | {fmt_ratio(c.get('thrust'))} | "
                     f"{fmt_ratio(tp)} | {fmt_ratio(p.get('torch_autograd_pad_backward'))} | "
                     f"{fmt_ratio(p.get('triton'))} | {speedup} | {target_ratio:.3f} | {met} |")
    write_output(path, "\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", help="padtune_bench to run (its JSON goes to OUT/bench.json)")
    ap.add_argument("--bench-json", help="use this padtune_bench JSON instead of running it")
    ap.add_argument("--bench-filter", default="", help="--benchmark_filter for padtune_bench")
    ap.add_argument("--out", required=True, help="folder for bench.json, peers.json and peers.md")
    ap.add_argument("--samples", type=int, default=50, help="timed samples per peer (default 50)")
    ap.add_argument("--no-peers", action="store_true", help="padtune's rows only (no PyTorch or Triton)")
    a = ap.parse_args()
    if bool(a.bench) == bool(a.bench_json):
        ap.error("give one of --bench or --bench-json")
    if a.samples < 1:
        ap.error("--samples must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    bench_json = a.bench_json or os.path.join(a.out, "bench.json")
    if a.bench:
        run_bench(a.bench, bench_json, a.bench_filter)
    context, cases = read_bench(bench_json)
    if not cases:
        sys.exit(f"compare-peers: no perf-suite rows in {bench_json}")
    for c in cases.values():
        c["sector_factor"] = sector_floor_factor(c["shape"], c["dtype"])
    versions = {}
    if not a.no_peers:
        import torch
        import triton
        versions = {"torch": torch.__version__, "triton": triton.__version__}
        time_peers(cases, a.samples)
    command = "lab/bin/compare-peers " + " ".join(sys.argv[1:])
    write_output(os.path.join(a.out, "peers.json"),
                 json.dumps({"command": command, "context": context, "versions": versions,
                             "rows": [cases[k] for k in sorted(cases, key=case_order)]}, indent=1))
    write_markdown(os.path.join(a.out, "peers.md"), context, cases, command)
    print(f"wrote {a.out}/peers.json and peers.md")


if __name__ == "__main__":
    main()
