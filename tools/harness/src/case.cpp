#include "kbuild/harness/case.h"

namespace kb::harness {

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

std::vector<std::string> Case::Flags() const {
  std::vector<std::string> flags;
  if (offset_view) flags.push_back("offset_view");
  if (non_contiguous) flags.push_back("non_contiguous");
  if (expects_rejection) flags.push_back("expects_rejection");
  if (correctness_only) flags.push_back("correctness_only");
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
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<std::vector<std::int64_t>> EdgeRowShapes() {
  return {{1, 1}, {1, 4096}, {7, 33}, {3, 4097}, {5, 1025}, {19, 111}, {64, 4096}};
}

}  // namespace kb::harness
