#!/usr/bin/env python3
"""padtune's kernels and the Triton peer timed by one timer, in one process (the peers' ColdTimer):

  python3 lab/bin/same-timer 8,128,1000,7,9 f16 \\
      constant_pad1d_backward__f16__flatvec__bo1024__t128__w16 constant_pad1d_backward__f16__rowelem__bo1024__t128__w2

The peers' table compares ratios that each timer takes against its own copy; on latency-bound shapes
the two timers' copies differ by several percent, as much as the gaps between the kernels. Here the
copy, every padtune instantiation named and every Triton configuration (autotuned, then each pinned)
share the flush, the spin and the events. padtune's kernels are compiled for this GPU by nvcc from
the working tree's kernels/device (each id's template arguments are the registry's, found among its
variant's configs, kernels/device/variants.cuh; an id not in the registry does not compile) and
launched through the library's launch_cuda, by ctypes on PyTorch's stream: the templates the
library builds, not the binary a results file was measured with. Each output is checked bit for
bit against the contract (dx poisoned twice, guard bytes around it) before the timing and after it.

--extra FILE.cu adds experimental kernels to the same comparison: every function of FILE declared
`extern "C" int same_timer_NAME(const void* dy, void* dx, long long rows, long long L, long long
pad_left, long long pad_right, void* stream)` is timed as NAME (FILE is compiled after
kernels/device's headers, so it may use them)."""
import argparse
import ctypes
import os
import re
import statistics
import subprocess
import sys
import tempfile

from padtune_lab.peers import shape_arg  # needs no PyTorch

from padtune_lab.paths import ROOT
# The variant is whatever the id names: the shim looks it up in the family's description
# (kernels/device/variants.cuh), so this script keeps no list of variants.
from padtune_lab.ids import AOT as ID  # (dtype, variant, BLOCK_OL, threads, width)
CTYPE = {"f32": "float", "f64": "double", "f16": "__half", "bf16": "__nv_bfloat16"}

# Finds, at compile time, the registry's entry for an id: the configuration of the variant's
# description whose kernel has the id's tile, thread count and access width, so the launcher
# instantiates exactly the registry's template arguments; an id not in the registry does not compile,
# and neither does one of a variant that needs dx zeroed first (the seed: its time is not a kernel's).
PREAMBLE = """#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>
#include "register.cuh"
#include "variants.cuh"

namespace same_timer {
template <class V, class T, int BO, int TH, int AW, std::size_t I = 0>
struct registry_kernel {
  using K = padtune::detail::configured_kernel<V, T, I>;
  static constexpr bool match = V::configs[I].block_ol == BO && K::valid && K::threads == TH && K::access_width == AW;
  using type = std::conditional_t<match, K, typename registry_kernel<V, T, BO, TH, AW, I + 1>::type>;
};
template <class V, class T, int BO, int TH, int AW>
struct registry_kernel<V, T, BO, TH, AW, std::size(V::configs)> { using type = void; };
}  // namespace same_timer
"""


def shim_source(ids):
    """One extern "C" launcher per id, through the library's own launch_cuda<K>."""
    out = [PREAMBLE]
    for n, i in enumerate(ids):
        m = ID.match(i)
        if not m:
            raise ValueError(f"'{i}' is not an instantiation id (padtune list)")
        dt, variant, bo, t, w = m.groups()
        out.append(f"""extern "C" int launch_{n}(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr,
                         void* stream) {{
  using V = padtune::detail::{variant}_variant;
  static_assert(!V::needs_zeroed_dx, "{i}: its variant needs dx zeroed first (the seed): not timed here");
  using K = same_timer::registry_kernel<V, {CTYPE[dt]}, {bo}, {t}, {w}>::type;
  static_assert(!std::is_void_v<K>, "{i} is not in the registry (its variant's configs, kernels/device)");
  padtune::problem p;
  p.dy = dy, p.dx = dx, p.B = 1, p.C = rows, p.L = L, p.pad_left = pl, p.pad_right = pr;
  p.type = padtune::dtype::{dt};
  return int(padtune::detail::launch_cuda<K>(p, static_cast<cudaStream_t>(stream)));
}}""")
    return "\n".join(out) + "\n"


EXTRA = re.compile(r'extern\s+"C"\s+int\s+same_timer_(\w+)\s*\(')


def source_text(ids, extra):
    """What nvcc compiles: the launchers, then the --extra file (which may use the headers above)."""
    text = shim_source(ids)
    if extra:
        with open(extra) as f:
            text += f'#line 1 "{extra}"\n' + f.read()
    return text


def build(ids, extra, workdir, arch):
    src, lib = os.path.join(workdir, "shim.cu"), os.path.join(workdir, "shim.so")
    with open(src, "w") as f:
        f.write(source_text(ids, extra))
    cmd = [os.environ.get("NVCC", "nvcc"), "-std=c++20", "-O3", f"-arch={arch}", "-shared",
           "-Xcompiler", "-fPIC", "-I", os.path.join(ROOT, "kernels", "device"), "-I", os.path.join(ROOT, "kernels", "launch"), "-I",
           os.path.join(ROOT, "kernels", "include"), src, "-o", lib]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit(f"same_timer: {cmd[0]} not found (put nvcc on the PATH or set NVCC)")
    if r.returncode != 0:
        sys.exit(f"same_timer: nvcc failed:\n{' '.join(cmd)}\n{r.stderr}")
    return ctypes.CDLL(lib)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shape", help="B,C,L,pad_left,pad_right")
    ap.add_argument("dtype", choices=sorted(CTYPE))
    ap.add_argument("ids", nargs="*", help="padtune instantiation ids of this dtype (padtune list)")
    ap.add_argument("--extra", metavar="FILE.cu", help="experimental kernels to time beside them (see above)")
    ap.add_argument("--inductor", action="store_true",
                    help="also time torch.compile's kernel for the backward (inductor, dynamic=False), writing into the "
                         "same dx; TORCH_LOGS=output_code prints its source")
    ap.add_argument("--samples", type=int, default=200, help="L2-cold samples per median (default 200)")
    ap.add_argument("--rounds", type=int, default=3, help="times over the whole list, interleaved (default 3)")
    ap.add_argument("--library", action="store_true",
                    help="also time the dispatcher of the padtune package that imports here (its own binary, through "
                         "the C ABI): the kernel its table picks, as the library was built")
    args = ap.parse_intermixed_args()  # ids after the options too
    B, C, L, pl, pr = shape_arg.parse(ap, args.shape)
    if args.samples < 1 or args.rounds < 1:
        ap.error("--samples and --rounds must be at least 1")
    if not args.ids and not args.extra and not args.inductor and not args.library:
        ap.error("name at least one padtune id, or --extra, --inductor or --library")
    for i in args.ids:
        m = ID.match(i)
        if not m or m.group(1) != args.dtype:
            ap.error(f"'{i}' is not an instantiation id of dtype {args.dtype} (padtune list; the seed, "
                     "which needs dx zeroed, is not timed here)")
    if args.extra and not os.path.isfile(args.extra):
        ap.error(f"--extra {args.extra}: no such file")
    extra_names = EXTRA.findall(open(args.extra).read()) if args.extra else []
    if args.extra and not extra_names:
        ap.error(f"{args.extra} declares no extern \"C\" int same_timer_NAME(...) function")

    import torch  # here, not above: the shim's source is made (and tested, tests/cli) without PyTorch

    from padtune_lab.peers import contract, triton_peer
    from padtune_lab.peers.timing import ColdTimer

    bits = contract.BITS[args.dtype]
    dy, ref = contract.case(B, C, L, pl, pr, args.dtype)
    # dx inside guard bytes: a kernel that writes outside it shows there.
    guard, nbytes = 4096, ref.numel() * ref.element_size()
    arena = torch.empty(nbytes + 2 * guard, device="cuda", dtype=torch.uint8)
    out = arena[guard:guard + nbytes].view(dy.dtype).view(B, C, L)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    with tempfile.TemporaryDirectory() as work:
        major, minor = torch.cuda.get_device_capability()
        # nvcc only for padtune's templates or an --extra file
        lib = build(args.ids, args.extra, work, f"sm_{major}{minor}") if args.ids or args.extra else None
        runs = {"floor (D2D copy)": lambda: out.copy_(ref), "triton (autotuned)":
                lambda: triton_peer.constant_pad1d_backward(dy, L, pl, out)}
        for c in triton_peer.constant_pad1d_backward_kernel.configs:  # the autotuner's space, each pinned
            b, w = c.kwargs["BLOCK"], c.num_warps
            runs[f"triton BLOCK {b} warps {w}"] = lambda b=b, w=w: triton_peer.constant_pad1d_backward(dy, L, pl, out, (b, w))
        if args.inductor:  # the backward as inductor compiles it for this one shape, stored into dx
            compiled = torch.compile(lambda g, o: o.copy_(torch.constant_pad_nd(g, [-pl, -pr])), dynamic=False,
                                     fullgraph=True)
            runs["inductor (torch.compile)"] = lambda: compiled(dy, out)
        if args.library:  # the installed library's binary, not the templates compiled here
            try:
                import padtune._native as native
            except ImportError as e:
                sys.exit(f"same_timer: --library needs the padtune package importable (pip install, or "
                         f"PYTHONPATH=python PADTUNE_NATIVE_DIR=BUILD/python): {e}")
            native.lib.padtune_dispatch.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p] + \
                [ctypes.c_int64] * 5 + [ctypes.c_int, ctypes.c_void_p]
            code = native.DTYPES[dy.dtype]

            def library():
                if (e := native.lib.padtune_dispatch(0, dy.data_ptr(), out.data_ptr(), B, C, L, pl, pr, code, stream)) != 0:
                    sys.exit(f"same_timer: padtune_dispatch failed ({e}): {native.lib.padtune_last_error().decode()}")
            runs["padtune library (dispatch)"] = library
        launchers = [(f"launch_{n}", i, i.split("__", 2)[-1]) for n, i in enumerate(args.ids)]
        launchers += [(f"same_timer_{x}", x, f"extra: {x}") for x in extra_names]
        for symbol, i, label in launchers:
            fn = getattr(lib, symbol)
            fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_longlong] * 4 + [ctypes.c_void_p]

            def run(fn=fn, i=i):
                if (e := fn(dy.data_ptr(), out.data_ptr(), B * C, L, pl, pr, stream)) != 0:
                    sys.exit(f"same_timer: launching {i} failed (cudaError_t {e})")
            runs[label] = run

        def check(name, fn):
            """dx equal to the contract, bit for bit, from two poisons; the guard bytes untouched."""
            for poison in (0xA5, 0x5A):
                arena.fill_(poison)
                fn()
                torch.cuda.synchronize()
                if not torch.equal(out.view(bits), ref.view(bits)):
                    sys.exit(f"same_timer: {name} differs from the contract (dx poisoned with {poison:#x})")
                if bool((arena[:guard] != poison).any()) or bool((arena[guard + nbytes:] != poison).any()):
                    sys.exit(f"same_timer: {name} wrote outside dx")

        for name, fn in runs.items():
            check(name, fn)
        timer = ColdTimer(args.samples)
        times = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, fn in runs.items():
                times[name].append(timer.median_us(fn))
        for name, fn in runs.items():  # and still right after the timing
            check(name, fn)
        print(f"triton's autotuner chose BLOCK,WARPS = {triton_peer.chosen_config()}")
    floor = statistics.median(times["floor (D2D copy)"])
    print(f"{args.dtype} {(B, C, L, pl, pr)}: L2-cold medians of {args.samples} samples per round, "
          f"{args.rounds} rounds, one ColdTimer; ratio = the median of the rounds over the copy's")
    for name, ts in sorted(times.items(), key=lambda kv: statistics.median(kv[1])):
        print(f"  {name:<36} {' '.join(f'{t:7.2f}' for t in ts)} us   {statistics.median(ts) / floor:.3f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--print-shim":  # what nvcc compiles, for lab/tests/same_timer_shim.sh
        ids, extra = sys.argv[2:], None
        if "--extra" in ids:
            k = ids.index("--extra")
            extra, ids = ids[k + 1], ids[:k] + ids[k + 2:]
        try:
            print(source_text(ids, extra), end="")
        except (ValueError, OSError) as e:
            sys.exit(f"same_timer: {e}")
    else:
        main()
