#include "core/config_schema.h"

#include <algorithm>
#include <cctype>

namespace kb {

namespace {

using enum ValueKind;

// Keys every [kernel.<name>] has, whatever its backend.
const std::vector<KeySpec> kKernelCommonKeys = {
    {"backend", kString, true, R"(backend = "cuda")"},
    {"depends", kStringArray, true, R"(depends = ["torch"])"},
    {"src", kStringArray, true, R"(src = ["my_kernel_cuda/my_kernel.cu"])"},
    {"include", kStringArray},
    {"cxx-flags", kStringArray},
};

struct BackendKeys {
  std::string_view backend;
  std::vector<KeySpec> keys;
};

const std::vector<BackendKeys> kBackendKeys = {
    {"cpu", {}},
    {"cuda",
     {{"cuda-capabilities", kStringArray}, {"cuda-flags", kStringArray}, {"cuda-minver", kString}}},
    {"metal", {}},
    {"rocm", {{"rocm-archs", kStringArray}, {"hip-flags", kStringArray}}},
    {"xpu", {{"sycl-flags", kStringArray}}},
};

}  // namespace

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case kString:
      return "a string";
    case kInteger:
      return "an integer";
    case kStringArray:
      return "an array of strings";
    case kTable:
      return "a table";
  }
  return "a value";
}

std::string ValueKindHint(std::string_view key, ValueKind kind) {
  const std::string k(key);
  switch (kind) {
    case kString:
      return "write it in quotes, e.g. " + k + " = \"...\"";
    case kInteger:
      return "write a whole number without quotes, e.g. " + k + " = 1";
    case kStringArray:
      return "write a list of quoted strings, e.g. " + k + " = [\"...\"]";
    case kTable:
      return "write it as a [" + k + "] section";
  }
  return {};
}

const std::vector<KeySpec>& RootKeys() {
  static const std::vector<KeySpec> keys = {
      {"general", kTable, true, R"([general] with name = "my-kernel" and backends = ["cuda"])"},
      {"torch", kTable},
      {"kernel", kTable}};
  return keys;
}

const std::vector<KeySpec>& GeneralKeys() {
  // edition, upstream and source are listed for newer kernel-builder releases
  // in docs/ANCHORS; the rest are the v3 struct's fields.
  static const std::vector<KeySpec> keys = {
      {"name", kString, true, R"(name = "my-kernel")"},
      {"backends", kStringArray, true, R"(backends = ["cuda"])"},
      {"version", kInteger},
      {"license", kString},
      {"edition", kInteger},
      {"upstream", kString},
      {"source", kString},
      {"python-depends", kStringArray},
      {"hub", kTable},
      {"cuda", kTable},
      {"xpu", kTable},
  };
  return keys;
}

const std::vector<KeySpec>& HubKeys() {
  static const std::vector<KeySpec> keys = {{"repo-id", kString}, {"branch", kString}};
  return keys;
}

const std::vector<KeySpec>& GeneralCudaKeys() {
  static const std::vector<KeySpec> keys = {
      {"minver", kString}, {"maxver", kString}, {"python-depends", kStringArray}};
  return keys;
}

const std::vector<KeySpec>& GeneralXpuKeys() {
  static const std::vector<KeySpec> keys = {{"python-depends", kStringArray}};
  return keys;
}

const std::vector<KeySpec>& TorchKeys() {
  // kernel-builder's Torch struct has no cxx-flags: flags belong to kernels.
  static const std::vector<KeySpec> keys = {{"src", kStringArray},
                                            {"include", kStringArray},
                                            {"pyext", kStringArray},
                                            {"minver", kString},
                                            {"maxver", kString}};
  return keys;
}

std::vector<KeySpec> KernelKeys(std::string_view backend) {
  std::vector<KeySpec> keys = kKernelCommonKeys;
  const bool known = std::any_of(kBackendKeys.begin(), kBackendKeys.end(),
                                 [&](const BackendKeys& b) { return b.backend == backend; });
  for (const auto& b : kBackendKeys) {
    if (known && b.backend != backend) continue;
    for (const auto& k : b.keys) {
      const bool seen = std::any_of(keys.begin(), keys.end(),
                                    [&](const KeySpec& have) { return have.key == k.key; });
      if (!seen) keys.push_back(k);
    }
  }
  return keys;
}

const std::vector<std::string>& KnownBackends() {
  static const std::vector<std::string> backends = {"cpu", "cuda", "metal", "rocm", "xpu"};
  return backends;
}

std::vector<std::string> KeyNames(const std::vector<KeySpec>& keys) {
  std::vector<std::string> names;
  for (const auto& k : keys) names.emplace_back(k.key);
  return names;
}

std::vector<std::string> BackendsAccepting(std::string_view key) {
  std::vector<std::string> out;
  for (const auto& b : kBackendKeys) {
    for (const auto& k : b.keys) {
      if (k.key == key) out.emplace_back(b.backend);
    }
  }
  return out;
}

namespace {

bool IsLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool IsValidProjectName(std::string_view name) {
  if (name.size() < 2 || !(name.front() >= 'a' && name.front() <= 'z') || name.back() == '-') {
    return false;
  }
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLowerOrDigit(c) || c == '-'; });
}

bool IsValidKernelName(std::string_view name) {
  if (name.empty() || !(name.front() >= 'a' && name.front() <= 'z')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLowerOrDigit(c) || c == '-' || c == '_'; });
}

std::string SuggestProjectName(std::string_view name) {
  std::string out;
  for (char c : name) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (IsLowerOrDigit(lower)) {
      if (!out.empty() || (lower >= 'a' && lower <= 'z')) out += lower;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';  // '_', ' ', '.', ... become one dash
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() < 2) out = "my-kernel";
  return out;
}

bool IsCudaCapability(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view minor = text.substr(dot + 1);
  if (!minor.empty() && (minor.back() == 'a' || minor.back() == 'f')) minor.remove_suffix(1);
  return IsDigits(text.substr(0, dot)) && IsDigits(minor);
}

std::string GuessCudaCapability(std::string_view text) {
  if (text.starts_with("sm_") || text.starts_with("compute_"))
    text.remove_prefix(text.find('_') + 1);
  std::string suffix;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    suffix = text.back();
    text.remove_suffix(1);
  }
  if (!IsDigits(text) || text.size() > 3) return {};
  if (text.size() == 1) return std::string(text) + ".0" + suffix;
  return std::string(text.substr(0, text.size() - 1)) + "." + text.back() + suffix;
}

bool IsVersionString(std::string_view text) {
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    if (!IsDigits(text.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace kb
