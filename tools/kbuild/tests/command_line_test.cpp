#include "core/command_line.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

const std::vector<std::string> kNames = {"init", "check", "build", "test", "bench", "skill"};

TEST(CommandLine, JsonAnywhereBeforeDoubleDash) {
  EXPECT_TRUE(WantsJson({"build", "--json"}));
  EXPECT_TRUE(WantsJson({"--json", "biuld"}));
  EXPECT_FALSE(WantsJson({"build"}));
  EXPECT_FALSE(WantsJson({"test", "--", "--json"}));
}

TEST(CommandLine, CommandNameSkipsOptionsAndTheirValues) {
  EXPECT_EQ(CommandNameOf({"-C", "build", "test", "--json"}, kNames), "test");
  EXPECT_EQ(CommandNameOf({"skill", "install", "--json"}, kNames), "skill install");
  EXPECT_EQ(CommandNameOf({"biuld", "--json"}, kNames), "kbuild");
  EXPECT_EQ(CommandNameOf({}, kNames), "kbuild");
}

TEST(CommandLine, FirstUnknownCommandIsTheTypo) {
  EXPECT_EQ(FirstUnknownCommand({"--project", "x", "biuld"}, kNames), "biuld");
  EXPECT_EQ(FirstUnknownCommand({"build", "extra"}, kNames), std::nullopt);
  EXPECT_EQ(FirstUnknownCommand({"--json"}, kNames), std::nullopt);
}

}  // namespace
}  // namespace kb
