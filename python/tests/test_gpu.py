"""padtune's torch ops on CUDA tensors (the tuned kernels): byte-exact against F.pad's autograd and a
plain reference on random shapes, every layout path, CUDA graphs, streams, opcheck, gradcheck,
torch.compile with inductor, explain. Every test is marked gpu: CTest's python.gpu runs them, and
without a CUDA device they skip (conftest.py)."""
import os
import random
import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import padtune
from _util import (DTYPES, KIND_LINE, LAYOUT_IDS, LAYOUTS, assert_same, bits, check_against_fpad, check_layout_case,
                   layout_line, make_dy, padtune_grads, random_bits, random_pads, random_strided, random_values,
                   reference_backward)

pytestmark = pytest.mark.gpu

DEVICE = "cuda"
op = padtune.ops.constant_pad1d_backward
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]


def gen(seed):
    return torch.Generator(device=DEVICE).manual_seed(seed)


def how(dy, pad_left, pad_right):
    return layout_line(dy, pad_left, pad_right)


def run_isolated(code):
    """Runs `code` in a fresh Python with this one's environment and returns its stdout; a crash
    fails the test with the signal instead of ending the whole session."""
    done = subprocess.run([sys.executable, "-c", "import torch, padtune\n" + code], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0:
        how_it_ended = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
        pytest.fail(f"{how_it_ended} running:\n{code}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}")
    return done.stdout


def poison(nbytes):
    """Leaves a freed block of 0xA5 bytes in the caching allocator, which the next allocation of
    about this size gets: a dx element the kernel fails to write then shows."""
    if nbytes > 0:
        torch.empty(nbytes, dtype=torch.uint8, device=DEVICE).fill_(0xA5)


def nbytes(shape, dtype):
    n = 1
    for s in shape:
        n *= s
    return n * torch.empty(0, dtype=dtype).element_size()


def gpu_case(rng, rank):
    """A random (x shape, pad_left, pad_right) that F.pad takes: small rows, long rows or many rows;
    small, large and negative pads; crops."""
    kind = rng.choice(["small", "small", "long", "many"])
    if kind == "small":
        rows_cap, L = 64, rng.randint(0, 80)
    elif kind == "long":
        rows_cap, L = 8, rng.choice([4096, 4097, 8192, rng.randint(1000, 20000), rng.randint(20000, 300000)])
    else:
        rows_cap, L = 65536, rng.randint(1, 128)
    per_dim = max(1, int(rows_cap ** (1.0 / (rank - 1))))
    lead = [rng.randint(1, per_dim) for _ in range(rank - 1)]
    m = rng.choice([4, 40, 3000])
    pl = rng.randint(-min(L, m), m)
    least = -(L + min(pl, 0))  # F.pad crops the input side by side
    pr = least if rng.random() < 0.05 else rng.randint(max(least, -m), m)
    return (*lead, L), pl, pr


GPU_CASES_PER_DTYPE = 50


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_random_shapes_match_fpad(dtype):
    """~200 random shapes in all (50 a dtype), ranks 2-4: forward and x.grad of padtune.constant_pad1d
    equal F.pad's byte for byte, and the op itself equals the plain reference; dx's memory poisoned."""
    k = DTYPES.index(dtype)
    rng = random.Random(4000 + k)
    g = gen(5000 + k)
    cases = [gpu_case(rng, rng.choice([2, 3, 4])) for _ in range(GPU_CASES_PER_DTYPE)]
    assert any(pl < 0 for _, pl, _ in cases) and any(pr < 0 for _, _, pr in cases)
    assert any(s[-1] >= 20000 for s, _, _ in cases)
    for shape, pl, pr in cases:
        value = rng.choice([0.0, -1.25])
        out_shape = (*shape[:-1], shape[-1] + pl + pr)
        ctx = f"x {shape} pads ({pl}, {pr}) {dtype}"
        x = random_values(shape, dtype, g)
        grad = random_bits(out_shape, dtype, g)
        _, dx_ref = check_against_fpad(x, pl, pr, value, grad, ctx, before_op=lambda: poison(nbytes(shape, dtype)))
        before = bits(grad).clone()
        poison(nbytes(shape, dtype))
        direct = op(grad, pl, pr)
        assert_same(direct, dx_ref, ctx)
        assert_same(direct, reference_backward(grad, pl, pr), ctx)
        assert torch.equal(bits(grad), before), f"dy changed ({ctx})"
    torch.cuda.synchronize()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_op_pads_past_the_row(dtype):
    """Pads the F.pad path cannot make: a pad and then a larger crop (OL = 0 with pad_left > 0),
    pads far longer than the row."""
    g = gen(6000 + DTYPES.index(dtype))
    for rows, OL, pl, pr in [(5, 0, 3, -3), (5, 10, 4000, -4000), (3, 100, -5000, 4900), (7, 4096, -1, -70000),
                             (2, 1, -200000, 0), (300, 33, 40, -40)]:
        dy = random_bits((rows, OL), dtype, g)
        poison(nbytes((rows, OL - pl - pr), dtype))
        assert_same(op(dy, pl, pr), reference_backward(dy, pl, pr), f"rows {rows} OL {OL} pads ({pl}, {pr})")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("x_shape,pads", [
    ((0, 3, 10), (2, 3)),
    ((3, 4, 0), (2, 3)),
    ((3, 0), (0, 0)),
    ((3, 4, 5), (-2, -3)),
    ((2, 2, 3, 4), (-4, 0)),
], ids=["B0", "L0", "L0_OL0", "OL0", "rank4_OL0"])
def test_zero_size(dtype, x_shape, pads):
    pl, pr = pads
    g = gen(7)
    x = random_values(x_shape, dtype, g)
    grad = random_bits((*x_shape[:-1], x_shape[-1] + pl + pr), dtype, g)
    _, dx_ref = check_against_fpad(x, pl, pr, 0.5, grad, before_op=lambda: poison(nbytes(x_shape, dtype)))
    assert_same(op(grad, pl, pr), dx_ref)


# --- strided dy -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name,make,pl,pr,kind", LAYOUTS, ids=LAYOUT_IDS)
def test_strided_dy(name, make, pl, pr, kind, dtype):
    dy = make_dy(make, dtype, gen(11))
    check_layout_case(dy, pl, pr, kind, before_op=lambda: poison(nbytes((*dy.shape[:-1], dy.shape[-1] - pl - pr), dtype)))


@pytest.mark.parametrize("max_last,count", [(12, 1000), (3000, 300)], ids=["short_rows", "long_rows"])
def test_random_strided_views(max_last, count):
    """Random views of random storages (every layout path; overlapping, broadcast, gapped, permuted,
    pitched at odd offsets, zero-size): exact, dx strides by the rule, storage untouched."""
    rng = random.Random(19 + max_last)
    g = gen(19 + max_last)
    seen = set()
    for i in range(count):
        dtype = rng.choice(DTYPES)
        dy = random_strided(rng, g, dtype, max_last=max_last)
        OL = dy.shape[-1]
        pl, pr = random_pads(rng, OL)
        ctx = (f"case {i}: {dtype} {tuple(dy.shape)} strides {dy.stride()} offset {dy.storage_offset()} "
               f"pads ({pl}, {pr})")
        _, line = check_layout_case(dy, pl, pr, "any", ctx,
                                    before_op=lambda: poison(nbytes((*dy.shape[:-1], OL - pl - pr), dtype)))
        seen.add(line)
    assert seen >= {KIND_LINE[k] for k in ("dense", "pitched", "copy")}, seen


# Larger layouts: rows past the kernels' blocks, rows whose starts are not 16-byte aligned.
BIG_LAYOUTS = [
    ("narrow_pitched", lambda r: r(64, 8, 4200).narrow(-1, 100, 4000), 3, 5, "pitched"),
    ("narrow_odd_pitch", lambda r: r(64, 8, 4201).narrow(-1, 1, 4000), 3, 5, "pitched"),
    ("narrow_odd_pitch_crop", lambda r: r(64, 8, 4201).narrow(-1, 0, 4000), -3, 5, "pitched"),
    ("narrow_short_rows", lambda r: r(4096, 37).narrow(-1, 3, 30), 1, 2, "pitched"),
    ("narrow_neg", lambda r: r(64, 8, 4201).narrow(-1, 100, 4000), -7, -9, None),
    ("channels_last_4d", lambda r: r(8, 64, 16, 300).contiguous(memory_format=torch.channels_last), -7, 9, "dense"),
    ("channels_last_3d", lambda r: r(16, 3000, 24).transpose(1, 2), 5, 3, "dense"),
    ("transpose_leading", lambda r: r(24, 16, 3000).transpose(0, 1), -2, 6, "dense"),
    ("slice_step", lambda r: r(32, 16, 8000)[..., ::3], 3, 5, "copy"),
    ("expanded", lambda r: r(1, 16, 5000).expand(32, 16, 5000), 3, -5, "copy"),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name,make,pl,pr,kind", BIG_LAYOUTS, ids=[c[0] for c in BIG_LAYOUTS])
def test_strided_dy_large(name, make, pl, pr, kind, dtype):
    dy = make_dy(make, dtype, gen(12))
    check_layout_case(dy, pl, pr, kind, before_op=lambda: poison(nbytes((*dy.shape[:-1], dy.shape[-1] - pl - pr), dtype)))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_cat_backward(dtype):
    """cat's backward hands padtune a narrow of its output gradient (rows at a pitch)."""
    g = gen(13)
    x = random_values((16, 32, 1001), dtype, g)
    a, b = random_values((16, 32, 7), dtype, g), random_values((16, 32, 13), dtype, g)
    grad = random_bits((16, 32, 7 + 1009 + 13), dtype, g)
    piece = grad.narrow(-1, 7, 1009)
    assert how(piece, 3, 5) == KIND_LINE["pitched"]
    assert_same(op(piece, 3, 5), reference_backward(piece, 3, 5))
    _, dx_ref = padtune_grads(lambda t: torch.cat([a, F.pad(t, (3, 5)), b], -1), x, grad)
    poison(nbytes(x.shape, dtype))
    _, dx = padtune_grads(lambda t: torch.cat([a, padtune.constant_pad1d(t, 3, 5), b], -1), x, grad)
    assert_same(dx, dx_ref)


# --- streams and CUDA graphs ----------------------------------------------------------------------

def test_non_default_stream():
    """The op runs on the current stream: dy made on a side stream behind a long sleep is read only
    once it is there, also by the last row that the narrowed case runs apart on a stream of its own."""
    g = gen(21)
    src = random_bits((64, 5000), torch.float32, g)
    dy = torch.zeros_like(src)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(100_000_000)  # about 50 ms of GPU time ahead of dy's copy
        dy.copy_(src)
        dx = op(dy, 3, -7)
        narrow_dx = op(dy.narrow(-1, 10, 4000), -2, 5)
    s.synchronize()
    assert torch.ops.padtune.describe.default(dy.narrow(-1, 10, 4000), -2, 5)[7] == 1
    assert_same(dx, reference_backward(src, 3, -7))
    assert_same(narrow_dx, reference_backward(src.narrow(-1, 10, 4000), -2, 5))


def test_cuda_graph_capture_op():
    g = gen(22)
    cases = [((64, 3000), 3, 5), ((8, 16, 100), -2, 7), ((4, 5000), 10, -20)]
    statics = [(random_bits(shape, torch.float32, g), pl, pr) for shape, pl, pr in cases]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            for dy, pl, pr in statics:
                op(dy, pl, pr)
                op(dy.narrow(-1, 1, dy.shape[-1] - 40), pl, pr)
    torch.cuda.current_stream().wait_stream(s)
    # (8, 16, 100) narrowed with pad_left -2 runs its last row apart, on a side stream forked from
    # and joined into the capturing one.
    apart = [torch.ops.padtune.describe.default(dy.narrow(-1, 1, dy.shape[-1] - 40), pl, pr)[7] for dy, pl, pr in statics]
    assert apart == [0, 1, 0], apart
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = [(op(dy, pl, pr), op(dy.narrow(-1, 1, dy.shape[-1] - 40), pl, pr)) for dy, pl, pr in statics]
    for _ in range(3):
        fresh = [random_bits(dy.shape, dy.dtype, g) for dy, _, _ in statics]
        for (dy, _, _), new in zip(statics, fresh):
            dy.copy_(new)
        graph.replay()
        torch.cuda.synchronize()
        for (dx, ndx), new, (_, pl, pr) in zip(outs, fresh, statics):
            assert_same(dx, reference_backward(new, pl, pr))
            assert_same(ndx, reference_backward(new.narrow(-1, 1, new.shape[-1] - 40), pl, pr))


def test_cuda_graph_capture_first_call():
    """A fresh process whose first padtune call is inside capture, on a narrowed dy whose last row runs
    apart: the dispatcher, the kernel's module, the pooled side stream and its events are all first
    used while capturing (the test above warms them up first)."""
    out = run_isolated("""
import torch.nn.functional as F
base = torch.randn(8, 16, 100, device="cuda")
dy, pl, pr = base.narrow(-1, 1, 60), -2, 7
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    dx = padtune.ops.constant_pad1d_backward(dy, pl, pr)
for _ in range(3):
    base.copy_(torch.randn_like(base))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(dx.view(torch.int32), F.pad(dy, (-pl, -pr)).view(torch.int32))
print("apart", torch.ops.padtune.describe.default(dy, pl, pr)[7])
""")
    assert out.split() == ["apart", "1"], out


def test_cuda_graph_capture_autograd():
    """Forward and backward of padtune.constant_pad1d captured whole, as in PyTorch's whole-network
    capture, then replayed on new data."""
    g = gen(23)
    pl, pr = 4, -9
    x_static = random_values((32, 2000), torch.float32, g).requires_grad_()
    g_static = random_values((32, 2000 + pl + pr), torch.float32, g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            x_static.grad = None
            (padtune.constant_pad1d(x_static, pl, pr) * 2.0).backward(g_static)
    torch.cuda.current_stream().wait_stream(s)
    x_static.grad = None
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y_static = padtune.constant_pad1d(x_static, pl, pr) * 2.0
        y_static.backward(g_static)
    dx_static = x_static.grad
    for _ in range(3):
        new_x = random_values(x_static.shape, torch.float32, g)
        new_g = random_values(g_static.shape, torch.float32, g)
        with torch.no_grad():
            x_static.copy_(new_x)
        g_static.copy_(new_g)
        graph.replay()
        torch.cuda.synchronize()
        y_ref, dx_ref = padtune_grads(lambda t: F.pad(t, (pl, pr)) * 2.0, new_x, new_g)
        assert_same(y_static.detach(), y_ref)
        assert_same(dx_static, dx_ref)


# --- opcheck, gradcheck ---------------------------------------------------------------------------

OPCHECK = [
    ("contiguous", lambda: torch.randn(2, 3, 100, device=DEVICE), 2, 3),
    ("negative", lambda: torch.randn(2, 3, 100, device=DEVICE, dtype=torch.bfloat16), -2, -3),
    ("channels_last", lambda: torch.randn(2, 100, 3, device=DEVICE).transpose(1, 2), 1, -2),
    ("narrow", lambda: torch.randn(2, 3, 300, device=DEVICE)[..., 5:105], 2, 3),
    ("slice_step", lambda: torch.randn(2, 3, 300, device=DEVICE, dtype=torch.float16)[..., ::3], -1, 2),
    ("requires_grad", lambda: torch.randn(2, 3, 100, device=DEVICE, dtype=torch.float64, requires_grad=True), 3, -4),
]


@pytest.mark.parametrize("name,make,pl,pr", OPCHECK, ids=[c[0] for c in OPCHECK])
def test_opcheck(name, make, pl, pr):
    torch.library.opcheck(op, (make(), pl, pr))


def test_opcheck_pad():
    x = torch.randn(2, 3, 100, device=DEVICE, requires_grad=True)
    torch.library.opcheck(padtune.ops.constant_pad1d, (x, 2, -3, 1.5))


@pytest.mark.parametrize("pads", [(3, 5), (-2, 4), (4, -3), (-2, -3)], ids=lambda p: f"{p[0]}_{p[1]}")
def test_gradcheck(pads):
    pl, pr = pads
    x = torch.randn(2, 3, 9, dtype=torch.float64, device=DEVICE, requires_grad=True)
    assert torch.autograd.gradcheck(lambda u: padtune.constant_pad1d(u, pl, pr, 2.0), (x,))
    assert torch.autograd.gradgradcheck(lambda u: padtune.constant_pad1d(u, pl, pr, 2.0), (x,))
    dy = torch.randn(2, 3, 9 + pl + pr, dtype=torch.float64, device=DEVICE, requires_grad=True)
    assert torch.autograd.gradcheck(lambda d: op(d, pl, pr), (dy,))


# --- torch.compile (inductor) ---------------------------------------------------------------------

class PadThenScale(torch.nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def forward(self, x):
        return self.pad(x) * 2.0


def test_compile_inductor_backward_calls_padtune():
    torch._dynamo.reset()
    pl, pr = 3, -2
    model = torch.compile(PadThenScale(padtune.nn.ConstantPad1d((pl, pr), 0.5)), fullgraph=True)
    ref_model = PadThenScale(lambda t: F.pad(t, (pl, pr), value=0.5))
    g = gen(31)
    for dtype in (torch.float32, torch.bfloat16):
        x = random_values((8, 16, 1000), dtype, g)
        grad = random_values((8, 16, 1000 + pl + pr), dtype, g)
        y_ref, dx_ref = padtune_grads(ref_model, x, grad)
        xx = x.detach().clone().requires_grad_()
        y = model(xx)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            y.backward(grad)
            torch.cuda.synchronize()
        names = [e.name for e in prof.events()]
        assert any("padtune::constant_pad1d_backward" in n for n in names), sorted(set(names))[:50]
        assert_same(y.detach(), y_ref)
        assert_same(xx.grad, dx_ref)


def test_compile_inductor_sees_dx_strides():
    """Inductor lays out code after the op by the fake implementation's strides (and checks them
    against the real output): a view that needs dx channels-last must trace and run as in eager."""
    torch._dynamo.reset()

    def fn(dy_blc):
        dx = op(dy_blc.transpose(1, 2), 3, -1)
        return dx.transpose(1, 2).view(-1) * 2.0

    compiled = torch.compile(fn, fullgraph=True)
    dy = random_values((4, 300, 24), torch.float32, gen(32))
    eager = fn(dy)
    assert_same(compiled(dy), eager)
    assert_same(eager, reference_backward(dy.transpose(1, 2), 3, -1).transpose(1, 2).reshape(-1) * 2.0)


def test_compile_records_backward_graph():
    """The backward graph AOTAutograd makes for CUDA holds padtune's op (not a decomposition)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    torch._dynamo.reset()
    graphs, fw_graphs = [], []

    def record(into):
        def compiler(gm, example_inputs):
            into.append(gm)
            return make_boxed_func(gm.forward)
        return compiler

    backend = aot_autograd(fw_compiler=record(fw_graphs), bw_compiler=record(graphs))
    model = torch.compile(PadThenScale(padtune.nn.ConstantPad1d((2, 5))), backend=backend, fullgraph=True)
    x = torch.randn(4, 8, 100, device=DEVICE)
    grad = torch.randn(4, 8, 107, device=DEVICE)
    _, dx = padtune_grads(model, x, grad)
    _, dx_ref = padtune_grads(lambda t: F.pad(t, (2, 5)) * 2.0, x, grad)
    assert_same(dx, dx_ref)
    assert len(graphs) == 1 and len(fw_graphs) == 1
    targets = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert torch.ops.padtune.constant_pad1d_backward.default in targets
    fw_targets = [n.target for n in fw_graphs[0].graph.nodes if n.op == "call_function"]
    assert torch.ops.padtune.constant_pad1d.default in fw_targets  # padtune's forward too


# --- explain and the tuned table ------------------------------------------------------------------

P1 = (32, 256, 8192, 3, 5)  # the performance suite's P1: (B, C, L, pad_left, pad_right)


# explain on the GPU runs in a subprocess: it once crashed there (SIGSEGV) where it worked on the CPU.
def test_explain_cuda(capsys):
    B, C, L, pl, pr = P1
    out = run_isolated(f"""
for dtype in (torch.float32, torch.bfloat16):
    print(padtune.explain(({B}, {C}, {L + pl + pr}), {pl}, {pr}, dtype=dtype))
x = torch.ones(4, 8, device="cuda")  # explain after PyTorch made its CUDA context
dy = torch.randn(2, 3, 108, device="cuda")
print(padtune.explain(dy, 3, 5))
print(padtune.explain(torch.randn(64, 8, 4201, device="cuda").narrow(-1, 100, 4000), -3, 5))
""")
    with capsys.disabled():  # into the test log: which kernel and table P1 takes on this GPU
        print(f"\npadtune.explain on {torch.cuda.get_device_name()}:\n{out}")
    assert out.count("instantiation: constant_pad1d_backward__") == 4, out
    assert out.count("table:") == 4, out
    assert KIND_LINE["dense"] in out and KIND_LINE["pitched"] in out, out


def test_autotune_times_a_new_shape_once_and_never_inside_capture():
    """First-use timing in a process of its own (the setting and its choices are process-wide): a
    shape first met inside graph capture takes the vote's kernel untimed (no synchronization breaks the
    capture); its first eager call times the finalists; later calls reuse the choice; every dx is exact."""
    out = run_isolated("""
import sys
import torch.nn.functional as F
padtune.set_autotune(True)
if "first-use timing is on" not in padtune.explain(torch.empty(96, 7, 1251, device="cuda", dtype=torch.bfloat16), 3, 11):
    print("SKIP: this GPU's table gives the vote a single candidate here: nothing to time")
    sys.exit(0)
op = padtune.ops.constant_pad1d_backward
def ref(dy, pl, pr):
    x = torch.zeros(dy.shape[:-1] + (dy.shape[-1] - pl - pr,), dtype=dy.dtype, device=dy.device, requires_grad=True)
    F.pad(x, (pl, pr)).backward(dy)
    return x.grad
def served(dy, pl, pr):
    lines = dict(l.split(": ", 1) for l in padtune.explain(dy, pl, pr).splitlines() if ": " in l)
    return lines["served_by"], lines["reason"]
dy = torch.randn(96, 7, 1237 + 3 + 11, device="cuda").bfloat16()
warm = torch.randn(4, 100, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    op(warm, 1, 1)  # PyTorch's own warm-up on the capture stream (this shape is timed here)
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    captured = op(dy, 3, 11)
print("after capture:", served(dy, 3, 11)[0])
graph.replay()
torch.cuda.synchronize()
assert torch.equal(captured.view(torch.int16), ref(dy, 3, 11).view(torch.int16))
first = op(dy, 3, 11)
torch.cuda.synchronize()
how, why = served(dy, 3, 11)
print("after the first eager call:", how)
assert torch.equal(first.view(torch.int16), ref(dy, 3, 11).view(torch.int16))
again = op(dy, 3, 11)
assert torch.equal(again.view(torch.int16), ref(dy, 3, 11).view(torch.int16))
print("same reason after a second call:", served(dy, 3, 11)[1] == why)
print(why)
""")
    if out.startswith("SKIP: "):
        pytest.skip(out.strip()[6:])
    assert "after capture: timed" not in out, out
    assert "after the first eager call: timed" in out, out
    assert "same reason after a second call: True" in out, out
    assert "the fastest of the vote's" in out or "the vote's first of its" in out, out


def test_explain_uses_the_embedded_table_of_this_model():
    # results/<model>.json is embedded at build time and serves every card of that model.
    name = torch.cuda.get_device_name()
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    committed = os.path.join(os.path.dirname(__file__), "..", "..", "results", f"{slug}.json")
    if not os.path.exists(committed) or os.environ.get("PADTUNE_RESULTS"):
        pytest.skip(f"no committed table results/{slug}.json for {name}, or PADTUNE_RESULTS is set")
    B, C, L, pl, pr = P1
    out = run_isolated(f"torch.ones(1, device='cuda'); print(padtune.explain(({B}, {C}, {L + pl + pr}), {pl}, {pr}))")
    assert f"table: embedded:{slug}.json" in out, out


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_p1_exact(dtype):
    B, C, L, pl, pr = P1
    g = gen(41)
    dy = random_bits((B, C, L + pl + pr), dtype, g)
    poison(nbytes((B, C, L), dtype))
    dx = op(dy, pl, pr)
    assert_same(dx, reference_backward(dy, pl, pr))


def test_second_device():
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    g = torch.Generator(device="cuda:1").manual_seed(51)
    dy = random_bits((16, 3000), torch.float32, g)
    assert dy.device == torch.device("cuda:1")
    with torch.cuda.device(0):
        dx = op(dy, 3, -5)
    assert dx.device == dy.device
    assert_same(dx, reference_backward(dy, 3, -5))
