"""The performance suite, as padtune_bench states it (`padtune_bench --padtune_print_suite=perf`):
the lab never keeps a copy of tuner/measure's suites.hpp."""
import os
import subprocess

from padtune_lab.paths import ROOT


def find_bench(given=None):
    """padtune_bench: GIVEN, else $PADTUNE_BENCH, else the first of the tree's builds that has one."""
    if given:
        return given
    if os.environ.get("PADTUNE_BENCH"):
        return os.environ["PADTUNE_BENCH"]
    for preset in ("gpu", "ci", "sanitize"):
        path = os.path.join(ROOT, "build", preset, "bench", "padtune_bench")
        if os.access(path, os.X_OK):
            return path
    raise SystemExit("no padtune_bench: build the tree (cmake --build --preset gpu), or pass --bench or set PADTUNE_BENCH")


def perf_suite(bench, name="perf"):
    """[(tag, B, C, L, pad_left, pad_right)] of padtune_bench's suite NAME; BENCH is the binary, or a
    file holding its --padtune_print_suite output."""
    if os.path.isfile(bench) and not os.access(bench, os.X_OK):
        with open(bench) as f:
            out = f.read()
    else:
        out = subprocess.run([bench, f"--padtune_print_suite={name}"], capture_output=True, text=True, check=True).stdout
    suite = []
    for line in out.splitlines():
        body, _, tag = line.partition("#")
        if body.strip():
            suite.append((tag.strip(), *(int(v) for v in body.split())))
    return suite


def perf_shapes(bench, name="perf"):
    """{tag: (B, C, L, pad_left, pad_right)} in the suite's order."""
    return {tag: tuple(shape) for tag, *shape in perf_suite(bench, name)}
