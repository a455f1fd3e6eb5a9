#include "core/macro_defines.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(MacroDefines, NamesAndValuesThatStayOneToken) {
  auto ok = ParseMacroDefines({"BLOCK_THREADS=256", "mode=fast_path", "SCALE=-0.5", "_X=1"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok,
            (std::vector<MacroDefine>{
                {"BLOCK_THREADS", "256"}, {"mode", "fast_path"}, {"SCALE", "-0.5"}, {"_X", "1"}}));
  EXPECT_TRUE(ParseMacroDefines({}).ok());
}

TEST(MacroDefines, RefusesWhatCouldInjectOrIsAmbiguous) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"BLOCK", "no '=' between the name and the value"},
      {"=1", "the name is not a C identifier"},
      {"1X=1", "the name is not a C identifier"},
      {"A B=1", "the name is not a C identifier"},
      {"__X=1", "names starting with '__' are reserved"},
      {"X=", "the value is not an integer or identifier"},
      {"X=1 -DY=2", "the value is not an integer or identifier"},
      {"X=$(rm -rf /)", "the value is not an integer or identifier"},
      {"X=a;b", "the value is not an integer or identifier"},
      {"X=\"1\"", "the value is not an integer or identifier"},
      {"X=" + std::string(65, '1'), "the value is not an integer or identifier of at most 64"},
  };
  for (const auto& [arg, why] : bad) {
    auto r = ParseMacroDefines({arg});
    ASSERT_FALSE(r.ok()) << arg;
    EXPECT_EQ(r.error().code, ExitCode::kUsage);
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().hint.find("--define NAME=VALUE"), std::string::npos);
  }
  auto twice = ParseMacroDefines({"X=1", "X=2"});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("'X' is defined twice"), std::string::npos);
}

// What kbuild writes back (results, test JSON, queue payloads) parses to the same defines.
TEST(MacroDefines, DefineArgsAreWhatTheyWereParsedFrom) {
  const std::vector<std::string> args = {"BLOCK_THREADS=256", "SCALE=-0.5", "mode=fast_path"};
  auto parsed = ParseMacroDefines(args);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(DefineArgs(*parsed), args);
  EXPECT_TRUE(DefineArgs({}).empty());
  EXPECT_EQ(DefineFlagsText(args),
            "--define BLOCK_THREADS=256 --define SCALE=-0.5 --define mode=fast_path");
  EXPECT_EQ(DefineFlagsText({}), "");
}

}  // namespace
}  // namespace kb
