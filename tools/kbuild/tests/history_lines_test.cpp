#include "core/history_lines.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

bool IsObject(std::string_view line) { return line.starts_with("{") && line.ends_with("}"); }

TEST(HistoryLines, AppendDropsALastLineCutShortAndEndsAWholeOne) {
  MemoryFileSystem fs;
  const std::filesystem::path path = "/run/history.jsonl";
  ASSERT_TRUE(AppendHistoryLine(fs, path, "{\"id\":\"a\"}", IsObject).ok());
  ASSERT_TRUE(fs.Write(path, "{\"id\":\"a\"}\n{\"id\":\"b\"").ok());  // killed mid-write
  ASSERT_TRUE(AppendHistoryLine(fs, path, "{\"id\":\"b\"}", IsObject).ok());
  EXPECT_EQ(*fs.ReadAtMost(path, 1000), "{\"id\":\"a\"}\n{\"id\":\"b\"}\n");
  ASSERT_TRUE(fs.Write(path, "{\"id\":\"a\"}").ok());  // whole, without its newline
  ASSERT_TRUE(AppendHistoryLine(fs, path, "{\"id\":\"c\"}", IsObject).ok());
  EXPECT_EQ(*fs.ReadAtMost(path, 1000), "{\"id\":\"a\"}\n{\"id\":\"c\"}\n");
}

TEST(HistoryLines, ASymlinkedHistoryIsRefused) {
  MemoryFileSystem fs;
  fs.PlantSymlink("/run/history.jsonl", "/home/user/.ssh/id_rsa");
  EXPECT_FALSE(ReadHistoryText(fs, "/run/history.jsonl").ok());
  EXPECT_FALSE(AppendHistoryLine(fs, "/run/history.jsonl", "{}", IsObject).ok());
  EXPECT_EQ(*ReadHistoryText(fs, "/run/missing.jsonl"), "");
}

TEST(HistoryLines, LinesKeepTheirNumbersAndMarkTheLastOne) {
  const auto lines = HistoryLines("{\"a\":1}\n\n  \n{\"b\":2}\n{\"c\"\n\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].number, 1);
  EXPECT_EQ(lines[1].number, 4);
  EXPECT_EQ(lines[2].number, 5);
  EXPECT_EQ(lines[2].text, "{\"c\"");
  EXPECT_FALSE(lines[1].last);
  EXPECT_TRUE(lines[2].last);
  EXPECT_TRUE(HistoryLines("").empty());
}

}  // namespace
}  // namespace kb
