#!/usr/bin/env python3
"""Runs one peer on one shape under an NVTX range named `peer`, for Nsight Compute:

  ncu --nvtx --nvtx-include "peer/" --launch-count 1 python3 lab/bin/profile-peer triton 8,128,1000,7,9 f32

The peer runs (and Triton autotunes) first outside the range, so the profiled launch is a warm one
of the configuration the peers' table times; dy is random, non-zero. PyTorch with a negative pad
launches a fill and then a copy: profile both with --launch-count 2. --l2-flush writes twice the L2
before the profiled launch, outside the range, as the peers' timer does before every sample: with
ncu --cache-control none --replay-mode application, a profile of the dirty L2 the timings see
(`padtune run --l2-flush` alike; kernel replay would re-run the kernel with dy already in L2)."""
import argparse
import os
import sys

import torch

from padtune_lab.peers import contract, shape_arg, triton_peer
from padtune_lab.peers.timing import l2_flush_buffer


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("peer", choices=["triton", "torch"], help="the Triton peer, or PyTorch's constant_pad_nd")
    ap.add_argument("shape", help="B,C,L,pad_left,pad_right")
    ap.add_argument("dtype", choices=sorted(contract.DTYPES))
    ap.add_argument("--l2-flush", action="store_true", help="write twice the L2 before the profiled launch")
    ap.add_argument("--config", metavar="BLOCK,WARPS",
                    help="triton: launch this configuration, not the autotuned one (needed with --replay-mode "
                         "application: each pass is a new process, whose autotuning can pick another)")
    args = ap.parse_args()
    B, C, L, pl, pr = shape_arg.parse(ap, args.shape)
    config = None
    if args.config is not None:
        if args.peer != "triton":
            ap.error("--config is for the triton peer")
        try:
            config = tuple(map(int, args.config.split(",")))
            if len(config) != 2 or min(config) < 1 or any(x & (x - 1) for x in config):
                raise ValueError
        except ValueError:
            ap.error(f"--config must be two powers of two BLOCK,WARPS (as Triton requires), got '{args.config}'")
    dy, _ = contract.case(B, C, L, pl, pr, args.dtype)
    out = torch.empty(B, C, L, device="cuda", dtype=dy.dtype)
    if args.peer == "triton":
        run = lambda: triton_peer.constant_pad1d_backward(dy, L, pl, out, config)
    else:
        run = lambda: torch.constant_pad_nd(dy, [-pl, -pr])
    for _ in range(3):
        run()
    if args.peer == "triton":
        print(f"profile_peer: triton runs BLOCK,WARPS = {config or triton_peer.chosen_config()}"
              f"{'' if config else ' (autotuned in this process)'}", file=sys.stderr)
    if args.l2_flush:
        flush = l2_flush_buffer()  # kept until the launch, as the timer keeps its own
        flush.fill_(0x5A)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("peer")
    run()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
