"""padtune's torch ops on CPU tensors (padtune's host backend): byte-exact against PyTorch's own
constant padding and a plain reference, every layout path, the fake implementation, autograd,
torch.compile, the module, explain, set_results_path and tune. No GPU needed."""
import json
import os
import random
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

import padtune
from _util import (DTYPES, KIND_LINE, LAYOUT_IDS, LAYOUTS, assert_same, bits, check_against_fpad, check_layout_case,
                   make_dy, padtune_grads, random_bits, random_cases, random_pads, random_strided, random_values,
                   reference_backward)

op = padtune.ops.constant_pad1d_backward
DTYPE_IDS = [str(d).removeprefix("torch.") for d in DTYPES]


def how(dy, pad_left, pad_right):
    return padtune.explain(dy, pad_left, pad_right).splitlines()[0]


def gen(seed):
    return torch.Generator().manual_seed(seed)


# --- against F.pad's autograd ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_matches_fpad_autograd(dtype):
    """Forward and x.grad of padtune.constant_pad1d and padtune.nn.ConstantPad1d equal F.pad's,
    byte for byte, on random shapes of ranks 1-4 with positive, negative and cropping pads."""
    g = gen(1000 + DTYPES.index(dtype))
    rng = random.Random(7 + DTYPES.index(dtype))
    cases = random_cases(100 + DTYPES.index(dtype), 30)
    assert any(pl < 0 for _, pl, _ in cases) and any(pr < 0 for _, _, pr in cases)
    assert any(s[-1] + pl + pr == 0 for s, pl, pr in cases)  # everything cropped
    for shape, pl, pr in cases:
        value = rng.choice([0.0, 1.5, -3.0])
        x = random_values(shape, dtype, g)
        OL = shape[-1] + pl + pr
        grad = random_bits((*shape[:-1], OL), dtype, g)
        ctx = f"shape {shape} pads ({pl}, {pr}) value {value}"
        y_ref, dx_ref = check_against_fpad(x, pl, pr, value, grad, ctx)
        y, dx = padtune_grads(padtune.nn.ConstantPad1d((pl, pr), value), x, grad)
        assert_same(y, y_ref, ctx)
        assert_same(dx, dx_ref, ctx)


def test_crops_zero_the_tails_of_dx():
    x = torch.arange(1.0, 11.0).reshape(1, 10).requires_grad_()
    padtune.constant_pad1d(x, -3, -2).backward(torch.full((1, 5), 7.0))
    assert x.grad.tolist() == [[0, 0, 0, 7, 7, 7, 7, 7, 0, 0]]
    x.grad = None
    padtune.constant_pad1d(x, -4, -6).backward(torch.empty(1, 0))  # everything cropped: OL = 0
    assert_same(x.grad, torch.zeros(1, 10))


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
@pytest.mark.parametrize("pads", [(3, 5), (-2, 4), (4, -3), (-1, -2), (0, 0)], ids=lambda p: f"{p[0]}_{p[1]}")
def test_ranks(rank, pads):
    pl, pr = pads
    shape = (2, 3, 4, 21)[-rank:]
    g = gen(rank)
    x = random_values(shape, torch.float32, g)
    grad = random_bits((*shape[:-1], shape[-1] + pl + pr), torch.float32, g)
    _, dx_ref = check_against_fpad(x, pl, pr, 0.0, grad)
    assert_same(op(grad, pl, pr), dx_ref)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("x_shape,pads", [
    ((0, 3, 10), (2, 3)),      # no rows
    ((3, 0, 10), (-2, 1)),     # no rows, a middle dim of 0
    ((3, 4, 0), (2, 3)),       # L = 0: dx empty, dy all padding
    ((3, 0), (0, 0)),          # L = 0 = OL
    ((0,), (1, 1)),            # rank 1, L = 0
    ((3, 4, 5), (-2, -3)),     # OL = 0: everything cropped, dx all zeros
    ((7,), (-7, 0)),           # rank 1, OL = 0
    ((2, 2, 3, 4), (-4, 0)),   # rank 4, OL = 0
], ids=["B0", "C0", "L0", "L0_OL0", "rank1_L0", "OL0", "rank1_OL0", "rank4_OL0"])
def test_zero_size(dtype, x_shape, pads):
    pl, pr = pads
    g = gen(3)
    x = random_values(x_shape, dtype, g)
    grad = random_bits((*x_shape[:-1], x_shape[-1] + pl + pr), dtype, g)
    _, dx_ref = check_against_fpad(x, pl, pr, 0.5, grad)
    direct = op(grad, pl, pr)
    assert_same(direct, dx_ref)
    assert_same(direct, reference_backward(grad, pl, pr))


# --- the op against a plain reference ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_op_matches_reference(dtype):
    g = gen(2000 + DTYPES.index(dtype))
    cases = random_cases(200 + DTYPES.index(dtype), 40, fpad=False)
    assert any(pl > 0 and x_shape[-1] + pl + pr == 0 for x_shape, pl, pr in cases)  # a pad, then all cropped
    for x_shape, pl, pr in cases:
        dy = random_bits((*x_shape[:-1], x_shape[-1] + pl + pr), dtype, g)
        before = bits(dy).clone()
        dx = op(dy, pl, pr)
        assert_same(dx, reference_backward(dy, pl, pr))
        assert dx.is_contiguous()
        assert torch.equal(bits(dy), before), "dy changed"


def test_op_small_cases_by_hand():
    dy = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]])
    assert op(dy, 1, 2).tolist() == [[2.0, 3.0]]
    assert op(dy, -2, 1).tolist() == [[0.0, 0.0, 1.0, 2.0, 3.0, 4.0]]
    assert op(dy, 2, -3).tolist() == [[3.0, 4.0, 5.0, 0.0, 0.0, 0.0]]
    assert op(dy, -1, -1).tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]]
    assert op(dy, 5, 0).tolist() == [[]]
    assert op(dy, -6, -1).tolist() == [[0.0] * 6 + [1.0, 2.0, 3.0, 4.0, 5.0] + [0.0]]


def test_op_long_rows():
    # Rows of more than one block of most kernels (BLOCK_OL 1024, 2048), few of them.
    g = gen(5)
    for dtype in DTYPES:
        for pl, pr in [(3, 5), (-7, 2), (1, -1000), (-2049, 0)]:
            dy = random_bits((2, 4100), dtype, g)
            assert_same(op(dy, pl, pr), reference_backward(dy, pl, pr))


# --- strided dy -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name,make,pl,pr,kind", LAYOUTS, ids=LAYOUT_IDS)
def test_strided_dy(name, make, pl, pr, kind, dtype):
    dy = make_dy(make, dtype, gen(11))
    dx, line = check_layout_case(dy, pl, pr, kind)
    if kind != "dense":
        assert dx.is_contiguous()
    text = padtune.explain(dy, pl, pr).splitlines()
    assert text[0] == line and text[2].startswith("instantiation: constant_pad1d_backward__"), text


def test_random_strided_views():
    """2000 random views (all paths; overlapping, broadcast, gapped, permuted, pitched, zero-size):
    exact, dx strides by the rule, storage untouched; every 10th also against the fake impl."""
    rng = random.Random(17)
    g = gen(17)
    seen = set()
    for i in range(2000):
        dtype = rng.choice(DTYPES)
        dy = random_strided(rng, g, dtype)
        OL = dy.shape[-1]
        pl, pr = random_pads(rng, OL)
        ctx = (f"case {i}: {dtype} {tuple(dy.shape)} strides {dy.stride()} offset {dy.storage_offset()} "
               f"pads ({pl}, {pr})")
        dx, line = check_layout_case(dy, pl, pr, "any", ctx)
        seen.add(line)
        if i % 10 == 0:
            with FakeTensorMode() as mode:
                fake = op(mode.from_tensor(dy), pl, pr)
            assert fake.stride() == dx.stride(), ctx
    assert seen >= {KIND_LINE[k] for k in ("dense", "pitched", "copy")}, seen


def test_dx_layout_follows_dense_dy():
    dy = torch.randn(2, 20, 3).transpose(1, 2)  # channels-last (B, C, OL)
    dx = op(dy, 2, 3)
    assert dx.shape == (2, 3, 15) and dx.stride() == (45, 1, 3)
    assert_same(dx, reference_backward(dy, 2, 3))
    dy4 = torch.randn(2, 3, 4, 20).contiguous(memory_format=torch.channels_last)
    dx4 = op(dy4, 3, -1)
    assert dx4.shape == (2, 3, 4, 18) and dx4.is_contiguous(memory_format=torch.channels_last)
    dyt = torch.randn(3, 2, 20).transpose(0, 1)
    dxt = op(dyt, -1, -1)
    assert dxt.shape == (2, 3, 22) and dxt.stride() == (22, 44, 1)
    dyp = torch.randn(20, 2, 3).permute(1, 2, 0)  # the padded dim outermost in memory
    dxp = op(dyp, 5, 5)
    assert dxp.shape == (2, 3, 10) and dxp.stride() == (3, 1, 6)
    assert_same(dxp, reference_backward(dyp, 5, 5))


@pytest.mark.parametrize("name,make,pl,pr,kind", LAYOUTS, ids=LAYOUT_IDS)
def test_fake_strides_match_real(name, make, pl, pr, kind):
    dy = make_dy(make, torch.float32, gen(12))
    dx = op(dy, pl, pr)
    with FakeTensorMode() as mode:
        fake = op(mode.from_tensor(dy), pl, pr)
    assert tuple(fake.shape) == tuple(dx.shape)
    assert fake.stride() == dx.stride()
    assert fake.dtype == dx.dtype
    meta = op(torch.empty_strided(dy.shape, dy.stride(), device="meta"), pl, pr) if kind == "dense" else None
    if meta is not None:
        assert meta.stride() == dx.stride()


def test_grad_through_strided_upstream():
    """dy as autograd hands it over: permuted, a piece of cat's backward (rows at a pitch), an
    expanded scalar (stride 0)."""
    g = gen(13)
    x = random_values((3, 4, 17), torch.float32, g)
    w = random_values((20, 4, 3), torch.float32, g)
    other = random_values((3, 4, 9), torch.float32, g)
    fns = {
        "permuted": lambda pad, t: (pad(t).permute(2, 1, 0) * w).sum(),
        "cat": lambda pad, t: (torch.cat([other, pad(t), other], -1) * torch.arange(38.0)).sum(),
        "sum": lambda pad, t: pad(t).sum(),
    }
    for name, fn in fns.items():
        xa = x.clone().requires_grad_()
        fn(lambda t: F.pad(t, (4, -1)), xa).backward()
        xb = x.clone().requires_grad_()
        fn(lambda t: padtune.constant_pad1d(t, 4, -1), xb).backward()
        assert_same(xb.grad, xa.grad, name)


def test_cat_backward_piece_is_pitched():
    grad = torch.randn(3, 4, 50)
    piece = grad.narrow(-1, 12, 20)  # what cat's backward hands to its second input
    assert how(piece, 2, 3) == KIND_LINE["pitched"]
    assert_same(op(piece, 2, 3), reference_backward(piece, 2, 3))


# --- errors -------------------------------------------------------------------------------------

def test_ops_share_pytorchs_cxx_runtime():
    """The ops' errors are C++ exceptions that PyTorch catches: with a private, static libstdc++
    (a toolchain adding -static-libstdc++) the first one crashed the process. The library must
    load the shared one."""
    import shutil
    from padtune import _native
    if shutil.which("readelf") is None:
        pytest.skip("readelf (binutils) is not installed: cannot read the library's dynamic section")
    dynamic = subprocess.run(["readelf", "-d", _native._OPS], capture_output=True, text=True, check=True).stdout
    assert "[libstdc++.so.6]" in dynamic, f"{_native._OPS} does not load libstdc++.so.6:\n{dynamic}"


def test_errors():
    with pytest.raises(ValueError, match="pad_left \\+ pad_right"):
        op(torch.randn(2, 5), 3, 3)
    with pytest.raises(ValueError, match="pad_left \\+ pad_right"):
        op(torch.randn(2, 0), 0, 1)
    with pytest.raises(TypeError, match="dtype"):
        op(torch.zeros(2, 5, dtype=torch.int32), 1, 1)
    with pytest.raises(TypeError, match="dtype"):
        op(torch.zeros(2, 5, dtype=torch.complex64), 1, 1)
    with pytest.raises(ValueError, match="scalar"):
        op(torch.tensor(1.0), 0, 0)
    with pytest.raises(ValueError, match="scalar"):
        padtune.constant_pad1d(torch.tensor(1.0, requires_grad=True), 1, 1)
    with pytest.raises(ValueError, match="scalar"):
        padtune.constant_pad1d(torch.tensor(1.0), 1, 1)
    with pytest.raises(RuntimeError):  # as F.pad: cropping more than there is
        padtune.constant_pad1d(torch.randn(2, 5, requires_grad=True), -3, -3)


def test_errors_under_fake_tensors():
    with FakeTensorMode() as mode:
        with pytest.raises(RuntimeError, match="shorter than"):
            op(mode.from_tensor(torch.randn(2, 5)), 3, 3)
        with pytest.raises(RuntimeError, match="dtype"):
            op(mode.from_tensor(torch.zeros(2, 5, dtype=torch.int32)), 1, 1)


# --- autograd -------------------------------------------------------------------------------------

def test_backward_op_autograd():
    dy = torch.randn(2, 3, 12, dtype=torch.float64, requires_grad=True)
    dx = op(dy, 2, -3)
    assert dx.grad_fn is not None
    g = torch.randn_like(dx)
    (dgrad,) = torch.autograd.grad(dx, dy, g)
    assert_same(dgrad, F.pad(g, (2, -3)))  # dy -> dx is linear; its adjoint pads
    with torch.no_grad():
        assert op(dy, 2, -3).grad_fn is None
    assert op(dy.detach(), 2, -3).grad_fn is None
    assert padtune.constant_pad1d(dy.detach(), 1, 1).grad_fn is None


@pytest.mark.parametrize("pads", [(3, 5), (-2, 4), (4, -3), (-2, -3), (0, 0)], ids=lambda p: f"{p[0]}_{p[1]}")
def test_gradcheck(pads):
    pl, pr = pads
    x = torch.randn(2, 3, 9, dtype=torch.float64, requires_grad=True)
    xt = torch.randn(2, 9, 3, dtype=torch.float64).transpose(1, 2).requires_grad_()
    for t in (x, xt):
        assert torch.autograd.gradcheck(lambda u: padtune.constant_pad1d(u, pl, pr, 2.0), (t,))
        assert torch.autograd.gradgradcheck(lambda u: padtune.constant_pad1d(u, pl, pr, 2.0), (t,))
    dy = torch.randn(2, 3, 9 + pl + pr, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda d: op(d, pl, pr), (dy,))
    assert torch.autograd.gradgradcheck(lambda d: op(d, pl, pr), (dy,))


def test_double_backward_matches_fpad():
    x = torch.randn(2, 3, 10, dtype=torch.float64)
    v = torch.randn(2, 3, 11, dtype=torch.float64)
    out = {}
    for name, pad in (("fpad", lambda t: F.pad(t, (3, -2))), ("padtune", lambda t: padtune.constant_pad1d(t, 3, -2))):
        xx = x.clone().requires_grad_()
        y = pad(xx)
        (gx,) = torch.autograd.grad((y * y * v).sum(), xx, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), xx)
        out[name] = (gx.detach(), ggx)
    assert_same(out["padtune"][0], out["fpad"][0])
    assert_same(out["padtune"][1], out["fpad"][1])


def test_inference_mode_and_no_grad():
    dy = torch.randn(3, 4, 12)
    with torch.inference_mode():
        inf_dy = dy.clone()
        assert_same(op(inf_dy, 2, -3), reference_backward(dy, 2, -3))
        assert_same(padtune.constant_pad1d(inf_dy, 2, -3, 1.0), F.pad(dy, (2, -3), value=1.0))
    x = dy.clone().requires_grad_()
    with torch.no_grad():
        y = padtune.constant_pad1d(x, 1, 2)
    assert not y.requires_grad and y.grad_fn is None
    assert_same(y, F.pad(dy, (1, 2)))


def test_forward_is_pytorchs_for_any_dtype():
    # The forward is PyTorch's constant_pad_nd: integer tensors pad (they cannot require grad).
    x = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    assert torch.equal(padtune.constant_pad1d(x, 2, -1, 7), F.pad(x, (2, -1), value=7))


def test_vmap():
    dy = torch.randn(5, 3, 12)
    out = torch.vmap(lambda d: op(d, 2, -3))(dy)
    assert_same(out, reference_backward(dy, 2, -3))


def test_export():
    model = torch.nn.Sequential(padtune.nn.ConstantPad1d((2, -1), 0.5))
    x = torch.randn(2, 3, 10)
    ep = torch.export.export(model, (x,))
    targets = [n.target for n in ep.graph_module.graph.nodes if n.op == "call_function"]
    assert torch.ops.padtune.constant_pad1d.default in targets
    assert_same(ep.module()(x), F.pad(x, (2, -1), value=0.5))


# --- opcheck ------------------------------------------------------------------------------------

OPCHECK_BACKWARD = [
    ("contiguous", lambda: torch.randn(2, 3, 10), 2, 3),
    ("negative", lambda: torch.randn(2, 3, 10), -2, -3),
    ("channels_last", lambda: torch.randn(2, 10, 3).transpose(1, 2), 1, -2),
    ("narrow", lambda: torch.randn(2, 3, 30)[..., 5:15], 2, 3),
    ("slice_step", lambda: torch.randn(2, 3, 30)[..., ::3], -1, 2),
    ("expanded", lambda: torch.randn(1, 3, 10).expand(2, 3, 10), 0, 0),
    ("requires_grad", lambda: torch.randn(2, 3, 10, dtype=torch.float64, requires_grad=True), 3, -4),
    ("half", lambda: torch.randn(4, 10).half(), 1, 1),
    ("zero_rows", lambda: torch.randn(0, 3, 10), 2, 3),
    ("all_cropped", lambda: torch.randn(3, 0), -2, -1),
]


@pytest.mark.parametrize("name,make,pl,pr", OPCHECK_BACKWARD, ids=[c[0] for c in OPCHECK_BACKWARD])
def test_opcheck_backward(name, make, pl, pr):
    torch.library.opcheck(op, (make(), pl, pr))


OPCHECK_PAD = [
    ("requires_grad", lambda: torch.randn(2, 3, 10, requires_grad=True), 2, -3, 1.5),
    ("no_grad", lambda: torch.randn(2, 3, 10), -1, 4, 0.0),
    ("channels_last", lambda: torch.randn(2, 10, 3, dtype=torch.float64).transpose(1, 2).requires_grad_(), 3, 3, -2.0),
    ("narrow", lambda: torch.randn(2, 3, 30)[..., 5:15].requires_grad_(), -2, -3, 0.0),
]


@pytest.mark.parametrize("name,make,pl,pr,value", OPCHECK_PAD, ids=[c[0] for c in OPCHECK_PAD])
def test_opcheck_pad(name, make, pl, pr, value):
    torch.library.opcheck(padtune.ops.constant_pad1d, (make(), pl, pr, value))


# --- torch.compile --------------------------------------------------------------------------------

class PadThenScale(torch.nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def forward(self, x):
        return (self.pad(x) * 2.0).sin()


def _recording_backend():
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    graphs = {"forward": [], "backward": []}

    def record(kind):
        def compiler(gm, example_inputs):
            graphs[kind].append(gm)
            return make_boxed_func(gm.forward)
        return compiler

    return aot_autograd(fw_compiler=record("forward"), bw_compiler=record("backward")), graphs


def _calls(gm, target):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and n.target == target)


@pytest.mark.parametrize("pads", [(3, 5), (-2, 4), (4, -3)], ids=lambda p: f"{p[0]}_{p[1]}")
def test_compile_fullgraph_backward_calls_padtune(pads):
    torch._dynamo.reset()
    pl, pr = pads
    backend, graphs = _recording_backend()
    model = torch.compile(PadThenScale(padtune.nn.ConstantPad1d(pads, 0.25)), backend=backend, fullgraph=True)
    ref_model = PadThenScale(lambda t: F.pad(t, pads, value=0.25))
    g = gen(21)
    x = random_values((2, 3, 16), torch.float32, g)
    grad = random_values((2, 3, 16 + pl + pr), torch.float32, g)
    y_ref, dx_ref = padtune_grads(ref_model, x, grad)
    y, dx = padtune_grads(model, x, grad)
    assert_same(y, y_ref)
    assert_same(dx, dx_ref)
    assert len(graphs["forward"]) == 1 and len(graphs["backward"]) == 1
    assert _calls(graphs["forward"][0], torch.ops.padtune.constant_pad1d.default) == 1  # padtune's forward too
    assert _calls(graphs["backward"][0], torch.ops.padtune.constant_pad1d_backward.default) == 1
    assert "padtune.constant_pad1d_backward" in graphs["backward"][0].code


def test_compile_dynamic_shapes():
    torch._dynamo.reset()
    model = torch.compile(PadThenScale(padtune.nn.ConstantPad1d((2, -1))), backend="aot_eager", fullgraph=True,
                          dynamic=True)
    ref_model = PadThenScale(lambda t: F.pad(t, (2, -1)))
    g = gen(22)
    for shape in [(2, 3, 16), (3, 5, 40), (1, 1, 1)]:
        x = random_values(shape, torch.float64, g)
        grad = random_values((*shape[:-1], shape[-1] + 1), torch.float64, g)
        y_ref, dx_ref = padtune_grads(ref_model, x, grad)
        y, dx = padtune_grads(model, x, grad)
        assert_same(y, y_ref)
        assert_same(dx, dx_ref)


def test_compile_sees_dx_strides():
    """Under compile the fake implementation decides dx's strides; code after the op that depends on
    them (a view that needs dx channels-last) must trace and run as in eager."""
    torch._dynamo.reset()

    def fn(dy_blc):
        dx = op(dy_blc.transpose(1, 2), 3, -1)  # channels-last dy: dx channels-last too
        return dx.transpose(1, 2).view(-1) * 2.0

    compiled = torch.compile(fn, backend="aot_eager", fullgraph=True)
    dy = torch.randn(2, 14, 3)
    eager = fn(dy)
    assert_same(compiled(dy), eager)
    assert_same(eager, reference_backward(dy.transpose(1, 2), 3, -1).transpose(1, 2).reshape(-1) * 2.0)


# --- the module ---------------------------------------------------------------------------------

def test_module():
    m = padtune.nn.ConstantPad1d(3)
    assert m.padding == (3, 3) and m.value == 0.0
    m = padtune.nn.ConstantPad1d((2, -1), value=1)
    assert m.padding == (2, -1) and m.value == 1.0 and isinstance(m.value, float)
    assert m.state_dict() == {} and list(m.parameters()) == [] and list(m.buffers()) == []
    assert "padding=(2, -1)" in repr(m) and "value=1.0" in repr(m)
    assert padtune.nn.ConstantPad1d([4, 5]).padding == (4, 5)
    for bad in [(1, 2, 3), (1,), (1, "a"), (1.5, 2), ()]:
        with pytest.raises(ValueError, match="padding"):
            padtune.nn.ConstantPad1d(bad)


@pytest.mark.parametrize("padding", [3, (2, 5), (-2, 4), (1, -3), (-1, -1)], ids=str)
def test_module_matches_torch_nn(padding):
    g = gen(31)
    x = random_values((2, 4, 12), torch.float32, g)
    ours, theirs = padtune.nn.ConstantPad1d(padding, 2.5), torch.nn.ConstantPad1d(padding, 2.5)
    pl, pr = (padding, padding) if isinstance(padding, int) else padding
    grad = random_values((2, 4, 12 + pl + pr), torch.float32, g)
    y_ref, dx_ref = padtune_grads(theirs, x, grad)
    y, dx = padtune_grads(ours, x, grad)
    assert_same(y, y_ref)
    assert_same(dx, dx_ref)
    seq = torch.nn.Sequential(torch.nn.Linear(12, 12), ours)
    seq_ref = torch.nn.Sequential(torch.nn.Linear(12, 12), theirs)
    seq_ref.load_state_dict(seq.state_dict())
    assert_same(seq(x), seq_ref(x))


# --- explain, set_results_path, tune ---------------------------------------------------------------

def _assert_explanation(text):
    assert "instantiation: constant_pad1d_backward__" in text
    assert "table:" in text
    assert "bucket:" in text
    assert "reason:" in text


def test_explain():
    dy = torch.randn(2, 3, 108)
    text = padtune.explain(dy, 3, 5)
    assert text.splitlines()[0] == KIND_LINE["dense"]
    assert "problem: rows 6, row 108, L 100, pad_left 3, pad_right 5" in text
    _assert_explanation(text)
    _assert_explanation(padtune.explain((2, 3, 108), 3, 5, device="cpu"))
    _assert_explanation(padtune.explain((2, 3, 108), 3, 5, dtype=torch.bfloat16, device="cpu"))
    _assert_explanation(padtune.explain((108,), -3, 5, dtype=torch.float64, device="cpu"))
    assert "__f64__" in padtune.explain(dy.double(), 3, 5)
    assert "__bf16__" in padtune.explain(dy.bfloat16(), 3, 5)
    # the CUDA form needs no GPU to explain (it says why it falls back when there is none)
    _assert_explanation(padtune.explain((2, 3, 108), 3, 5))


def test_autotune_on_the_host_backend():
    """CPU tensors run padtune's host backend, whose first use of a shape is timed too when asked
    (the H200 table here: its neighbours name several kernels)."""
    table = os.path.join(os.path.dirname(__file__), "..", "..", "results", "nvidia-h200.json")
    dy = torch.randn(3, 5, 77 + 2 + 9)
    try:
        padtune.set_results_path(table, any_device=True)
        padtune.set_autotune(True)
        assert "first-use timing is on" in padtune.explain(dy, 2, 9)
        dx = padtune.ops.constant_pad1d_backward(dy, 2, 9)
        assert torch.equal(dx, dy[..., 2:-9])
        text = padtune.explain(dy, 2, 9)
        assert "served_by: timed" in text, text
        assert "the fastest of the vote's" in text or "the vote's first of its" in text, text
        padtune.set_autotune(False)
        assert "served_by: timed" not in padtune.explain(dy, 2, 9)
    finally:
        padtune.set_autotune(False)
        padtune.set_results_path(None)


def test_explain_errors():
    with pytest.raises(TypeError, match="dtype"):
        padtune.explain((2, 3, 10), 0, 0, dtype=torch.int32)
    with pytest.raises(TypeError, match="dtype"):
        padtune.explain(torch.zeros(2, 10, dtype=torch.int64), 0, 0)
    with pytest.raises(ValueError):
        padtune.explain((), 0, 0)
    with pytest.raises(ValueError, match="device"):
        padtune.explain((2, 10), 0, 0, device="meta")
    with pytest.raises(ValueError):
        padtune.explain((2, 10), 6, 6, device="cpu")
    with pytest.raises(ValueError, match="pad_left \\+ pad_right"):
        padtune.explain(torch.randn(2, 10), 6, 6)
    with pytest.raises(ValueError, match="scalar"):
        padtune.explain(torch.tensor(1.0), 0, 0)


@pytest.fixture
def default_results():
    padtune.set_results_path(None)
    yield
    padtune.set_results_path(None)


def test_set_results_path_missing_file_falls_back(tmp_path, capfd, default_results):
    dy = torch.randn(2, 3, 108)
    missing = tmp_path / "no-such-table.json"
    padtune.set_results_path(str(missing))
    text = padtune.explain(dy, 3, 5)
    _assert_explanation(text)
    assert "table: built-in default" in text
    assert_same(op(dy, 3, 5), reference_backward(dy, 3, 5))
    padtune.set_results_path(None)
    assert "table: built-in default" in padtune.explain(dy, 3, 5)
    assert str(missing) in capfd.readouterr().err


def test_version():
    assert padtune.version() == padtune.__version__
    assert padtune.__version__.count(".") == 2


@pytest.fixture
def padtune_cli(monkeypatch):
    """The padtune tool: PADTUNE_CLI (as CTest sets it), else the build's beside PADTUNE_NATIVE_DIR."""
    try:
        return padtune._tools.cli()
    except FileNotFoundError:
        pass
    beside = os.path.join(padtune._native.NATIVE_DIR, os.pardir, "tuner", "padtune")
    if not os.access(beside, os.X_OK):
        pytest.skip("the padtune tool is not built (set PADTUNE_CLI)")
    monkeypatch.setenv("PADTUNE_CLI", os.path.abspath(beside))
    return padtune._tools.cli()


def _sizes_file(tmp_path):
    sizes = tmp_path / "sizes.txt"
    sizes.write_text("2 3 100 3 5\n")
    return str(sizes)


def test_tune_host(tmp_path, default_results, padtune_cli):
    results = tmp_path / "results"
    table = padtune.tune("--dtype", "f32", "--sizes", _sizes_file(tmp_path), "--variant", "flat",
                         results_dir=str(results), backend="host", use=False)
    assert os.path.isfile(table) and table.endswith(".json") and os.path.dirname(table) == str(results)
    with open(table) as f:
        data = json.load(f)
    assert [e["shape"] for e in data["entries"]] == [[2, 3, 100, 3, 5]]
    assert "__flat__" in data["entries"][0]["winner"]["id"]  # --variant flat: the only candidates
    dy = torch.randn(2, 3, 108)
    assert "table: built-in default" in padtune.explain(dy, 3, 5)  # use=False: not taken
    # taken once set: the CPU op runs the tuned (flat) kernel, still exact
    padtune.set_results_path(table, any_device=True)
    text = padtune.explain(dy, 3, 5)
    assert f"table: {table}" in text and "__f32__flat__" in text
    assert_same(op(dy, 3, 5), reference_backward(dy, 3, 5))


def test_tune_bad_option(tmp_path, padtune_cli):
    with pytest.raises(subprocess.CalledProcessError) as e:
        padtune.tune("--no-such-option", results_dir=str(tmp_path / "r"), backend="host", use=False)
    assert e.value.returncode == 2


def test_tune_interrupted_stops_the_tool_and_keeps_a_partial_table(tmp_path, padtune_cli):
    """A notebook's interrupt reaches Python alone: tune() passes it on, the tool stops after its
    candidate, writes a table marked partial (of the shapes it finished) and keeps its cache, and the
    KeyboardInterrupt goes on."""
    import signal
    import time
    sizes = tmp_path / "rows.txt"
    sizes.write_text("".join(f"2 16 65536 {p} 1\n" for p in range(1, 13)))  # long rows: slow to emulate
    results = tmp_path / "r"
    script = (f"import sys, padtune\ntry:\n    padtune.tune('--exhaustive', '--dtype', 'f32', '--sizes', {str(sizes)!r}, "
              f"results_dir={str(results)!r}, backend='host', use=False)\nexcept KeyboardInterrupt:\n    sys.exit(42)\n")
    child = subprocess.Popen([sys.executable, "-c", script])
    cache = results / "host-emulation.cache.jsonl"
    deadline = time.monotonic() + 120
    def shapes_begun():
        shapes = set()
        for line in cache.read_text().splitlines()[1:] if cache.exists() else []:
            try:
                shapes.add(tuple(json.loads(line)["shape"]))
            except (ValueError, KeyError):
                pass  # a line being written
        return len(shapes)
    while shapes_begun() < 2:  # the first shape is done, the second begun: the stop falls in it
        assert child.poll() is None and time.monotonic() < deadline, "the tune ended or never measured"
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)  # to Python alone, not to the tool
    assert child.wait(timeout=120) == 42
    table = json.loads((results / "host-emulation.json").read_text())
    assert table["complete"] is False and table["entries"]
    lines = cache.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # every line whole
    left = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, str(results))]
    assert not left, f"padtune processes left running: {left}"


def _cmdline_has(pid, text):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return text.encode() in f.read()
    except OSError:
        return False


def test_forward_ad_carries_tangents():
    """Forward-mode AD goes through PyTorch's own pad (the C++ autograd function has no jvp)."""
    import torch.autograd.forward_ad as fwAD

    x, t = torch.randn(2, 5, dtype=torch.float64), torch.randn(2, 5, dtype=torch.float64)
    _, tangent = torch.func.jvp(lambda a: padtune.constant_pad1d(a, 2, 3), (x,), (t,))
    assert_same(tangent, F.pad(t, (2, 3)))
    dy, tdy = torch.randn(2, 10), torch.randn(2, 10)
    with fwAD.dual_level():
        out = padtune.ops.constant_pad1d_backward(fwAD.make_dual(dy, tdy), 2, 3)
        primal, tangent = fwAD.unpack_dual(out)
    assert_same(primal, reference_backward(dy, 2, 3))
    assert_same(tangent, reference_backward(tdy, 2, 3))


def test_pads_past_the_row_give_zeros_without_overflow():
    dense = torch.arange(1.0, 41.0).reshape(2, 5, 4).transpose(1, 2)  # channels-last: pads scale by C
    assert_same(op(dense, 2**62, -2**62), torch.zeros(2, 4, 5))
    pitched = torch.randn(4, 10)[:, 6:]
    pl = 2**63 - 3
    assert_same(op(pitched, pl, 4 - pl - 1), torch.zeros(4, 1))
    assert padtune.explain(pitched, pl, 4 - pl - 1).splitlines()[0] == KIND_LINE["zeros"]
    far = op(dense, 2**63 - 1, -(2**63))  # L = 6: exact in 64 bits though the pads are at int64's limits
    assert far.shape == (2, 4, 6) and torch.count_nonzero(far) == 0
    with pytest.raises(ValueError, match="fewer than pad_left"):
        op(dense, -(2**63), 1)  # OL - pad_left overflows int64


def test_import_refuses_ops_built_for_another_torch(tmp_path):
    """The ops are tied to the torch they were built against: another one is named at import."""
    import shutil
    native = os.environ.get("PADTUNE_NATIVE_DIR") or os.path.dirname(padtune.__file__)
    shutil.copy(os.path.join(native, "libpadtune_torch.so"), tmp_path)
    (tmp_path / "build_info.json").write_text('{"torch": "0.0.1", "padtune": "0.1.0"}')
    done = subprocess.run([sys.executable, "-c", "import padtune"], capture_output=True, text=True,
                          env={**os.environ, "PADTUNE_NATIVE_DIR": str(tmp_path)})
    assert done.returncode != 0
    assert f"built against torch 0.0.1, and this is torch {torch.__version__}" in done.stderr, done.stderr
