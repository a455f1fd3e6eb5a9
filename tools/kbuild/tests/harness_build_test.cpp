// What `kbuild test|bench --build-only` reports once the harness binary is
// built: one line with the binary and the compile summary, and the keys its
// --json document adds (references/kbuild-output.md). That it looks for no
// GPU is checked end to end (tools/tests/e2e/test_harness_targets.py).
#include "core/harness_build.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

HarnessBuild Built(int compiled, bool linked) {
  HarnessBuild built;
  built.prepared.paths = MakeBuildPaths("/p");
  built.target.target = kTestsTarget;
  built.target.binary = built.prepared.paths.cmake / kTestsTarget;
  built.outcome.compiled = compiled;
  built.outcome.linked = linked;
  built.outcome.configured = true;
  built.outcome.configure_seconds = 2.0;
  built.outcome.build_seconds = 14.125;
  return built;
}

TEST(HarnessBuildOnly, LineNamesTheBinaryAndTheCompileSummary) {
  EXPECT_EQ(BuiltHarnessLine(Built(2, true)),
            "built build/cmake/kbuild_tests (compile 2 files, link: 14.1 s)");
  EXPECT_EQ(BuiltHarnessLine(Built(0, false)),
            "built build/cmake/kbuild_tests (compile 0 files, nothing to link: 14.1 s)")
      << "up to date: what a GPU-machine run after --build-only prints too";
}

TEST(HarnessBuildOnly, JsonHasTheBuildPartOnly) {
  const nlohmann::json doc = BuiltHarnessToJson(Built(1, true));
  EXPECT_EQ(doc, (nlohmann::json{{"build_only", true},
                                 {"target", "kbuild_tests"},
                                 {"binary", "/p/build/cmake/kbuild_tests"},
                                 {"compiled", 1},
                                 {"linked", true},
                                 {"configured", true},
                                 {"build_seconds", 16.125},
                                 {"log", "/p/build/logs/build.log"}}));
  EXPECT_FALSE(doc.contains("gpu")) << "no GPU was asked for";
}

}  // namespace
}  // namespace kb
