#include "kbuild/harness/case.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdio>
#include <limits>

namespace kb::harness {

namespace {

std::int64_t NumElements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// "1e-4", "1e3", "4.09e3", "2.13e37": short enough for a case name.
std::string MagnitudeText(double magnitude) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2e", magnitude);  // "1.00e-04"
  const std::string s = text;
  const std::size_t e = s.find('e');
  std::string mantissa = s.substr(0, e);
  while (mantissa.back() == '0') mantissa.pop_back();
  if (mantissa.back() == '.') mantissa.pop_back();
  const bool negative = s[e + 1] == '-';
  std::string exponent = s.substr(e + 2);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

}  // namespace

DType ToDType(at::ScalarType type) {
  switch (type) {
    case at::kDouble:
      return DType::kFloat64;
    case at::kFloat:
      return DType::kFloat32;
    case at::kHalf:
      return DType::kFloat16;
    case at::kBFloat16:
      return DType::kBFloat16;
    default:
      return DType::kOther;
  }
}

Tolerance CaseTolerance(const Case& c) {
  return c.tolerance.value_or(DefaultTolerance(ToDType(c.dtype)));
}

std::vector<std::string> Case::Flags() const {
  std::vector<std::string> flags;
  if (offset_view) flags.push_back("offset_view");
  if (non_contiguous) flags.push_back("non_contiguous");
  if (expects_rejection) flags.push_back("expects_rejection");
  if (correctness_only) flags.push_back("correctness_only");
  if (huge) flags.push_back("huge");
  return flags;
}

std::string Case::Name() const {
  std::string name;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    name += (i ? "x" : "") + std::to_string(shape[i]);
  }
  DType d = ToDType(dtype);
  name +=
      " " + (d == DType::kOther ? std::string(c10::toString(dtype)) : std::string(DTypeName(d)));
  if (magnitude != 1.0) name += " x" + MagnitudeText(magnitude);
  for (const std::string& flag : Flags()) name += " " + flag;
  return name;
}

std::vector<Case> MakeCases(const std::vector<std::vector<std::int64_t>>& shapes,
                            const std::vector<at::ScalarType>& dtypes, CaseFlags flags) {
  std::vector<Case> cases;
  for (const auto& shape : shapes) {
    for (at::ScalarType dtype : dtypes) {
      Case c;
      c.shape = shape;
      c.dtype = dtype;
      c.offset_view = flags.offset_view;
      c.non_contiguous = flags.non_contiguous;
      c.expects_rejection = flags.expects_rejection;
      c.correctness_only = flags.correctness_only;
      c.magnitude = flags.magnitude;
      c.huge = flags.huge || NumElements(shape) >= kHugeElements;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<std::vector<std::int64_t>> EdgeRowShapes() {
  return {{1, 1}, {1, 4096}, {7, 33}, {3, 4097}, {5, 1025}, {19, 111}, {64, 4096}};
}

double NearMaxMagnitude(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return static_cast<double>(std::numeric_limits<c10::Half>::max()) / 16;
    case at::kBFloat16:
      return static_cast<double>(std::numeric_limits<c10::BFloat16>::max()) / 16;
    case at::kFloat:
      return static_cast<double>(std::numeric_limits<float>::max()) / 16;
    default:
      return std::numeric_limits<double>::max() / 16;
  }
}

std::vector<Case> NearMaxCases(const std::vector<std::vector<std::int64_t>>& shapes,
                               const std::vector<at::ScalarType>& dtypes, CaseFlags flags) {
  std::vector<Case> cases;
  for (at::ScalarType dtype : dtypes) {
    flags.magnitude = NearMaxMagnitude(dtype);
    for (Case& c : MakeCases(shapes, {dtype}, flags)) cases.push_back(c);
  }
  return cases;
}

std::vector<std::vector<std::int64_t>> ManyRowShapes() { return {{65537, 64}, {70001, 33}}; }

std::vector<std::vector<std::int64_t>> HugeShapes() { return {{(1 << 21) + 1, 1024}}; }

std::int64_t HugeCaseDeviceBytes(const Case& c) {
  if (c.device_bytes) return *c.device_bytes;
  const std::int64_t element_size = static_cast<std::int64_t>(c10::elementSize(c.dtype));
  return NumElements(c.shape) * (2 * element_size + 40);
}

}  // namespace kb::harness
