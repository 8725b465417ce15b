"""padtune.enable() on CUDA tensors: every eager constant pad it serves through padtune's tuned
kernels, byte for byte what PyTorch gives (values, sizes, strides, errors), fallbacks included; with
autograd, gradcheck, CUDA graphs, streams, threads that enable and disable while others pad, and
torch.compile, which lowers the pad itself. Marked gpu: CTest's python.gpu runs them on the H200."""
import random
import threading

import pytest
import torch
import torch.nn.functional as F

import padtune
from _util import DTYPES, LAYOUTS, LAYOUT_IDS, bits, make_dy, random_bits, random_strided
from test_enable import check_pad, same_result

pytestmark = pytest.mark.gpu
DEVICE = "cuda"


@pytest.fixture(autouse=True)
def disabled_after():
    padtune.disable()
    yield
    padtune.disable()


def gen(seed):
    return torch.Generator(device=DEVICE).manual_seed(seed)


def check(x, pad, value, ctx):
    """check_pad on CUDA (enable() serves CUDA tensors by default; cpu=True adds nothing here)."""
    return check_pad(x, pad, value, ctx)


def test_enabled_equals_disabled_on_random_pads_cuda():
    rng = random.Random(139)
    g = gen(139)
    served = 0
    for case in range(600):
        dtype = rng.choice([*DTYPES, *DTYPES, torch.int32, torch.complex64])
        if rng.random() < 0.4:
            x = random_strided(rng, g, torch.float32 if dtype not in DTYPES else dtype, DEVICE, max_last=300).to(dtype)
        else:
            shape = [rng.randint(0, 6) for _ in range(rng.randint(0, 3))] + [rng.choice([0, 1, 7, 64, 1000, 4099])]
            x = random_bits(shape, dtype, g) if dtype in DTYPES else torch.randint(0, 9, shape, device=DEVICE).to(dtype)
        L = x.shape[-1]
        pad = [rng.randint(-min(L, 40) - 1, 1100), rng.randint(-min(L, 40) - 1, 70)]
        if x.dim() > 1 and rng.random() < 0.2:
            pad += [rng.choice([0, 1]), 0]
        value = rng.choice([0.0, 0.0, 0.0, -0.0, 2.0, -1e-3, float("nan"), float("-inf"), 70000.0])
        served += check(x, pad, value, f"case {case}: {dtype} {tuple(x.shape)} {x.stride()} pad {pad} value {value}")
    assert served > 150, served  # 229 of 600 on the H200: the other layouts and dtypes fall back
    assert padtune.enabled_counts()["reentered"] == 0


@pytest.mark.parametrize("name,make,pl,pr,kind", LAYOUTS, ids=LAYOUT_IDS)
def test_every_layout_cuda(name, make, pl, pr, kind):
    g = gen(len(name))
    for dtype in DTYPES:
        x = make_dy(make, dtype, g, DEVICE)
        for pad in ([-pl, -pr], [pl, pr], [pl, pr, 0, 0]):
            check(x, pad, 0.0, f"{name} {dtype} pad {pad}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_causal_conv_shapes_are_served_and_exact(dtype):
    """The forward pads of causal convolutions (left pads d*(k-1)) on long rows, and their backward."""
    g = gen(7)
    for shape, left in (((16, 128, 16384), 2), ((16, 128, 16384), 1024), ((8, 256, 4096), 510)):
        x = random_bits(shape, dtype, g)
        assert check(x, [left, 0], 0.0, f"{shape} left {left}")
        grad = random_bits((*shape[:-1], shape[-1] + left), dtype, g)
        outs = []
        for on in (False, True):
            xs = x.detach().clone().requires_grad_() if dtype.is_floating_point else x
            if on:
                padtune.enable()
            y = F.pad(xs, (left, 0))
            y.backward(grad)
            padtune.disable()
            outs.append((y.detach(), xs.grad))
        same_result(outs[1][0], outs[0][0], f"forward {shape} {left}")
        same_result(outs[1][1], outs[0][1], f"backward {shape} {left}")


def test_gradcheck_cuda():
    x = torch.randn(3, 2, 9, dtype=torch.float64, device=DEVICE, requires_grad=True)
    with padtune.enabled():
        assert torch.autograd.gradcheck(lambda t: F.pad(t, (3, -2)), (x,))
        assert torch.autograd.gradgradcheck(lambda t: F.pad(t, (1, 4)), (x,))
        assert torch.autograd.gradcheck(lambda t: t[..., 2:7], (x,))


def test_cuda_graph_capture_of_enabled_pads():
    g = gen(21)
    x = random_bits((8, 64, 3000), torch.float32, g)
    grad = random_bits((8, 64, 3000 + 5 - 2), torch.float32, g)
    xs = x.clone().requires_grad_()
    padtune.enable()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm up: tables, kernels
            F.pad(xs, (5, -2)).backward(grad)
    torch.cuda.current_stream().wait_stream(s)
    xs.grad = None
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = F.pad(xs, (5, -2))
        y.backward(grad)
    padtune.disable()
    for _ in range(3):
        new = random_bits(x.shape, x.dtype, g)
        with torch.no_grad():
            xs.copy_(new)
        xs.grad.zero_()
        graph.replay()
        torch.cuda.synchronize()
        same_result(y, F.pad(new, (5, -2)), "replayed forward")
        same_result(xs.grad, F.pad(grad, (-5, 2)), "replayed backward")


def test_non_default_stream():
    g = gen(23)
    x = random_bits((64, 5000), torch.bfloat16, g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with padtune.enabled(), torch.cuda.stream(s):
        y = F.pad(x, (300, 7))
    torch.cuda.current_stream().wait_stream(s)
    same_result(y, F.pad(x, (300, 7)), "on a side stream")


def test_enable_and_disable_from_several_threads_while_others_pad():
    g = gen(31)
    cases = [(random_bits((16, 128, 2048), dtype, g), pad) for dtype in DTYPES for pad in ((3, 0), (-2, 5), (64, 64))]
    want = [F.pad(x, pad) for x, pad in cases]
    errors, stop = [], threading.Event()

    def toggle():
        while not stop.is_set():
            padtune.enable()
            padtune.disable()

    def pad_all():
        try:
            for _ in range(30):
                for (x, pad), w in zip(cases, want):
                    y = F.pad(x, pad)
                    torch.cuda.current_stream().synchronize()
                    if not torch.equal(bits(y), bits(w)):
                        errors.append(f"{x.dtype} {pad}")
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(repr(e))

    padtune.enable()  # the registration, before the threads: after it, enable() and disable() are flags
    padtune.disable()
    togglers = [threading.Thread(target=toggle) for _ in range(3)]
    padders = [threading.Thread(target=pad_all) for _ in range(3)]
    for t in togglers + padders:
        t.start()
    for t in padders:
        t.join()
    stop.set()
    for t in togglers:
        t.join()
    assert not errors, errors[:5]
    padtune.disable()
    assert not padtune.is_enabled()


def test_torch_compile_with_enable_lowers_the_pad_itself():
    """Inductor lowers aten.constant_pad_nd into its own kernels: a compiled F.pad gives PyTorch's
    result with padtune enabled, and padtune's kernel does not run inside it."""
    torch._dynamo.reset()

    def model(t):
        return (F.pad(t, (4, -1)) * 2.0).sin()

    g = gen(41)
    x = random_bits((8, 32, 1000), torch.float32, g).nan_to_num(0.0).clamp(-10, 10)
    compiled = torch.compile(model, fullgraph=True)
    want = model(x)
    with padtune.enabled():
        got = compiled(x)  # the compile happens here, enabled
        before = padtune.enabled_counts()["served"]
        got = compiled(x)
        torch.cuda.synchronize()
        assert padtune.enabled_counts()["served"] == before, "padtune's kernel ran inside Inductor's code"
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)  # Inductor's sin may differ in the last bit


def test_slice_backward_chomp_cuda():
    """A Chomp1d (x[:, :, :-k]) after a padded convolution: its backward through padtune."""
    g = gen(51)
    for dtype in DTYPES:
        x = random_bits((16, 128, 4096 + 6), dtype, g)
        grad = random_bits((16, 128, 4096), dtype, g)
        grads = []
        for on in (False, True):
            xs = x.clone().requires_grad_()
            if on:
                padtune.enable()
            before = padtune.enabled_counts()["served"]
            xs[:, :, :-6].backward(grad)
            if on:
                assert padtune.enabled_counts()["served"] == before + 1
            padtune.disable()
            grads.append(xs.grad)
        same_result(grads[1], grads[0], f"chomp {dtype}")
