# What a narrowed dy (rows at a pitch) costs any copy on this card: padtune's op on a contiguous and on
# a narrowed dy (dy = wide[..., 16:16+OL] of a tensor 64 wider, as lab/bin/torch-bench narrows it)
# against two strided copies of exactly the bytes dx needs (torch's elementwise copy and
# cudaMemcpy2DAsync), each timed by the lab's L2-cold timer (padtune_lab/peers/timing.py), median of 60
# samples.
# If the strided copies of the useful bytes cost what padtune does, no kernel that reads those bytes
# from DRAM does better on this card.
# Run on a GPU machine: PYTHONPATH=python PADTUNE_NATIVE_DIR=build/gpu/python python3 lab/experiments/pitch-limit/pitch_limit.py
import ctypes, glob, os, sys
import torch
import padtune  # noqa: F401  (registers torch.ops.padtune)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))  # lab/, for padtune_lab
from padtune_lab.peers.timing import ColdTimer  # noqa: E402

def cudart():
    for pat in [os.path.join(os.path.dirname(torch.__file__), "lib", "libcudart.so*"),
                "/usr/local/lib/python3*/dist-packages/nvidia/cuda_runtime/lib/libcudart.so*",
                "/usr/local/cuda/lib64/libcudart.so*", "/usr/lib/x86_64-linux-gnu/libcudart.so*"]:
        for p in sorted(glob.glob(pat)):
            try: return ctypes.CDLL(p)
            except OSError: pass
    import nvidia.cuda_runtime, pathlib
    return ctypes.CDLL(str(next(pathlib.Path(nvidia.cuda_runtime.__path__[0]).rglob("libcudart.so*"))))

rt = cudart()
time_us = ColdTimer(samples=60).median_us

def case(shape, dtype, off=16, extra=64):
    B, C, L, pl, pr = shape
    OL = pl + L + pr; W = OL + extra; es = torch.empty((), dtype=dtype).element_size()
    wide = torch.randn(B * C, W, device="cuda").to(dtype)
    narrow = wide.view(B, C, W)[..., off:off + OL]
    contig = narrow.contiguous()
    dx = torch.empty(B, C, L, device="cuda", dtype=dtype)
    op = torch.ops.padtune.constant_pad1d_backward
    ref = contig[..., pl:pl + L]
    assert torch.equal(op(narrow, pl, pr).view(-1).view(torch.uint8), ref.contiguous().view(-1).view(torch.uint8))
    src = narrow[..., pl:pl + L]
    rows = B * C
    def memcpy2d():
        rc = rt.cudaMemcpy2DAsync(ctypes.c_void_p(dx.data_ptr()), ctypes.c_size_t(L * es),
                                  ctypes.c_void_p(src.data_ptr()), ctypes.c_size_t(W * es),
                                  ctypes.c_size_t(L * es), ctypes.c_size_t(rows), 3,
                                  ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        assert rc == 0, rc
    memcpy2d(); torch.cuda.synchronize(); assert torch.equal(dx.view(-1).view(torch.uint8), ref.contiguous().view(-1).view(torch.uint8))
    flat = torch.empty(dx.numel() * es, dtype=torch.uint8, device="cuda"); flat2 = torch.empty_like(flat)
    r = {
        "copy of dx bytes": time_us(lambda: flat2.copy_(flat)),
        "padtune contiguous dy": time_us(lambda: op(contig, pl, pr)),
        "padtune narrowed dy": time_us(lambda: op(narrow, pl, pr)),
        "torch strided copy of the useful bytes": time_us(lambda: dx.copy_(src)),
        "cudaMemcpy2DAsync of the useful bytes": time_us(memcpy2d),
    }
    base = r["copy of dx bytes"]
    print(f"{shape} {dtype} pitch {W * es} B, useful {L * es} B at byte {(off + pl) * es} of each row")
    for k, v in r.items():
        print(f"  {k:42s} {v:8.1f} us  {v / base:5.3f} x copy  {v / r['padtune contiguous dy']:5.3f} x contiguous")
    del wide, contig
    torch.cuda.empty_cache()

CUDA_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05  # cudaLimitMaxL2FetchGranularity: a hint, 0 to 128 bytes

def l2_fetch_granularity(set_to=None):
    if set_to is not None:
        assert rt.cudaDeviceSetLimit(CUDA_LIMIT_MAX_L2_FETCH_GRANULARITY, ctypes.c_size_t(set_to)) == 0
    v = ctypes.c_size_t()
    assert rt.cudaDeviceGetLimit(ctypes.byref(v), CUDA_LIMIT_MAX_L2_FETCH_GRANULARITY) == 0
    return v.value

print(torch.cuda.get_device_name(), torch.__version__)
torch.zeros(1, device="cuda")  # the primary context exists before the limit is read
default_granularity = l2_fetch_granularity()
print(f"L2 fetch granularity: {default_granularity} B (the context's default)")
for shape in [(1024, 8192, 8, 2, 3), (64, 4096, 64, 2, 1)]:
    for dt in (torch.bfloat16, torch.float32):
        case(shape, dt)
# Does a 32-byte fetch granularity (a context-wide hint, not something a library may set for its user)
# bring narrowed short rows nearer their useful bytes? Same cases, the hint set, then restored.
for g in (32, 0):
    print(f"L2 fetch granularity set to {g} B, reads back {l2_fetch_granularity(g)} B")
    for dt in (torch.bfloat16, torch.float32):
        case((1024, 8192, 8, 2, 3), dt)
l2_fetch_granularity(default_granularity)
