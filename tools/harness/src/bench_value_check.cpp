#include "bench_value_check.h"

#include <chrono>
#include <sstream>

#include "kbuild/harness/case.h"
#include "kbuild/harness/device_compare.h"
#include "kbuild/harness/reference_case.h"
#include "kbuild/harness/results.h"
#include "problem_text.h"

namespace kb::harness {

namespace {

PoisonPattern PoisonOf(const at::Tensor& t) {
  return PoisonFor(ToDType(t.scalar_type()), t.element_size());
}

// Elements of `t` still holding the output poison (flat, row-major index).
PoisonScan ScanPoisonOnDevice(const at::Tensor& t) {
  PoisonScan scan;
  const std::optional<PatternBits> bits = IntegerBitsOf(PoisonOf(t));
  if (!bits || t.numel() == 0) return scan;
  const at::Tensor hits = t.view(bits->dtype).eq(bits->value);
  const at::Tensor both = at::stack({hits.sum(), hits.to(at::kByte).argmax()}).cpu();
  scan.count = both[0].item<std::int64_t>();
  if (scan.count > 0) scan.first_index = both[1].item<std::int64_t>();
  return scan;
}

struct Compared {
  std::string label;
  at::Tensor got;
};

}  // namespace

std::string ValueCheckSpecProblem(const BenchSpec& spec) {
  if (spec.reference || !spec.baselines.empty()) return "";
  return "the spec has no reference and no baseline, so nothing checks the benchmarked "
         "values\nhint: set spec.reference (as for CheckOp) or add a baseline that returns the "
         "compared tensors (benchmark.h)";
}

Tolerance BenchTolerance(const BenchSpec& spec, const Case& c) {
  return c.tolerance.value_or(spec.tolerance.value_or(DefaultTolerance(ToDType(c.dtype))));
}

std::string CheckedAgainst(const BenchSpec& spec) {
  if (spec.reference) return "reference";
  if (spec.baselines.empty()) return "";
  return "baseline '" + spec.baselines.front().name + "'";
}

std::vector<Role> ArgRoles(const Args& args, const ArgFactory& factory) {
  std::vector<Role> roles;
  for (const c10::IValue& arg : args) {
    const MadeTensor* made = arg.isTensor() ? factory.Find(arg.toTensor()) : nullptr;
    roles.push_back(made ? made->role : Role::kInput);
  }
  return roles;
}

Args DeviceReferenceArgs(const Args& args, const std::vector<Role>& roles) {
  Args ref;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isTensor()) {
      ref.push_back(args[i]);
      continue;
    }
    const at::Tensor& t = args[i].toTensor();
    at::Tensor copy = at::isFloatingType(t.scalar_type())
                          ? t.to(at::kDouble, /*non_blocking=*/false, /*copy=*/true).contiguous()
                          : t.clone(at::MemoryFormat::Contiguous);
    if (roles[i] == Role::kOutput) copy.zero_();
    ref.push_back(copy);
  }
  return ref;
}

Args ArgCopies(const Args& args) {
  Args copies;
  for (const c10::IValue& arg : args) {
    copies.push_back(arg.isTensor() ? c10::IValue(arg.toTensor().clone()) : arg);
  }
  return copies;
}

void PoisonOnDevice(const at::Tensor& t) { FillPattern(t, PoisonOf(t)); }

void CopyValuesInto(const Args& timed, const Args& fresh) {
  for (std::size_t i = 0; i < timed.size() && i < fresh.size(); ++i) {
    if (timed[i].isTensor() && fresh[i].isTensor()) timed[i].toTensor().copy_(fresh[i].toTensor());
  }
}

ValueCheck CheckValues(const BenchSpec& spec, const OpHandle& op, const Args& args,
                       const std::vector<Role>& roles, Tolerance tolerance,
                       const std::string& when) {
  ValueCheck check;
  auto fail = [&](FailReason reason, const std::string& message) {
    check.problem = "incorrect (" + std::string(FailReasonName(reason)) + ") " + when +
                    ", checked against the " + CheckedAgainst(spec) + ": " + message;
    return check;
  };
  // What the op must produce, computed first: the op has not touched the args yet.
  std::vector<at::Tensor> wanted;
  try {
    wanted = spec.reference ? spec.reference(DeviceReferenceArgs(args, roles))
                            : spec.baselines.front().run(ArgCopies(args));
  } catch (const std::exception& e) {
    return fail(FailReason::kSpecError,
                "the " + CheckedAgainst(spec) + " threw: " + FirstLine(e.what()) +
                    "\nhint: the reference gets float64 copies on the benchmark's device; "
                    "use device-agnostic ATen ops");
  }
  std::vector<Compared> compared;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (roles[i] == Role::kOutput) PoisonOnDevice(args[i].toTensor());
    if (roles[i] == Role::kOutput || roles[i] == Role::kInPlace)
      compared.push_back({op.ArgName(i), args[i].toTensor()});
  }
  try {
    const std::vector<c10::IValue> returns = op.Call(args);
    for (std::size_t i = 0; i < returns.size(); ++i) {
      if (returns[i].isTensor())
        compared.push_back({"return " + std::to_string(i), returns[i].toTensor()});
    }
  } catch (const std::exception& e) {
    return fail(FailReason::kWrongRejection, "the op threw: " + FirstLine(e.what()));
  }
  if (wanted.size() != compared.size()) {
    return fail(FailReason::kSpecError,
                "got " + std::to_string(wanted.size()) + " tensors to compare with " +
                    std::to_string(compared.size()) +
                    " compared ones\nhint: return one per Output/InPlace arg, then one per "
                    "tensor the op returns");
  }
  for (std::size_t k = 0; k < compared.size(); ++k) {
    const at::Tensor& got = compared[k].got;
    const std::string& label = compared[k].label;
    auto at_element = [&](std::int64_t index) {
      return " (first at element " + std::to_string(index) + " of " + ShapeText(got.sizes()) +
             ", row-major)";
    };
    if (got.sizes() != wanted[k].sizes()) {
      return fail(FailReason::kSpecError, label + " has shape " + ShapeText(got.sizes()) +
                                              ", the expected values " +
                                              ShapeText(wanted[k].sizes()));
    }
    if (PoisonScan scan = ScanPoisonOnDevice(got); scan.count > 0) {
      return fail(FailReason::kUnwritten,
                  std::to_string(scan.count) + " of " + std::to_string(got.numel()) +
                      " elements of " + label + " were never written" +
                      at_element(scan.first_index) +
                      "\nhint: every call must write every output element, whatever the "
                      "shape or how often the op ran before");
    }
    const ErrorStats stats = CompareOnDevice(got, wanted[k].to(got.device()), tolerance);
    check.worst.max_abs_error = std::max(check.worst.max_abs_error, stats.max_abs_error);
    check.worst.rel_l2_error = std::max(check.worst.rel_l2_error, stats.rel_l2_error);
    std::ostringstream msg;
    if (stats.nonfinite > 0) {
      msg << stats.nonfinite << " elements of " << label << " are NaN/Inf where the expected "
          << "values are not" << at_element(stats.first_nonfinite)
          << "\nhint: look for overflow or uninitialized reads on large shapes";
      return fail(FailReason::kNonFinite, msg.str());
    }
    if (stats.mismatches > 0) {
      msg << stats.mismatches << " of " << got.numel() << " elements of " << label
          << " are outside atol=" << tolerance.atol << " rtol=" << tolerance.rtol
          << at_element(stats.first_mismatch) << ": got " << stats.first_got << ", want "
          << stats.first_want << "; max abs error " << stats.max_abs_error << ", rel L2 "
          << stats.rel_l2_error
          << "\nhint: a result must not depend on the call count, the pointers or the shape";
      return fail(FailReason::kMismatch, msg.str());
    }
  }
  return check;
}

bool RecordValueCheck(const BenchSpec& spec, const OpHandle& op, const Case& c, const Args& args,
                      const std::vector<Role>& roles, std::optional<std::uint64_t> fresh_seed,
                      BenchRecord* record) {
  const auto start = std::chrono::steady_clock::now();
  if (fresh_seed) {
    ArgFactory factory(c,
                       args.empty() || !args.front().isTensor() ? at::Device(at::kCUDA)
                                                                : args.front().toTensor().device(),
                       *fresh_seed);
    CopyValuesInto(args, spec.make_args(factory));
  }
  const Tolerance tolerance = BenchTolerance(spec, c);
  ValueCheck check;
  try {
    const ReferenceCaseScope scope(c);  // RoundToCaseDtype in the reference
    check = CheckValues(spec, op, args, roles, tolerance,
                        fresh_seed ? "after timing" : "before timing");
  } catch (const std::exception& e) {  // a CUDA error surfacing in the comparison
    check.problem = "the value check failed: " + FirstLine(e.what());
  }
  record->checked_against = CheckedAgainst(spec);
  record->check_max_abs_error = std::max(record->check_max_abs_error, check.worst.max_abs_error);
  record->check_rel_l2_error = std::max(record->check_rel_l2_error, check.worst.rel_l2_error);
  record->check_ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!check.problem.empty()) record->problems.push_back(check.problem);
  return check.problem.empty();
}

}  // namespace kb::harness
