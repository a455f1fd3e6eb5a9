// The benchmark cases of the DiT ops: LTX-Video's hidden 2048 (32 heads of
// 64) at 768x512, whose latents are 24x16 (VAE 32x spatial, 8x temporal,
// patch 1): 121 frames -> 16 latent frames = 6144 tokens, 49 frames -> 7 =
// 2688 tokens; batch 1 and 2 (2: classifier-free guidance); bf16 and fp16,
// and one tiny correctness-only case. Shapes are [batch, tokens, hidden].
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "kbuild/harness/benchmark.h"

inline std::vector<kb::harness::Case> LtxCases() {
  std::vector<kb::harness::Case> cases =
      kb::harness::MakeCases({{1, 6144, 2048}, {2, 6144, 2048}, {1, 2688, 2048}, {2, 2688, 2048}},
                             {at::kBFloat16, at::kHalf});
  for (auto& c :
       kb::harness::MakeCases({{1, 7, 64}}, {at::kBFloat16}, {.correctness_only = true})) {
    cases.push_back(c);
  }
  return cases;
}

inline double ElementBytes(const kb::harness::Case& c) { return c.dtype == at::kFloat ? 4.0 : 2.0; }

inline double Rows(const kb::harness::Case& c) {
  return static_cast<double>(c.shape[0] * c.shape[1]);
}

// Rows of a modulation tensor read once each: one per sample, or one per
// token.
inline double ModulationRows(const kb::harness::Case& c, bool per_token) {
  return per_token ? Rows(c) : static_cast<double>(c.shape[0]);
}
