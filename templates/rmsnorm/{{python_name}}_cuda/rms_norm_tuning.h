// The compile-time constants of rms_norm that `kbuild tune` searches (the
// project's kbuild.toml [tune]; the README's "Tune it" lists the space), one
// macro each, defaulting to the measured choice; kbuild tune passes
// -DNAME=VALUE. Invalid values stop the build here with the rule they break.
//
//   RMSNORM_VECS          8    register budget: 16-byte vectors a thread holds
//                              (PlanRows' max_vecs: 2, 4 or 8); smaller ones
//                              take the two-pass loop from shorter rows on
//   RMSNORM_GROUP_WARPS   8    most warps per block on the lanes / warp per
//                              row paths (short rows): 1, 2, 4, 8 or 16
//   RMSNORM_MIN_BLOCKS    0    blocks of 512 threads per SM the register
//                              kernel's __launch_bounds__ promises: 0 none
//                              (the PTX of a bound without it), 1-4 cap
//                              registers at 128 / 64 / 42 / 32 per thread
//   RMSNORM_LOOP_THREADS  512  threads per block of the two-pass loop (rows
//                              past the register budget): 128-1024, warps
//   RMSNORM_SHORT_ROW_VECS 1   16-byte vectors a lane holds on the short-row
//                              paths (rows of 5-32 vectors): 1, or 2 with
//                              half the lanes (twice the loads in flight a
//                              thread; PlanRows' short_row_vecs)
#pragma once

#include "common/row_plan.h"

#ifndef RMSNORM_VECS
#define RMSNORM_VECS 8
#endif
#ifndef RMSNORM_GROUP_WARPS
#define RMSNORM_GROUP_WARPS 8
#endif
#ifndef RMSNORM_MIN_BLOCKS
#define RMSNORM_MIN_BLOCKS 0
#endif
#ifndef RMSNORM_LOOP_THREADS
#define RMSNORM_LOOP_THREADS 512
#endif
#ifndef RMSNORM_SHORT_ROW_VECS
#define RMSNORM_SHORT_ROW_VECS 1
#endif

namespace rms_norm_tuning {

constexpr int kVecs = RMSNORM_VECS;
constexpr int kGroupWarps = RMSNORM_GROUP_WARPS;
constexpr int kMinBlocks = RMSNORM_MIN_BLOCKS;
constexpr int kLoopThreads = RMSNORM_LOOP_THREADS;
constexpr int kShortRowVecs = RMSNORM_SHORT_ROW_VECS;

static_assert(kVecs == 2 || kVecs == 4 || kVecs == 8,
              "RMSNORM_VECS must be 2, 4 or 8 (the budgets PlanRows knows)");
static_assert(kGroupWarps >= 1 && kGroupWarps <= 16 && (kGroupWarps & (kGroupWarps - 1)) == 0,
              "RMSNORM_GROUP_WARPS must be 1, 2, 4, 8 or 16 (halved until "
              "the rows fill the SMs; 16 x 32 = the register kernel's 512)");
static_assert(kGroupWarps * kernels_common::kWarpSize <= kernels_common::kMaxBlockThreads,
              "RMSNORM_GROUP_WARPS: blocks beyond the kernel's launch bound");
static_assert(kMinBlocks >= 0 && kMinBlocks <= 4,
              "RMSNORM_MIN_BLOCKS must be 0 (no promise) or 1-4 (4 blocks of "
              "512 threads fill an SM's 2048)");
static_assert(kLoopThreads >= 128 && kLoopThreads <= 1024 &&
                  kLoopThreads % kernels_common::kWarpSize == 0,
              "RMSNORM_LOOP_THREADS must be whole warps, 128-1024 (BlockSum "
              "reduces at most 32 warps)");

static_assert(RMSNORM_SHORT_ROW_VECS == 1 || RMSNORM_SHORT_ROW_VECS == 2,
              "RMSNORM_SHORT_ROW_VECS must be 1 or 2 (vectors a lane holds on "
              "the short-row paths)");

}  // namespace rms_norm_tuning
