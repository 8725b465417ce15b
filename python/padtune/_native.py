"""Loads padtune's native libraries: the torch ops (libpadtune_torch.so) and the C ABI it calls
(libpadtune_c.so.1), from this package's folder, or from PADTUNE_NATIVE_DIR (a build folder's
python/, which is how the project's own tests run the package without installing it)."""
import ctypes
import json
import os

import torch

NATIVE_DIR = os.environ.get("PADTUNE_NATIVE_DIR") or os.path.dirname(os.path.abspath(__file__))
_OPS = os.path.join(NATIVE_DIR, "libpadtune_torch.so")

if not os.path.exists(_OPS):
    raise ImportError(
        f"padtune: its native library is missing ({_OPS}). Build and install the package with the "
        "PyTorch it will run with: `pip install --no-build-isolation .` in padtune's source folder "
        "(docs/python.md), or point PADTUNE_NATIVE_DIR at a build's python/ folder.")
_BUILT_FOR = os.path.join(NATIVE_DIR, "build_info.json")
if os.path.exists(_BUILT_FOR):
    try:
        with open(_BUILT_FOR, encoding="utf-8") as f:
            built_torch = json.load(f)["torch"]
        if not isinstance(built_torch, str):
            raise TypeError(f"its 'torch' is {built_torch!r}, not a version string")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:
        raise ImportError(
            f"padtune: {_BUILT_FOR} cannot be read ({type(e).__name__}: {e}); it records the torch the ops were built "
            "against: reinstall the package (`pip install --no-build-isolation .` in padtune's source folder)") from None
    if built_torch != torch.__version__:
        raise ImportError(
            f"padtune: its torch ops were built against torch {built_torch}, and this is torch {torch.__version__}: "
            "rebuild the package with this torch (`pip install --no-build-isolation .` in padtune's source folder)")
torch.ops.load_library(_OPS)

# Loaded already as a dependency of the ops: the same library, so the same tables and settings.
lib = ctypes.CDLL("libpadtune_c.so.1")
lib.padtune_api_version.restype = ctypes.c_int
lib.padtune_version.restype = ctypes.c_char_p
lib.padtune_status_name.restype = ctypes.c_char_p
lib.padtune_status_name.argtypes = [ctypes.c_int]
lib.padtune_last_error.restype = ctypes.c_char_p
lib.padtune_explain.restype = ctypes.c_char_p
lib.padtune_explain.argtypes = [ctypes.c_int64] * 5 + [ctypes.c_int, ctypes.c_int]
lib.padtune_set_results_path.restype = ctypes.c_int
lib.padtune_set_results_path.argtypes = [ctypes.c_char_p, ctypes.c_int]
lib.padtune_set_autotune.restype = ctypes.c_int
lib.padtune_set_autotune.argtypes = [ctypes.c_int]
lib.padtune_fill_bits.restype = ctypes.c_int
lib.padtune_fill_bits.argtypes = [ctypes.c_double, ctypes.c_int, ctypes.POINTER(ctypes.c_uint64)]

C_API_VERSION = 1
if lib.padtune_api_version() != C_API_VERSION:
    raise ImportError(f"padtune: libpadtune_c.so.1 speaks C ABI version {lib.padtune_api_version()}, "
                      f"this package {C_API_VERSION}: reinstall the package")

DTYPES = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.bfloat16: 3}


def last_error() -> str:
    return lib.padtune_last_error().decode("utf-8", "backslashreplace")
