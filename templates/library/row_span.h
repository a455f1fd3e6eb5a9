// Where a row that does not start on a vector boundary splits into a scalar
// head, a body of whole aligned vectors and a scalar tail:
//
//   | head: 0..V-1 | body: `body` vectors of V elements, aligned | tail: 0..V-1 |
//
// Odd hidden sizes (4096 x 2047 bf16: 7 of 8 rows start off a 16-byte
// boundary) and views that start mid-vector keep 16-byte accesses for all
// but at most 2V - 2 elements of each row, instead of falling back to
// scalars for the whole row. Plain C++ (callable from device code too), so
// host tests check the arithmetic and the launchers' choice between whole
// vectors, a split and narrower vectors (ChooseRowAccess); row_span.cuh is
// the device side.
//
// Contract: a row's address is a multiple of its element size (every torch
// tensor's is). Tensors accessed with one split (x and y; x and residual)
// must place each row at the same distance from a vector boundary:
// RowsSplitAlike checks two of them on the host, and ChooseRowAccess gives
// the kernels the first row's phase. Anything else read at the row's
// element positions (the weight) is not aligned by the split.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "host_device.h"
#include "row_plan.h"  // kWholeBlock, kWarpSize

namespace kernels_common {

struct RowSpan {
  int head;  // elements before the first boundary (all of a shorter row)
  int body;  // whole vectors after the head
  int tail;  // elements after the body, fewer than a vector
  // Elements outside the body: at most 2V - 2.
  KERNELS_COMMON_HOST_DEVICE int edges() const { return head + tail; }
};

// Elements from the last vector boundary before `row`'s start to it, for
// rows `row_stride` elements apart whose first row is `first_phase` elements
// past a boundary. Integer arithmetic only: kernels that turned the row
// pointer into an integer lost the compiler's read-only (.nc) loads of x.
// Unsigned, so a huge row * stride wraps instead of overflowing: only its
// low bits count.
template <int kVecElems>
KERNELS_COMMON_HOST_DEVICE inline int RowPhase(int first_phase, int64_t row,
                                               int64_t row_stride) {
  static_assert((kVecElems & (kVecElems - 1)) == 0,
                "vectors are a power of two elements");
  const uint64_t offset = static_cast<uint64_t>(first_phase) +
                          static_cast<uint64_t>(row) * static_cast<uint64_t>(row_stride);
  return static_cast<int>(offset & (kVecElems - 1));
}

// The split of a row of `hidden` elements that starts `phase` elements past
// a vector boundary (0 <= phase < kVecElems).
template <int kVecElems>
KERNELS_COMMON_HOST_DEVICE inline RowSpan SplitRow(int phase, int hidden) {
  const int to_boundary = (kVecElems - phase) & (kVecElems - 1);
  const int head = to_boundary < hidden ? to_boundary : hidden;
  const int body = (hidden - head) / kVecElems;
  return {head, body, hidden - head - body * kVecElems};
}

// Row position of edge element e (0 <= e < edges()): the head's elements,
// then the tail's.
template <int kVecElems>
KERNELS_COMMON_HOST_DEVICE inline int EdgeElement(const RowSpan& span, int e) {
  return e < span.head ? e : e + span.body * kVecElems;
}

// Edge elements one thread holds (row_span.cuh says why so): none on the
// aligned paths (kSplit false); else ceil((2V - 2) / kGroup) in a group of
// kGroup lanes, and 1 in a block, whose >= 32 threads outnumber them.
template <int V, int kGroup, bool kSplit>
constexpr int kEdgeSlotsPerThread =
    !kSplit ? 0
    : kGroup == kWholeBlock ? 1
                            : (2 * V - 2 + kGroup - 1) / kGroup;
// Vectors are at most 16 elements (16 bytes of 1-byte elements): 30 edges.
static_assert(2 * 16 - 2 <= kWarpSize, "a block holds every edge element");

// Edge element in slot `slot` of lane `lane` of the row's `lanes`: edge e
// belongs to lane lanes - 1 - e % lanes (counted from the row's last lane),
// slot e / lanes.
KERNELS_COMMON_HOST_DEVICE inline int EdgeOfSlot(int lane, int lanes, int slot) {
  return lanes - 1 - lane + slot * lanes;
}

// Whether every row r of tensors a and b (rows a_stride / b_stride elements
// apart) starts at the same distance from a vec_bytes boundary, both
// element-aligned: then one split serves both. Strides are >= 0.
inline bool RowsSplitAlike(uintptr_t a, int64_t a_stride, uintptr_t b,
                           int64_t b_stride, int elem_bytes, int vec_bytes) {
  const auto elem = static_cast<uintptr_t>(elem_bytes);
  const auto vec = static_cast<uintptr_t>(vec_bytes);
  if (a % elem != 0 || b % elem != 0 || a % vec != b % vec) return false;
  return (a_stride - b_stride) % (vec_bytes / elem_bytes) == 0;
}

// One tensor the kernel touches with vector accesses: its base pointer, the
// distance between rows in elements, and its element size in bytes.
struct VectorAccess {
  const void* ptr;
  int64_t row_stride;
  int elem_bytes;
};

// Widest power-of-two width <= max_width such that every row of every tensor
// starts on a width * elem_bytes boundary and the row length divides evenly
// (so gcd(max_width, hidden) for aligned tensors).
inline int PickVectorWidth(int max_width, int64_t hidden,
                           std::initializer_list<VectorAccess> tensors) {
  int width = max_width;
  auto fits = [&](int v) {
    if (hidden % v != 0) return false;
    for (const VectorAccess& t : tensors) {
      if (t.ptr == nullptr) continue;
      const auto addr = reinterpret_cast<uintptr_t>(t.ptr);
      if (addr % (static_cast<uintptr_t>(v) * t.elem_bytes) != 0) return false;
      if (t.row_stride % v != 0) return false;
    }
    return true;
  };
  while (width > 1 && !fits(width)) width /= 2;
  return width;
}

// How a launch reads its rows.
struct RowAccess {
  int width;        // elements per vector access
  bool split;       // rows split into head, body and tail (width: max_width)
  int64_t vectors;  // per row, for the plan: hidden / width, or the most
                    // body vectors a split row has (at least 1)
  int first_phase;  // split: RowPhase's first_phase of the row tensors
};

// Whole max_width vectors when every row of every tensor allows them. Else,
// when they would fall below 8-byte accesses (odd sizes, rows or views that
// start mid-vector; 4096 x 2047 bf16 ran at 37% of copy bandwidth on 2-byte
// ones), a split at max_width if the row tensors split alike: the weight
// is then read a scalar at a time, so rows that keep 8-byte vectors keep
// them (not measured against the split). Else the widest narrower vectors
// (down to scalars: never wrong answers). row_tensors: those read or written
// row by row (x and y, x and residual); weight: row_stride 0, or nullptr.
inline RowAccess ChooseRowAccess(int max_width, int64_t hidden,
                                 std::initializer_list<VectorAccess> row_tensors,
                                 VectorAccess weight) {
  const int width = std::min(PickVectorWidth(max_width, hidden, row_tensors),
                             PickVectorWidth(max_width, hidden, {weight}));
  const RowAccess narrow{width, false, hidden / width, 0};
  if (width == max_width || row_tensors.size() == 0) return narrow;
  const VectorAccess& first = *row_tensors.begin();
  if (width * first.elem_bytes >= 8) return narrow;
  for (const VectorAccess& t : row_tensors) {
    if (t.elem_bytes != first.elem_bytes ||
        !RowsSplitAlike(reinterpret_cast<uintptr_t>(first.ptr), first.row_stride,
                        reinterpret_cast<uintptr_t>(t.ptr), t.row_stride,
                        t.elem_bytes, max_width * t.elem_bytes)) {
      return narrow;
    }
  }
  const auto first_address = reinterpret_cast<uintptr_t>(first.ptr);
  const int first_phase = static_cast<int>(
      first_address / static_cast<uintptr_t>(first.elem_bytes) % static_cast<uintptr_t>(max_width));
  return {max_width, true, std::max<int64_t>(1, hidden / max_width), first_phase};
}

}  // namespace kernels_common
