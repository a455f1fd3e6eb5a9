// Files kbuild reads from a project it did not write: build.toml and the
// --compare baseline must be regular files under their size limits, and a
// huge line must not flood the error message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <random>

#include "core/bench_compare.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/message_text.h"
#include "core/report.h"

namespace kb {
namespace {

constexpr const char* kHead = "[general]\nname = \"op\"\nversion = 1\n";

TEST(HostileBuildToml, OverTheSizeLimitIsAConfigErrorNamingTheLimit) {
  MemoryFileSystem mem;
  ASSERT_TRUE(mem.Write("proj/build.toml", kHead + std::string(kMaxConfigBytes, '#')).ok());
  Expected<ProjectConfig> c = LoadProjectConfig(mem, "proj");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ExitCode::kUsage);
  EXPECT_EQ(c.error().Located(), "proj/build.toml: file is larger than the 1 MiB limit");
}

TEST(HostileBuildToml, AFifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path dir =
      fs::temp_directory_path() / ("kbuild-fifo-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  ASSERT_EQ(mkfifo((dir / "build.toml").c_str(), 0644), 0);
  RealFileSystem real;
  Expected<ProjectConfig> c = LoadProjectConfig(real, dir);
  fs::remove_all(dir);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ExitCode::kUsage);
  EXPECT_EQ(c.error().message, "not a regular file (it is a FIFO, socket or device)");
  EXPECT_EQ(c.error().path, (dir / "build.toml").string());
}

// A linked build.toml would be read, and its lines shown in errors, from anywhere.
TEST(HostileBuildToml, ASymbolicLinkIsRefused) {
  MemoryFileSystem mem;
  ASSERT_TRUE(mem.Write("/secret.toml", "[general]\nname = \"secret\"\n").ok());
  mem.PlantSymlink("proj/build.toml", "/secret.toml");
  ConfigResult result = LoadProjectConfigAll(mem, "proj");
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].code, ExitCode::kUsage);
  EXPECT_EQ(result.errors[0].Located(), "proj/build.toml: build.toml is a symbolic link");
  EXPECT_FALSE(result.config.has_value());
}

TEST(HostileBuildToml, AOneMegabyteLineIsCutInTheMessage) {
  MemoryFileSystem mem;
  const std::string key(1'000'000, 'k');
  ASSERT_TRUE(mem.Write("proj/build.toml", kHead + key + " = 1\n").ok());
  ConfigResult result = LoadProjectConfigAll(mem, "proj");
  const Error* on_the_line = nullptr;
  for (const Error& e : result.errors) {
    if (e.line == 4) on_the_line = &e;
  }
  ASSERT_NE(on_the_line, nullptr);
  EXPECT_LE(on_the_line->message.size(), kMaxMessageChars + 3);
  EXPECT_LE(on_the_line->hint.size(), kMaxMessageChars + 3);
  EXPECT_LE(on_the_line->detail.size(), 2 * kMaxQuotedChars + 40);
  EXPECT_NE(on_the_line->detail.find("kkk..."), std::string::npos) << on_the_line->Located() << "\n"
                                                                   << on_the_line->detail;
}

TEST(MessageText, WindowKeepsTheCaretOnTheSameCharacter) {
  std::string line(1000, 'a');
  line[600] = 'X';
  LineWindow w = WindowAround(line, 601);
  EXPECT_LE(w.text.size(), kMaxQuotedChars + 6);
  ASSERT_GT(w.column, 0);
  EXPECT_EQ(w.text[w.column - 1], 'X');
  EXPECT_EQ(w.text.substr(0, 3), "...");
  EXPECT_EQ(WindowAround("short", 2).text, "short");
  EXPECT_EQ(CutForMessage(std::string(300, 'z'), 10), "zzzzzzzzzz...");
  // "é" is two bytes (C3 A9): a cut that would fall between them falls before the character.
  EXPECT_EQ(CutForMessage("abc\xC3\xA9xyz", 4), "abc...");
  EXPECT_EQ(CutForMessage("abc\xC3\xA9xyz", 5), "abc\xC3\xA9...");
  // "€" is three bytes (E2 82 AC).
  EXPECT_EQ(CutForMessage("a\xE2\x82\xACzz", 3), "a...");
}

// A name in build.toml like "de\u001b]2;PWNED\u0007\u001b[2Jmo" would retitle and clear the
// terminal: what kbuild prints for humans carries no control character but newline and tab.
TEST(MessageText, EscapeSequencesNeverReachTheTerminal) {
  EXPECT_EQ(ForTerminal("de\x1b]2;PWNED\x07\x1b[2Jmo\n\tok\x7f"), "de ]2;PWNED  [2Jmo\n\tok ");
  EXPECT_EQ(ForTerminal("a\xc2\x9b"
                        "31mb \xc3\xa9"),
            "a  31mb \xc3\xa9")
      << "C1 CSI, and an e-acute kept";
  MemoryFileSystem mem;
  ASSERT_TRUE(
      mem.Write("proj/build.toml", "[general]\nname = \"de\\u001b]2;PWNED\\u0007\\u001b[2Jmo\"\n")
          .ok());
  ConfigResult result = LoadProjectConfigAll(mem, "proj");
  ASSERT_FALSE(result.errors.empty());
  for (const Error& e : result.errors) {
    const std::string shown = FormatErrorForHumans(e);
    EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
    EXPECT_EQ(shown.find('\x07'), std::string::npos) << shown;
  }
}

TEST(HostileCompareFile, AFifoOrHugeBaselineIsBadUsageNamingWhy) {
  MemoryFileSystem mem;
  mem.PlantSpecialFile("/p/fifo.json");
  auto fifo = LoadBenchBaseline(mem, "/p/fifo.json");
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().code, ExitCode::kUsage);
  EXPECT_EQ(fifo.error().message,
            "cannot read --compare file /p/fifo.json: not a regular file (it is a FIFO, socket or "
            "device)");
  ASSERT_TRUE(mem.Write("/p/huge.json", std::string(kMaxResultsBytes + 1, ' ')).ok());
  auto huge = LoadBenchBaseline(mem, "/p/huge.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message,
            "cannot read --compare file /p/huge.json: file is larger than the 64 MiB limit");
}

}  // namespace
}  // namespace kb
