#include "core/variant.h"

#include <algorithm>
#include <charconv>

#include "core/sha256.h"

namespace kb {

namespace {

bool ParseInt(std::string_view text, int& out) {
  if (text.empty()) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

#if defined(__aarch64__)
constexpr const char* kCpu = "aarch64";
#else
constexpr const char* kCpu = "x86_64";
#endif

}  // namespace

Expected<MajorMinor> ParseMajorMinor(const std::string& version) {
  // Local tags ("+cu130") and pre-release parts never matter for MAJOR.MINOR.
  const std::string_view core = std::string_view(version).substr(0, version.find_first_of("+-"));
  const size_t dot = core.find('.');
  const std::string_view minor = dot == std::string_view::npos ? "" : core.substr(dot + 1);
  MajorMinor mm;
  if (!ParseInt(core.substr(0, dot), mm.major) ||
      !ParseInt(minor.substr(0, minor.find('.')), mm.minor)) {
    return MakeError(ExitCode::kEnvironment, "cannot parse version '" + version + "'",
                     "expected MAJOR.MINOR[.PATCH], e.g. 2.11.0 or 13.0");
  }
  return mm;
}

Expected<std::string> VariantName(const std::string& torch_version, const std::string& torch_cuda,
                                  bool cxx11_abi) {
  auto torch = ParseMajorMinor(torch_version);
  if (!torch) return torch.error();
  if (torch_cuda.empty()) {
    return MakeError(
        ExitCode::kEnvironment,
        "torch " + torch_version + " was built without CUDA (torch.version.cuda is None)",
        "install a CUDA build of torch, e.g. pip install torch==" +
            torch_version.substr(0, torch_version.find('+')) +
            " (the PyPI default for Linux is a CUDA build)");
  }
  auto cuda = ParseMajorMinor(torch_cuda);
  if (!cuda) return cuda.error();
  return "torch" + std::to_string(torch->major) + std::to_string(torch->minor) +
         (cxx11_abi ? "-cxx11" : "-cxx98") + "-cu" + std::to_string(cuda->major) +
         std::to_string(cuda->minor) + "-" + kCpu + "-linux";
}

std::string OpNamespace(const std::string& python_name, int version,
                        std::vector<NamedSource> binding_sources) {
  std::sort(binding_sources.begin(), binding_sources.end(),
            [](const NamedSource& a, const NamedSource& b) { return a.path < b.path; });
  Sha256 h;
  // Length-prefix every field so different splits never hash alike.
  auto add = [&h](const std::string& field) {
    h.Update(std::to_string(field.size()) + ":");
    h.Update(field);
  };
  add(python_name);
  add(std::to_string(version));
  for (const auto& source : binding_sources) {
    add(source.path);
    add(source.content);
  }
  const auto digest = h.Finish();
  return "_" + python_name + "_cuda_" + ToHex(digest.data(), 4);
}

Expected<std::string> GencodeFlag(const std::string& capability) {
  std::string digits;
  std::string suffix;
  for (char c : capability) {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == 'a' || c == 'f') {
      suffix += c;
    } else if (c != '.') {
      digits.clear();
      break;
    }
  }
  if (digits.size() < 2 || capability.find('.') == std::string::npos || suffix.size() > 1) {
    return MakeError(ExitCode::kUsage, "invalid CUDA capability '" + capability + "'",
                     "use MAJOR.MINOR as in cuda-capabilities, e.g. \"9.0\" or \"8.0\"");
  }
  if (digits == "90" && suffix.empty()) suffix = "a";
  const std::string arch = digits + suffix;
  return "-gencode=arch=compute_" + arch + ",code=sm_" + arch;
}

std::string BuiltArch(const std::string& capability) {
  return capability == "9.0" ? "9.0a" : capability;
}

}  // namespace kb
