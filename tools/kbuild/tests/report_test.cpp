// Report's contract with --json: one parseable document on stdout whatever
// happens (bytes that are not UTF-8, an exception, a stop signal).
#include "core/report.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>
#include <sstream>
#include <stdexcept>

#include "core/stop_signal.h"

namespace kb {
namespace {

// Captures std::cout for the lifetime of the object.
class StdoutCapture {
 public:
  StdoutCapture() : old_(std::cout.rdbuf(text_.rdbuf())) {}
  ~StdoutCapture() { std::cout.rdbuf(old_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* old_;
};

TEST(Report, InvalidUtf8BecomesReplacementCharacters) {
  StdoutCapture out;
  Report report("build", /*json=*/true);
  report.Warning("caf\xe9 latin-1");
  const int code = report.Fail(MakeError(ExitCode::kBuildError, "bad \xff\xfe byte"));
  EXPECT_EQ(code, 3);
  const auto doc = nlohmann::json::parse(out.text());
  EXPECT_EQ(doc["error"]["message"], "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
  EXPECT_EQ(doc["warnings"][0], "caf\xEF\xBF\xBD latin-1");
}

TEST(Report, ExceptionBecomesOneInternalErrorDocument) {
  StdoutCapture out;
  const int code = RunReportingExceptions("check", /*json=*/true,
                                          []() -> int { throw std::runtime_error("boom"); });
  EXPECT_EQ(code, 5);
  const auto doc = nlohmann::json::parse(out.text());
  EXPECT_EQ(doc["command"], "check");
  EXPECT_EQ(doc["exit_code"], 5);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["error"]["message"], "internal error: boom");
}

TEST(Report, StopSignalTurnsAnyEndIntoTheStop) {
  InstallStopHandlers();
  raise(SIGTERM);
  StdoutCapture out;
  const int code = Report("test", /*json=*/true).Finish(ExitCode::kOk);
  ClearStopSignal();
  EXPECT_EQ(code, 143);
  const auto doc = nlohmann::json::parse(out.text());
  EXPECT_EQ(doc["exit_code"], 143);
  EXPECT_EQ(doc["error"]["message"],
            "stopped by SIGTERM; kbuild ended the programs it had started");
}

}  // namespace
}  // namespace kb
