#!/usr/bin/env python3
"""The C ABI from Python through ctypes (standard library only): an f32 and an f16 problem on the
host backend against a reference computed here, byte for byte; an error path and its message.

Usage: ctypes_test.py path/to/libpadtune_c.so. Exits non-zero on any failure."""
import array
import ctypes
import random
import sys

PADTUNE_OK = 0
PADTUNE_ERROR_NULL_POINTER = 5
PADTUNE_F32, PADTUNE_F16 = 0, 2
PADTUNE_BACKEND_HOST = 1
API_VERSION = 1  # PADTUNE_C_API_VERSION of padtune_c.h

failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
        print(f"FAILED: {message}", file=sys.stderr)


def load(path):
    lib = ctypes.CDLL(path)
    i64 = ctypes.c_int64
    lib.padtune_api_version.argtypes, lib.padtune_api_version.restype = [], ctypes.c_int
    lib.padtune_version.argtypes, lib.padtune_version.restype = [], ctypes.c_char_p
    lib.padtune_last_error.argtypes, lib.padtune_last_error.restype = [], ctypes.c_char_p
    lib.padtune_status_name.argtypes, lib.padtune_status_name.restype = [ctypes.c_int], ctypes.c_char_p
    lib.padtune_dispatch.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, i64, i64, i64, i64, i64,
                                     ctypes.c_int, ctypes.c_void_p]
    lib.padtune_dispatch.restype = ctypes.c_int
    lib.padtune_explain.argtypes = [i64, i64, i64, i64, i64, ctypes.c_int, ctypes.c_int]
    lib.padtune_explain.restype = ctypes.c_char_p
    return lib


def address(buf):
    return buf.buffer_info()[0]


def run(lib, typecode, dtype, B, C, L, pl, pr, make_value, poison):
    """One problem: dy random and non-zero, dx poisoned; dx must equal the reference."""
    OL = pl + L + pr
    dy = array.array(typecode, (make_value() for _ in range(B * C * OL)))
    dx = array.array(typecode, [poison] * (B * C * L))
    zero = array.array(typecode, [0])[0]
    expected = array.array(typecode, (dy[r * OL + i + pl] if 0 <= i + pl < OL else zero
                                      for r in range(B * C) for i in range(L)))
    dy_before = dy.tobytes()
    st = lib.padtune_dispatch(PADTUNE_BACKEND_HOST, address(dy), address(dx), B, C, L, pl, pr, dtype, None)
    what = f"{typecode} B={B} C={C} L={L} pads {pl},{pr}"
    check(st == PADTUNE_OK, f"{what}: {lib.padtune_status_name(st)}: {lib.padtune_last_error()}")
    check(dx.tobytes() == expected.tobytes(), f"{what}: dx differs from the reference")
    check(dy.tobytes() == dy_before, f"{what}: dy was written")
    check(lib.padtune_last_error() == b"", f"{what}: last error after a success: {lib.padtune_last_error()}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ctypes_test.py path/to/libpadtune_c.so")
    lib = load(sys.argv[1])
    rng = random.Random(1234)
    check(lib.padtune_api_version() == API_VERSION, f"API version {lib.padtune_api_version()}, expected {API_VERSION}")
    print(f"libpadtune_c {lib.padtune_version().decode()}, API {lib.padtune_api_version()}")

    def f32():  # exact in f32, non-zero
        return rng.choice((-1, 1)) * rng.randint(1, 1 << 20) / 64.0

    def f16_bits():  # sign, exponent 1..30, mantissa: normal, neither zero nor inf/NaN
        return (rng.getrandbits(1) << 15) | (rng.randint(1, 30) << 10) | rng.getrandbits(10)

    for shape in [(2, 3, 17, 3, 5), (1, 4, 64, -5, 2), (3, 2, 33, 4, -7), (2, 5, 1000, 7, 9)]:
        run(lib, "f", PADTUNE_F32, *shape, f32, 1e30)  # never drawn
        run(lib, "H", PADTUNE_F16, *shape, f16_bits, 0xFFFF)  # a NaN: never drawn

    # An error path: the status, its name, and a message naming the problem; dx untouched.
    dx = array.array("f", [7.0] * 16)
    st = lib.padtune_dispatch(PADTUNE_BACKEND_HOST, None, address(dx), 2, 2, 4, 1, 1, PADTUNE_F32, None)
    check(st == PADTUNE_ERROR_NULL_POINTER, f"NULL dy: status {st}")
    check(lib.padtune_status_name(st) == b"null_pointer", f"status name {lib.padtune_status_name(st)}")
    check(b"dy is null" in lib.padtune_last_error(), f"last error {lib.padtune_last_error()!r}")
    check(all(v == 7.0 for v in dx), "a failed call wrote dx")
    check(lib.padtune_explain(1, 1, 4, -10, 2, PADTUNE_F32, PADTUNE_BACKEND_HOST) is None, "explain took OL < 0")
    check(b"is negative" in lib.padtune_last_error(), f"explain's error {lib.padtune_last_error()!r}")

    text = lib.padtune_explain(2, 5, 1000, 7, 9, PADTUNE_F16, PADTUNE_BACKEND_HOST)
    check(text is not None and b"instantiation: constant_pad1d_backward__f16__" in text, f"explain says {text!r}")

    if failures:
        sys.exit(f"ctypes_test: {len(failures)} check(s) failed")
    print("ctypes_test: all checks passed")


if __name__ == "__main__":
    main()
