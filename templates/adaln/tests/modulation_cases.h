// The modulation layouts the DiT ops' tests put through each op: per sample
// ([b, hidden], [b, 1, hidden]), per token ([b, tokens, hidden]), LTX-Video's
// per-token views (a chunk of [b, tokens, 6, hidden], rows 6 * hidden apart)
// and one row broadcast to every sample; and the case lists both ops' tests
// share.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kbuild/harness/arg_factory.h"
#include "kbuild/harness/case.h"

// {rows, hidden} shapes of the harness (split rows, many rows, huge) as
// [1, rows, hidden].
inline std::vector<std::vector<int64_t>> AsOneSample(
    const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& s : shapes) out.push_back({1, s[0], s[1]});
  return out;
}

enum class Modulation {
  kSample,    // [b, hidden]
  kSample3d,  // [b, 1, hidden]
  kToken,     // [b, tokens, hidden]
  kChunk,     // [b, tokens, 6, hidden] with k selected: LTX-Video's per-token views
  kBroadcast  // [1, 1, hidden]
};

inline std::string ModulationName(Modulation m) {
  switch (m) {
    case Modulation::kSample:
      return "per sample";
    case Modulation::kSample3d:
      return "per sample [b, 1, hidden]";
    case Modulation::kToken:
      return "per token";
    case Modulation::kChunk:
      return "per token, chunks of [b, tokens, 6, hidden]";
    case Modulation::kBroadcast:
      return "one row for all";
  }
  return "?";
}

// A modulation tensor for x of shape s; `which` picks the chunk of the
// [b, tokens, 6, hidden] tensor (0: shift, 1: scale, 2: gate in LTX-Video).
inline at::Tensor MakeModulation(kb::harness::ArgFactory& f, const std::vector<int64_t>& s,
                                 Modulation m, at::ScalarType dtype, int64_t which) {
  switch (m) {
    case Modulation::kSample:
      return f.Param({s[0], s[2]}, dtype);
    case Modulation::kSample3d:
      return f.Param({s[0], 1, s[2]}, dtype);
    case Modulation::kToken:
      return f.Param({s[0], s[1], s[2]}, dtype);
    case Modulation::kChunk:
      return f.Param({s[0], s[1], 6, s[2]}, dtype).select(2, which);
    case Modulation::kBroadcast:
      return f.Param({1, 1, s[2]}, dtype);
  }
  return {};
}

// x one element past an aligned address (case.h's offset_view): rows
// misaligned for 16-byte vectors, the fresh output aligned.
inline std::vector<kb::harness::Case> OffsetViewCases() {
  return kb::harness::MakeCases({{2, 7, 2047}, {3, 65, 4096}, {2, 2049, 1024}},
                                {at::kBFloat16, at::kFloat}, {.offset_view = true});
}

// LTX-Video launches whose output fits in half of L2 and whose traffic does
// not, on the H100 (50 MB) and the H200 (60 MB): they take the evict-first kernels
// (common/launch.cuh's EvictReadsFirstPays), in bf16 and fp16.
inline std::vector<kb::harness::Case> EvictFirstCases() {
  return kb::harness::MakeCases({{1, 6144, 2048}, {2, 2688, 2048}}, {at::kBFloat16, at::kHalf});
}

// The grid limits (case.h) as one sample of many tokens: more than 65,535
// rows, and more than 2^31 elements (one case, ~95 GB of GPU memory).
inline std::vector<kb::harness::Case> GridLimitCases() {
  std::vector<kb::harness::Case> cases = kb::harness::MakeCases(
      AsOneSample(kb::harness::ManyRowShapes()), {at::kBFloat16, at::kFloat});
  for (auto& c : kb::harness::MakeCases(AsOneSample(kb::harness::HugeShapes()), {at::kBFloat16})) {
    cases.push_back(c);
  }
  return cases;
}
