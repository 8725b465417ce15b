"""L2-cold timing with CUDA events, the same protocol as padtune's: a write of twice the L2 before
every sample, warm-up first, median of many samples.

Between the start event and the kernel, the GPU must not wait for the host: a Triton launch spends
tens of microseconds in Python, longer than the flush takes on the GPU, and that wait was timed (P8
f32's Triton peer measured 49.9 us against 7-8 us a run before, at 9025a83). So a spin of the GPU
(torch.cuda._sleep) sits between the flush and the start event, long enough for the host to have
queued the kernel before the GPU reaches the event."""
import statistics

import torch


# GPU cycles of the spin before each sample: about 200 us at 2 GHz, far above a Python launch.
SPIN_CYCLES = 400_000


def l2_flush_buffer():
    """Twice the L2 of the current device: what a sample writes (fill_(0x5A)) before it starts."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")


class ColdTimer:
    def __init__(self, samples: int, warmup: int = 3):
        self.flush = l2_flush_buffer()
        self.samples, self.warmup = samples, warmup
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def median_us(self, fn) -> float:
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.samples):
            self.flush.fill_(0x5A)
            spin = getattr(torch.cuda, "_sleep", None)  # private but long-standing; without it, no spin
            if spin is not None:
                spin(SPIN_CYCLES)
            self.start.record()
            fn()
            self.stop.record()
            self.stop.synchronize()
            times.append(self.start.elapsed_time(self.stop) * 1000.0)
        return statistics.median(times)
