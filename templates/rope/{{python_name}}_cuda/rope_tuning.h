// The compile-time constants of the rope kernels that `kbuild tune` searches
// (the project's kbuild.toml [tune]), one macro each, defaulting to the
// measured choice; kbuild tune passes -DNAME=VALUE. Invalid values stop the
// build here with the rule they break. What each value measured on the H200
// is in the README's "Tune it" table.
//
//   ROPE_SLOTS_PER_THREAD    4  head slots a thread rotates in turn once one
//                               slot per thread would exceed
//                               ROPE_GROUP_ABOVE_WAVES waves of the GPU: 1,
//                               2, 4 or 8 (one angle for all of them)
//   ROPE_MIN_BLOCKS          0  256-thread blocks per SM the rope kernel's
//                               __launch_bounds__ promises: 0 none, 2-8 cap
//                               registers (3: 80, 4: 64, 5: 48)
//   QK_NORM_ROPE_MIN_BLOCKS  0  the same for the fused QK-norm + rope kernel
//                               (48-64 registers uncapped, 80 with fp32
//                               tables, which spill under 4's 64)
//   QK_NORM_ROPE_HEADS_PER_THREAD
//                            4  neighbouring heads of one token (of q or of
//                               k) a thread of the fused QK-norm + rope
//                               normalizes and rotates once one head a
//                               thread would exceed
//                               QK_NORM_ROPE_GROUP_ABOVE_WAVES waves: 1, 2
//                               or 4 (one index split and one load of the
//                               weights and tables for all of them; their
//                               x staged in shared memory). Not for the
//                               cache write (a decode step's few tokens)
//   QK_NORM_ROPE_GROUP_ABOVE_WAVES
//                            4  the waves of 2048 threads an SM (one head a
//                               thread) above which it does (0: always)
//   ROPE_INTERLEAVED_HALVES  1  interleaved pairs (LTX-Video, GPT-J): 1 takes
//                               a thread's two vectors from the head's two
//                               halves, so each load instruction's lanes read
//                               neighbouring 16-byte vectors (0: neighbouring
//                               vector pairs, every other vector a lane apart)
//   ROPE_QK_LOADS_FIRST      3  a thread loads its q and k vectors of a slot
//                               before storing either (one DRAM round trip a
//                               slot, not two, at 92 registers instead of 58
//                               with bf16 tables): 1 always, 2 with per-head
//                               tables only, 3 with per-head tables and for
//                               16-byte launches whose blocks the GPU holds
//                               at once, 0 never (q loaded, rotated and
//                               stored, then k)
//   ROPE_STAGED_SLOTS        1  16-byte launches whose threads take several
//                               slots (and whose copies fit 48 KB a block)
//                               copy every slot's q and k into shared memory
//                               by cp.async before rotating the first, so
//                               all of a thread's loads are in flight at
//                               once without a register each (0: slot by
//                               slot). Not for per-head tables (loaded per
//                               slot)
//   ROPE_GROUP_ABOVE_WAVES   1  threads take ROPE_SLOTS_PER_THREAD slots in
//                               turn once a slot per thread would exceed this
//                               many waves of 2048 threads an SM (0: always).
//                               At 58 registers an SM holds half that, so 1
//                               groups from 2 real waves on
//   ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES
//                           64  the same for per-head tables (LTX-Video's),
//                               whose angles a thread's slots do not share:
//                               64 keeps a slot a thread at every LTX-Video
//                               shape (2x7x16x24 tokens bf16 43.6 -> 42.6
//                               us, fp16 44.7 -> 42.5 against 1; H200,
//                               2026-12-05)
//   ROPE_LATE_SHARED_TABLES  1  the loads-first kernel of launches the GPU
//                               holds at once (ROPE_QK_LOADS_FIRST 3) reads
//                               a table every head shares after a slot's q
//                               and k loads, as it computes angles (1), or
//                               before them (0). Decode 64x1 bf16 5.41 ->
//                               5.02 us, fp16 5.44 -> 4.91 (H200,
//                               2026-12-05); per-head tables keep 0
#pragma once

#ifndef ROPE_SLOTS_PER_THREAD
#define ROPE_SLOTS_PER_THREAD 4
#endif
#ifndef ROPE_MIN_BLOCKS
#define ROPE_MIN_BLOCKS 0
#endif
#ifndef QK_NORM_ROPE_MIN_BLOCKS
#define QK_NORM_ROPE_MIN_BLOCKS 0
#endif
#ifndef QK_NORM_ROPE_HEADS_PER_THREAD
#define QK_NORM_ROPE_HEADS_PER_THREAD 4
#endif
#ifndef QK_NORM_ROPE_GROUP_ABOVE_WAVES
#define QK_NORM_ROPE_GROUP_ABOVE_WAVES 4
#endif
#ifndef ROPE_INTERLEAVED_HALVES
#define ROPE_INTERLEAVED_HALVES 1
#endif
#ifndef ROPE_QK_LOADS_FIRST
#define ROPE_QK_LOADS_FIRST 3
#endif
#ifndef ROPE_STAGED_SLOTS
#define ROPE_STAGED_SLOTS 1
#endif
#ifndef ROPE_GROUP_ABOVE_WAVES
#define ROPE_GROUP_ABOVE_WAVES 1
#endif
#ifndef ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES
#define ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES 64
#endif
#ifndef ROPE_LATE_SHARED_TABLES
#define ROPE_LATE_SHARED_TABLES 1
#endif

namespace rope_tuning {

constexpr int kSlotsPerThread = ROPE_SLOTS_PER_THREAD;
constexpr int kMinBlocks = ROPE_MIN_BLOCKS;
constexpr int kQkNormMinBlocks = QK_NORM_ROPE_MIN_BLOCKS;
constexpr int kQkNormHeadsPerThread = QK_NORM_ROPE_HEADS_PER_THREAD;
constexpr int kQkNormGroupAboveWaves = QK_NORM_ROPE_GROUP_ABOVE_WAVES;
constexpr bool kInterleavedHalves = ROPE_INTERLEAVED_HALVES != 0;
// When a kernel loads q and k before storing either.
enum class LoadsFirst { kNever, kAlways, kWhenResident };
// Per-head tables (LTX-Video's), and every other source of angles.
constexpr LoadsFirst kLoadsFirstPerHeadTables =
    ROPE_QK_LOADS_FIRST == 0 ? LoadsFirst::kNever : LoadsFirst::kAlways;
constexpr LoadsFirst kLoadsFirstOtherwise = ROPE_QK_LOADS_FIRST == 1   ? LoadsFirst::kAlways
                                            : ROPE_QK_LOADS_FIRST == 3 ? LoadsFirst::kWhenResident
                                                                       : LoadsFirst::kNever;
constexpr int kGroupAboveWaves = ROPE_GROUP_ABOVE_WAVES;
constexpr int kPerHeadTablesGroupAboveWaves = ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES;
constexpr bool kStagedSlots = ROPE_STAGED_SLOTS != 0;
constexpr bool kLateSharedTables = ROPE_LATE_SHARED_TABLES != 0;

static_assert(kSlotsPerThread == 1 || kSlotsPerThread == 2 || kSlotsPerThread == 4 ||
                  kSlotsPerThread == 8,
              "ROPE_SLOTS_PER_THREAD must be 1, 2, 4 or 8");
static_assert(kMinBlocks == 0 || (kMinBlocks >= 2 && kMinBlocks <= 8),
              "ROPE_MIN_BLOCKS must be 0 (no promise) or 2-8 (8 blocks of 256 "
              "threads fill an SM's 2048)");
static_assert(kQkNormMinBlocks == 0 || (kQkNormMinBlocks >= 2 && kQkNormMinBlocks <= 8),
              "QK_NORM_ROPE_MIN_BLOCKS must be 0 (no promise) or 2-8");
static_assert(kQkNormHeadsPerThread == 1 || kQkNormHeadsPerThread == 2 ||
                  kQkNormHeadsPerThread == 4,
              "QK_NORM_ROPE_HEADS_PER_THREAD must be 1, 2 or 4");
static_assert(kQkNormGroupAboveWaves >= 0 && kQkNormGroupAboveWaves <= 1024,
              "QK_NORM_ROPE_GROUP_ABOVE_WAVES must be 0-1024 waves");
static_assert(ROPE_INTERLEAVED_HALVES == 0 || ROPE_INTERLEAVED_HALVES == 1,
              "ROPE_INTERLEAVED_HALVES must be 0 or 1");
static_assert(ROPE_QK_LOADS_FIRST >= 0 && ROPE_QK_LOADS_FIRST <= 3,
              "ROPE_QK_LOADS_FIRST must be 0 (never), 1 (always), 2 (per-head tables) or 3 "
              "(per-head tables and launches the GPU holds at once)");
static_assert(ROPE_STAGED_SLOTS == 0 || ROPE_STAGED_SLOTS == 1,
              "ROPE_STAGED_SLOTS must be 0 (slot by slot) or 1 (every slot staged first)");
static_assert(kGroupAboveWaves >= 0 && kGroupAboveWaves <= 64,
              "ROPE_GROUP_ABOVE_WAVES must be 0-64 waves");
static_assert(kPerHeadTablesGroupAboveWaves >= 0 && kPerHeadTablesGroupAboveWaves <= 64,
              "ROPE_PER_HEAD_TABLES_GROUP_ABOVE_WAVES must be 0-64 waves");
static_assert(ROPE_LATE_SHARED_TABLES == 0 || ROPE_LATE_SHARED_TABLES == 1,
              "ROPE_LATE_SHARED_TABLES must be 0 (tables before q and k) or 1 (after)");

}  // namespace rope_tuning
