// The tile per problem size before any `kbuild tune` run: one row, the
// defaults, which run the built-in choice (gemm.cu: the default tile, or the
// small-problem tile when the default tiles are fewer than the SMs) for
// every size. `kbuild tune` writes its choice in this form to
// results/tune-<t>/tuned_config.h: copy that file over this one and rebuild.
#pragma once

// X(max_bytes, GEMM_BM, GEMM_BN, GEMM_BK, GEMM_TM, GEMM_TN, GEMM_KCHUNK, GEMM_GROUP_M): max_bytes is the bucket's upper bound, -1 for no bound.
#define KBUILD_TUNED_CONFIGS(X) \
  X(-1LL, GEMM_BM, GEMM_BN, GEMM_BK, GEMM_TM, GEMM_TN, GEMM_KCHUNK, GEMM_GROUP_M)

// The index, in KBUILD_TUNED_CONFIGS order, of the configuration for a problem
// that moves `bytes`: the first bucket that holds it, else the last.
inline int KbuildTunedConfigIndex(long long bytes) {
  constexpr long long kMaxBytes[] = {-1LL};
  constexpr int kCount = 1;
  for (int i = 0; i < kCount; ++i) {
    if (kMaxBytes[i] < 0 || bytes <= kMaxBytes[i]) return i;
  }
  return kCount - 1;
}
