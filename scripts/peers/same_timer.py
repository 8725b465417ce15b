#!/usr/bin/env python3
"""padtune's kernels and the Triton peer timed by one timer, in one process (the peers' ColdTimer):

  python3 scripts/peers/same_timer.py 8,128,1000,7,9 f16 \\
      constant_pad1d_backward__f16__flatvec__bo1024__t128__w16 constant_pad1d_backward__f16__rowelem__bo1024__t128__w2

The peers' table compares ratios that each timer takes against its own copy; on latency-bound shapes
the two timers' copies differ by several percent, as much as the gaps between the kernels. Here the
copy, every padtune instantiation named and every Triton configuration (autotuned, then each pinned)
share the flush, the spin and the events. padtune's kernels are compiled for this GPU by nvcc from
kernels/device (the same templates the library builds; no registry: the id names the template's
parameters) and launched through ctypes on PyTorch's stream. Each output is checked bit for bit
against the contract before it is timed.

--extra FILE.cu adds experimental kernels to the same comparison: every function of FILE declared
`extern "C" int same_timer_NAME(const void* dy, void* dx, long long rows, long long L, long long
pad_left, long long pad_right, void* stream)` is timed as NAME (FILE is compiled after
kernels/device's headers, so it may use them)."""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ID = re.compile(r"^constant_pad1d_backward__(f32|f64|f16|bf16)__(rowtile|flat|flatvec|ewise|staged|rowelem)__bo(\d+)__t(\d+)__w(\d+)$")
CTYPE = {"f32": "float", "f64": "double", "f16": "__half", "bf16": "__nv_bfloat16"}
TRITON_CONFIGS = [(b, w) for b in (256, 1024, 4096) for w in (4, 8)]  # triton_peer's autotune space


def shim_source(ids):
    """One extern "C" launcher per id: the registry's cuda_entry<K> on the plan K makes."""
    out = ['#include <cuda_bf16.h>', '#include <cuda_fp16.h>', '#include <climits>', '#include "launch.cuh"']
    out += [f'#include "{v}.cuh"' for v in ("rowtile", "flat", "flatvec", "ewise", "staged", "rowelem")]
    out.append("using namespace padtune::detail;")
    for n, i in enumerate(ids):
        dt, variant, bo, t, w = ID.match(i).groups()
        # MAX_THREADS: the id's thread count gives the same kernel (threads = min(work, MAX_THREADS)).
        k = f"{variant}_kernel<{CTYPE[dt]}, {bo}, {t}, {w if variant not in ('ewise', 'rowelem') else 0}>"
        out.append(f"""extern "C" int launch_{n}(const void* dy, void* dx, long long rows, long long L, long long pl,
                                 long long pr, void* stream) {{
  using K = {k};
  static_assert(K::valid && K::threads == {t}, "{i} is not an instantiation of the registry's rules");
  const auto p = K::make_params(make_pad_args(static_cast<const byte*>(dy), static_cast<byte*>(dx), rows, L, pl, pr,
                                              sizeof({CTYPE[dt]})));
  if (p.num_blocks == 0) return 0;
  const unsigned grid = unsigned(p.num_blocks < INT_MAX ? p.num_blocks : INT_MAX);
  cuda_entry<K><<<grid, K::threads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}}""")
    return "\n".join(out) + "\n"


EXTRA = re.compile(r'extern\s+"C"\s+int\s+same_timer_(\w+)\s*\(')


def build(ids, extra, workdir, arch):
    src, lib = os.path.join(workdir, "shim.cu"), os.path.join(workdir, "shim.so")
    with open(src, "w") as f:
        f.write(shim_source(ids))
        if extra:
            f.write(f'#line 1 "{extra}"\n' + open(extra).read())
    cmd = [os.environ.get("NVCC", "nvcc"), "-std=c++20", "-O3", f"-arch={arch}", "-shared",
           "-Xcompiler", "-fPIC", "-I", os.path.join(ROOT, "kernels", "device"), "-I",
           os.path.join(ROOT, "kernels", "include"), src, "-o", lib]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"same_timer: nvcc failed:\n{' '.join(cmd)}\n{r.stderr}")
    return ctypes.CDLL(lib)


def main():
    import torch  # here, not above: the shim's source is made (and tested, tests/cli) without PyTorch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import triton_peer
    from timing import ColdTimer

    TORCH = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16}
    BITS = {"f32": torch.int32, "f64": torch.int64, "f16": torch.int16, "bf16": torch.int16}
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", help="B,C,L,pad_left,pad_right")
    ap.add_argument("dtype", choices=sorted(CTYPE))
    ap.add_argument("ids", nargs="*", help="padtune instantiation ids of this dtype (padtune list)")
    ap.add_argument("--extra", metavar="FILE.cu", help="experimental kernels to time beside them (see above)")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2, help="times over the whole list, interleaved")
    args = ap.parse_intermixed_args()  # ids after the options too
    try:
        B, C, L, pl, pr = map(int, args.shape.split(","))
    except ValueError:
        ap.error(f"the shape must be five integers B,C,L,pad_left,pad_right, got '{args.shape}'")
    for i in args.ids:
        m = ID.match(i)
        if not m or m.group(1) != args.dtype:
            ap.error(f"'{i}' is not a padtune instantiation id of dtype {args.dtype} (padtune list)")
    if not args.ids and not args.extra:
        ap.error("name at least one padtune id, or --extra")
    extra_names = EXTRA.findall(open(args.extra).read()) if args.extra else []
    if args.extra and not extra_names:
        ap.error(f"{args.extra} declares no extern \"C\" int same_timer_NAME(...) function")
    OL = pl + L + pr
    dy = torch.randn(B, C, OL, device="cuda").to(TORCH[args.dtype])
    dy[dy == 0] = 1  # never time zeros
    ref = torch.zeros(B, C, L, device="cuda", dtype=dy.dtype)
    lo, hi = max(0, -pl), min(L, OL - pl)
    if hi > lo:
        ref[..., lo:hi] = dy[..., lo + pl:hi + pl]
    out = torch.empty_like(ref)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    with tempfile.TemporaryDirectory() as work:
        major, minor = torch.cuda.get_device_capability()
        lib = build(args.ids, args.extra, work, f"sm_{major}{minor}")
        runs = {"floor (D2D copy)": lambda: out.copy_(ref), "triton (autotuned)":
                lambda: triton_peer.constant_pad1d_backward(dy, L, pl, out)}
        for b, w in TRITON_CONFIGS:  # every configuration of the autotuner's space, pinned
            runs[f"triton BLOCK {b} warps {w}"] = lambda b=b, w=w: triton_peer.constant_pad1d_backward(dy, L, pl, out, (b, w))
        launchers = [(f"launch_{n}", i, i.split("__", 2)[-1]) for n, i in enumerate(args.ids)]
        launchers += [(f"same_timer_{x}", x, f"extra: {x}") for x in extra_names]
        for symbol, i, label in launchers:
            fn = getattr(lib, symbol)
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_longlong] * 4 + [ctypes.c_void_p]

            def run(fn=fn, i=i):
                if fn(dy.data_ptr(), out.data_ptr(), B * C, L, pl, pr, stream) != 0:
                    sys.exit(f"same_timer: launching {i} failed")
            runs[label] = run
        for name, fn in runs.items():  # bit-exact before timing (poisoned output first)
            out.view(torch.uint8).fill_(0xA5)
            fn()
            torch.cuda.synchronize()
            if name != "floor (D2D copy)" and not torch.equal(out.view(BITS[args.dtype]), ref.view(BITS[args.dtype])):
                sys.exit(f"same_timer: {name} differs from the contract")
        timer = ColdTimer(args.samples)
        times = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, fn in runs.items():
                times[name].append(timer.median_us(fn))
        print(f"triton's autotuner chose BLOCK,WARPS = {triton_peer.chosen_config()}")
    floor = sorted(times["floor (D2D copy)"])[len(times["floor (D2D copy)"]) // 2]
    print(f"{args.dtype} {tuple((B, C, L, pl, pr))}: L2-cold medians of {args.samples} samples per round, "
          f"{args.rounds} rounds, one ColdTimer; ratio = the median round over the copy's")
    for name, ts in sorted(times.items(), key=lambda kv: sorted(kv[1])[len(kv[1]) // 2]):
        med = sorted(ts)[len(ts) // 2]
        print(f"  {name:<36} {' '.join(f'{t:7.2f}' for t in ts)} us   {med / floor:.3f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--print-shim":  # for tests/cli/same_timer_shim.sh
        print(shim_source(sys.argv[2:]), end="")
    else:
        main()
