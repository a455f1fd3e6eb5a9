#include "kbuild/harness/check_op.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "huge_case_memory.h"
#include "kbuild/harness/cuda_sync.h"
#include "kbuild/harness/launch_record.h"
#include "kbuild/harness/physics.h"
#include "trial.h"

namespace kb::harness {

namespace {

// Fixed by default so a failure reproduces; KBUILD_SEED explores others.
constexpr std::uint64_t kDefaultSeed = 20261130;

std::uint64_t BaseSeed() {
  if (auto text = ProcessEnvironment()("KBUILD_SEED"))
    return std::strtoull(text->c_str(), nullptr, 0);
  return kDefaultSeed;
}

TestRecord NewRecord(const OpSpec& spec, const Case& c) {
  TestRecord r;
  r.test = spec.test.empty() ? spec.op : spec.test;
  r.op = spec.op;
  r.case_name = c.Name();
  r.shape = c.shape;
  r.dtype = std::string(DTypeName(ToDType(c.dtype)));
  r.flags = c.Flags();
  r.tolerance = c.tolerance.value_or(spec.tolerance.value_or(DefaultTolerance(ToDType(c.dtype))));
  return r;
}

// Correct values from another library's kernel are not the project's kernel working.
void JudgeProvenance(const OpSpec& spec, TestRecord* r) {
  std::string problem = ProvenanceProblem(r->provenance, spec.wraps_library);
  if (problem.empty()) return;
  r->reason = FailReason::kNoProjectKernel;
  r->message = std::move(problem);
}

TestRecord CheckCase(const OpSpec& spec, const OpHandle& op, const Case& c,
                     std::uint64_t case_seed) {
  TestRecord r = NewRecord(spec, c);
  if (c.huge) {
    r.message = HugeCaseSkipReason(spec.device, c);
    r.skipped = !r.message.empty();
    if (r.skipped) return r;
  }
  // A huge case's trial takes tens of seconds: one is enough for indexing bugs.
  const int trials = c.huge ? 1 : std::max(spec.trials, 1);
  std::vector<std::pair<std::int64_t, at::ScalarType>> returned;
  for (int trial = 0; trial < trials; ++trial) {
    r.seed = case_seed + static_cast<std::uint64_t>(trial);
    r.trials = trial + 1;
    std::optional<LaunchRecorder> recorder;  // the first trial's op call; not on CPU
    if (trial == 0 && spec.device.is_cuda()) recorder.emplace(ProjectLibraryFor(spec.op));
    TrialOutcome outcome = RunTrial(spec, op, c, r.seed, r.tolerance, returned);
    if (recorder) r.provenance = recorder->Finish();
    r.max_abs_error = std::max(r.max_abs_error, outcome.worst.max_abs_error);
    r.rel_l2_error = std::max(r.rel_l2_error, outcome.worst.rel_l2_error);
    r.unwritten = outcome.unwritten.count;
    r.first_unwritten = outcome.unwritten.first_index;
    r.reason = outcome.reason;
    r.message = outcome.message;
    if (recorder && r.passed() && !outcome.rejected) JudgeProvenance(spec, &r);
    if (outcome.rejected || !r.passed()) break;  // a rejection answers the case
    returned = outcome.returned;
  }
  if (!r.passed())
    r.message += "\n(trial " + std::to_string(r.trials) + ", seed " + std::to_string(r.seed) + ")";
  return r;
}

void AppendToJsonFile(const TestRecord& record) {
  auto path = ProcessEnvironment()("KBUILD_TEST_JSON");
  std::string error;
  if (path && !AppendJsonLine(*path, ToJson(record), &error))
    std::cerr << "kbuild harness: " << error << "\n";
}

}  // namespace

bool OpReport::passed() const {
  for (const TestRecord& r : records) {
    if (!r.passed()) return false;
  }
  return !records.empty();
}

std::string OpReport::Describe() const {
  std::ostringstream out;
  for (const TestRecord& r : records) {
    out << (r.skipped    ? "SKIP "
            : r.passed() ? "PASS "
                         : "FAIL ")
        << r.op << " [" << r.case_name << "] max_abs " << r.max_abs_error << " rel_l2 "
        << r.rel_l2_error << " (atol " << r.tolerance.atol << " rtol " << r.tolerance.rtol
        << ") trials " << r.trials << " seed " << r.seed << "\n";
  }
  for (const TestRecord& r : records) {
    if (!r.passed() || r.skipped)
      out << r.op << " [" << r.case_name << "] "
          << (r.skipped ? "skipped" : FailReasonName(r.reason)) << ": " << r.message << "\n";
  }
  if (records.empty()) out << "no cases were checked\n";
  return out.str();
}

OpReport CheckOp(const OpSpec& spec) {
  OpReport report;
  std::string error;
  std::optional<OpHandle> op = OpHandle::Find(spec.op, &error);
  if (error.empty() && spec.cases.empty())
    error = "the spec has no cases\nhint: set spec.cases (see MakeCases)";
  if (error.empty() && (!spec.make_args || !spec.reference)) {
    error = "the spec needs make_args and reference\nhint: set both (see check_op.h)";
  }
  if (!error.empty()) {
    TestRecord r = NewRecord(spec, spec.cases.empty() ? Case{} : spec.cases[0]);
    r.reason = FailReason::kSpecError;
    r.message = error;
    report.records.push_back(r);
    AppendToJsonFile(r);
    return report;
  }
  const std::uint64_t base_seed = BaseSeed();
  ScopedHarnessStream stream(spec.device);
  for (std::size_t i = 0; i < spec.cases.size(); ++i) {
    // Cases get disjoint seed ranges so no two trials see the same inputs.
    report.records.push_back(CheckCase(spec, *op, spec.cases[i], base_seed + 1000003ull * i));
    AppendToJsonFile(report.records.back());
  }
  return report;
}

}  // namespace kb::harness
