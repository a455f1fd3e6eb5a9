#include "core/profile_markdown.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_fields.h"
#include "core/message_text.h"
#include "core/sass_check.h"

namespace kb {

namespace {

using Json = nlohmann::json;

constexpr size_t kStallsShown = 3;

// A number the profile may lack (null): "?" then, never a guess.
std::string Number(const Json& object, const char* key, int digits = 1) {
  const double value = NumberOr(object, key, -1);
  return value < 0 ? "?" : fmt::format("{:.{}f}", value, digits);
}

std::string Joined(const Json& strings, const char* separator) {
  std::string text;
  for (const auto& s : strings) {
    if (!s.is_string()) continue;
    text += (text.empty() ? "" : separator) + OneLine(s.get<std::string>());
  }
  return text;
}

std::string StallsText(const Json& kernel) {
  std::string text;
  size_t shown = 0;
  for (const auto& stall : ArrayAt(kernel, "top_stalls")) {
    if (shown++ == kStallsShown) break;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", OneLine(StringOr(stall, "reason")),
                        Number(stall, "cycles_per_issued_instruction"));
  }
  return text.empty() ? "none reported" : text + " (cycles per issued instruction)";
}

std::string SassText(const Json& sass) {
  std::string text = SassCheckLine(SassFunctionFromJson(sass));
  if (const std::string findings = Joined(ArrayAt(sass, "findings"), "; "); !findings.empty()) {
    text += "; " + findings;
  }
  return text;
}

std::string KernelText(const Json& k) {
  const Json causes = ArrayAt(k, "causes");
  std::string occupancy =
      fmt::format("achieved {}% of theoretical {}%", Number(k, "achieved_occupancy_pct"),
                  Number(k, "theoretical_occupancy_pct"));
  if (const std::string limiter = StringOr(k, "occupancy_limiter"); !limiter.empty()) {
    occupancy += ", limited by " + OneLine(limiter);
  }
  std::string text = "## `" + OneLine(StringOr(k, "kernel", "?"), kMaxQuotedChars) + "`\n\n";
  text += "- verdict: " + OneLine(StringOr(k, "verdict", "?")) + "\n";
  text += "- causes: " + (causes.empty() ? std::string("none named") : Joined(causes, "; ")) + "\n";
  text += fmt::format("- time {} us; DRAM {} GB/s, {}% of the measured copy bandwidth\n",
                      Number(k, "duration_us"), Number(k, "dram_gbps", 0),
                      Number(k, "dram_pct_of_measured_peak"));
  text += fmt::format("- occupancy: {}; {} registers per thread\n", occupancy,
                      Number(k, "registers_per_thread", 0));
  text += "- top stalls: " + StallsText(k) + "\n";
  const Json sass = ObjectAt(k, "sass");  // null: no project kernel has this mangled name
  text += "- sass: " + (sass.empty() ? "no project kernel of this name" : SassText(sass)) + "\n";
  return text;
}

std::string More(size_t listed) {
  if (listed <= kMaxProfiledKernelsShown) return "";
  return fmt::format("({} more kernels not shown.)\n", listed - kMaxProfiledKernelsShown);
}

}  // namespace

std::string ProfileMarkdown(const Json& doc, const std::string& title) {
  std::string md = "# Profile of " + OneLine(title) + " (kbuild profile)\n\n";
  const Json kernels = ArrayAt(doc, "kernels");
  const Json ncu = ObjectAt(doc, "ncu");
  if (!kernels.empty()) {
    md +=
        "Read the verdict first; the SASS line is static (LDG.128 = 16-byte vector loads, any "
        "LDL/STL = local memory).\n\n";
    for (size_t i = 0; i < std::min(kernels.size(), kMaxProfiledKernelsShown); ++i) {
      md += KernelText(kernels[i]) + "\n";
    }
    return md + More(kernels.size());
  }
  md += "No ncu counters: " + OneLine(StringOr(ncu, "problem", "ncu did not run")) +
        ". The static SASS check of every project kernel:\n\n";
  const Json sass = ArrayAt(doc, "sass");
  if (sass.empty()) {
    const std::string why = StringOr(doc, "sass_problem");
    return md + "None: " + (why.empty() ? "no project kernel found" : OneLine(why)) + ".\n";
  }
  for (size_t i = 0; i < std::min(sass.size(), kMaxProfiledKernelsShown); ++i) {
    md += "- `" + OneLine(StringOr(sass[i], "name", "?"), kMaxQuotedChars) +
          "`: " + SassText(sass[i]) + "\n";
  }
  return md + More(sass.size());
}

}  // namespace kb
