// Elementwise ops over rows: out[r, j] = f(in1[r, j], in2[r, j], ...) for
// `rows` rows of `cols` elements, each tensor with its own row stride
// (contiguous within a row). A memory-bound op moves every byte once, so the
// launch is one shape for all of them: 256-thread blocks (128 where 256
// would leave SMs idle), one step of one (or two) (row, vector) units per
// thread, grid-stride over the units only past the op's cap in waves of
// resident blocks (64 unless it says).
//
// How a row is read (ChooseRowAccess, row_span.h): whole 16-byte vectors when
// every row of every tensor starts on a 16-byte boundary and cols divides;
// else, when the tensors split alike (RowsSplitAlike: each row at the same
// distance from a boundary in every tensor, as gate, up and out of one odd
// width), a split: a scalar head, a body of 16-byte vectors, a scalar tail;
// else the widest narrower vectors that fit every tensor (down to scalars).
// A split row has cols / V + 1 units: units below span.body are body
// vectors, the last unit does the row's at most 2V - 2 edge elements one at a
// time; the units between (at most one) do nothing.
//
// Contract (the caller's part):
// - The op is a copyable struct (a kernel argument) with
//     template <int V, bool kSplit>
//     __device__ void Vector(int64_t row, const RowSpan& span, int idx) const;
//     __device__ void Element(int64_t row, int i) const;
//   Vector does body vector idx of row `row` in every tensor, reaching each
//   through BodyVector<V, kSplit>(tensor_row, span, idx) (row_span.cuh: the
//   cast that keeps 16-byte accesses); Element does element i of the row.
//   Each unit touches only its own elements, so an output may alias an input
//   of the same layout.
// - Optionally the op also splits Vector in two:
//     template <int V, bool kSplit>
//     __device__ Loaded Load(int64_t row, const RowSpan& span, int idx) const;
//     template <int V, bool kSplit>
//     __device__ void Store(int64_t row, const RowSpan& span, int idx,
//                           const Loaded& in) const;
//   (Vector is then Store(Load())), and `static constexpr int
//   kUnitsPerStep = 2;` to have a thread load two units before it stores
//   either, which the contract above makes safe: two units' math in flight
//   per thread, where a plain loop cannot hoist the next unit's loads above a
//   store that may alias them. It paid for a compute-bound op (GELU with
//   erff, 12288x8192 bf16 on the H200, 2026-12-03: 187 -> 172 us), not for
//   memory-bound ones (SiLU, GELU-tanh and today's exact GELU: 0-5% slower).
// - LaunchElementwise gets every tensor the op touches at row positions
//   (base pointer and row stride, elements of the launch dtype), output
//   first: the split's phase is the first one's. cols <= 2^30.
// - Kernels are launched overlapped (overlap.cuh): the generic kernel waits
//   for the previous kernel before its first memory access; nothing in Vector
//   or Element needs to.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "dtype.h"
#include "fast_divmod.h"
#include "launch.cuh"
#include "overlap.cuh"
#include "row_span.cuh"
#include "row_span.h"

namespace kernels_common {

constexpr int kElementwiseThreads = 256;

// Launch knobs a project build may set (kbuild --define NAME=VALUE):
// ELEMENTWISE_WAVES, the grid cap in waves of resident blocks (8 blocks of
// 256 per SM on the H200), and ELEMENTWISE_UNITS_PER_STEP, which overrides
// the ops' own kUnitsPerStep (1 or 2; 2 only for ops with Load and Store).
// ELEMENTWISE_WAVES overrides the ops' own kWaves, whose default is 64:
// every thread one step up to 17M units (272 MB of bf16 output); a cap of 2
// waves, a grid-stride loop of ~23 steps a thread at 8192x12288, measured
// 145 us for swiglu's 140 (bf16, H200, 2026-12-03).
constexpr int kElementwiseWaves = 64;
#ifdef ELEMENTWISE_WAVES
static_assert(ELEMENTWISE_WAVES >= 1, "ELEMENTWISE_WAVES must be at least 1");
#endif
#ifdef ELEMENTWISE_UNITS_PER_STEP
static_assert(ELEMENTWISE_UNITS_PER_STEP == 1 || ELEMENTWISE_UNITS_PER_STEP == 2,
              "ELEMENTWISE_UNITS_PER_STEP must be 1 or 2");
#endif

// A third: ELEMENTWISE_SMALL_BLOCK_THREADS (128; 0 turns it off), the block
// of a launch that would fill fewer 256-thread blocks than the GPU has SMs,
// so more SMs issue its loads. swiglu's single row (1x12288) is 6 blocks of
// 256 or 12 of 128: 1.6% faster at 128 (geomean of 4 cases, 3 rounds; 64 was
// 1.2%), H100, 2026-12-07, results/h100-2026-12-07/run-1023.
#ifndef ELEMENTWISE_SMALL_BLOCK_THREADS
#define ELEMENTWISE_SMALL_BLOCK_THREADS 128
#endif
static_assert(ELEMENTWISE_SMALL_BLOCK_THREADS == 0 || ELEMENTWISE_SMALL_BLOCK_THREADS == 64 ||
                  ELEMENTWISE_SMALL_BLOCK_THREADS == 128,
              "ELEMENTWISE_SMALL_BLOCK_THREADS must be 0 (off), 64 or 128");

// A tensor the op reads or writes row by row: its base pointer and the
// distance between rows, in elements of the launch dtype.
struct RowTensor {
  const void* ptr;
  int64_t row_stride;
};

// What the kernel needs to walk the units: the row count, units per row and,
// for a split, the first tensor's phase and row stride (row_span.h's
// RowPhase).
struct ElementwiseShape {
  int64_t rows;
  FastDivmod units_div;  // units per row, for splitting a thread index
  int cols;
  int first_phase;
  int64_t lead_stride;

  __host__ __device__ int64_t units() const { return units_div.divisor; }  // per row
};

// The units one thread owns, in row-major order a grid stride apart: the
// walk starts at the thread's first unit and Next() advances by the stride's
// quotient and remainder, so no division runs per unit, and the two at the
// start are FastDivmod's multiplies (the grid has fewer than 2^32 threads:
// ElementwiseBlocks).
struct UnitWalk {
  int64_t row;
  int64_t unit;
  int64_t row_step;
  int64_t unit_step;

  __device__ __forceinline__ explicit UnitWalk(const ElementwiseShape& s) {
    uint32_t quotient;
    unit_step = s.units_div.DivMod(gridDim.x * blockDim.x, &quotient);
    row_step = quotient;
    unit = s.units_div.DivMod(blockIdx.x * blockDim.x + threadIdx.x, &quotient);
    row = quotient;
  }
  __device__ __forceinline__ void Next(const ElementwiseShape& s) {
    row += row_step;
    unit += unit_step;
    if (unit >= s.units()) {
      unit -= s.units();
      ++row;
    }
  }
};

// Calls f(row, unit) for every unit this thread owns.
template <typename F>
__device__ __forceinline__ void ForEachUnit(const ElementwiseShape& s, F&& f) {
  for (UnitWalk w(s); w.row < s.rows; w.Next(s)) f(w.row, w.unit);
}

// As ForEachUnit, two of the thread's units at a time: f(row, unit, row2,
// unit2) with (row2, unit2) one stride further, past the end when row2 >=
// s.rows.
template <typename F>
__device__ __forceinline__ void ForEachUnitPair(const ElementwiseShape& s, F&& f) {
  UnitWalk w(s);
  while (w.row < s.rows) {
    UnitWalk w2 = w;
    w2.Next(s);
    f(w.row, w.unit, w2.row, w2.unit);
    w = w2;
    w.Next(s);
  }
}

// Whether Op has the optional Load/Store split for vectors of V.
template <typename Op, int V, bool kSplit, typename = void>
struct HasLoadStore : std::false_type {};
template <typename Op, int V, bool kSplit>
struct HasLoadStore<Op, V, kSplit,
                    std::void_t<decltype(std::declval<const Op&>().template Load<V, kSplit>(
                        int64_t{}, std::declval<const RowSpan&>(), 0))>> : std::true_type {};

// Units a thread loads before its first store: ELEMENTWISE_UNITS_PER_STEP
// when set, else Op::kUnitsPerStep when declared, else 1; always 1 for an op
// without Load/Store.
template <typename Op, typename = void>
struct DeclaredUnitsPerStep : std::integral_constant<int, 1> {};
template <typename Op>
struct DeclaredUnitsPerStep<Op, std::void_t<decltype(Op::kUnitsPerStep)>>
    : std::integral_constant<int, Op::kUnitsPerStep> {};

template <typename Op, int V, bool kSplit>
__host__ __device__ constexpr int UnitsPerStep() {
  if constexpr (!HasLoadStore<Op, V, kSplit>::value) {
    return 1;
  } else {
#ifdef ELEMENTWISE_UNITS_PER_STEP
    return ELEMENTWISE_UNITS_PER_STEP;
#else
    return DeclaredUnitsPerStep<Op>::value;
#endif
  }
}

// The grid cap in waves: ELEMENTWISE_WAVES when set, else Op::kWaves when
// declared, else kElementwiseWaves.
template <typename Op, typename = void>
struct DeclaredWaves : std::integral_constant<int, kElementwiseWaves> {};
template <typename Op>
struct DeclaredWaves<Op, std::void_t<decltype(Op::kWaves)>>
    : std::integral_constant<int, Op::kWaves> {};

template <typename Op>
constexpr int WavesOf() {
#ifdef ELEMENTWISE_WAVES
  return ELEMENTWISE_WAVES;
#else
  return DeclaredWaves<Op>::value;
#endif
}

// One unit: a body vector, or the split row's edge elements.
template <int V, bool kSplit, typename Op>
__device__ __forceinline__ void DoUnit(const Op& op, const ElementwiseShape& s, int64_t row,
                                       int64_t unit) {
  const RowSpan span = SpanOf<V, kSplit>(s.first_phase, row, s.lead_stride, s.cols);
  if (unit < span.body) {
    op.template Vector<V, kSplit>(row, span, static_cast<int>(unit));
  } else if (kSplit && unit == s.units() - 1) {
    for (int e = 0; e < span.edges(); ++e) op.Element(row, EdgeElement<V>(span, e));
  }
}

// static: internal linkage, so two kernel libraries loaded in one process
// never resolve each other's kernel stubs.
template <int V, bool kSplit, typename Op>
static __global__ void __launch_bounds__(kElementwiseThreads)
    ElementwiseKernel(const Op op, const ElementwiseShape s) {
  WaitForPreviousKernel();  // overlap.cuh: before any memory access
  AllowNextKernelLaunch();
  if constexpr (UnitsPerStep<Op, V, kSplit>() == 2) {
    ForEachUnitPair(s, [&](int64_t row, int64_t unit, int64_t row2, int64_t unit2) {
      const RowSpan span = SpanOf<V, kSplit>(s.first_phase, row, s.lead_stride, s.cols);
      if (row2 < s.rows && unit < span.body) {
        const RowSpan span2 = SpanOf<V, kSplit>(s.first_phase, row2, s.lead_stride, s.cols);
        if (unit2 < span2.body) {
          const auto a = op.template Load<V, kSplit>(row, span, static_cast<int>(unit));
          const auto b = op.template Load<V, kSplit>(row2, span2, static_cast<int>(unit2));
          op.template Store<V, kSplit>(row, span, static_cast<int>(unit), a);
          op.template Store<V, kSplit>(row2, span2, static_cast<int>(unit2), b);
          return;
        }
      }
      DoUnit<V, kSplit>(op, s, row, unit);
      if (row2 < s.rows) DoUnit<V, kSplit>(op, s, row2, unit2);
    });
  } else {
    ForEachUnit(s, [&](int64_t row, int64_t unit) { DoUnit<V, kSplit>(op, s, row, unit); });
  }
}

// The launch of `units` units of Op's kernel for vectors of V: blocks of 256
// threads (of ELEMENTWISE_SMALL_BLOCK_THREADS where 256 would leave SMs
// idle), one block per `threads` steps of UnitsPerStep units, at most
// WavesOf<Op>() waves of resident blocks.
struct ElementwiseGrid {
  unsigned blocks;
  unsigned threads;
};

template <typename Op, int V, bool kSplit>
ElementwiseGrid ElementwiseLaunchShape(int64_t units) {
  constexpr int kPerStep = UnitsPerStep<Op, V, kSplit>();
  const int64_t steps = (units + kPerStep - 1) / kPerStep;
  int threads = kElementwiseThreads;
  if (ELEMENTWISE_SMALL_BLOCK_THREADS > 0 &&
      (steps + threads - 1) / threads < int64_t{CachedSmCount()}) {
    threads = ELEMENTWISE_SMALL_BLOCK_THREADS;
  }
  const int64_t resident = int64_t{CachedSmCount()} * std::max(1, CachedThreadsPerSm() / threads);
  const int64_t wanted = (steps + threads - 1) / threads;
  const int64_t max_blocks = (int64_t{1} << 32) / threads;  // UnitWalk's thread index
  const auto blocks = static_cast<unsigned>(
      std::max<int64_t>(1, std::min({wanted, resident * WavesOf<Op>(), max_blocks})));
  return {blocks, static_cast<unsigned>(threads)};
}

// Launches make_op(TypeTag<T>{}) over rows x cols for dtype's T, choosing
// whole vectors, a split or narrower vectors from the tensors (`first`: the
// output).
// Returns cudaErrorInvalidValue for sizes out of range (rows or cols < 0,
// cols > 2^30) or an unsupported dtype, else the launch status; launches
// nothing for an empty range.
template <typename MakeOp, typename... More>
cudaError_t LaunchElementwise(DType dtype, int64_t rows, int64_t cols, cudaStream_t stream,
                              MakeOp&& make_op, const RowTensor& first,
                              const More&... more) {
  static_assert((std::is_same_v<More, RowTensor> && ...), "tensors are RowTensors");
  if (rows < 0 || cols < 0 || cols > (int64_t{1} << 30)) return cudaErrorInvalidValue;
  if (rows == 0 || cols == 0) return cudaSuccess;
  return DispatchDtype(dtype, [&](auto tt) -> cudaError_t {
    using T = typename decltype(tt)::type;
    constexpr int kMaxWidth = 16 / sizeof(T);
    constexpr int kElem = sizeof(T);
    using Op = decltype(make_op(tt));
    const Op op = make_op(tt);
    const RowAccess access = ChooseRowAccess(
        kMaxWidth, cols,
        {VectorAccess{first.ptr, first.row_stride, kElem},
         VectorAccess{more.ptr, more.row_stride, kElem}...},
        VectorAccess{nullptr, 0, kElem});
    const int64_t units_per_row = access.split ? cols / kMaxWidth + 1 : cols / access.width;
    const ElementwiseShape shape{rows,
                                 FastDivmod(static_cast<uint32_t>(units_per_row)),
                                 static_cast<int>(cols),
                                 access.first_phase,
                                 first.row_stride};
    const int64_t units = rows * units_per_row;
    if (access.split) {
      const ElementwiseGrid launch = ElementwiseLaunchShape<Op, kMaxWidth, true>(units);
      return LaunchOverlapped(ElementwiseKernel<kMaxWidth, true, Op>, dim3(launch.blocks),
                              dim3(launch.threads), stream, op, shape);
    }
    return DispatchVectorWidth<T>(access.width, [&](auto vc) {
      constexpr int kV = decltype(vc)::value;
      const ElementwiseGrid launch = ElementwiseLaunchShape<Op, kV, false>(units);
      return LaunchOverlapped(ElementwiseKernel<kV, false, Op>, dim3(launch.blocks),
                              dim3(launch.threads), stream, op, shape);
    });
  });
}

}  // namespace kernels_common
