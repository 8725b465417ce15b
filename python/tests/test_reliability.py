"""What the Python side promises a user who hands it odd input (docs/reliability.md): integers
that are integers, sizes that do not wrap, misaligned tensors that run, the table a tune wrote, a
corrupt install named at import. No GPU needed."""
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import padtune
from _util import KIND_LINE, assert_same, random_bits, reference_backward

op = padtune.ops.constant_pad1d_backward


class IndexLike:
    """An integer that is no int, as numpy.int64 is: it has __index__."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_module_takes_any_integer_and_refuses_the_rest():
    x = torch.randn(2, 5)
    for padding in (IndexLike(2), (IndexLike(1), 3), torch.tensor(2), [1, IndexLike(0)]):
        m = padtune.nn.ConstantPad1d(padding)
        ref = torch.nn.ConstantPad1d(tuple(int(p) for p in m.padding), 0.0)(x)
        assert_same(m(x), ref, f"padding {padding!r}")
        assert all(type(p) is int for p in m.padding)
    for bad in (True, (1, False), 2.0, (1, 2.5), "3", (1,), (1, 2, 3)):
        with pytest.raises((TypeError, ValueError), match="padding"):
            padtune.nn.ConstantPad1d(bad)


def test_pads_must_be_integers():
    x = torch.randn(2, 5)
    with pytest.raises(TypeError, match="pad_left must be an integer, got the bool"):
        padtune.constant_pad1d(x, True, 1)
    with pytest.raises(TypeError, match="pad_right must be an integer"):
        padtune.constant_pad1d(x, 1, 2.0)
    assert_same(padtune.constant_pad1d(x, IndexLike(2), 1), F.pad(x, (2, 1)))
    dy = torch.randn(2, 10)
    with pytest.raises(TypeError, match="pad_left must be an integer, got float 2.7"):
        padtune.explain(dy, 2.7, 1)
    with pytest.raises(TypeError, match="pad_left must be an integer, got str"):
        padtune.explain(dy, "2", 1)
    with pytest.raises(TypeError, match="bool"):
        padtune.explain(dy, 1, True)


def test_explain_sizes_do_not_wrap_and_name_the_dimension():
    with pytest.raises(ValueError, match="shape\\[0\\] is 18446744073709551624, outside the 64-bit range"):
        padtune.explain((2**64 + 8, 128, 1016), 8, 8, device="cpu")
    with pytest.raises(ValueError, match="shape\\[0\\] is -2; sizes must be >= 0"):
        padtune.explain((-2, 128, 1016), 8, 8, device="cpu")
    with pytest.raises(ValueError, match="shape\\[1\\] is -1"):
        padtune.explain((2, -1, 1016), 8, 8, device="cpu")
    with pytest.raises(ValueError, match="more than 64 bits hold"):
        padtune.explain((2**40, 2**40, 16), 0, 0, device="cpu")
    with pytest.raises(ValueError, match="pad_right is"):
        padtune.explain((2, 3, 16), 0, -2**64, device="cpu")
    assert "instantiation:" in padtune.explain((IndexLike(8), 128, 1016), 8, 8, device="cpu")


def test_explain_of_neither_tensor_nor_shape_says_so():
    with pytest.raises(TypeError, match="dy must be a tensor or a shape"):
        padtune.explain(5, 1, 1)


def test_explain_of_a_meta_tensor_says_which_devices_run():
    with pytest.raises(ValueError, match="dy is on meta; padtune runs cuda and cpu tensors"):
        padtune.explain(torch.empty(2, 10, device="meta"), 1, 1)


def test_set_results_path_refuses_a_nul_byte(tmp_path):
    with pytest.raises(ValueError, match="NUL byte"):
        padtune.set_results_path(str(tmp_path / "a\0b.json"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_misaligned_tensor_runs_and_explain_says_so(dtype):
    """torch.frombuffer at an odd offset gives a tensor whose address no kernel takes: it is copied
    to aligned memory first, and explain says so; dx is exact."""
    item = torch.tensor([], dtype=dtype).element_size()
    g = torch.Generator().manual_seed(5)
    src = random_bits((4 * 37 + 1,), dtype, g)
    buf = bytearray(1) + bytearray(src.view(torch.uint8).tolist())
    dy = torch.frombuffer(buf, dtype=dtype, offset=1, count=4 * 37).reshape(4, 37)
    assert dy.data_ptr() % item != 0 or item == 1
    if item > 1:
        assert padtune.explain(dy, 3, -2).splitlines()[0] == KIND_LINE["aligned copy"]
        channels_last = dy.reshape(2, 37, 2).transpose(1, 2)  # dense, not contiguous: the copy keeps its order
        assert_same(op(channels_last, 2, 1), reference_backward(channels_last.contiguous(), 2, 1))
    assert_same(op(dy, 3, -2), reference_backward(dy.clone(), 3, -2))
    assert_same(op(dy[:, 5:], -1, 4), reference_backward(dy[:, 5:].clone(), -1, 4))


def test_import_names_a_corrupt_build_info(tmp_path):
    native = os.environ.get("PADTUNE_NATIVE_DIR") or os.path.dirname(padtune.__file__)
    shutil.copy(os.path.join(native, "libpadtune_torch.so"), tmp_path)
    for text in ('{"torch": ', '["2.11"]', '{"torch": 211}', "\xff\xfe", "[" * 100000 + "]" * 100000):
        (tmp_path / "build_info.json").write_bytes(text.encode("latin-1"))
        done = subprocess.run([sys.executable, "-c", "import padtune"], capture_output=True, text=True,
                              env={**os.environ, "PADTUNE_NATIVE_DIR": str(tmp_path)})
        assert done.returncode != 0
        assert "ImportError: padtune: " in done.stderr and "build_info.json cannot be read" in done.stderr, done.stderr
        assert "reinstall the package" in done.stderr


@pytest.fixture
def padtune_cli(monkeypatch):
    try:
        return padtune._tools.cli()
    except FileNotFoundError:
        pytest.skip("the padtune tool is not built (set PADTUNE_CLI)")


def test_tune_returns_the_table_it_wrote(tmp_path, padtune_cli, monkeypatch):
    """--table X: tune() returns X, not the newest table in the results folder, and takes X."""
    results = tmp_path / "results"
    results.mkdir()
    sizes = tmp_path / "sizes.txt"
    sizes.write_text("2 3 100 3 5\n")
    mine = tmp_path / "mine.json"
    try:
        table = padtune.tune("--dtype", "f32", "--sizes", str(sizes), "--variant", "flat", "--table", str(mine),
                             results_dir=str(results), backend="host", use=True)
        assert table == str(mine)
        (results / "newer.json").write_text("{}")  # the newest .json in the folder: not what was written
        os.utime(results / "newer.json")
        again = padtune.tune("--dtype", "f32", "--sizes", str(sizes), "--variant", "flat", "--table", str(mine),
                             results_dir=str(results), backend="host", use=True)
        assert again == str(mine)
        assert json.loads(mine.read_text())["entries"][0]["shape"] == [2, 3, 100, 3, 5]
        assert f"table: {mine}" in padtune.explain(torch.randn(2, 3, 108), 3, 5)
        monkeypatch.chdir(tmp_path)  # a relative --table is the tool's, in this process's folder
        rel = padtune.tune("--dtype", "f32", "--sizes", str(sizes), "--variant", "flat", "--table", "rel.json",
                           results_dir=str(results), backend="host", use=False)
        assert rel == str(tmp_path / "rel.json") and os.path.isfile(rel)
        empty = padtune.tune("--dtype", "f32", "--sizes", str(sizes), "--variant", "flat", "--table", "",
                             results_dir=str(results), backend="host", use=False)  # "": the tool's default
        assert empty == str(results / "host-emulation.json") and os.path.isfile(empty)
        odd = tmp_path / "a\x1bb"  # a results folder whose name a terminal would act on: the path as it is
        got = padtune.tune("--dtype", "f32", "--sizes", str(sizes), "--variant", "flat", results_dir=str(odd),
                           backend="host", use=False)
        assert got == str(odd / "host-emulation.json") and os.path.isfile(got)
    finally:
        padtune.set_results_path(None)


def test_tune_refuses_the_options_it_sets_itself(tmp_path):
    for reserved in (["--summary", "mine.json"], ["--results-dir=elsewhere"], ["--backend", "host"]):
        with pytest.raises(ValueError, match=reserved[0].split("=")[0] + " is tune\\(\\)'s own option"):
            padtune.tune("--dtype", "f32", *reserved, results_dir=str(tmp_path / "r"), backend="host", use=False)
    assert not (tmp_path / "r").exists()


def test_fill_value_none_is_zero_and_others_are_named():
    x = torch.randn(2, 3, 8)
    assert torch.equal(padtune.constant_pad1d(x, 2, 1, value=None), torch.nn.functional.pad(x, (2, 1), value=None))
    assert torch.equal(padtune.nn.ConstantPad1d((2, 1), None)(x), torch.nn.functional.pad(x, (2, 1)))
    with pytest.raises(TypeError, match="padtune.constant_pad1d: value must be a real number or None"):
        padtune.constant_pad1d(x, 1, 1, value="one")


def test_explain_says_a_dtype_is_a_torch_dtype():
    with pytest.raises(TypeError, match="a torch.dtype, not its name"):
        padtune.explain((2, 3, 8), 1, 1, "float32", "cpu")
