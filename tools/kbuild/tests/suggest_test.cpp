#include "core/suggest.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(Suggest, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(EditDistance("build", "build"), 0);
  EXPECT_EQ(EditDistance("biuld", "build"), 1);
  EXPECT_EQ(EditDistance("", "abc"), 3);
}

TEST(Suggest, NearestNameFindsTypos) {
  const std::vector<std::string> keys = {"cuda-capabilities", "cuda-flags", "src", "depends"};
  EXPECT_EQ(NearestName("cuda-capability", keys), "cuda-capabilities");
  EXPECT_EQ(NearestName("srcs", keys), "src");
  EXPECT_EQ(NearestName("completely-different", keys), std::nullopt);
}

TEST(Suggest, HintListsValidNamesWhenNothingIsClose) {
  EXPECT_EQ(SuggestionHint("bild", {"init", "build"}), "did you mean 'build'?");
  EXPECT_EQ(SuggestionHint("zzzzzz", {"init", "build"}), "valid: init, build");
}

}  // namespace
}  // namespace kb
