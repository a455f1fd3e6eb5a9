#!/usr/bin/env python3
"""The naive kernel's index arithmetic on the CPU (naive_rms_norm.cu, no GPU).

Replays, thread by thread, what NaiveRmsNormKernel and its launcher compute
for a grid of (rows, hidden, NAIVE_LANES, vector width, NAIVE_BLOCK): the
lanes per row (Log2RowLanes), the grid, pass 1's vectors (forward), the
shuffle groups, and pass 2's vectors (backwards). Checks that every element
of every row is summed once and written once, by lanes of one row that sit
in one aligned group of one warp, and that y matches a float64 reference.
Keep the expressions in step with the kernel. Exit 0 when all pass.
Usage: python3 index_check.py
"""
import math
import random
import sys


def log2_row_lanes(hidden, vec, naive_lanes):
    loads = (hidden + vec - 1) // vec
    log2 = 0
    while (1 << log2) < naive_lanes and (1 << log2) < loads:
        log2 += 1
    return log2


def run(rows, hidden, naive_lanes, vec, block, x, w, eps):
    """y as the kernel computes it (in float64), or a problem string."""
    log2 = log2_row_lanes(hidden, vec, naive_lanes)
    lanes = 1 << log2
    blocks = ((rows << log2) + block - 1) // block
    vectors = hidden // vec
    sums = {}
    summed = [[0] * hidden for _ in range(rows)]
    for thread in range(blocks * block):
        row, lane = thread >> log2, thread & (lanes - 1)
        if thread // 32 != (thread - lane) // 32 or (thread - lane) % lanes:
            return f"thread {thread}: its row's lanes leave an aligned group of the warp"
        if row >= rows:
            continue
        k = lane
        while k < vectors:  # pass 1
            for i in range(vec):
                summed[row][k * vec + i] += 1
                sums[row] = sums.get(row, 0.0) + x[row][k * vec + i] ** 2
            k += lanes
    y = [[None] * hidden for _ in range(rows)]
    for thread in range(blocks * block):
        row, lane = thread >> log2, thread & (lanes - 1)
        if row >= rows or lane >= vectors:
            continue
        scale = 1 / math.sqrt(sums[row] / hidden + eps)
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


def main():
    rnd = random.Random(1)
    failures = 0
    checked = 0
    for rows in (1, 3, 33):
        for hidden in (1, 7, 8, 24, 64, 100, 128, 256, 1000):
            for naive_lanes in (1, 2, 4, 8, 16, 32):
                for vec in (1, 2, 4, 8):
                    if hidden % vec:
                        continue  # the launcher takes one element per load then
                    for block in (32, 128):
                        x = [[rnd.uniform(-2, 2) for _ in range(hidden)] for _ in range(rows)]
                        w = [rnd.uniform(-2, 2) for _ in range(hidden)]
                        got = run(rows, hidden, naive_lanes, vec, block, x, w, 1e-6)
                        case = (f"rows {rows} hidden {hidden} lanes {naive_lanes} vec {vec} "
                                f"block {block}")
                        checked += 1
                        if isinstance(got, str):
                            print(f"FAIL {case}: {got}")
                            failures += 1
                            continue
                        for r in range(rows):
                            ref_scale = 1 / math.sqrt(sum(v * v for v in x[r]) / hidden + 1e-6)
                            want = [x[r][e] * ref_scale * w[e] for e in range(hidden)]
                            if any(abs(a - b) > 1e-9 * (1 + abs(b)) for a, b in zip(got[r], want)):
                                print(f"FAIL {case}: row {r} differs from the reference")
                                failures += 1
                                break
    print(f"index check: {checked - failures} of {checked} launch shapes ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
