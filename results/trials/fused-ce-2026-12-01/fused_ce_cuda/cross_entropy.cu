// Per-token cross-entropy forward, loss[r] = logsumexp(x[r]) - x[r, t[r]]
// (t[r] == ignore_index: 0), in float32 for fp32 / fp16 / bf16 logits,
// reading every logit exactly once: F.cross_entropy(x, t, reduction='none').
//
// Bytes moved (the floor): rows * cols * sizeof(T) logits read (ignored
// rows are not read) + rows * 8 (targets) + rows * 4 (loss).
//
// One pass. Each thread streams its share of the row with kCeUnroll 16-byte
// loads in flight and folds them into one online (max, sum of exp(x - max))
// (common/softmax_row.cuh's AddValues: one rescale per kCeUnroll * V
// values); the row's threads merge their pairs (MergeMaxSum, one block
// reduction, or a cluster's through distributed shared memory). The target
// logit is taken from the stream by the one thread whose vector (or edge
// element) holds it, and that thread writes the loss once it has the row's
// (max, sum): no second read of x, no second reduction. Rows that start off
// a 16-byte boundary (odd vocabularies, offset views) split into a scalar
// head, a 16-byte body and a scalar tail (common/row_span.h).
//
// Launch shape (common/cross_entropy_plan.h): a 256-thread block per long
// row (Qwen3's 151936: 18992 bf16 vectors, ~74 per thread), a cluster of
// 2-8 blocks per row while rows x cluster < SMs (1-16 tokens), the
// library's 4-32 lanes per row for rows of <= 128 vectors. Launched
// overlapped (common/overlap.cuh).
//
// measured: not yet (kbuild bench on the H200 fills this line).

#include <cmath>

#include "common/cluster_reduce.cuh"
#include "common/cross_entropy_plan.h"
#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "common/reduce.cuh"
#include "common/row_slot.cuh"
#include "common/row_span.cuh"
#include "common/softmax_row.cuh"  // AddValues: the online (max, sum)
#include "cross_entropy.h"

namespace {

using namespace kernels_common;

// The row's state in one thread: its online (max, sum) and, in the thread
// that streamed the target element, that element's value.
struct CeThread {
  MaxSum ms = MergeMaxSum::Identity();
  float picked = 0.f;
  bool holds_target = false;
};

// dst = src where hit, as whole 32-bit words: a Vec of bf16 copied element by
// element became one 16-bit select per logit (PTX selp.b16).
template <typename T, int V>
__device__ __forceinline__ void SelectVector(bool hit, const Vec<T, V>& src,
                                             Vec<T, V>& dst) {
  if constexpr (sizeof(Vec<T, V>) % 4 == 0) {
    constexpr int kWords = sizeof(Vec<T, V>) / 4;
    const auto* a = reinterpret_cast<const uint32_t*>(&src);
    auto* b = reinterpret_cast<uint32_t*>(&dst);
#pragma unroll
    for (int w = 0; w < kWords; ++w) b[w] = hit ? a[w] : b[w];
  } else {
    if (hit) dst = src;
  }
}

// Folds body vectors [begin + lane, end) step `lanes` of a row into s, with
// kCeUnroll loads issued before their values are used. tvec / tlane: the
// body vector holding the target and its element (tvec -1: none). The loop
// keeps the target's whole vector (a select of its packed registers per
// load) and takes the element out once, after the loop: selecting the
// element in the loop cost two instructions per logit (PTX, bf16).
template <typename T, int V, bool kSplit>
__device__ __forceinline__ void StreamBody(const T* __restrict__ x_row,
                                           const RowSpan& span, int begin,
                                           int end, int lane, int lanes,
                                           int tvec, int tlane, CeThread& s) {
  Vec<T, V> target_vec = {};
  bool found = false;
  int idx = begin + lane;
  for (; idx + (kCeUnroll - 1) * lanes < end; idx += kCeUnroll * lanes) {
    Vec<T, V> r[kCeUnroll];
#pragma unroll
    for (int u = 0; u < kCeUnroll; ++u) {
      r[u] = *BodyVector<V, kSplit>(x_row, span, idx + u * lanes);
    }
#pragma unroll
    for (int u = 0; u < kCeUnroll; ++u) {
      const bool hit = idx + u * lanes == tvec;
      SelectVector(hit, r[u], target_vec);
      found |= hit;
    }
    float f[kCeUnroll * V];
#pragma unroll
    for (int u = 0; u < kCeUnroll; ++u) {
#pragma unroll
      for (int i = 0; i < V; ++i) f[u * V + i] = r[u].Get(i);
    }
    s.ms = AddValues(s.ms, f);
  }
  for (; idx < end; idx += lanes) {  // fewer than kCeUnroll vectors left
    const Vec<T, V> r = *BodyVector<V, kSplit>(x_row, span, idx);
    SelectVector(idx == tvec, r, target_vec);
    found |= idx == tvec;
    float f[V];
#pragma unroll
    for (int i = 0; i < V; ++i) f[i] = r.Get(i);
    s.ms = AddValues(s.ms, f);
  }
  if (found) {
#pragma unroll
    for (int i = 0; i < V; ++i) {
      if (i == tlane) s.picked = target_vec.Get(i);
    }
    s.holds_target = true;
  }
}

// The split row's edge elements (head, then tail) this thread holds:
// at most kEdgeSlots of them, one scalar load each.
template <typename T, int V, int kEdgeSlots>
__device__ __forceinline__ void StreamEdges(const T* __restrict__ x_row,
                                            const RowSpan& span, int lane,
                                            int lanes, int64_t t, CeThread& s) {
  ForEachEdge<V, kEdgeSlots>(span, lane, lanes, [&](int, int i) {
    const float v[1] = {ToFloat(x_row[i])};
    if (i == t) {
      s.picked = v[0];
      s.holds_target = true;
    }
    s.ms = AddValues(s.ms, v);
  });
}

// Where the target sits in the row's span: body vector and element, or -1
// (an edge element, or no target).
template <int V>
__device__ __forceinline__ void TargetVector(const RowSpan& span, int64_t t,
                                             int* tvec, int* tlane) {
  const int64_t rel = t - span.head;
  if (t >= 0 && rel >= 0 && rel < int64_t{span.body} * V) {
    *tvec = static_cast<int>(rel / V);
    *tlane = static_cast<int>(rel % V);
  } else {
    *tvec = -1;
    *tlane = 0;
  }
}

// loss of a row from its (max, sum) and the target logit: (max - x_t) +
// log(sum), so a large max cancels before the log is added.
__device__ __forceinline__ float LossOf(MaxSum row, float picked) {
  return (row.max - picked) + logf(row.sum);
}

// kGroup lanes (a group path) or a block (kWholeBlock) per row.
template <typename T, int V, int kGroup, bool kSplit>
__global__ void __launch_bounds__(kCeBlockThreads)
    CrossEntropyRowKernel(float* __restrict__ loss, const T* __restrict__ x,
                          const int64_t* __restrict__ target, int64_t rows,
                          int cols, int first_phase, int64_t x_stride,
                          int64_t ignore_index) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kGroup, kSplit>;
  __shared__ MaxSum scratch[kWarpSize];
  const RowSlot s = CurrentRowSlot<kGroup>(rows);
  const T* x_row = x + s.row * x_stride;
  WaitForPreviousKernel();  // common/overlap.cuh: before any memory access
  AllowNextKernelLaunch();

  const int64_t t = s.valid ? target[s.row] : ignore_index;
  const bool ignored = t == ignore_index;
  const bool in_range = t >= 0 && t < cols;
  // An ignored or out-of-range row is not read: its threads only take part
  // in the reduction (common/reduce.cuh's contract).
  const RowSpan span = s.valid && !ignored && in_range
                           ? SpanOf<V, kSplit>(first_phase, s.row, x_stride, cols)
                           : RowSpan{};
  int tvec, tlane;
  TargetVector<V>(span, t, &tvec, &tlane);
  CeThread mine;
  StreamBody<T, V, kSplit>(x_row, span, 0, span.body, s.first, s.step, tvec,
                           tlane, mine);
  StreamEdges<T, V, kEdgeSlots>(x_row, span, s.first, s.step, t, mine);
  const MaxSum row = RowReduce<kGroup>(mine.ms, MergeMaxSum{}, scratch);
  if (!s.valid) return;
  if (mine.holds_target) {
    loss[s.row] = LossOf(row, mine.picked);
  } else if (s.first == 0 && (ignored || !in_range)) {
    loss[s.row] = ignored ? 0.f : NAN;
  }
}

// kCluster blocks per row, each streaming a contiguous share of the body
// (rank 0 also holds the edge elements), merged over the block, then the
// cluster.
template <typename T, int V, bool kSplit, int kCluster>
__global__ void __cluster_dims__(kCluster, 1, 1)
    __launch_bounds__(kCeBlockThreads)
        CrossEntropyClusterKernel(float* __restrict__ loss,
                                  const T* __restrict__ x,
                                  const int64_t* __restrict__ target, int cols,
                                  int first_phase, int64_t x_stride,
                                  int64_t ignore_index) {
  constexpr int kEdgeSlots = kEdgeSlotsPerThread<V, kWholeBlock, kSplit>;
  __shared__ MaxSum scratch[kWarpSize];
  __shared__ MaxSum cluster_part;
  const int64_t row = blockIdx.x / kCluster;
  const int rank = static_cast<int>(blockIdx.x % kCluster);
  const T* x_row = x + row * x_stride;
  WaitForPreviousKernel();
  AllowNextKernelLaunch();

  const int64_t t = target[row];
  const bool ignored = t == ignore_index;
  const bool in_range = t >= 0 && t < cols;
  const RowSpan span = !ignored && in_range
                           ? SpanOf<V, kSplit>(first_phase, row, x_stride, cols)
                           : RowSpan{};
  const RowSpan edge_span = rank == 0 ? span : RowSpan{};
  const int share = (span.body + kCluster - 1) / kCluster;
  const int begin = min(span.body, rank * share);
  const int end = min(span.body, begin + share);
  int tvec, tlane;
  TargetVector<V>(span, t, &tvec, &tlane);
  CeThread mine;
  StreamBody<T, V, kSplit>(x_row, span, begin, end, threadIdx.x, blockDim.x,
                           tvec, tlane, mine);
  StreamEdges<T, V, kEdgeSlots>(x_row, edge_span, threadIdx.x, blockDim.x, t,
                                mine);
  const MaxSum block = BlockReduce(mine.ms, MergeMaxSum{}, scratch);
  const MaxSum total = ClusterReduce<kCluster>(block, MergeMaxSum{}, &cluster_part);
  if (mine.holds_target) {
    loss[row] = LossOf(total, mine.picked);
  } else if (rank == 0 && threadIdx.x == 0 && (ignored || !in_range)) {
    loss[row] = ignored ? 0.f : NAN;
  }
  ClusterReduceDone();
}

template <typename F>
cudaError_t DispatchCluster(int cluster, F&& f) {
  switch (cluster) {
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
  }
  return cudaErrorInvalidValue;  // 2, 4 or 8 (1 takes the row kernel)
}

// Group sizes of the plan's paths as template arguments: the library's
// LaunchForPath, with the register budget of 4 its group paths were
// planned with (kVecs is unused: nothing is held).
template <typename F>
cudaError_t DispatchGroup(RowPath path, F&& f) {
  return LaunchForPath<4>(
      path, [&](auto, auto group) { return f(group); },
      [&] { return f(std::integral_constant<int, kWholeBlock>{}); });
}

}  // namespace

namespace fused_ce_cuda {

cudaError_t LaunchCrossEntropy(float* loss, const void* x, const int64_t* target,
                               DType dtype, int64_t rows, int64_t cols,
                               int64_t x_row_stride, int64_t ignore_index,
                               cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  if (rows < 0 || cols <= 0 || cols > (int64_t{1} << 30)) {
    return cudaErrorInvalidValue;
  }
  const int elem = DTypeSize(dtype);
  const RowAccess access =
      ChooseRowAccess(16 / elem, cols, {VectorAccess{x, x_row_stride, elem}},
                      VectorAccess{nullptr, 0, elem});
  const bool whole_vectors = access.split || access.width * elem == 16;
  const bool clusters =
      whole_vectors &&
      CachedDeviceAttribute<cudaDevAttrComputeCapabilityMajor>(0) >= 9;
  const CrossEntropyPlan plan = PlanCrossEntropy(
      rows, access.vectors, CachedSmCount(), CachedThreadsPerSm(), clusters);
  if (plan.rows.blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const int n = static_cast<int>(cols);
  const dim3 grid(static_cast<unsigned>(plan.rows.blocks));
  const dim3 block(plan.rows.threads);
  const int phase = access.first_phase;

  return DispatchRowOp(dtype, dtype, access, [&](auto xt, auto, auto vc, auto split) {
    using T = typename decltype(xt)::type;
    constexpr int V = decltype(vc)::value;
    constexpr bool kSplit = decltype(split)::value;
    const auto* xp = static_cast<const T*>(x);
    if (plan.cluster == 1) {
      return DispatchGroup(plan.rows.path, [&](auto group) {
        return LaunchOverlapped(
            CrossEntropyRowKernel<T, V, decltype(group)::value, kSplit>, grid,
            block, stream, loss, xp, target, rows, n, phase, x_row_stride,
            ignore_index);
      });
    }
    if constexpr (V * sizeof(T) != 16) {
      return cudaErrorInvalidValue;  // the plan keeps these at 1
    } else {
      return DispatchCluster(plan.cluster, [&](auto c) {
        return LaunchOverlapped(
            CrossEntropyClusterKernel<T, V, kSplit, decltype(c)::value>, grid,
            block, stream, loss, xp, target, n, phase, x_row_stride,
            ignore_index);
      });
    }
  });
}

}  // namespace fused_ce_cuda
