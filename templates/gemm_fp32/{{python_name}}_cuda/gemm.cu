// fp32 GEMM on CUDA cores: C[M, N] = A[M, K] @ B[K, N] (+ bias[N] on every
// row), row-major, FFMA only (no TF32, no tensor cores): the arithmetic of
// cuBLAS's SGEMM with TF32 off.
//
// Work: 2 * M * N * K flops (+ M * N for the bias). Bytes moved (the floor):
// 4 * (M * K + K * N + M * N (+ N)), each matrix once; at the shapes of
// interest the op is compute-bound, and its target is the H200's fp32
// CUDA-core peak, 132 SMs x 128 lanes x 2 flops x 1.98 GHz = 66.9 TFLOP/s.
//
// Launch shape (gemm_plan.h): M <= 16 goes to the few-rows GEMV
// (gemm_few_rows.cuh). Otherwise the tiled kernel (gemm_tiled.cuh), one
// block per tile of C, under a tile shape chosen per launch: the row of
// tuned_config.h whose bucket holds the problem's bytes. The shipped file's
// one row is the built-in choice: the default tile (the GEMM_* macros:
// 128 x 128 x 8, 8 x 8 per lane, 256 threads, two blocks per SM), or
// GemmSmallTile (64 x 128 x 16, 4 x 8 per lane, 256 threads, two blocks per
// SM) when the default tiles are fewer than the SMs. Launched overlapped
// (common/overlap.cuh).
//
// Measured (H200, 2026-12-01, kbuild bench, cuBLAS SGEMM with TF32 off):
// 0.88x cuBLAS at 4096x1024x8192 and 0.92x at 8192^3 (default tile, 44.8
// and 47.0 TFLOP/s, 67-70% of the fp32 peak); 1000^3 in 72.0 us, 0.87x (small
// tile; 127 us, 0.50x, with the default tile's 64 tiles): geomean 0.89x on
// the three. A kbuild tune over 48 single tiles (2026-12-02) found none
// better on the three together; at 1000^3 alone 64x64 BK32 8x4 was 1.073x.

#include <climits>
#include <type_traits>

#include "common/launch.cuh"
#include "common/overlap.cuh"
#include "gemm.h"
#include "gemm_few_rows.cuh"
#include "gemm_plan.h"
#include "gemm_tiled.cuh"

// The tile per problem size a `kbuild tune` run chose: tuned_config.h. The
// template ships one whose single row keeps the built-in choice for every
// size, so that copying results/tune-<t>/tuned_config.h over it changes a
// file the build tracks (a header that appears where there was none is in
// neither the compiler's dependency list nor ccache's), then rebuild
// (README.md, "Tuning"). Unused while tile macros come from the command
// line, so each tune variant runs its own tile alone.
#if __has_include("tuned_config.h")
#include "tuned_config.h"
#endif
#if defined(KBUILD_TUNED_CONFIGS) && !GEMM_TILE_FROM_DEFINES
#define GEMM_TUNED_CONFIGS 1
#endif

namespace {{python_name}}_cuda {
namespace {

struct GemmArgs {
  float* c;
  const float *a, *b, *bias;
  int64_t m, n, k, lda, ldb;
};

GemmShape ShapeOf(const GemmArgs& g) {
  return {g.m, g.n, g.k, g.lda, g.ldb, reinterpret_cast<std::uintptr_t>(g.a),
          reinterpret_cast<std::uintptr_t>(g.b)};
}

// The few-rows kernel for m rows: FewRowsKernel<FewRowsClass(m), kVector>.
template <bool kVector, typename Launch>
cudaError_t LaunchFewRows(int64_t m, Launch launch) {
  using few_rows::FewRowsKernel;
  switch (FewRowsClass(m)) {
    case 1: return launch(FewRowsKernel<1, kVector>);
    case 2: return launch(FewRowsKernel<2, kVector>);
    case 4: return launch(FewRowsKernel<4, kVector>);
    case 8: return launch(FewRowsKernel<8, kVector>);
    case 16: return launch(FewRowsKernel<16, kVector>);
    default: return cudaErrorInvalidValue;  // PlanGemm sends m <= 16 only
  }
}

cudaError_t LaunchFewRowsPath(const GemmArgs& g, cudaStream_t stream) {
  GemmPlan plan;
  if (!PlanGemm(ShapeOf(g), &plan) || plan.path != GemmPath::kFewRows) {
    return cudaErrorInvalidValue;
  }
  auto launch = [&](auto kernel) {
    return kernels_common::LaunchOverlapped(
        kernel, dim3(static_cast<unsigned>(plan.blocks)), dim3(FewRows::kThreads), stream, g.c,
        g.a, g.b, g.bias, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k),
        g.lda, g.ldb);
  };
  return plan.vector_access ? LaunchFewRows<true>(g.m, launch)
                            : LaunchFewRows<false>(g.m, launch);
}

// The tiled path under tile shape Tile.
template <typename Tile>
cudaError_t LaunchTiles(const GemmArgs& g, cudaStream_t stream) {
  GemmPlan plan;
  if (!PlanGemm<Tile>(ShapeOf(g), &plan) || plan.path != GemmPath::kTiles) {
    return cudaErrorInvalidValue;
  }
  auto launch = [&](auto kernel) {
    return kernels_common::LaunchOverlapped(
        kernel, dim3(static_cast<unsigned>(plan.blocks)), dim3(Tile::kThreads), stream, g.c, g.a,
        g.b, g.bias, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), g.lda,
        g.ldb, plan.tiles_m, plan.tiles_n);
  };
  return plan.vector_access ? launch(tiled::GemmKernel<Tile, true>)
                             : launch(tiled::GemmKernel<Tile, false>);
}

// The built-in choice (ChooseBuiltinTile): the default tile, or GemmSmallTile
// when the default tiles are fewer than the SMs (the SM count is read once
// per device; a failed read counts 1 SM: the default tile). With tile macros
// from the command line, the default tile alone.
cudaError_t LaunchBuiltinTiles(const GemmArgs& g, cudaStream_t stream) {
  if constexpr (kGemmSmallTileBuiltIn) {
    if (ChooseBuiltinTile(g.m, g.n, kernels_common::CachedSmCount()) == BuiltinTile::kSmall) {
      return LaunchTiles<GemmSmallTile>(g, stream);
    }
  }
  return LaunchTiles<GemmTile>(g, stream);
}

#ifdef GEMM_TUNED_CONFIGS
using TilesLaunch = cudaError_t (*)(const GemmArgs&, cudaStream_t);

// One launcher per row of tuned_config.h, in its order. A row equal to the
// default tile (a bucket the defaults won, written as the macro names) runs
// the built-in choice: that is how the defaults ran when `kbuild tune`
// measured them.
template <typename Tile>
constexpr TilesLaunch TunedLaunch() {
  if constexpr (std::is_same_v<Tile, GemmTile>) {
    return &LaunchBuiltinTiles;
  } else {
    return &LaunchTiles<Tile>;
  }
}

// The X rows' parameters in kbuild.toml [tune.params] order (BM, BN, BK, TM,
// TN, KCHUNK, GROUP_M): a different order or set there needs this changed.
#define GEMM_TUNED_ROW(max_bytes, bm, bn, bk, tm, tn, kchunk, group_m) \
  TunedLaunch<GemmTileOf<bm, bn, bk, tm, tn, kchunk, group_m>>(),
constexpr TilesLaunch kTunedLaunches[] = {KBUILD_TUNED_CONFIGS(GEMM_TUNED_ROW)};
#undef GEMM_TUNED_ROW
#endif

}  // namespace

cudaError_t LaunchGemm(float* c, const float* a, const float* b, const float* bias, int64_t m,
                       int64_t n, int64_t k, int64_t lda, int64_t ldb, cudaStream_t stream) {
  if (m == 0 || n == 0) return cudaSuccess;
  const GemmArgs g{c, a, b, bias, m, n, k, lda, ldb};
  if (m <= FewRows::kMaxRows) return LaunchFewRowsPath(g, stream);
#ifdef GEMM_TUNED_CONFIGS
  // The tuned tile of the bucket holding this problem's bytes.
  const double bytes = GemmBytes(m, n, k, bias != nullptr);
  const long long key = bytes < 9.0e18 ? static_cast<long long>(bytes) : LLONG_MAX;
  return kTunedLaunches[KbuildTunedConfigIndex(key)](g, stream);
#else
  return LaunchBuiltinTiles(g, stream);
#endif
}

}  // namespace {{python_name}}_cuda
