"""What the padtune tool does, from Python: explain a dispatch, tune a GPU, choose a table."""
import json
import operator
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import torch

from . import _native


_HOW = {0: "in place (dense)", 1: "in place (rows at a pitch)", 2: "copied to contiguous first",
        3: "not read (every element of dx is padding: zeros, no kernel)",
        4: "copied to aligned memory first (its address is not a multiple of its element size)"}

_INT64 = (-(1 << 63), (1 << 63) - 1)


def integer(value, what: str) -> int:
    """value as a Python int if it is an integer (int, numpy integer, torch.SymInt, a 0-d integer
    tensor), in the 64-bit range; never a bool, a float or a string, which an int() would take."""
    if isinstance(value, bool) or (isinstance(value, torch.Tensor) and value.dtype == torch.bool):
        raise TypeError(f"{what} must be an integer, got the bool {value!r}")
    if isinstance(value, torch.SymInt):
        return value
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {type(value).__name__} {value!r}") from None
    if not _INT64[0] <= v <= _INT64[1]:
        raise ValueError(f"{what} is {v}, outside the 64-bit range padtune takes")
    return v


def explain(dy, pad_left: int, pad_right: int, dtype=None, device=None) -> str:
    """Which kernel padtune runs for this backward, and why (the table, the bucket, the reason).

    dy is a tensor (its shape, dtype, device and strides decide, as in the op: the first line says
    how its layout runs), or a shape: a tuple whose last element is OL, with `dtype` (default
    float32) and `device` ("cuda" or "cpu", default "cuda"). Like `padtune explain --shape B,C,L,PL,PR`
    on the command line.
    """
    pad_left, pad_right = integer(pad_left, "padtune.explain: pad_left"), integer(pad_right, "padtune.explain: pad_right")
    if isinstance(dy, torch.Tensor):
        if dy.device.type not in ("cuda", "cpu"):
            raise ValueError(f"padtune.explain: dy is on {dy.device}; padtune runs cuda and cpu tensors")
        kind, rows, row, L, pl, pr, _, apart = torch.ops.padtune.describe.default(dy, pad_left, pad_right)
        if kind == 3:
            return f"dy: {_HOW[kind]}\n"
        head = (f"dy: {_HOW[kind]}\nproblem: rows {rows}{' (the last one apart)' if apart else ''}, row {row}, "
                f"L {L}, pad_left {pl}, pad_right {pr}\n")
        return head + _explain_problem(rows, L, pl, pr, dy.dtype, dy.device)
    if not isinstance(dy, (tuple, list, torch.Size)):
        raise TypeError(f"padtune.explain: dy must be a tensor or a shape (a tuple of sizes), got {type(dy).__name__}")
    shape = tuple(integer(s, f"padtune.explain: shape[{k}]") for k, s in enumerate(dy))
    if not shape:
        raise ValueError("padtune.explain: the shape has no dimension to pad")
    for k, s in enumerate(shape):
        if s < 0:
            raise ValueError(f"padtune.explain: shape[{k}] is {s}; sizes must be >= 0")
    rows = 1
    for s in shape[:-1]:
        rows *= s
    if rows > _INT64[1]:
        raise ValueError(f"padtune.explain: the shape {shape} has {rows} rows, more than 64 bits hold")
    L = shape[-1] - pad_left - pad_right
    if not _INT64[0] <= L <= _INT64[1]:
        raise ValueError(f"padtune.explain: L = OL - pad_left - pad_right = {L}, outside the 64-bit range")
    return _explain_problem(rows, L, pad_left, pad_right,
                            torch.float32 if dtype is None else dtype, torch.device(device if device is not None else "cuda"))


def _explain_problem(rows, L, pad_left, pad_right, dtype, device) -> str:
    if dtype not in _native.DTYPES:
        raise TypeError(f"padtune.explain: dtype {dtype!r:.80}; padtune takes torch.float32, torch.float64, "
                        "torch.float16 and torch.bfloat16 (a torch.dtype, not its name)")
    if device.type not in ("cuda", "cpu"):
        raise ValueError(f"padtune.explain: device {device}; padtune runs cuda and cpu")

    def ask():
        return _native.lib.padtune_explain(1, rows, L, pad_left, pad_right, _native.DTYPES[dtype],
                                           0 if device.type == "cuda" else 1)

    if device.type == "cuda" and device.index is not None:
        with torch.cuda.device(device):  # the dispatcher asks the current device for its table
            text = ask()
    else:
        text = ask()
    if text is None:
        raise ValueError(f"padtune.explain: {_native.last_error()}")
    return text.decode("utf-8", "backslashreplace")


def set_results_path(path=None, any_device: bool = False) -> None:
    """Use this results table (a `padtune tune` output) from now on; None returns to the default
    lookup (PADTUNE_RESULTS, then the tables built into the package). A table of another GPU model is
    passed over unless any_device. Call it before other threads run padtune ops."""
    raw = os.fsencode(os.path.abspath(path)) if path else None  # read later, maybe after a chdir
    if raw is not None and b"\0" in raw:
        raise ValueError(f"padtune.set_results_path: the path {path!r} holds a NUL byte, which no file name can")
    if _native.lib.padtune_set_results_path(raw, int(bool(any_device))) != 0:
        raise ValueError(f"padtune.set_results_path: {_native.last_error()}")


def set_autotune(on: bool = True) -> None:
    """First-use timing, as torch.backends.cudnn.benchmark: on, the first backward of each new shape
    (one no tuned table holds exactly) times the 12 kernels the table's neighbours vote for on that
    call's own tensors and stream (a few milliseconds on small problems, one synchronization), and
    keeps the vote's first unless another is 2% faster, for the rest of the process. `padtune.explain` then says `served_by: timed`. A call inside
    CUDA graph capture is never timed; warm up first, as graph capture asks anyway. Also
    PADTUNE_AUTOTUNE=1. Where neither says, it is on for a GPU model without a table of its own,
    which borrows the published table nearest in compute capability."""
    if _native.lib.padtune_set_autotune(int(bool(on))) != 0:
        raise RuntimeError(f"padtune.set_autotune: {_native.last_error()}")


def cli() -> str:
    """The padtune tool: PADTUNE_CLI, else the one installed with this package, else on PATH."""
    candidates = [os.environ.get("PADTUNE_CLI"), os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "padtune"),
                  shutil.which("padtune")]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    raise FileNotFoundError("padtune: the padtune tool is not installed with this package and not on PATH "
                            "(set PADTUNE_CLI to build/gpu/tuner/padtune)")


def fill_value(value, what: str) -> float:
    """A fill value as F.pad takes it: anything float() takes, or None for 0."""
    if value is None:
        return 0.0
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a real number or None, got {value!r:.80}") from None


def tune(*args: str, results_dir=None, backend: str = "cuda", use: bool = True) -> str:
    """Runs `padtune tune --backend BACKEND --results-dir RESULTS_DIR ARGS...` (progress on stderr) and
    returns the path of the table it wrote (RESULTS_DIR/<gpu>.json, or the --table among ARGS); with
    `use`, padtune ops take that table from now on.

    args are the tool's own options except --summary, --results-dir and --backend (tune() sets those), e.g. tune("--dtype", "bf16", "--budget", "60") or
    tune("--sizes", "shapes.txt") (exact entries for those shapes). results_dir defaults to
    ./padtune-results. Raises subprocess.CalledProcessError when the tool fails (exit 2: a bad option,
    3: rejected input; its message is on stderr). On KeyboardInterrupt (Ctrl-C, or a notebook's
    interrupt, which reaches only Python) the tool is asked to stop too: it finishes the candidate at
    hand, writes a table marked partial and keeps its cache, so that the same call resumes; then the
    KeyboardInterrupt goes on. A second interrupt ends the tool at once.
    """
    results_dir = os.path.abspath(results_dir or "padtune-results")
    args = [str(a) for a in args]
    for reserved, instead in (("--summary", "the table's path is what tune() returns"), ("--results-dir", "pass results_dir="),
                              ("--backend", "pass backend=")):
        if any(a == reserved or a.startswith(reserved + "=") for a in args):
            raise ValueError(f"padtune.tune: {reserved} is tune()'s own option, not one of ARGS: {instead}")
    with tempfile.TemporaryDirectory(prefix="padtune-tune-") as scratch:
        summary = os.path.join(scratch, "summary.json")  # the tool says there which table it wrote
        cmd = [cli(), "tune", "--backend", backend, "--results-dir", results_dir, *args, "--summary", summary]
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) as tool:
            try:
                out, _ = tool.communicate()
            except KeyboardInterrupt:
                _stop(tool)
                raise
        if tool.returncode != 0:
            raise subprocess.CalledProcessError(tool.returncode, cmd, out)
        sys.stdout.write(out)
        try:
            with open(summary, encoding="utf-8") as f:
                written = json.load(f)["table"]
        except (OSError, ValueError, KeyError) as e:
            raise RuntimeError(f"padtune.tune: the tool ran but left no readable summary ({e})") from None
    # The summary's path is escaped text (any byte of a name made readable): the path itself is the
    # --table given (relative to this process's folder, as the tool's), else RESULTS_DIR/<gpu>.json,
    # whose file name is the tool's own ASCII.
    given = _option_value(args, "--table")  # "" is no path: the tool takes its default then
    table = os.path.abspath(given) if given else os.path.join(results_dir, os.path.basename(written))
    if use:
        set_results_path(table)
    return table


def _option_value(args, name):
    """The value of the last `name VALUE` or `name=VALUE` among a command line's arguments, or None."""
    value = None
    for k, a in enumerate(args):
        if a == name and k + 1 < len(args):
            value = args[k + 1]
        elif a.startswith(name + "="):
            value = a[len(name) + 1:]
    return value


def _stop(tool: subprocess.Popen, grace_seconds: float = 60.0) -> None:
    """Asks the tool to stop as Ctrl-C does (it may have had the signal already: a terminal sends it
    to the whole process group) and waits for its partial table; kills it on a second interrupt or
    after grace_seconds (a candidate's measurement takes well under a second; a hung GPU does not
    answer)."""
    try:
        tool.send_signal(signal.SIGINT)
        tool.communicate(timeout=grace_seconds)
    except (KeyboardInterrupt, subprocess.TimeoutExpired):
        tool.kill()
        tool.wait()


def version() -> str:
    return _native.lib.padtune_version().decode()
