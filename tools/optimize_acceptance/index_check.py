#!/usr/bin/env python3
"""The naive kernel's index arithmetic on the CPU (naive_rms_norm.cu, no GPU).

Replays, block by block and thread by thread, what NaiveRmsNormKernel and its
launcher compute for a grid of (rows, hidden, NAIVE_LANES, vector width,
NAIVE_BLOCK): the lanes per row (Log2RowLanes), the block (kBlockThreads) and
the grid, pass 1's vectors (forward), the shuffles inside each warp, the sum
across a row's warps through one partial per warp (rows of more than 32
lanes), and pass 2's vectors (backwards). Checks that a row's lanes lie in one
block (and up to 32 lanes in one aligned group of one warp), that every
element of every row is summed once and written once, that every lane's
reduced sum holds each lane of its own row exactly once and nothing else, and
that y matches a float64 reference.
Keep the expressions in step with the kernel. Exit 0 when all pass.
Usage: python3 index_check.py
"""
import math
import random
import sys

WARP = 32
TAG_BITS = 16  # a count per block thread in each sum's tag: which lanes it holds


def log2_row_lanes(hidden, vec, naive_lanes):
    loads = (hidden + vec - 1) // vec
    log2 = 0
    while (1 << log2) < naive_lanes and (1 << log2) < loads:
        log2 += 1
    return log2


def block_threads(naive_lanes, naive_block):
    """kBlockThreads: NAIVE_BLOCK in whole rows of NAIVE_LANES lanes, at least one row."""
    if naive_block >= naive_lanes:
        return naive_block // naive_lanes * naive_lanes
    return naive_lanes


def shuffle_sums(sums, width):
    """`sum += __shfl_xor_sync(~0, sum, offset, width)` for offset = width / 2 .. 1, in
    every warp of the block; a sum is (value, tag) and adds as a pair."""
    offset = width // 2
    while offset > 0:
        new = []
        for t, (value, tag) in enumerate(sums):
            src = t ^ offset
            if (src % WARP) // width != (t % WARP) // width:
                src = t  # outside the lane's group of `width`: its own value
            new.append((value + sums[src][0], tag + sums[src][1]))
        sums = new
        offset //= 2
    return sums


def across_warps(sums, lanes):
    """The row's warps: lane 0 of each warp writes partials[warp]; after the barrier lane
    i < row_warps of each warp reads its row's partial i (the others 0), then the warp
    sums (GroupSum<32>)."""
    partials = [sums[warp * WARP] for warp in range(len(sums) // WARP)]
    row_warps = lanes // WARP
    read = []
    for t in range(len(sums)):
        warp, warp_lane = t // WARP, t % WARP
        first_warp = warp & ~(row_warps - 1)
        read.append(partials[first_warp + warp_lane] if warp_lane < row_warps else (0.0, 0))
    return shuffle_sums(read, WARP)


def run(rows, hidden, naive_lanes, vec, naive_block, x, w, eps):
    """y as the kernel computes it (in float64), or a problem string."""
    log2 = log2_row_lanes(hidden, vec, naive_lanes)
    lanes = 1 << log2
    block = block_threads(naive_lanes, naive_block)
    blocks = ((rows << log2) + block - 1) // block
    vectors = hidden // vec
    if block % WARP or block > 1024 or block % lanes:
        return f"a block of {block} threads for rows of {lanes} lanes"
    summed = [[0] * hidden for _ in range(rows)]
    y = [[None] * hidden for _ in range(rows)]
    row_tag = ((1 << (TAG_BITS * lanes)) - 1) // ((1 << TAG_BITS) - 1)  # lanes 0..lanes-1
    for b in range(blocks):
        sums = []
        for t in range(block):  # pass 1
            thread = b * block + t
            row, lane = thread >> log2, thread & (lanes - 1)
            if lane != t % lanes or (lanes <= WARP and t // WARP != (t - lane) // WARP):
                return f"thread {thread}: its row's lanes leave " + (
                    "an aligned group of the warp" if lanes <= WARP else "the block")
            value = 0.0
            k = lane
            while row < rows and k < vectors:
                for i in range(vec):
                    summed[row][k * vec + i] += 1
                    value += x[row][k * vec + i] ** 2
                k += lanes
            sums.append((value, 1 << (TAG_BITS * t)))
        sums = shuffle_sums(sums, min(lanes, WARP))
        if naive_lanes > WARP and lanes > WARP:
            sums = across_warps(sums, lanes)
        for t in range(block):
            thread = b * block + t
            row, lane = thread >> log2, thread & (lanes - 1)
            own_lanes = row_tag << (TAG_BITS * (t - lane))  # the row's lanes, each once
            if row < rows and sums[t][1] != own_lanes:
                return f"thread {thread}: its row's sum does not hold each of its lanes once"
            if row >= rows or lane >= vectors:
                continue
            scale = 1 / math.sqrt(sums[t][0] / hidden + eps)
            k = lane + (vectors - 1 - lane) // lanes * lanes
            while k >= lane:  # pass 2, backwards
                for i in range(vec):
                    e = k * vec + i
                    if y[row][e] is not None:
                        return f"row {row} element {e} written twice"
                    y[row][e] = x[row][e] * scale * w[e]
                k -= lanes
    for row in range(rows):
        if any(n != 1 for n in summed[row]):
            return f"row {row}: an element summed {sorted(set(summed[row]))} times"
        if any(v is None for v in y[row]):
            return f"row {row}: an element never written"
    return y


def check(rnd, rows, hidden, naive_lanes, vec, naive_block):
    """'' when the replay of one launch shape passes, else what failed."""
    x = [[rnd.uniform(-2, 2) for _ in range(hidden)] for _ in range(rows)]
    w = [rnd.uniform(-2, 2) for _ in range(hidden)]
    got = run(rows, hidden, naive_lanes, vec, naive_block, x, w, 1e-6)
    if isinstance(got, str):
        return got
    for r in range(rows):
        ref_scale = 1 / math.sqrt(sum(v * v for v in x[r]) / hidden + 1e-6)
        want = [x[r][e] * ref_scale * w[e] for e in range(hidden)]
        if any(abs(a - b) > 1e-9 * (1 + abs(b)) for a, b in zip(got[r], want)):
            return f"row {r} differs from the reference"
    return ""


def shapes():
    """(rows, hidden, NAIVE_LANES, vec, NAIVE_BLOCK) of every launch shape checked."""
    # Rows inside one warp: 1-32 lanes.
    for rows in (1, 3, 33):
        for hidden in (1, 7, 8, 24, 64, 100, 128, 256, 1000):
            for naive_lanes in (1, 2, 4, 8, 16, 32):
                for vec in (1, 2, 4, 8):
                    for naive_block in (32, 128):
                        yield rows, hidden, naive_lanes, vec, naive_block
    # Rows across warps: 64-1024 lanes; odd hidden, hidden below lanes * vec (fewer lanes,
    # down to a few per row inside a block of NAIVE_LANES threads), blocks that are not a
    # multiple of NAIVE_LANES (96) or smaller than it, and rows that do not fill the last
    # block (3 and 33 rows, 2-16 rows per block).
    for rows in (1, 3, 33):
        for hidden in (7, 100, 1001, 2048, 4104):
            for naive_lanes in (64, 128, 256, 512, 1024):
                for vec in (1, 2, 8):
                    for naive_block in (32, 96, 256, 1024):
                        if rows == 33 and (hidden > 1001 or naive_block == 96):
                            continue  # the larger rows: 1 and 3 rows cover them
                        yield rows, hidden, naive_lanes, vec, naive_block


def main():
    rnd = random.Random(1)
    failures = 0
    checked = 0
    for rows, hidden, naive_lanes, vec, naive_block in shapes():
        if hidden % vec:
            continue  # the launcher takes one element per load then
        checked += 1
        problem = check(rnd, rows, hidden, naive_lanes, vec, naive_block)
        if problem:
            print(f"FAIL rows {rows} hidden {hidden} lanes {naive_lanes} vec {vec} "
                  f"block {naive_block}: {problem}")
            failures += 1
    print(f"index check: {checked - failures} of {checked} launch shapes ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
