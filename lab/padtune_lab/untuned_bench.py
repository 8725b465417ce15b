#!/usr/bin/env python3
"""What a GPU model without a table of its own gets, measured on a GPU posing as one: the backward op
(padtune.ops.constant_pad1d_backward) over the performance suite, L2-cold, as a ratio to a
device-to-device copy of dx's bytes, under three lookups:
  tuned     the model's own table (results/<gpu>.json, built into the package);
  builtin   no entry at all (a table of this model with none): the built-in default rule;
  autotune  no entry, first-use timing on (PADTUNE_AUTOTUNE=1).
Each lookup runs in a process of its own (the dispatcher reads its table once per process).

    lab/bin/untuned-bench --table results/nvidia-h200.json --bench build/gpu/bench/padtune_bench --out OUT/untuned
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from padtune_lab.paths import run_module

LOOKUPS = ("tuned", "builtin", "autotune")
DTYPES = ("float32", "bfloat16")


def run_child(args):
    import torch

    import padtune
    from padtune_lab.peers.timing import ColdTimer

    suite = []
    with open(args.suite) as f:
        for line in f:
            body, _, tag = line.partition("#")
            if body.strip():
                suite.append((tag.strip(), *(int(v) for v in body.split())))
    timer = ColdTimer(samples=args.samples)
    rows = []
    for tag, B, C, L, pl, pr in suite:
        if B * C * (L + pl + pr) > (1 << 30):
            continue
        for dtype_name in DTYPES:
            dtype = getattr(torch, dtype_name)
            dy = torch.randn(B, C, L + pl + pr, device="cuda").to(dtype)
            dx = padtune.ops.constant_pad1d_backward(dy, pl, pr)
            src, dst = torch.randn_like(dx), torch.empty_like(dx)
            copy_us = timer.median_us(lambda: dst.copy_(src))
            us = timer.median_us(lambda: padtune.ops.constant_pad1d_backward(dy, pl, pr))
            kernel = next((l.split(": ", 1)[1] for l in padtune.explain(dy, pl, pr).splitlines() if l.startswith("instantiation")), "")
            rows.append({"shape": tag, "dtype": dtype_name, "us": us, "copy_us": copy_us, "kernel": kernel})
    with open(args.child, "w") as f:
        json.dump(rows, f)


def render(results, command, samples):
    """The report of the three lookups' runs (results: lookup -> rows) as Markdown."""
    lines = ["# A GPU model without a table: the performance suite's backward under three lookups", "",
             f"`{command}`; L2-cold medians of {samples} samples, as a ratio to a copy of dx's bytes in the same process.",
             "", "| shape | dtype | tuned | built-in rule | first-use timing, no entry | built-in kernel |",
             "| --- | --- | --- | --- | --- | --- |"]
    for k, row in enumerate(results["tuned"]):
        cells = [f"{results[l][k]['us'] / results[l][k]['copy_us']:.3f}" for l in LOOKUPS]
        lines.append(f"| {row['shape']} | {row['dtype']} | {' | '.join(cells)} | {results['builtin'][k]['kernel']} |")
    geo = {l: statistics.geometric_mean(r["us"] / t["us"] for r, t in zip(results[l], results["tuned"])) for l in LOOKUPS}
    worst = {l: max(r["us"] / t["us"] for r, t in zip(results[l], results["tuned"])) for l in LOOKUPS}
    lines += ["", "Against the tuned table: " + "; ".join(f"{l} geomean {geo[l]:.3f}, worst {worst[l]:.3f}" for l in LOOKUPS[1:])]
    return "\n".join(lines) + "\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--table", required=True, help="the model's own table: its header makes the empty one")
    p.add_argument("--bench", required=True, help="padtune_bench, or a file of its --padtune_print_suite=perf")
    p.add_argument("--out", help="PREFIX: writes PREFIX.json and PREFIX.md")
    p.add_argument("--samples", type=int, default=60)
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--suite", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return run_child(args)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        suite = os.path.join(tmp, "suite.txt")
        if os.access(args.bench, os.X_OK):
            with open(suite, "w") as f:
                subprocess.run([args.bench, "--padtune_print_suite=perf"], stdout=f, check=True)
        else:
            suite = args.bench
        with open(args.table) as f:
            table = json.load(f)
        table["entries"] = []
        empty = os.path.join(tmp, "no-entries.json")
        with open(empty, "w") as f:
            json.dump(table, f)
        for lookup in LOOKUPS:
            env = dict(os.environ)
            env.pop("PADTUNE_RESULTS", None)
            env.pop("PADTUNE_AUTOTUNE", None)
            if lookup != "tuned":
                env["PADTUNE_RESULTS"] = empty
            if lookup == "autotune":
                env["PADTUNE_AUTOTUNE"] = "1"
            path = os.path.join(tmp, lookup + ".json")
            print(f"untuned-bench: {lookup}", file=sys.stderr, flush=True)
            child, child_env = run_module("padtune_lab.untuned_bench")
            subprocess.run([*child, "--table", args.table, "--bench", args.bench,
                            "--samples", str(args.samples), "--suite", suite, "--child", path], env={**env, "PYTHONPATH": child_env["PYTHONPATH"]}, check=True)
            with open(path) as f:
                results[lookup] = json.load(f)
    text = render(results, f"lab/bin/untuned-bench {' '.join(argv)}", args.samples)
    sys.stdout.write(text)
    if args.out:
        from padtune_lab.output_file import write_output
        write_output(args.out + ".json", json.dumps(results, indent=1) + "\n")
        write_output(args.out + ".md", text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
