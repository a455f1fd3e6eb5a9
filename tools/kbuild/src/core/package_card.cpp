#include "core/package_card.h"

#include <algorithm>
#include <cctype>

#include "core/bench_render.h"
#include "core/message_text.h"

namespace kb {

namespace {

// The Hub's license ids are the SPDX ids in lower case (apache-2.0, mit).
std::string HubLicense(const std::string& spdx) {
  std::string id = OneLine(spdx);
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return id;
}

std::string FrontMatter(const CardInput& in) {
  std::string out = "---\nlibrary_name: kernels\n";
  if (in.license) out += "license: " + HubLicense(*in.license) + "\n";
  return out + "tags:\n- kernel\n---\n\n";
}

std::string Usage(const CardInput& in) {
  std::string out = "## Usage\n\n```python\nfrom kernels import get_kernel\n\n";
  out += "k = get_kernel(\"" + in.repo_id + "\", version=" + std::to_string(in.version) + ")\n";
  if (!in.functions.empty()) out += "help(k." + in.functions.front() + ")\n";
  out += "```\n\n";
  if (!in.functions.empty()) {
    std::string names;
    for (const auto& f : in.functions) names += (names.empty() ? "`" : ", `") + f + "`";
    out += "Functions: " + names + ".";
  }
  if (!in.op_namespace.empty()) {
    out += std::string(in.functions.empty() ? "" : " ") +
           "The ops are registered with the torch dispatcher as `torch.ops." + in.op_namespace +
           ".<op>` (`k.ops`), with fake implementations for `torch.compile`.";
  }
  return out + "\n\n";
}

std::string Variants(const CardInput& in) {
  std::string out = "## Variants\n\n| build variant | CUDA architectures |\n|---|---|\n";
  for (const auto& v : in.variants) {
    std::string archs;
    for (const auto& a : v.archs) archs += (archs.empty() ? "" : ", ") + a;
    out += "| `" + v.name + "` | " + (archs.empty() ? "-" : archs) + " |\n";
  }
  return out + "\n";
}

std::string Benchmark(const CardInput& in) {
  std::string out = "## Benchmark\n\n";
  if (!in.bench) return out + kNoBenchmarkLine + "\n\n";
  out +=
      "Measured with `kbuild bench` (CUDA events, median of the timed launches; the newest "
      "result of the project, `results/latest.json`):\n\n";
  return out + BenchMarkdown(in.bench->table, MetadataHeaderLine(in.bench->run)) + "\n";
}

}  // namespace

std::string RenderPackageCard(const CardInput& in) {
  std::string out = FrontMatter(in);
  out += "# " + in.name + "\n\n";
  out +=
      (in.summary.empty() ? "CUDA kernels for PyTorch, built with kbuild." : in.summary) + "\n\n";
  out += Usage(in) + Variants(in) + Benchmark(in);
  out +=
      "## Sources\n\n`build.toml`, the kernel sources, the Python package `torch-ext/`, "
      "`tests/` and `benchmarks/` are included: `kbuild build && kbuild test && kbuild bench` "
      "rebuilds and re-measures the kernel.\n";
  // The table's names come from results/latest.json: no escape sequence of a
  // hostile one reaches a reader's terminal (cat) or the Hub's page.
  return ForTerminal(out);
}

}  // namespace kb
