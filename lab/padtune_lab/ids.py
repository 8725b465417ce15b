"""The kernel-id grammar (kernels/include/padtune/registry.hpp's ids and kernels/jit's), read
once for the lab: what an id says about its kernel."""
import re

from padtune_lab.dtypes import SIZE

AOT = re.compile(r"^constant_pad1d_backward__(\w+?)__(\w+?)__bo(\d+)__t(\d+)__w(\d+)$")
JIT = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)__(\w+?)__t(\d+)__w(\d+)$")
# A JIT seed with the seed's default threads has the seed's own id: no variant, threads or width.
JIT_SEED = re.compile(r"^jit__constant_pad1d_backward__(\w+?)__(-?\d+)__(-?\d+)__(\d+)$")
SEED_THREADS = 256  # the JIT's default max_threads (padtune::jit::variant_choice)


def kernel_key(cand_id):
    """(dtype, variant, BLOCK_OL, threads, width) for a kernel id, and whether it is a JIT one;
    (None, False) for an id that names no kernel (the memcpy floor)."""
    m = JIT.match(cand_id)
    if m:
        dtype, _, _, bo, variant, t, w = m.groups()
        return (dtype, variant, int(bo), int(t), int(w)), True
    m = JIT_SEED.match(cand_id)
    if m and m.group(1) in SIZE:
        dtype, bo = m.group(1), int(m.group(4))
        return (dtype, "seed", bo, min(bo, SEED_THREADS), SIZE[dtype]), True
    m = AOT.match(cand_id)
    if m:
        dtype, variant, bo, t, w = m.groups()
        return (dtype, variant, int(bo), int(t), int(w)), False
    return None, False
