#include "kbuild/harness/arg_factory.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDAFunctions.h>

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

// Above this many elements, values are drawn a slab of rows at a time so no
// float64 copy of a huge tensor (2^31 elements: 17 GB) is ever held.
constexpr std::int64_t kRandomChunkElements = std::int64_t{1} << 26;

// A CUDA factory draws on the GPU: one host core needs over a minute for 2^31
// float64 normals, which made huge cases outlast a test's time limit and the
// bench's fresh-values check cost half the bench time. Seeded, so a seed
// still reproduces its values on the same GPU and torch.
at::Generator MakeGenerator(at::Device device, std::uint64_t seed) {
  if (!device.is_cuda()) return at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>(
      device.has_index() ? device.index() : c10::cuda::current_device());
  generator.set_current_seed(seed);
  return generator;
}

// randn x magnitude, drawn in float64 (on the generator's device) and rounded
// once to the view's dtype.
void FillRandom(at::Tensor& view, double magnitude, at::Generator& generator) {
  const auto doubles = at::TensorOptions().dtype(at::kDouble).device(generator.device());
  if (view.numel() <= kRandomChunkElements || view.dim() == 0) {
    view.copy_((at::randn(view.sizes(), generator, doubles) * magnitude).to(view.scalar_type()));
    return;
  }
  const std::int64_t row_numel = std::max<std::int64_t>(view.numel() / view.size(0), 1);
  const std::int64_t rows = std::max<std::int64_t>(kRandomChunkElements / row_numel, 1);
  for (std::int64_t start = 0; start < view.size(0); start += rows) {
    at::Tensor slab = view.narrow(0, start, std::min(rows, view.size(0) - start));
    slab.copy_((at::randn(slab.sizes(), generator, doubles) * magnitude).to(view.scalar_type()));
  }
}

}  // namespace

std::optional<PatternBits> IntegerBitsOf(PoisonPattern p) {
  switch (p.element_size) {
    case 1:
      return PatternBits{at::kChar, static_cast<std::int8_t>(p.bits)};
    case 2:
      return PatternBits{at::kShort, static_cast<std::int16_t>(p.bits)};
    case 4:
      return PatternBits{at::kInt, static_cast<std::int32_t>(p.bits)};
    case 8:
      return PatternBits{at::kLong, static_cast<std::int64_t>(p.bits)};
  }
  return std::nullopt;
}

void FillPattern(const at::Tensor& t, PoisonPattern pattern) {
  if (t.numel() == 0) return;
  if (auto bits = IntegerBitsOf(pattern); bits && t.element_size() == pattern.element_size) {
    t.view(bits->dtype).fill_(bits->value);
    return;
  }
  // Other widths (complex): the pattern written on the host, copied bit for bit.
  at::Tensor host = at::empty(t.sizes(), t.options().device(at::kCPU));
  FillPoison(host.data_ptr(), static_cast<std::size_t>(host.numel()), pattern);
  t.copy_(host);
}

ArgFactory::ArgFactory(const Case& c, at::Device device, std::uint64_t seed)
    : case_(c), device_(device), generator_(MakeGenerator(device, seed)) {}

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

at::Tensor ArgFactory::Indices(at::IntArrayRef shape, std::int64_t low, std::int64_t high,
                               at::ScalarType dtype) {
  TORCH_CHECK(low < high, "ArgFactory::Indices: the range [", low, ", ", high, ") is empty");
  TORCH_CHECK(at::isIntegralType(dtype, /*includeBool=*/false),
              "ArgFactory::Indices makes integers; ", dtype, " is not an integer dtype");
  at::Tensor view = MakeView(shape, dtype, Role::kParam);
  view.copy_(at::randint(low, high, view.sizes(), generator_,
                         at::TensorOptions().dtype(at::kLong).device(generator_.device())));
  return view;
}

at::Tensor ArgFactory::Make(at::IntArrayRef shape, std::optional<at::ScalarType> dtype_opt,
                            Role role) {
  at::Tensor view = MakeView(shape, dtype_opt.value_or(case_.dtype), role);
  if (role == Role::kOutput) {
    FillPattern(view, PoisonFor(ToDType(view.scalar_type()), view.element_size()));
  } else {
    FillRandom(view, role == Role::kParam ? 1.0 : case_.magnitude, generator_);
  }
  return view;
}

at::Tensor ArgFactory::MakeView(at::IntArrayRef shape_ref, at::ScalarType dtype, Role role) {
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
      at::empty({offset + wide_numel + guard}, at::TensorOptions().dtype(dtype).device(device_));
  FillPattern(base, GuardFor(ToDType(dtype), base.element_size()));
  at::Tensor view = base.as_strided(shape, strides, offset);
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
