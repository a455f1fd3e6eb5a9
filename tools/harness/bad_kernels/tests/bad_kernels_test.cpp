// Each deliberately wrong op must FAIL the harness for the right reason; the
// correct op must pass. Runs on the GPU machine (one H200).
#include <ATen/ATen.h>

#include "copy_spec.h"
#include "kbuild/harness/op_test.h"
#include "rms_norm_spec.h"

namespace {

using kb::harness::FailReason;
using kb::harness::OpSpec;

// Odd sizes, one element, hidden % 4 != 0, and aligned sizes for contrast.
std::vector<std::vector<int64_t>> Shapes() {
  return {{1, 1}, {7, 33}, {3, 4097}, {19, 111}, {64, 4096}};
}

OpSpec RmsNormSpec(const std::string& op) {
  auto cases = kb::harness::MakeCases(Shapes(), {at::kFloat});
  for (auto& c : kb::harness::MakeCases({{7, 33}}, {at::kFloat}, {.offset_view = true}))
    cases.push_back(c);
  return bad_kernels_tests::RmsNormSpec(op, std::move(cases));
}

KB_OP_TEST(GoodKernels, RmsNormPasses, RmsNormSpec("rms_norm"));

TEST(GoodKernels, RmsNormRejectsNonContiguous) {
  OpSpec spec = RmsNormSpec("rms_norm");
  spec.cases = kb::harness::MakeCases({{4, 64}}, {at::kFloat},
                                      {.non_contiguous = true, .expects_rejection = true});
  kb::harness::ExpectOpPasses(spec);
}

TEST(GoodKernels, CopyPasses) {
  auto cases = kb::harness::MakeCases({{1}, {33}, {4097}, {1 << 20}}, {at::kFloat});
  for (auto& c : kb::harness::MakeCases({{4097}}, {at::kFloat}, {.offset_view = true}))
    cases.push_back(c);
  kb::harness::ExpectOpPasses(bad_kernels_tests::CopySpec("copy", std::move(cases)));
}

TEST(BadKernels, SkipsLastElement) {
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_skips_last"), {FailReason::kUnwritten});
}

TEST(BadKernels, MissesTailOnOddSizes) {
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_misses_tail"), {FailReason::kUnwritten});
}

TEST(BadKernels, SharedMemoryRaceWithoutBarrier) {
  // The racing read sees stale shared memory: a wrong sum, or a negative one whose rsqrt is NaN
  // (seen at 64x4096 on the H200, 2026-12-01).
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_shared_race"),
                             {FailReason::kMismatch, FailReason::kNonFinite});
}

TEST(BadKernels, ProducesNaN) {
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_nan"), {FailReason::kNonFinite});
}

TEST(BadKernels, WritesItsInput) {
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_writes_input"), {FailReason::kInputModified});
}

TEST(BadKernels, ReadsPastTheEndOnOddSizes) {
  // The last row pulls in the NaN guard; other rows pull in the next row's values.
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_reads_past_end"),
                             {FailReason::kNonFinite, FailReason::kMismatch});
}

TEST(BadKernels, WorksOnASideStreamWithoutJoining) {
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_side_stream"), {FailReason::kLateWrite});
}

TEST(BadKernels, ReturnsOutputCachedOnAnEarlierCall) {
  // Trial 1 computes honestly; fresh values in the reused buffer expose it.
  kb::harness::ExpectOpFails(RmsNormSpec("rms_norm_memoized"), {FailReason::kMismatch});
}

}  // namespace
