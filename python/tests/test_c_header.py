"""The ctypes declarations of padtune._native against padtune_c.h: ctypes cannot read a header, so
_native.py states each signature it calls and the dtype enum again; this holds them to the header,
so that a change of the C ABI fails here instead of passing wrong arguments at run time."""
import ctypes
import os
import re

import torch

import padtune._native as native

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "include", "padtune_c.h")
C_TYPES = {
    "int": ctypes.c_int, "int64_t": ctypes.c_int64, "double": ctypes.c_double, "const char*": ctypes.c_char_p,
    "void*": ctypes.c_void_p, "const void*": ctypes.c_void_p, "uint64_t": ctypes.c_uint64,
    "uint64_t*": ctypes.POINTER(ctypes.c_uint64),
    # C enums are 32 bits wide (each has a 0x7fffffff member to keep it so): passed as int
    "padtune_dtype": ctypes.c_int, "padtune_backend": ctypes.c_int, "padtune_status": ctypes.c_int,
}


def header_text():
    with open(HEADER, encoding="utf-8") as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)  # comments out


def prototypes():
    """{name: (return type, [parameter types])} of every PADTUNE_C_EXPORT function."""
    out = {}
    for ret, name, params in re.findall(r"PADTUNE_C_EXPORT\s+([\w\s\*]+?)\s*\b(padtune_\w+)\s*\(([^)]*)\)\s*;", header_text()):
        types = []
        for p in params.split(","):
            p = " ".join(p.split())
            if p in ("", "void"):
                continue
            t = re.sub(r"\s*\b\w+$", "", p) if not p.endswith("*") else p  # drop the parameter's name
            types.append(re.sub(r"\s*\*", "*", t))
        out[name] = (re.sub(r"\s*\*", "*", " ".join(ret.split())), types)
    return out


def test_the_header_parses_into_every_exported_function():
    protos = prototypes()
    exported = re.findall(r"^PADTUNE_C_EXPORT\b", header_text(), flags=re.M)
    assert len(protos) == len(exported) > 0, sorted(protos)  # a regex that misses some would pass them below
    for name, (ret, params) in protos.items():
        assert ret == "void" or ret in C_TYPES, (name, ret)
        for p in params:
            assert p in C_TYPES, (name, p)


def test_each_declaration_in_native_matches_its_prototype():
    protos = prototypes()
    with open(native.__file__, encoding="utf-8") as f:
        declared = sorted(set(re.findall(r"lib\.(padtune_\w+)\.(?:argtypes|restype)", f.read())))
    assert declared, "padtune/_native.py declares no C function"
    for name in declared:
        assert name in protos, f"_native.py declares {name}, which padtune_c.h does not export"
        ret, params = protos[name]
        fn = getattr(native.lib, name)
        assert fn.restype is (None if ret == "void" else C_TYPES[ret]), (name, fn.restype, ret)
        if params:  # a function of no parameters may leave argtypes unset
            assert fn.argtypes is not None, f"{name}: argtypes not declared"
            assert list(fn.argtypes) == [C_TYPES[p] for p in params], (name, fn.argtypes, params)


def test_api_version_and_dtype_enum_match_the_header():
    text = header_text()
    assert native.C_API_VERSION == int(re.search(r"#define\s+PADTUNE_C_API_VERSION\s+(\d+)", text).group(1))
    enum = {m.group(1): int(m.group(2)) for m in re.finditer(r"\bPADTUNE_(F32|F64|F16|BF16)\s*=\s*(\d+)", text)}
    names = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16"}
    assert len(enum) == 4, enum
    assert {names[t]: v for t, v in native.DTYPES.items()} == enum
