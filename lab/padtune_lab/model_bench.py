#!/usr/bin/env python3
"""A training step of real models that pad a time axis with constants, three ways: eager PyTorch,
eager with padtune.enable() (no change to the model), and torch.compile. The models come from PyPI,
installed, never copied: pytorch-tcn's TCN (an nn.ConstantPad1d before every causal convolution) and
the convolution module of lucidrains' conformer (F.pad before its depthwise convolution).

For each model and dtype: the step's time (CUDA events around forward, loss, backward and the
optimizer's step, cuDNN's benchmark mode on; the median of --steps steps after warm-up), the pads' share of device time (the
profiler's aten::constant_pad_nd and aten::slice_backward over all kernels, eager), and whether the
gradients with padtune enabled are byte-equal to eager's (one step from the same weights and data,
cuDNN deterministic for that step). Eager and enabled run in --processes processes (default 3) and
each figure is the median over them; torch.compile runs in the first process only.

    lab/bin/model-bench --out results/nvidia-h200/models

writes models.json and models.md, with issue 39's targets: the TCN step with enable() at least
1.02x faster than eager in f32 and 1.08x in bf16, gradients byte-equal.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from padtune_lab.paths import run_module


# (name, library, dtype, batch shape, model arguments)
MODELS = [
    ("TCN 16x64x16384, 8 levels of 128, kernel 4", "tcn", "float32", (16, 64, 16384), dict(channels=[128] * 8, kernel=4)),
    ("TCN 16x64x16384, 8 levels of 128, kernel 4", "tcn", "bfloat16", (16, 64, 16384), dict(channels=[128] * 8, kernel=4)),
    ("TCN 8x128x32768, 6 levels of 256, kernel 3", "tcn", "bfloat16", (8, 128, 32768), dict(channels=[256] * 6, kernel=3)),
    ("Conformer conv module 128x250x256, kernel 9", "conformer", "float32", (128, 250, 256), dict(kernel=9)),
    ("Conformer conv module 128x250x256, kernel 9", "conformer", "bfloat16", (128, 250, 256), dict(kernel=9)),
]
TARGETS = {("tcn", "float32"): 1.02, ("tcn", "bfloat16"): 1.08}


def build(library, dtype, shape, args, seed):
    import torch

    torch.manual_seed(seed)
    if library == "tcn":
        from pytorch_tcn import TCN
        model = TCN(num_inputs=shape[1], num_channels=args["channels"], kernel_size=args["kernel"], dropout=0.0,
                    causal=True, use_norm="weight_norm", activation="relu")
    else:
        from conformer import ConformerConvModule
        model = ConformerConvModule(dim=shape[2], causal=False, expansion_factor=2, kernel_size=args["kernel"], dropout=0.0)
    model = model.to("cuda", getattr(torch, dtype)).train()
    g = torch.Generator(device="cuda").manual_seed(seed + 1)
    x = torch.randn(shape, generator=g, device="cuda").to(getattr(torch, dtype))
    return model, x


def step_fn(model, x, optimizer):
    def step():
        out = model(x)
        loss = out.float().square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return step


def time_steps(step, steps, warmup=5):
    import torch

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(steps):
        start.record()
        step()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def gradients(library, dtype, shape, args, enabled):
    """The gradients of one step from fixed weights and data, cuDNN deterministic."""
    import torch

    import padtune
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    model, x = build(library, dtype, shape, args, seed=7)
    if enabled:
        padtune.enable()
    model(x).float().square().mean().backward()
    padtune.disable()
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = False, True
    return [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]


def pad_share(step):
    """The pads' share of one step's device time (eager), from the profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    rows = prof.key_averages()
    device = lambda r, name: getattr(r, name, None) if getattr(r, name, None) is not None else 0  # noqa: E731
    total = sum(device(r, "self_device_time_total") or device(r, "self_cuda_time_total") for r in rows)
    pads = sum(device(r, "device_time_total") or device(r, "cuda_time_total") for r in rows
               if r.key in ("aten::constant_pad_nd", "aten::slice_backward"))
    return pads / total if total else 0.0


def run_child(args):
    import torch

    import padtune
    torch.backends.cudnn.benchmark = True  # as a training run that cares for speed sets it: the fastest convolutions
    rows = []
    for name, library, dtype, shape, margs in MODELS:
        model, x = build(library, dtype, shape, margs, seed=1)
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
        step = step_fn(model, x, optimizer)
        row = {"name": name, "library": library, "dtype": dtype, "shape": list(shape)}
        row["pad_share_eager"] = pad_share(step)
        eager, enabled = [], []
        for rep in range(2):  # alternated, so that a drift of the clock weighs on both
            for on in ((False, True) if rep == 0 else (True, False)):
                if on:
                    padtune.enable()
                (enabled if on else eager).append(time_steps(step, args.steps))
                padtune.disable()
        row["eager_ms"], row["enabled_ms"] = statistics.median(eager), statistics.median(enabled)
        with padtune.enabled():
            row["pad_share_enabled"] = pad_share(step)
        g0 = gradients(library, dtype, shape, margs, enabled=False)
        g1 = gradients(library, dtype, shape, margs, enabled=True)
        row["grads_byte_equal"] = len(g0) == len(g1) and all(
            a.shape == b.shape and torch.equal(a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))
            for a, b in zip(g0, g1))
        if args.compile:
            torch._dynamo.reset()
            compiled = torch.compile(model)
            row["compile_ms"] = time_steps(step_fn(compiled, x, optimizer), args.steps, warmup=3)
        compiled = f", compiled {row['compile_ms']:.2f} ms" if args.compile else ""
        print(f"  {name} {dtype}: eager {row['eager_ms']:.2f} ms, enabled {row['enabled_ms']:.2f} ms{compiled}, grads equal "
              f"{row['grads_byte_equal']}, pads {100 * row['pad_share_eager']:.1f}% of eager's device time", file=sys.stderr, flush=True)
        rows.append(row)
        del model, x, optimizer, step
        torch.cuda.empty_cache()
    info = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "padtune": padtune.__version__,
            "steps": args.steps}
    with open(args.child, "w") as f:
        json.dump({"info": info, "rows": rows}, f)


def pooled(runs):
    out = []
    for k, row in enumerate(runs[0]["rows"]):
        r = dict(row)
        for key in ("eager_ms", "enabled_ms", "pad_share_eager", "pad_share_enabled"):
            r[key] = statistics.median(run["rows"][k][key] for run in runs)
            r[key + "_per_process"] = [run["rows"][k][key] for run in runs]
        r["grads_byte_equal"] = all(run["rows"][k]["grads_byte_equal"] for run in runs)
        out.append(r)
    return out


def markdown(rows, info, processes, command):
    lines = [f"# A training step of real models on {info['device']}: eager, eager with padtune.enable(), torch.compile", "",
             f"`{command}`: torch {info['torch']}, padtune {info['padtune']}. Step time: the median of {info['steps']} "
             f"steps (CUDA events, cudnn.benchmark on), eager and enabled each the median over {processes} processes; torch.compile from one "
             "process. Pads: aten::constant_pad_nd and aten::slice_backward as a share of the step's device time.", "",
             "| model | dtype | eager ms | enabled ms | speedup | torch.compile ms | pads in eager | pads enabled | gradients |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        compiled = f"{r['compile_ms']:.2f}" if "compile_ms" in r else "-"
        lines.append(f"| {r['name']} | {r['dtype']} | {r['eager_ms']:.2f} | {r['enabled_ms']:.2f} | "
                     f"{r['eager_ms'] / r['enabled_ms']:.3f}x | {compiled} | {100 * r['pad_share_eager']:.1f}% | "
                     f"{100 * r['pad_share_enabled']:.1f}% | {'byte-equal' if r['grads_byte_equal'] else 'DIFFER'} |")
    lines += ["", "## Targets (issue 39)", ""]
    for r in rows:
        need = TARGETS.get((r["library"], r["dtype"]))
        if need:
            speed = r["eager_ms"] / r["enabled_ms"]
            ok = speed >= need and r["grads_byte_equal"]
            lines.append(f"- {'PASS' if ok else 'FAIL'}: {r['name']} {r['dtype']}: at least {need}x with byte-equal gradients: "
                         f"{speed:.3f}x, gradients {'byte-equal' if r['grads_byte_equal'] else 'differ'}")
    return "\n".join(lines) + "\n"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="PREFIX: writes PREFIX.json and PREFIX.md")
    p.add_argument("--processes", type=int, default=3)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--compile", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return run_child(args)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.processes):
            path = os.path.join(tmp, f"run{k}.json")
            print(f"model-bench: process {k + 1} of {args.processes}", file=sys.stderr, flush=True)
            extra = ["--compile"] if k == 0 and not args.no_compile else []
            child, child_env = run_module("padtune_lab.model_bench")
            subprocess.run([*child, "--steps", str(args.steps), "--child", path, *extra],
                           check=True, env=child_env)
            with open(path) as f:
                runs.append(json.load(f))
    rows = pooled(runs)
    command = "lab/bin/model-bench " + " ".join(argv)
    text = markdown(rows, runs[0]["info"], args.processes, command)
    sys.stdout.write(text)
    if args.out:
        from padtune_lab.output_file import write_output
        write_output(args.out + ".json", json.dumps({"command": command, "info": runs[0]["info"], "processes": runs,
                                                     "pooled": rows}, indent=1) + "\n")
        write_output(args.out + ".md", text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
