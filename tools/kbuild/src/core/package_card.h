// README.md of a Kernel Hub package: the model card the Hub shows. YAML front
// matter (library_name: kernels, license, tags), what the kernel is, how to
// load it, the variants inside, and the newest `kbuild bench` table exactly as
// recorded in results/latest.json (device, date, torch, CUDA) - or one line
// saying none was recorded. No number on the card comes from anywhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/latest_bench.h"

namespace kb {

struct CardVariant {
  std::string name;
  std::vector<std::string> archs;
};

struct CardInput {
  std::string name;                    // build.toml [general] name
  std::optional<std::string> license;  // SPDX id
  int version = 1;                     // [general] version: the Hub branch v<version>
  std::string repo_id;                 // org/name or the <your-org>/<name> placeholder
  std::string summary;                 // one line; "" = a generic one
  std::string op_namespace;            // torch.ops.<namespace>
  std::vector<std::string> functions;  // the package's __all__ without "ops"
  std::vector<CardVariant> variants;
  const LatestBench* bench = nullptr;  // null = no benchmark recorded
};

inline constexpr const char* kNoBenchmarkLine =
    "No benchmark recorded: run `kbuild bench` on a GPU and package again.";

std::string RenderPackageCard(const CardInput& input);

}  // namespace kb
