#include "trial.h"

#include <cstring>
#include <sstream>

#include "bench_value_check.h"  // DeviceReferenceArgs, ArgRoles: one reference path
#include "chunked_compare.h"
#include "problem_text.h"
#include "kbuild/harness/cuda_sync.h"
#include "kbuild/harness/reference_case.h"

namespace kb::harness {

namespace {

// Always a fresh host copy (.cpu() on a CPU tensor would alias it).
at::Tensor HostCopy(const at::Tensor& t) {
  return t.to(at::kCPU, /*non_blocking=*/false, /*copy=*/true).contiguous();
}

std::uint64_t HashTensor(const at::Tensor& t) {
  at::Tensor host = HostCopy(t);
  return HashBytes(host.data_ptr(), host.nbytes());
}

bool SameBytes(const at::Tensor& a, const at::Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

std::string IndexText(std::int64_t flat, at::IntArrayRef shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t size = std::max<std::int64_t>(shape[d], 1);
    index[d] = flat % size;
    flat /= size;
  }
  std::ostringstream out;
  out << at::IntArrayRef(index);
  return out.str();
}

double ValueAt(const at::Tensor& t, std::int64_t flat) {
  return t.reshape({-1})[flat].item<double>();
}

struct Compared {
  std::string label;
  at::Tensor device_view;
  const MadeTensor* made = nullptr;  // null for returned tensors
  at::Tensor base_before;            // host copy of the guarded buffer before the call
};

TrialOutcome Fail(FailReason reason, std::string message) {
  TrialOutcome outcome;
  outcome.reason = reason;
  outcome.message = std::move(message);
  return outcome;
}

// Best effort against ops that return torch.empty memory: a freed block of
// the same size, filled with poison, is what the caching allocator hands out
// next, so unwritten elements of returned tensors show the poison too.
void PoisonAllocator(at::Device device,
                     const std::vector<std::pair<std::int64_t, at::ScalarType>>& sizes) {
  std::vector<at::Tensor> blocks;
  for (const auto& [numel, dtype] : sizes) {
    at::Tensor block = at::empty({numel}, at::TensorOptions().dtype(dtype).device(device));
    FillPattern(block, PoisonFor(ToDType(dtype), block.element_size()));
    blocks.push_back(block);
  }
}

// Changed bytes in the guard bands (the buffer outside the view).
bool GuardsChanged(const Compared& c) {
  at::Tensor before = c.base_before.clone();
  at::Tensor after = HostCopy(c.made->base);
  const at::Tensor& v = c.made->view;
  before.as_strided(v.sizes(), v.strides(), v.storage_offset()).zero_();
  after.as_strided(v.sizes(), v.strides(), v.storage_offset()).zero_();
  return !SameBytes(before, after);
}

}  // namespace

TrialOutcome RunTrial(const OpSpec& spec, const OpHandle& op, const Case& c, std::uint64_t seed,
                      Tolerance tolerance,
                      const std::vector<std::pair<std::int64_t, at::ScalarType>>& poison_sizes) {
  ArgFactory factory(c, spec.device, seed);
  Args args;
  try {
    args = spec.make_args(factory);
  } catch (const std::exception& e) {
    return Fail(FailReason::kSpecError, "make_args threw: " + FirstLine(e.what()) +
                                            "\nhint: fix the test's argument factory");
  }

  // Snapshots before the call.
  std::vector<std::pair<std::size_t, std::uint64_t>> input_hashes;
  std::vector<Compared> compared;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].isTensor()) continue;
    const at::Tensor& t = args[i].toTensor();
    const MadeTensor* made = factory.Find(t);
    if (made && (made->role == Role::kOutput || made->role == Role::kInPlace)) {
      compared.push_back({op.ArgName(i), t, made, HostCopy(made->base)});
    } else {
      input_hashes.push_back({i, HashTensor(made ? made->base : t)});
    }
  }
  // Pre-call values as float64 copies on the op's device (huge cases never
  // round-trip through the host; docs/harness.md).
  Args ref_args = DeviceReferenceArgs(args, ArgRoles(args, factory));

  PoisonAllocator(spec.device, poison_sizes);
  std::vector<c10::IValue> returns;
  try {
    returns = op.Call(args);
  } catch (const std::exception& e) {
    if (c.expects_rejection) {
      TrialOutcome outcome;
      outcome.rejected = true;
      outcome.message = "rejected as expected: " + FirstLine(e.what());
      return outcome;
    }
    return Fail(FailReason::kWrongRejection,
                "the op threw on a case it must accept: " + FirstLine(e.what()) +
                    "\nhint: support this layout/dtype, or mark the case expects_rejection");
  }
  const std::string cuda_hint =
      "\nhint: rerun this test under compute-sanitizer to find the faulting access; the CUDA "
      "context is now unusable, so later cases in this binary fail too";
  if (std::string err = SyncCurrentStream(spec.device); !err.empty()) {
    return Fail(FailReason::kCudaError, "CUDA error after the op: " + err + cuda_hint);
  }
  if (c.expects_rejection) {
    return Fail(FailReason::kNotRejected,
                "the op accepted a case it must reject (" + c.Name() +
                    ")\nhint: TORCH_CHECK the property in the binding and name the tensor");
  }

  TrialOutcome outcome;
  for (std::size_t i = 0; i < returns.size(); ++i) {
    if (!returns[i].isTensor()) continue;
    const at::Tensor& t = returns[i].toTensor();
    compared.push_back({"return " + std::to_string(i), t, nullptr, {}});
    outcome.returned.push_back({t.numel(), t.scalar_type()});
  }

  // Values as the caller's stream sees them, then again after every stream is done.
  std::vector<at::Tensor> seen;
  for (const Compared& cmp : compared) seen.push_back(HostCopy(cmp.device_view));
  if (std::string err = SyncDevice(spec.device); !err.empty()) {
    return Fail(FailReason::kCudaError, "CUDA error after the op: " + err + cuda_hint);
  }
  for (std::size_t k = 0; k < compared.size(); ++k) {
    if (!SameBytes(seen[k], HostCopy(compared[k].device_view))) {
      return Fail(
          FailReason::kLateWrite,
          compared[k].label +
              " changed after the caller's stream finished: the op works on another "
              "stream the current stream does not wait for\nhint: launch on "
              "at::cuda::getCurrentCUDAStream(), or make it wait on the side stream's event");
    }
  }
  for (const auto& [index, hash] : input_hashes) {
    const at::Tensor& t = args[index].toTensor();
    const MadeTensor* made = factory.Find(t);
    if (HashTensor(made ? made->base : t) != hash) {
      return Fail(FailReason::kInputModified,
                  "the op changed input " + op.ArgName(index) +
                      " (or the guard bytes around it)\nhint: inputs are read-only; if the op "
                      "updates it on purpose, make it with ArgFactory::InPlace; if not, look "
                      "for a store outside a tensor the op returns (returned tensors have no "
                      "guard bytes: a negative index or an overrun lands in a neighbour)");
    }
  }
  for (const Compared& cmp : compared) {
    if (cmp.made && GuardsChanged(cmp)) {
      return Fail(FailReason::kOutOfBounds,
                  "the op wrote outside " + cmp.label + " " + ShapeText(cmp.device_view.sizes()) +
                      "\nhint: bound every store by the tensor's size; check the tail block");
    }
  }
  for (std::size_t k = 0; k < compared.size(); ++k) {
    const at::Tensor& host = seen[k];
    PoisonScan scan = ScanPoison(host.data_ptr(), static_cast<std::size_t>(host.numel()),
                                 PoisonFor(ToDType(host.scalar_type()), host.element_size()));
    if (scan.count > 0) {
      outcome.reason = FailReason::kUnwritten;
      outcome.unwritten = scan;
      outcome.message = std::to_string(scan.count) + " of " + std::to_string(host.numel()) +
                        " elements of " + compared[k].label + " were never written (first at " +
                        IndexText(scan.first_index, host.sizes()) +
                        ")\nhint: handle the tail: sizes not divisible by the vector width, "
                        "the last element, the last row";
      return outcome;
    }
  }

  std::vector<at::Tensor> wanted;
  try {
    const ReferenceCaseScope scope(c);
    wanted = spec.reference(ref_args);
  } catch (const std::exception& e) {
    return Fail(FailReason::kSpecError,
                "the reference threw: " + FirstLine(e.what()) +
                    "\nhint: fix the test's reference function; its args are float64 tensors on "
                    "the op's device, so make new tensors with the args' options");
  }
  ref_args.clear();  // huge cases: free the float64 copies before comparing
  if (wanted.size() != compared.size()) {
    return Fail(FailReason::kSpecError,
                "the reference returned " + std::to_string(wanted.size()) + " tensors for " +
                    std::to_string(compared.size()) +
                    " compared ones\nhint: return one per Output/InPlace arg, then one per "
                    "tensor the op returns");
  }
  for (std::size_t k = 0; k < compared.size(); ++k) {
    const std::string& label = compared[k].label;
    // The device values equal seen[k]: the late-write check above proved it.
    const at::Tensor& got = compared[k].device_view;
    const at::Tensor want = wanted[k].to(got.device(), at::kDouble);
    wanted[k] = at::Tensor();
    if (got.sizes() != want.sizes()) {
      return Fail(FailReason::kMismatch, label + " has shape " + ShapeText(got.sizes()) +
                                             ", the reference " + ShapeText(want.sizes()) +
                                             "\nhint: check the output shape in the binding");
    }
    const std::int64_t n = got.numel();
    ErrorStats stats = CompareInChunks(got, want, tolerance);
    outcome.worst.max_abs_error = std::max(outcome.worst.max_abs_error, stats.max_abs_error);
    outcome.worst.rel_l2_error = std::max(outcome.worst.rel_l2_error, stats.rel_l2_error);
    std::ostringstream msg;
    if (stats.nonfinite > 0) {
      const std::int64_t i = stats.first_nonfinite;
      msg << stats.nonfinite << " elements of " << label << " are NaN/Inf where the reference is "
          << "not (first at " << IndexText(i, got.sizes()) << ": got " << ValueAt(seen[k], i)
          << ", want " << ValueAt(want, i)
          << ")\nhint: look for reads past the end (the harness surrounds inputs with NaN), "
             "division by zero, or overflow in fp16/bf16 accumulation";
      outcome.reason = FailReason::kNonFinite;
    } else if (stats.mismatches > 0) {
      msg << stats.mismatches << " of " << n << " elements of " << label
          << " are outside atol=" << tolerance.atol << " rtol=" << tolerance.rtol << " (first at "
          << IndexText(stats.first_mismatch, got.sizes()) << ": got " << stats.first_got
          << ", want " << stats.first_want << "); max abs error " << stats.max_abs_error
          << ", rel L2 " << stats.rel_l2_error
          << "\nhint: check accumulation precision (fp32), reductions across threads "
             "(barriers), and the tail";
      outcome.reason = FailReason::kMismatch;
    }
    if (outcome.reason != FailReason::kNone) {
      outcome.message = msg.str();
      return outcome;
    }
  }
  return outcome;
}

}  // namespace kb::harness
