// The benchmark value check on CPU ops: the same code MeasureCase runs on the
// GPU before and after timing (reference or first baseline, poisoned
// outputs, pre-call values for InPlace args, fresh values in the same tensors).
#include "../../src/bench_value_check.h"

#include <gtest/gtest.h>

#include "cpu_ops.h"

namespace kb::harness {
namespace {

constexpr std::uint64_t kSeed = 11;

Case OneCase(at::ScalarType dtype = at::kBFloat16) { return MakeCases({{7, 33}}, {dtype}).front(); }

at::Tensor RmsNormOf(const Args& a) {
  return testing::RmsNormReference(a[1].toTensor(), a[2].toTensor(), a[3].toDouble());
}

BenchSpec RmsNormBench(const std::string& op) {
  BenchSpec spec;
  spec.op = "kbh_test::" + op;
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.reference = [](const Args& a) { return std::vector<at::Tensor>{RmsNormOf(a)}; };
  return spec;
}

BenchSpec BaselineOnly(BenchSpec spec) {
  spec.reference = nullptr;
  spec.baselines = {{"eager", [](const Args& a) {
                       const at::Tensor out = a[0].toTensor();
                       out.copy_(RmsNormOf(a));
                       return std::vector<at::Tensor>{out};
                     }}};
  return spec;
}

// One value check on fresh CPU args; the problem ("" when right).
struct Checked {
  Args args;
  ValueCheck check;
};
Checked Check(const BenchSpec& spec, const Case& c = OneCase()) {
  std::string error;
  std::optional<OpHandle> op = OpHandle::Find(spec.op, &error);
  EXPECT_TRUE(op) << error;
  ArgFactory factory(c, at::kCPU, kSeed);
  Checked checked{spec.make_args(factory), {}};
  const Tolerance tolerance = DefaultTolerance(ToDType(c.dtype));
  checked.check = CheckValues(spec, *op, checked.args, ArgRoles(checked.args, factory), tolerance,
                              "before timing");
  return checked;
}

TEST(BenchValueCheck, CorrectOpPassesAgainstTheReference) {
  Checked checked = Check(RmsNormBench("rms_norm"));
  EXPECT_EQ(checked.check.problem, "");
  EXPECT_GT(checked.check.worst.max_abs_error, 0) << "bf16 rounding must show up";
  EXPECT_LT(checked.check.worst.rel_l2_error, 1e-2);
}

TEST(BenchValueCheck, CorrectOpPassesAgainstTheFirstBaseline) {
  EXPECT_EQ(Check(BaselineOnly(RmsNormBench("rms_norm"))).check.problem, "");
}

TEST(BenchValueCheck, UnwrittenElementFailsBecauseOutputsArePoisoned) {
  const std::string problem = Check(RmsNormBench("skips_last")).check.problem;
  EXPECT_EQ(problem.rfind("incorrect (unwritten) before timing, checked against the reference: "
                          "1 of 231 elements of 'out' were never written (first at element 230",
                          0),
            0u)
      << problem;
  EXPECT_NE(problem.find("\nhint: "), std::string::npos);
}

TEST(BenchValueCheck, NaNFailsAgainstABaseline) {
  const std::string problem = Check(BaselineOnly(RmsNormBench("nan"))).check.problem;
  EXPECT_EQ(problem.rfind("incorrect (nonfinite) before timing, checked against the baseline "
                          "'eager': 1 elements of 'out' are NaN/Inf",
                          0),
            0u)
      << problem;
}

TEST(BenchValueCheck, WrongValuesFailWithTheFirstMismatch) {
  BenchSpec spec = RmsNormBench("rms_norm");
  spec.reference = [](const Args& a) { return std::vector<at::Tensor>{RmsNormOf(a) * 2}; };
  const std::string problem = Check(spec).check.problem;
  EXPECT_EQ(problem.rfind("incorrect (mismatch) before timing", 0), 0u) << problem;
  EXPECT_NE(problem.find(" of [7, 33], row-major): got "), std::string::npos) << problem;
}

TEST(BenchValueCheck, ReturnedTensorsAreCompared) {
  BenchSpec spec;
  spec.op = "kbh_test::rms_norm_returning";
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{
        testing::RmsNormReference(a[0].toTensor(), a[1].toTensor(), a[2].toDouble())};
  };
  EXPECT_EQ(Check(spec).check.problem, "");
  spec.reference = [](const Args& a) { return std::vector<at::Tensor>{a[0].toTensor()}; };
  EXPECT_EQ(Check(spec).check.problem.rfind("incorrect (mismatch)", 0), 0u);
}

// residual += x: the reference and the baseline must see residual before the call.
BenchSpec AddInPlace() {
  BenchSpec spec;
  spec.op = "kbh_test::add_in_place";
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.InPlace(s), f.Input(s)};
  };
  return spec;
}

TEST(BenchValueCheck, InPlaceArgsAreSeenBeforeTheCall) {
  BenchSpec spec = AddInPlace();
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{a[0].toTensor() + a[1].toTensor()};
  };
  EXPECT_EQ(Check(spec, OneCase(at::kFloat)).check.problem, "");
  spec.reference = nullptr;
  spec.baselines = {{"add_", [](const Args& a) {
                       return std::vector<at::Tensor>{a[0].toTensor().add_(a[1].toTensor())};
                     }}};
  Checked checked = Check(spec, OneCase(at::kFloat));
  EXPECT_EQ(checked.check.problem, "") << "the baseline ran on copies, the op once on the args";
}

TEST(BenchValueCheck, AWrongNumberOfExpectedTensorsIsASpecError) {
  BenchSpec spec = RmsNormBench("rms_norm");
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{RmsNormOf(a), RmsNormOf(a)};
  };
  const std::string problem = Check(spec).check.problem;
  EXPECT_EQ(problem.rfind("incorrect (spec_error) before timing", 0), 0u) << problem;
  EXPECT_NE(problem.find("hint: return one per Output/InPlace arg"), std::string::npos);
}

TEST(BenchValueCheck, ASpecWithNothingToCheckAgainstIsAnError) {
  BenchSpec spec = RmsNormBench("rms_norm");
  EXPECT_EQ(ValueCheckSpecProblem(spec), "");
  EXPECT_EQ(CheckedAgainst(spec), "reference");
  EXPECT_EQ(CheckedAgainst(BaselineOnly(spec)), "baseline 'eager'");
  spec.reference = nullptr;
  EXPECT_NE(ValueCheckSpecProblem(spec).find("no reference and no baseline"), std::string::npos);
  EXPECT_NE(ValueCheckSpecProblem(spec).find("hint: "), std::string::npos);
}

TEST(BenchValueCheck, FreshValuesInTheSameTensorsCatchACachedResult) {
  const BenchSpec spec = RmsNormBench("cached");
  std::string error;
  const OpHandle op = *OpHandle::Find(spec.op, &error);
  const Case c = MakeCases({{5, 17}}, {at::kFloat}).front();  // a shape no other test caches
  ArgFactory factory(c, at::kCPU, kSeed);
  const Args args = spec.make_args(factory);
  const std::vector<Role> roles = ArgRoles(args, factory);
  const void* out_data = args[0].toTensor().data_ptr();
  BenchRecord record;
  EXPECT_TRUE(RecordValueCheck(spec, op, c, args, roles, std::nullopt, &record));
  EXPECT_FALSE(RecordValueCheck(spec, op, c, args, roles, kSeed + 1, &record));
  EXPECT_EQ(args[0].toTensor().data_ptr(), out_data) << "fresh values go into the same tensors";
  ASSERT_EQ(record.problems.size(), 1u);
  EXPECT_EQ(record.problems[0].rfind("incorrect (mismatch) after timing, checked against the "
                                     "reference",
                                     0),
            0u)
      << record.problems[0];
  EXPECT_EQ(record.checked_against, "reference");
  EXPECT_GT(record.check_ms, 0);
  EXPECT_GT(record.check_rel_l2_error, 0.1) << "the worse of the two checks is kept";
}

TEST(BenchValueCheck, TheCasesToleranceWinsThenTheSpecsThenTheDtypeDefault) {
  BenchSpec spec = RmsNormBench("rms_norm");
  Case c = OneCase(at::kBFloat16);
  EXPECT_EQ(BenchTolerance(spec, c).rtol, DefaultTolerance(DType::kBFloat16).rtol);
  spec.tolerance = Tolerance{1e-4, 2e-4};
  EXPECT_EQ(BenchTolerance(spec, c).rtol, 2e-4);
  c.tolerance = Tolerance{3e-3, 5e-3};
  EXPECT_EQ(BenchTolerance(spec, c).rtol, 5e-3);
  EXPECT_EQ(BenchTolerance(spec, c).atol, 3e-3);
}

TEST(BenchValueCheck, PoisonOnDeviceWritesThePattern) {
  at::Tensor t = at::zeros({3, 5}, at::kHalf);
  PoisonOnDevice(t);
  const PoisonPattern p = PoisonFor(DType::kFloat16, 2);
  EXPECT_EQ(ScanPoison(t.data_ptr(), 15, p).count, 15);
}

}  // namespace
}  // namespace kb::harness
