#include "kbuild/harness/arg_factory.h"

#include <ATen/CPUGeneratorImpl.h>

#include "kbuild/harness/element_checks.h"

namespace kb::harness {

namespace {

// 256 bytes keeps the view's start as aligned as the allocator's block
// (unless the case asks for an offset) and is wider than any vector load.
constexpr std::int64_t kGuardBytes = 256;

std::vector<std::int64_t> ContiguousStrides(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<std::int64_t>(shape[i], 1);
  return strides;
}

}  // namespace

at::Tensor PoisonedCpuBuffer(std::int64_t count, at::ScalarType dtype, bool guard) {
  at::Tensor buffer = at::empty({count}, at::TensorOptions().dtype(dtype));
  const DType d = ToDType(dtype);
  FillPoison(buffer.data_ptr(), static_cast<std::size_t>(count),
             guard ? GuardFor(d, buffer.element_size()) : PoisonFor(d, buffer.element_size()));
  return buffer;
}

ArgFactory::ArgFactory(const Case& c, at::Device device, std::uint64_t seed)
    : case_(c), device_(device), generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

at::Tensor ArgFactory::Input(at::IntArrayRef shape, std::optional<at::ScalarType> dtype) {
  return Make(shape, dtype, Role::kInput);
}
at::Tensor ArgFactory::Param(at::IntArrayRef shape, std::optional<at::ScalarType> dtype) {
  return Make(shape, dtype, Role::kParam);
}
at::Tensor ArgFactory::Output(at::IntArrayRef shape, std::optional<at::ScalarType> dtype) {
  return Make(shape, dtype, Role::kOutput);
}
at::Tensor ArgFactory::InPlace(at::IntArrayRef shape, std::optional<at::ScalarType> dtype) {
  return Make(shape, dtype, Role::kInPlace);
}

at::Tensor ArgFactory::Make(at::IntArrayRef shape_ref, std::optional<at::ScalarType> dtype_opt,
                            Role role) {
  const at::ScalarType dtype = dtype_opt.value_or(case_.dtype);
  const std::vector<std::int64_t> shape = shape_ref.vec();
  const bool follows_case = role != Role::kParam;
  const bool strided =
      case_.non_contiguous && !shape.empty() && (role == Role::kInput || role == Role::kInPlace);

  // Non-contiguous: the view takes every other element of a buffer twice as wide.
  std::vector<std::int64_t> wide = shape;
  if (strided) wide.back() *= 2;
  std::vector<std::int64_t> strides = ContiguousStrides(wide);
  if (strided) strides.back() = 2;
  std::int64_t wide_numel = 1;
  for (std::int64_t d : wide) wide_numel *= d;

  const std::int64_t element_size = static_cast<std::int64_t>(c10::elementSize(dtype));
  const std::int64_t guard = std::max<std::int64_t>(kGuardBytes / element_size, 1);
  const std::int64_t offset = guard + (follows_case && case_.offset_view ? 1 : 0);
  at::Tensor base =
      PoisonedCpuBuffer(offset + wide_numel + guard, dtype, /*guard=*/true).to(device_);
  at::Tensor view = base.as_strided(shape, strides, offset);

  if (role == Role::kOutput) {
    view.copy_(PoisonedCpuBuffer(view.numel(), dtype).view(shape));  // same dtype: bits kept
  } else {
    at::Tensor values =
        at::randn(shape, generator_, at::TensorOptions().dtype(at::kDouble)).to(dtype);
    view.copy_(values);
  }
  made_.push_back({base, view, role});
  return view;
}

const MadeTensor* ArgFactory::Find(const at::Tensor& tensor) const {
  for (const MadeTensor& m : made_) {
    if (m.view.is_same(tensor)) return &m;
  }
  for (const MadeTensor& m : made_) {
    if (tensor.defined() && m.base.is_alias_of(tensor) &&
        m.view.storage_offset() == tensor.storage_offset() && m.view.sizes() == tensor.sizes()) {
      return &m;
    }
  }
  return nullptr;
}

}  // namespace kb::harness
