"""The GPU-side tools of peer_timing: timing events, the L2 flush, and a spin kernel
(torch.cuda._sleep) that keeps the GPU busy while the host enqueues the timed calls."""

import contextlib
import gc
import time

import torch

CALIBRATION_CYCLES = 20_000_000  # about 10 ms at H200 clocks

_flushes = {}
_cycles_per_us = {}


@contextlib.contextmanager
def gc_paused():
    """A cyclic collection in the middle of an enqueue loop would count as host time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def events(count):
    return [torch.cuda.Event(enable_timing=True) for _ in range(count)]


def elapsed_us(start, stop):
    return 1000.0 * start.elapsed_time(stop)


def l2_cache_bytes():
    return torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size


class L2Flush:
    """timing.cpp's L2Flusher: a write of max(2 x L2, 1 MiB) bytes evicts the last call's data,
    then a read of the same bytes leaves L2 full of clean lines, so the timed call does not pay
    for writing back the flush's dirty ones. One per device for the process."""

    def __init__(self, size=None, device="cuda"):
        size = size or max(2 * l2_cache_bytes(), 1 << 20)
        self.buffer = torch.empty(size, dtype=torch.uint8, device=device)
        self.words = self.buffer.view(torch.int32)
        self.sum = torch.empty((), dtype=torch.int64, device=device)

    def __call__(self):
        self.buffer.fill_(0x5A)
        torch.sum(self.words, dim=0, dtype=torch.int64, out=self.sum)


def l2_flush():
    device = torch.cuda.current_device()
    if device not in _flushes:
        _flushes[device] = L2Flush()
    return _flushes[device]


def cycles_per_us():
    """torch.cuda._sleep counts SM clock cycles: calibrated once per process and device by
    timing a spin with events (the last of three, once the clocks have risen)."""
    device = torch.cuda.current_device()
    if device not in _cycles_per_us:
        start, stop = events(2)
        for _ in range(3):
            start.record()
            torch.cuda._sleep(CALIBRATION_CYCLES)
            stop.record()
            stop.synchronize()
        _cycles_per_us[device] = CALIBRATION_CYCLES / max(elapsed_us(start, stop), 1e-3)
    return _cycles_per_us[device]


def spin(us):
    """Enqueues a kernel that keeps the GPU busy for about `us` microseconds."""
    torch.cuda._sleep(max(1, int(us * cycles_per_us())))


def behind_spin(spin_us, enqueue):
    """Host time in microseconds of enqueue() run while the GPU spins (timing.cpp's BehindSpin),
    after which the device is synchronized."""
    cycles_per_us()  # a first calibration must not run inside the measured spin
    with gc_paused():
        spin(spin_us)
        began = time.perf_counter()
        enqueue()
        host_us = 1e6 * (time.perf_counter() - began)
    torch.cuda.synchronize()
    return host_us
