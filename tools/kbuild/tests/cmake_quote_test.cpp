#include "core/cmake_quote.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(CMakeBracket, PicksABracketTheTextDoesNotClose) {
  EXPECT_EQ(CMakeBracket("/p/a.cu"), "[[/p/a.cu]]");
  EXPECT_EQ(CMakeBracket("a]]b"), "[=[a]]b]=]");
  EXPECT_EQ(CMakeBracket("a]]b]=]c"), "[==[a]]b]=]c]==]");
  EXPECT_EQ(CMakeBracket("x]"), "[=[x]]=]");  // "[[x]]]" would end the argument after "x"
  EXPECT_EQ(CMakeBracket("x]="), "[[x]=]]");  // no "]]" before the end
}

TEST(CMakeBracket, KeepsALeadingNewline) { EXPECT_EQ(CMakeBracket("\nx"), "[[\n\nx]]"); }

TEST(CMakeUnsupportedPathReason, NamesWhatCMakeOrNvccCannotCarry) {
  EXPECT_FALSE(CMakeUnsupportedPathReason("k/a b'q #x{y}(z)&.cu"));
  EXPECT_NE(CMakeUnsupportedPathReason("a;b.cu")->find("';'"), std::string::npos);
  EXPECT_NE(CMakeUnsupportedPathReason("a\nb.cu")->find("line break"), std::string::npos);
  EXPECT_NE(CMakeUnsupportedPathReason("a\\b.cu")->find("'\\'"), std::string::npos);
  EXPECT_NE(CMakeUnsupportedPathReason("a\tb.cu")->find("control"), std::string::npos);
  for (const char* name :
       {"a$ENV{HOME}.cu", "a${X}.cu", "$<1:x>.cu", "a$(id).cu", "a`id`.cu", "a\"b.cu"}) {
    EXPECT_NE(CMakeUnsupportedPathReason(name)->find("would expand it"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace kb
