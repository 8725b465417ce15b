#!/usr/bin/env python3
"""Where a backward step's device time goes, padtune against inductor, on latency-bound shapes.

torch-bench (lab/bin/torch-bench) times the whole backward step through autograd; on P8/P9 it
put padtune 0.1-0.16 us behind torch.compile while lab/bin/same-timer, one timer for the
kernels alone, had them level. This times, with the peers' ColdTimer in one process, the parts: the
copy, padtune's op called directly, padtune's step through autograd, inductor's compiled backward
step (as torch-bench builds it), eager's step; then lists the kernels each step launches
(torch.profiler). Needs padtune importable (PYTHONPATH=python PADTUNE_NATIVE_DIR=build/g/python).

  python3 lab/experiments/torch-step/step_parts.py 2,4,8,2,3 f32 8,128,1000,7,9 f16
"""
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # lab/
from padtune_lab.peers import contract  # noqa: E402
from padtune_lab.peers.timing import ColdTimer  # noqa: E402

import padtune  # noqa: E402


def kernels_of(fn):
    """The CUDA kernels one call of fn launches, by name."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


def case(shape, dt, rounds=5, samples=200):
    B, C, L, pl, pr = shape
    dy, ref = contract.case(B, C, L, pl, pr, dt)
    bits = contract.BITS[dt]
    x = torch.randn(B, C, L, device="cuda", dtype=dy.dtype, requires_grad=True)
    y_pt = padtune.constant_pad1d(x, pl, pr)
    y_eager = F.pad(x, (pl, pr))
    compiled = torch.compile(lambda t: F.pad(t, (pl, pr)), dynamic=False)
    y_c = compiled(x)
    dst = torch.empty_like(ref)
    op = padtune.ops.constant_pad1d_backward
    steps = {
        "copy": lambda: dst.copy_(ref),
        "padtune op": lambda: op(dy, pl, pr),
        "padtune step": lambda: torch.autograd.grad(y_pt, x, dy, retain_graph=True)[0],
        "inductor step": lambda: torch.autograd.grad(y_c, x, dy, retain_graph=True)[0],
        "eager step": lambda: torch.autograd.grad(y_eager, x, dy, retain_graph=True)[0],
    }
    for name, fn in steps.items():
        if name != "copy" and not torch.equal(fn().view(bits), ref.view(bits)):
            sys.exit(f"step_parts: {name} differs from the contract")
    timer = ColdTimer(samples)
    times = {n: [] for n in steps}
    for _ in range(rounds):
        for n, fn in steps.items():
            times[n].append(timer.median_us(fn))
    floor = statistics.median(times["copy"])
    print(f"{dt} {shape}: L2-cold medians of {samples} samples, {rounds} rounds (ratio: median of rounds / copy)")
    for n, ts in times.items():
        print(f"  {n:<15} {' '.join(f'{t:6.2f}' for t in ts)} us  {statistics.median(ts) / floor:.3f}")
    for n, fn in steps.items():
        print(f"  kernels of {n}: {kernels_of(fn)}")


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    for s, dt in zip(args[::2], args[1::2]):
        case(tuple(int(v) for v in s.split(",")), dt)


if __name__ == "__main__":
    main()
