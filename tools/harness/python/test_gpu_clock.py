"""CPU tests of gpu_clock's L2 flush: the same torch calls the GPU makes, run on the CPU, so a
call torch refuses fails here rather than in every peer timing on the GPU machine."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gpu_clock import L2Flush  # noqa: E402


def test_the_flush_writes_its_buffer_then_reads_every_word_of_it():
    flush = L2Flush(size=1 << 20, device="cpu")
    flush.buffer.zero_()
    flush()
    assert bool((flush.buffer == 0x5A).all())
    words = (1 << 20) // 4
    assert int(flush.sum) == words * 0x5A5A5A5A  # the read summed every word, in int64
