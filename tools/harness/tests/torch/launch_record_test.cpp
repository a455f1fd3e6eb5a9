// The launch recorder's paths that need no GPU: what it says when it cannot
// record, where the project's library comes from, and that CPU specs are
// never judged by provenance (it does not apply to them).
#include "kbuild/harness/launch_record.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "cpu_ops.h"
#include "kbuild/harness/op_test.h"

namespace kb::harness {
namespace {

TEST(LaunchRecorder, UnknownLibrarySaysProvenanceWasNotRecorded) {
  LaunchRecorder recorder("");
  const Provenance p = recorder.Finish();
  EXPECT_FALSE(p.recorded());
  EXPECT_TRUE(p.note.starts_with("provenance not recorded: the project's library is not known"))
      << p.note;
  EXPECT_EQ(ProvenanceProblem(p, false), "") << "not recorded never fails a case";
}

TEST(LaunchRecorder, ProjectLibraryComesFromTheEnvironmentFirst) {
  ::setenv("KBUILD_PROJECT_LIBRARY", "/opt/p/_ns_abc.so", 1);
  EXPECT_EQ(ProjectLibraryFor("_ns_abc::rms_norm"), "/opt/p/_ns_abc.so");
  ::unsetenv("KBUILD_PROJECT_LIBRARY");
  // Run by hand: the loaded object named after the namespace, if any.
  EXPECT_EQ(ProjectLibraryFor("_no_such_namespace_::rms_norm"), "");
  EXPECT_NE(ProjectLibraryFor("libc.so::x").find("libc.so"), std::string::npos);
  EXPECT_EQ(ProjectLibraryFor("no_namespace"), "");
}

TEST(LaunchRecorder, CpuSpecsRecordNothingAndNeverFailOnIt) {
  OpSpec spec;
  spec.op = "kbh_test::rms_norm";
  spec.device = at::kCPU;
  spec.cases = MakeCases({{7, 33}}, {at::kFloat});
  spec.make_args = [](ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Output(s), f.Input(s), f.Param({s[1]}), 1e-6};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{
        testing::RmsNormReference(a[1].toTensor(), a[2].toTensor(), a[3].toDouble())};
  };
  const OpReport report = CheckOp(spec);
  ASSERT_EQ(report.records.size(), 1u);
  EXPECT_TRUE(report.passed()) << report.Describe();
  EXPECT_FALSE(report.records[0].provenance.recorded());
  EXPECT_EQ(report.records[0].provenance.note, "");
}

}  // namespace
}  // namespace kb::harness
