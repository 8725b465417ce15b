"""padtune.enable(): padtune as the kernel of PyTorch's own constant pads, checked on CPU tensors
(enable(cpu=True) serves them through the host backend): enabled against disabled, byte for byte, in
values, sizes, strides and errors, over random ranks, pads, layouts, dtypes and fill values,
fallbacks included; autograd; slice_backward; registration and its state. No GPU needed."""
import random

import pytest
import torch
import torch.nn.functional as F

import padtune
from _util import DTYPES, LAYOUTS, LAYOUT_IDS, make_dy, random_bits, random_strided


@pytest.fixture(autouse=True)
def disabled_after():
    padtune.disable()
    yield
    padtune.disable()


def same_result(a, b, ctx):
    """The same dtype, sizes, strides (of dims longer than 1) and bytes."""
    assert a.dtype == b.dtype and a.shape == b.shape, f"{ctx}: {a.dtype} {tuple(a.shape)} != {b.dtype} {tuple(b.shape)}"
    for d in range(a.dim()):
        if a.shape[d] > 1:
            assert a.stride(d) == b.stride(d), f"{ctx}: strides {a.stride()} != PyTorch's {b.stride()}"
    def as_bytes(t):
        return torch.empty_like(t, memory_format=torch.contiguous_format).copy_(t).view(-1).view(torch.uint8)

    if a.numel():
        assert torch.equal(as_bytes(a), as_bytes(b)), f"{ctx}: the bytes differ"


def outcome(fn):
    """fn()'s result, or its exception's type and message: errors must match PyTorch's too."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001  (compared, not swallowed)
        return None, (type(e), str(e).split("\n")[0])


def check_pad(x, pad, value, ctx):
    """F.pad(x, pad, value) enabled equals disabled; returns whether padtune served it."""
    padtune.disable()
    want, want_error = outcome(lambda: F.pad(x, pad, value=value))
    first = padtune.explain_pad(x, pad, value).splitlines()[0]
    before = padtune.enabled_counts()
    with padtune.enabled(cpu=True):
        got, got_error = outcome(lambda: F.pad(x, pad, value=value))
    after = padtune.enabled_counts()
    assert got_error == want_error, f"{ctx}: {got_error} != PyTorch's {want_error}"
    if want_error is None:
        same_result(got, want, ctx)
    served = after["served"] - before["served"]
    calls = served + after["fell_back"] - before["fell_back"]
    # One call of padtune's kernel; none where F.pad refuses the pads before it calls constant_pad_nd.
    assert calls == 1 or (calls == 0 and want_error is not None), f"{ctx}: {calls} calls of padtune's kernel"
    assert (served == 1) == first.startswith("padtune:"), f"{ctx}: explain_pad says '{first}', served {served}"
    return served == 1


def test_enabled_equals_disabled_on_random_pads():
    """Random ranks 1-5, sizes, pads of the last dimension (crops included), other dims' pads zero or
    not, the four dtypes and others, fill values (zeros of both signs, integers, fractions that each
    dtype rounds, infinities, NaN, values a dtype overflows), many layouts."""
    rng = random.Random(39)
    g = torch.Generator().manual_seed(39)
    served = fell_back = 0
    for case in range(1200):
        dtype = rng.choice([*DTYPES, *DTYPES, torch.int32, torch.uint8, torch.complex64, torch.bool])
        if rng.random() < 0.5:
            x = random_strided(rng, g, torch.float32).to(dtype) if dtype not in DTYPES else random_strided(rng, g, dtype)
        else:
            shape = [rng.randint(0, 4) for _ in range(rng.randint(0, 4))] + [rng.randint(0, 20)]
            x = (random_bits(shape, dtype, g) if dtype in DTYPES else torch.randint(0, 100, shape).to(dtype))
            if x.dim() == 4 and rng.random() < 0.5:
                x = x.contiguous(memory_format=torch.channels_last)
        L = x.shape[-1]
        pl, pr = rng.randint(-L - 2, 9), rng.randint(-L - 2, 9)
        pad = [pl, pr]
        if x.dim() > 1 and rng.random() < 0.3:
            pad += [rng.choice([0, 0, 1, -1]), rng.choice([0, 0, 2])]
        value = rng.choice([0.0, 0.0, 0.0, 0, -0.0, 1.5, -3, 1 / 3, 1e-8, 65519.0, 70000.0, 3.4e38, 1e39,
                            float("inf"), float("-inf"), float("nan"), -float("nan"), True])
        if dtype == torch.bool:
            value = rng.choice([False, True])
        if check_pad(x, pad, value, f"case {case}: {dtype} {tuple(x.shape)} strides {x.stride()} pad {pad} value {value!r}"):
            served += 1
        else:
            fell_back += 1
    assert served > 250 and fell_back > 250, (served, fell_back)  # both paths well covered
    assert padtune.enabled_counts()["reentered"] == 0


@pytest.mark.parametrize("name,make,pl,pr,kind", LAYOUTS, ids=LAYOUT_IDS)
def test_enabled_equals_disabled_on_every_layout(name, make, pl, pr, kind):
    g = torch.Generator().manual_seed(len(name))
    for dtype in DTYPES:
        x = make_dy(make, dtype, g)
        for pad in ([-pl, -pr], [pl, pr], [pl, pr, 0, 0], [0, 0]):
            check_pad(x, pad, 0.0, f"{name} {dtype} pad {pad}")


def test_what_is_served_and_why_not():
    x = torch.randn(4, 8, 100)
    assert padtune.explain_pad(x, (3, 0)).startswith("padtune: dense input")
    assert padtune.explain_pad(x[..., 5:90], (-7, -1)).startswith("padtune: input rows at a pitch")
    assert padtune.explain_pad(x, (-3, -4)).startswith("padtune: dense input")  # crops
    assert padtune.explain_pad(x, (2, 2, 0, 0)).startswith("padtune:")  # nn.ConstantPad2d with zero height pads
    reasons = {
        (x, (1, 1, 1, 0), 0.0): "pads dimension -2",
        (x.half(), (1, 1), 70000.0): "overflows Half",
        (x.int(), (1, 1), 0): "dtype Int",
        (x.transpose(1, 2), (1, 1), 0.0): "another memory order",
        (x.expand(2, 4, 8, 100), (1, 1), 0.0): "would copy it first",
        (x[..., 5:90], (7, 1), 0.0): "would copy it first",  # rows at a pitch, padded on both sides
        (x, (1, -200), 0.0): "PyTorch's to refuse",
        (x, (1,), 0.0): "PyTorch's to check",
    }
    for (t, pad, value), why in reasons.items():
        text = padtune.explain_pad(t, pad, value)
        assert text.startswith("PyTorch's own: ") and why in text, (pad, value, text)
    served = padtune.explain_pad(x, (3, 5))
    assert "instantiation: constant_pad1d_backward__f32__" in served  # the kernel lines of padtune.explain
    for value in (2.0, -0.0, float("nan"), float("-inf"), 65504.0):  # fill values: the kernels write their bits
        assert padtune.explain_pad(x.half(), (1, 1), value).startswith("padtune: dense input"), value


def test_modules_and_functional_forms_are_served_with_no_change_to_the_model():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 3, 4, 50, generator=g)
    modules = [torch.nn.ConstantPad1d((3, 2), 0.0), torch.nn.ZeroPad1d((1, 4)), torch.nn.ConstantPad2d((3, 2, 0, 0), 0.0),
               torch.nn.ConstantPad3d((0, 5, 0, 0, 0, 0), 0.0), torch.nn.ConstantPad1d(-2, 0.0)]
    for m in modules:
        want = m(x)
        before = padtune.enabled_counts()["served"]
        with padtune.enabled(cpu=True):
            got = m(x)
        assert padtune.enabled_counts()["served"] == before + 1, m
        same_result(got, want, repr(m))


def test_autograd_through_an_enabled_pad_is_byte_equal():
    """The forward and its backward (constant_pad_nd with the pads negated) both through padtune."""
    g = torch.Generator().manual_seed(5)
    for dtype in (torch.float32, torch.float64, torch.bfloat16):
        for pad in ((3, 5), (-2, 4), (0, -3), (7, 0, 0, 0)):
            x = torch.randn(2, 6, 40, generator=g).to(dtype)
            grad = random_bits((2, 6, 40 + pad[0] + pad[1]), dtype, g)
            outs = []
            for on in (False, True):
                xs = x.clone().requires_grad_()
                if on:
                    padtune.enable(cpu=True)
                y = F.pad(xs, pad)
                y.backward(grad)
                padtune.disable()
                outs.append((y.detach(), xs.grad))
            same_result(outs[1][0], outs[0][0], f"forward {dtype} {pad}")
            same_result(outs[1][1], outs[0][1], f"backward {dtype} {pad}")
    assert padtune.enabled_counts()["reentered"] == 0


def test_gradcheck_with_enabled_pads():
    x = torch.randn(3, 9, dtype=torch.float64, requires_grad=True)
    with padtune.enabled(cpu=True):
        assert torch.autograd.gradcheck(lambda t: F.pad(t, (2, -3)), (x,))
        assert torch.autograd.gradgradcheck(lambda t: F.pad(t, (4, 1)), (x,))


@pytest.mark.parametrize("index", [(slice(2, 7),), (slice(None, -3),), (slice(-5, None),), (slice(0, 0),),
                                   (Ellipsis, slice(1, 9)), (slice(None), slice(2, 4))])
def test_slice_backward_equals_pytorchs(index):
    """The backward of x[...] along the last dimension (Chomp1d: x[:, :, :-k]) through padtune when
    it is one; others (a slice of another dimension, a step) fall back, with PyTorch's result."""
    g = torch.Generator().manual_seed(11)
    for dtype in DTYPES:
        x = random_bits((3, 4, 10), dtype, g)
        y = x[(Ellipsis, *index)] if index[0] is not Ellipsis else x[index]
        grad = random_bits(tuple(y.shape), dtype, g)
        grads = []
        for on in (False, True):
            xs = x.detach().clone().requires_grad_() if dtype.is_floating_point else x
            if on:
                padtune.enable(cpu=True)
            ys = xs[(Ellipsis, *index)] if index[0] is not Ellipsis else xs[index]
            ys.backward(grad)
            padtune.disable()
            grads.append(xs.grad)
        same_result(grads[1], grads[0], f"{index} {dtype}")
    sizes = (3, 4, 10)
    dy = torch.randn(3, 4, 5)
    assert padtune.explain_slice_backward(dy, sizes, -1, 2, 7).startswith("padtune: dense input")
    assert padtune.explain_slice_backward(torch.randn(3, 2, 10), sizes, 1, 0, 2).startswith("PyTorch's own: a slice of dimension 1")
    assert padtune.explain_slice_backward(torch.randn(3, 4, 3), sizes, 2, 0, 6, 2).startswith("PyTorch's own: a slice of step 2")


def test_padtune_forward_runs_through_padtune_whether_enabled_or_not():
    x = torch.randn(2, 3, 30)
    before = padtune.enabled_counts()["served"]
    y = padtune.constant_pad1d(x, 4, -2)
    assert padtune.enabled_counts()["served"] == before + 1
    same_result(y, F.pad(x, (4, -2)), "padtune.constant_pad1d")
    before = padtune.enabled_counts()["served"]
    same_result(padtune.constant_pad1d(x, 4, -2, value=2.5), F.pad(x, (4, -2), value=2.5), "a fill value")
    assert padtune.enabled_counts()["served"] == before + 1  # a fill value: padtune's too


def test_registration_state():
    assert not padtune.is_enabled()
    assert padtune.enable() is False
    assert padtune.is_enabled()
    assert padtune.enable() is True  # a second enable() is harmless
    assert padtune.disable() is True
    assert padtune.disable() is False
    with padtune.enabled(cpu=True):
        assert padtune.is_enabled()
        with padtune.enabled():
            assert padtune.is_enabled()
        assert torch.ops.padtune._enabled() & 2, "leaving the inner block dropped the CPU kernels"
    assert not padtune.is_enabled()
    padtune.enable(cpu=True)
    with padtune.enabled():
        pass
    assert torch.ops.padtune._enabled() & 2
    padtune.disable()


def test_enabled_blocks_count_in_any_order():
    """Blocks of several threads end in any order: padtune serves while one is open, and leaving the
    last brings back what enable()/disable() set. (One saved state per block once let a block that
    ended first turn padtune off under another, and the last one leave it on for good.)"""
    a, b = padtune.enabled(cpu=True), padtune.enabled(cpu=True)
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # a ends first, as in another thread
    assert torch.ops.padtune._enabled() & 2, "a block that ended first turned padtune off under another"
    b.__exit__(None, None, None)
    assert not padtune.is_enabled(), "padtune stayed on after the last block"
    with padtune.enabled(cpu=True):
        padtune.disable()  # turns off what enable() set; the open block serves until it ends
        assert torch.ops.padtune._enabled() & 2
        padtune.enable(cpu=True)  # asked for inside a block: stays after it
    assert torch.ops.padtune._enabled() & 2
    padtune.disable()
    assert not padtune.is_enabled()
    import threading
    entered, leave, errors = threading.Barrier(3), threading.Event(), []

    def block():
        with padtune.enabled(cpu=True):
            entered.wait()
            leave.wait()
            if not torch.equal(F.pad(torch.ones(3), (1, 1)), torch.tensor([0.0, 1, 1, 1, 0])):
                errors.append("a pad inside a block differs")
            if not torch.ops.padtune._enabled() & 2:
                errors.append("padtune was off inside an open block")

    threads = [threading.Thread(target=block) for _ in range(2)]
    for t in threads:
        t.start()
    entered.wait()
    assert torch.ops.padtune._enabled() & 2
    leave.set()
    for t in threads:
        t.join()
    assert not errors, errors
    assert not padtune.is_enabled()


def test_a_refused_enable_changes_nothing():
    """enable(cpu=True) where another library holds a CPU kernel of one op is refused before any key
    is registered or turned on: the CUDA one it would have taken first included. In a fresh process."""
    import os
    import subprocess
    import sys

    script = """
import torch, padtune
other = torch.library.Library("aten", "IMPL")
other.impl("slice_backward", lambda *args: torch.zeros(1), "CPU")
for call in (lambda: padtune.enable(cpu=True), lambda: padtune.enabled(cpu=True).__enter__()):
    try:
        call()
        raise SystemExit("enable(cpu=True) took over another library's kernel")
    except RuntimeError as e:
        assert "aten::slice_backward already has a CPU kernel" in str(e) and "Nothing was changed" in str(e), e
    assert torch.ops.padtune._enabled() == 0, torch.ops.padtune._enabled()
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_padtune_pad_of_a_dtype_it_leaves_to_pytorch_has_pytorchs_backward():
    """padtune.constant_pad1d on complex (and integer) tensors runs PyTorch's pad: its backward too."""
    x = torch.randn(2, 3, 7, dtype=torch.complex64, requires_grad=True)
    g = torch.randn(2, 3, 10, dtype=torch.complex64)
    (got,) = torch.autograd.grad(padtune.constant_pad1d(x, 2, 1), x, g)
    (want,) = torch.autograd.grad(F.pad(x, (2, 1)), x, g)
    same_result(got, want, "complex64 backward")


def test_another_librarys_kernel_is_not_taken_over_unless_asked():
    """A library that registered aten::constant_pad_nd for the key first: enable() refuses, naming the
    op; replace_others=True takes over, and disable() gives the op back to that library. In a fresh
    process: padtune's own registration, once made, stays for the process."""
    import os
    import subprocess
    import sys

    script = """
import torch, torch.nn.functional as F, padtune
other = torch.library.Library("aten", "IMPL")
marker = torch.full((1,), 42.0)
other.impl("constant_pad_nd", lambda x, pad, value=0: marker, "CPU")
assert F.pad(torch.zeros(2), (1, 1)) is marker
try:
    padtune.enable(cpu=True)
    raise SystemExit("enable() took over another library's kernel")
except RuntimeError as e:
    assert "aten::constant_pad_nd already has a CPU kernel that another library registered" in str(e), e
assert F.pad(torch.zeros(2), (1, 1)) is marker
padtune.enable(cpu=True, replace_others=True)
assert torch.equal(F.pad(torch.ones(2), (1, 1)), torch.tensor([0.0, 1, 1, 0]))
padtune.disable()
assert F.pad(torch.zeros(2), (1, 1)) is marker
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_torch_compile_keeps_working_when_enabled():
    """A compiled model's aten.constant_pad_nd runs as compiled: aot_eager calls it eagerly (padtune's
    kernel then), Inductor lowers it itself (the GPU tests check that one)."""
    torch._dynamo.reset()
    x = torch.randn(2, 3, 20, requires_grad=True)
    grad = torch.randn(2, 3, 25)

    def step(fn):
        xs = x.detach().clone().requires_grad_()
        y = fn(xs)
        y.backward(grad)
        return y.detach(), xs.grad

    def model(t):
        return (F.pad(t, (3, 2)) * 2.0).sin()

    want = step(model)
    with padtune.enabled(cpu=True):
        before = padtune.enabled_counts()["served"]
        got = step(torch.compile(model, backend="aot_eager", fullgraph=True))
        assert padtune.enabled_counts()["served"] >= before + 2  # the forward pad and its backward
    same_result(got[0], want[0], "compiled forward")
    same_result(got[1], want[1], "compiled backward")


def test_enable_and_disable_from_threads_while_others_pad():
    """After the first enable() has registered the kernels, enable() and disable() are flags: threads
    may flip them while others pad (unregistering beside a running op crashed the CPU's)."""
    import threading

    padtune.enable(cpu=True)  # the registration, before any other thread runs an op
    padtune.disable()
    x = torch.randn(64, 300)
    want = F.pad(x, (3, -2))
    stop, errors = threading.Event(), []

    def toggle():
        while not stop.is_set():
            padtune.enable(cpu=True)
            padtune.disable()

    def pad():
        for _ in range(400):
            if not torch.equal(F.pad(x, (3, -2)), want):
                errors.append("a result differs")

    togglers = [threading.Thread(target=toggle) for _ in range(2)]
    padders = [threading.Thread(target=pad) for _ in range(2)]
    for t in togglers + padders:
        t.start()
    for t in padders:
        t.join()
    stop.set()
    for t in togglers:
        t.join()
    assert not errors, errors[:3]


def test_explain_pad_names_what_it_cannot_take():
    x = torch.randn(2, 5)
    with pytest.raises(TypeError, match="pad must be a sequence of integers"):
        padtune.explain_pad(x, 3)
    with pytest.raises(TypeError, match="pad must be a sequence of integers"):
        padtune.explain_pad(x, None)
    with pytest.raises(TypeError, match="x must be a tensor"):
        padtune.explain_pad([1, 2], (1, 1))
    with pytest.raises(TypeError, match="value must be a number"):
        padtune.explain_pad(x, (1, 1), "0")
    with pytest.raises(TypeError, match="input_sizes must be a sequence"):
        padtune.explain_slice_backward(x, 10, -1, 0, 5)
    assert padtune.explain_pad(torch.empty(2, 5, device="meta"), (1, 1)).startswith("PyTorch's own: a tensor on meta")


def test_fill_bits_are_the_bits_pytorch_writes():
    """padtune_fill_bits (the C ABI's, the CLI's --value) converts a value as PyTorch's F.pad does:
    random magnitudes across each dtype's range, ties, subnormals, infinities; a value F.pad refuses
    as an overflow, padtune refuses too. (Not fill_: since torch 2.15 it writes inf where F.pad refuses.)"""
    import ctypes
    from padtune import _native

    rng = random.Random(14)
    values = [0.0, -0.0, 1.5, 65504.0, 65519.99, 65520.0, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -25, 1 + 2.0 ** -11,
              1 + 2.0 ** -11 + 2.0 ** -40, 3.3895313892515355e38, 3.4e38, 1e39, float("inf"), float("-inf")]
    values += [rng.choice([-1, 1]) * rng.uniform(1, 2) * 2.0 ** rng.randint(-140, 130) for _ in range(3000)]
    ints = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32, torch.float64: torch.int64}
    for dtype, code in _native.DTYPES.items():
        mask = (1 << (8 * torch.empty(0, dtype=dtype).element_size())) - 1
        for v in values:
            bits = ctypes.c_uint64(0xdead)
            status = _native.lib.padtune_fill_bits(v, code, ctypes.byref(bits))
            try:
                want = F.pad(torch.ones(1, dtype=dtype), (1, 0), value=v)[:1].view(ints[dtype]).item() & mask
            except RuntimeError as e:
                assert "overflow" in str(e), (dtype, v, e)
                assert status == 14 and "overflows" in _native.last_error(), (dtype, v, status)
                continue
            assert status == 0 and bits.value == want, (dtype, v, status, hex(bits.value), hex(want))
    nan = ctypes.c_uint64(0)
    assert _native.lib.padtune_fill_bits(float("nan"), 2, ctypes.byref(nan)) == 0 and nan.value & 0x7c00 == 0x7c00
