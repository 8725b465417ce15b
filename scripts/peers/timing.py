"""L2-cold timing with CUDA events, the same protocol as padtune's: a write of twice the L2 before
every sample, warm-up first, median of many samples."""
import statistics

import torch


class ColdTimer:
    def __init__(self, samples: int, warmup: int = 3):
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.flush = torch.empty(2 * props.L2_cache_size, dtype=torch.uint8, device="cuda")
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
            self.start.record()
            fn()
            self.stop.record()
            self.stop.synchronize()
            times.append(self.start.elapsed_time(self.stop) * 1000.0)
        return statistics.median(times)
