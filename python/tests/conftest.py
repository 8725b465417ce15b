"""pytest setup for padtune's Python tests.

Tests marked `gpu` need a CUDA device; without one they skip with a reason that starts with
"GPU tests skipped", and the run ends with a line saying so (CTest's python.gpu reads it as a skip).
"""
import pytest
import torch

GPU_SKIP_REASON = "GPU tests skipped: no CUDA device"


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (runs under CTest's python.gpu)")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason=GPU_SKIP_REASON)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    stats = terminalreporter.stats
    ran_gpu = any("gpu" in rep.keywords for key in ("passed", "failed", "error") for rep in stats.get(key, []))
    skipped_gpu = any("gpu" in rep.keywords for rep in stats.get("skipped", []))
    if skipped_gpu and not ran_gpu:
        terminalreporter.write_line(f"{GPU_SKIP_REASON} (every test marked gpu was skipped)")
