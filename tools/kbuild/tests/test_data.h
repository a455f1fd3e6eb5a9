// Reading the recorded fixtures in tools/kbuild/tests/data (KBUILD_TEST_DATA_DIR).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace kb {

// The whole fixture file `name`, or "" when it cannot be read (the test's
// expectations on its content then fail).
inline std::string ReadTestData(const std::string& name) {
  std::ifstream in(std::string(KBUILD_TEST_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kb
