// CheckOp against CPU ops: the correctness logic (poison, guards, hashes,
// rejection, reference compare) is the same code the GPU path runs.
#include <gtest/gtest.h>

#include "cpu_ops.h"
#include "kbuild/harness/op_test.h"

namespace kb::harness {
namespace {

OpSpec RmsNormSpec(const std::string& op, std::vector<Case> cases = {}) {
  OpSpec spec;
  spec.op = "kbh_test::" + op;
  spec.device = at::kCPU;
  spec.cases = cases.empty()
                   ? MakeCases({{1, 1}, {7, 33}, {3, 4097}}, {at::kFloat, at::kBFloat16, at::kHalf})
                   : std::move(cases);
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{
        testing::RmsNormReference(a[1].toTensor(), a[2].toTensor(), a[3].toDouble())};
  };
  return spec;
}

FailReason OnlyFailure(const OpReport& report) {
  for (const TestRecord& r : report.records) {
    if (!r.passed()) return r.reason;
  }
  return FailReason::kNone;
}

KB_OP_TEST(CheckOpCpu, CorrectOpPasses, RmsNormSpec("rms_norm"));

TEST(CheckOpCpu, PassRecordsErrorsTrialsAndSeed) {
  OpReport report = CheckOp(RmsNormSpec("rms_norm", MakeCases({{7, 33}}, {at::kBFloat16})));
  ASSERT_EQ(report.records.size(), 1u);
  const TestRecord& r = report.records[0];
  EXPECT_TRUE(r.passed()) << r.message;
  EXPECT_EQ(r.trials, 3);
  EXPECT_EQ(r.case_name, "7x33 bf16");
  EXPECT_EQ(r.op, "kbh_test::rms_norm");
  EXPECT_GT(r.max_abs_error, 0) << "bf16 rounding must show up as error";
  EXPECT_LT(r.rel_l2_error, 1e-2);
  EXPECT_EQ(r.tolerance.rtol, 1.6e-2);
}

TEST(CheckOpCpu, OffsetViewsPass) {
  ExpectOpPasses(
      RmsNormSpec("rms_norm", MakeCases({{5, 1025}}, {at::kHalf}, {.offset_view = true})));
}

TEST(CheckOpCpu, ExpectedRejectionPasses) {
  OpReport report = CheckOp(RmsNormSpec(
      "rms_norm",
      MakeCases({{4, 64}}, {at::kFloat}, {.non_contiguous = true, .expects_rejection = true})));
  ASSERT_TRUE(report.passed()) << report.Describe();
  EXPECT_EQ(report.records[0].message, "rejected as expected: rms_norm: x must be contiguous");
  EXPECT_EQ(report.records[0].trials, 1);
}

TEST(CheckOpCpu, UnexpectedRejectionFails) {
  OpReport report = CheckOp(
      RmsNormSpec("rms_norm", MakeCases({{4, 64}}, {at::kFloat}, {.non_contiguous = true})));
  EXPECT_EQ(OnlyFailure(report), FailReason::kWrongRejection);
  EXPECT_EQ(
      report.records[0].message,
      "the op threw on a case it must accept: rms_norm: x must be contiguous\nhint: support this "
      "layout/dtype, or mark the case expects_rejection\n(trial 1, seed " +
          std::to_string(report.records[0].seed) + ")");
}

TEST(CheckOpCpu, NonContiguousHandledPasses) {
  ExpectOpPasses(
      RmsNormSpec("any_layout", MakeCases({{3, 4097}}, {at::kFloat}, {.non_contiguous = true})));
}

TEST(CheckOpCpu, AcceptingARejectCaseFails) {
  OpReport report = CheckOp(RmsNormSpec(
      "any_layout",
      MakeCases({{4, 64}}, {at::kFloat}, {.non_contiguous = true, .expects_rejection = true})));
  EXPECT_EQ(OnlyFailure(report), FailReason::kNotRejected);
}

TEST(CheckOpCpu, SkippedLastElementIsUnwritten) {
  OpReport report = CheckOp(RmsNormSpec("skips_last", MakeCases({{7, 33}}, {at::kBFloat16})));
  ASSERT_EQ(OnlyFailure(report), FailReason::kUnwritten);
  const TestRecord& r = report.records[0];
  EXPECT_EQ(r.unwritten, 1);
  EXPECT_EQ(r.first_unwritten, 7 * 33 - 1);
  EXPECT_EQ(r.trials, 1);
  EXPECT_EQ(r.message.substr(0, r.message.find('\n')),
            "1 of 231 elements of 'out' were never written (first at [6, 32])");
}

// Right at magnitude 1 (eps is a 1e-6 nudge), off by ~10x at kTinyMagnitude.
TEST(CheckOpCpu, TinyInputsCatchANormThatIgnoresEps) {
  ExpectOpPasses(RmsNormSpec("ignores_eps", MakeCases({{7, 33}, {3, 4097}}, {at::kFloat})));
  ExpectOpFails(RmsNormSpec("ignores_eps", MakeCases({{7, 33}, {3, 4097}}, {at::kFloat},
                                                     {.magnitude = kTinyMagnitude})),
                {FailReason::kMismatch});
}

TEST(CheckOpCpu, NaNFails) {
  OpReport report = CheckOp(RmsNormSpec("nan", MakeCases({{3, 8}}, {at::kFloat})));
  ASSERT_EQ(OnlyFailure(report), FailReason::kNonFinite);
  const std::string& m = report.records[0].message;
  EXPECT_EQ(m.substr(0, m.find(", want")),
            "1 elements of 'out' are NaN/Inf where the reference is not (first at [1, 4]: got nan");
}

TEST(CheckOpCpu, ModifiedInputFails) {
  OpReport report = CheckOp(RmsNormSpec("writes_input", MakeCases({{2, 16}}, {at::kFloat})));
  ASSERT_EQ(OnlyFailure(report), FailReason::kInputModified);
  EXPECT_EQ(report.records[0].message.substr(0, report.records[0].message.find('\n')),
            "the op changed input 'x' (or the guard bytes around it)");
}

TEST(CheckOpCpu, CachedOutputFailsOnALaterTrial) {
  OpReport report = CheckOp(RmsNormSpec("cached", MakeCases({{4, 32}}, {at::kFloat})));
  ASSERT_EQ(OnlyFailure(report), FailReason::kMismatch);
  EXPECT_EQ(report.records[0].trials, 2) << "trial 1 computes honestly, trial 2 sees fresh inputs";
}

TEST(CheckOpCpu, WriteOutsideOutputFails) {
  ExpectOpFails(RmsNormSpec("writes_past_end", MakeCases({{3, 5}}, {at::kFloat})),
                {FailReason::kOutOfBounds});
}

TEST(CheckOpCpu, ReadPastEndHitsTheNaNGuard) {
  ExpectOpFails(RmsNormSpec("reads_past_end", MakeCases({{3, 7}}, {at::kFloat})),
                {FailReason::kNonFinite});
}

TEST(CheckOpCpu, ReturnedTensorsAreCompared) {
  OpSpec spec = RmsNormSpec("rms_norm_returning");
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{
        testing::RmsNormReference(a[0].toTensor(), a[1].toTensor(), a[2].toDouble())};
  };
  ExpectOpPasses(spec);
  spec.reference = [](const Args& a) { return std::vector<at::Tensor>{a[0].toTensor()}; };
  EXPECT_EQ(OnlyFailure(CheckOp(spec)), FailReason::kMismatch);
}

TEST(CheckOpCpu, InPlaceArgsAreComparedNotHashed) {
  OpSpec spec;
  spec.op = "kbh_test::add_in_place";
  spec.device = at::kCPU;
  spec.cases = MakeCases({{5, 9}}, {at::kFloat, at::kBFloat16}, {.offset_view = true});
  spec.make_args = [](ArgFactory& f) {
    return Args{f.InPlace(f.test_case().shape), f.Input(f.test_case().shape)};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{a[0].toTensor() + a[1].toTensor()};
  };
  ExpectOpPasses(spec);
  // Declared as a plain input, the same update is a modified input.
  spec.make_args = [](ArgFactory& f) {
    return Args{f.Input(f.test_case().shape), f.Input(f.test_case().shape)};
  };
  spec.reference = [](const Args&) { return std::vector<at::Tensor>{}; };
  EXPECT_EQ(OnlyFailure(CheckOp(spec)), FailReason::kInputModified);
}

TEST(CheckOpCpu, UnknownOpIsASpecError) {
  OpReport report = CheckOp(RmsNormSpec("no_such_op"));
  ASSERT_EQ(report.records.size(), 1u);
  EXPECT_EQ(report.records[0].reason, FailReason::kSpecError);
  EXPECT_EQ(report.records[0].message,
            "op 'kbh_test::no_such_op' is not registered with the dispatcher\nhint: check the name "
            "against TORCH_LIBRARY's ops.def(...), and that the project's library is linked with "
            "-Wl,--no-as-needed (its registration runs only when it is loaded)");
}

TEST(CheckOpCpu, OpWithoutNamespaceIsASpecError) {
  OpSpec spec = RmsNormSpec("rms_norm");
  spec.op = ProjectOp("rms_norm");  // no TORCH_EXTENSION_NAME in this target
  OpReport report = CheckOp(spec);
  EXPECT_EQ(report.records[0].reason, FailReason::kSpecError);
  EXPECT_EQ(report.records[0].message.substr(0, 30), "op 'rms_norm' has no namespace");
}

TEST(CheckOpCpu, WrongReferenceCountIsASpecError) {
  OpSpec spec = RmsNormSpec("rms_norm", MakeCases({{2, 4}}, {at::kFloat}));
  spec.reference = [](const Args&) { return std::vector<at::Tensor>{}; };
  EXPECT_EQ(OnlyFailure(CheckOp(spec)), FailReason::kSpecError);
}

}  // namespace
}  // namespace kb::harness
