// GoogleTest glue for CheckOp: one line per op test.
//
//   KB_OP_TEST(RmsNorm, Bf16AndFp32, MakeRmsNormSpec());
//   TEST(BadKernels, SkipsLast) { kb::harness::ExpectOpFails(spec, {FailReason::kUnwritten}); }
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "kbuild/harness/check_op.h"

namespace kb::harness {

inline void ExpectOpPasses(const OpSpec& spec) {
  OpReport report = CheckOp(spec);
  EXPECT_TRUE(report.passed()) << report.Describe();
  bool all_skipped = !report.records.empty();
  for (const TestRecord& r : report.records) all_skipped = all_skipped && r.skipped;
  if (all_skipped) GTEST_SKIP() << report.Describe();
}

// The harness must catch a wrong op: at least one case fails, and every
// failure has one of the expected reasons (a bad kernel caught for the wrong
// reason points at a harness bug).
inline void ExpectOpFails(const OpSpec& spec, std::initializer_list<FailReason> reasons) {
  OpReport report = CheckOp(spec);
  int failures = 0;
  for (const TestRecord& r : report.records) {
    if (r.passed()) continue;
    ++failures;
    bool expected = false;
    for (FailReason reason : reasons) expected = expected || r.reason == reason;
    EXPECT_TRUE(expected) << "[" << r.case_name
                          << "] failed for an unexpected reason: " << FailReasonName(r.reason)
                          << ": " << r.message;
  }
  EXPECT_GT(failures, 0) << "the harness passed a deliberately wrong op:\n" << report.Describe();
}

}  // namespace kb::harness

#define KB_OP_TEST(suite, name, spec_expr) \
  TEST(suite, name) { ::kb::harness::ExpectOpPasses(spec_expr); }
