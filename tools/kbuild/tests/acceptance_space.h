// The optimize acceptance kit's files (tools/optimize_acceptance/) as the tests of the builtin
// proposer see them: read from the kit itself, so a change there reaches these tests.
#pragma once

#include <sstream>
#include <string>

#include "test_data.h"

namespace kb {

// naive_rms_norm.cu, or "" when it cannot be read.
inline std::string AcceptanceNaiveKernel() {
  return ReadTestData("../../../optimize_acceptance/naive_rms_norm.cu");
}

// The [tune] space make_projects.sh writes into the naive project's kbuild.toml: its
// max-spill-bytes and NAIVE_* lines under [tune] / [tune.params] ("" params when unreadable).
inline std::string AcceptanceSpaceToml() {
  std::istringstream script(ReadTestData("../../../optimize_acceptance/make_projects.sh"));
  std::string toml = "[tune]\nmax-spill-bytes = 0\n[tune.params]\n";
  for (std::string line; std::getline(script, line);) {
    if (line.starts_with("NAIVE_") && line.find(" = [") != std::string::npos) toml += line + "\n";
  }
  return toml;
}

}  // namespace kb
