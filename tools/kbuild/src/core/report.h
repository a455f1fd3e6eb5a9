// How a command's result reaches the user: human text on stdout/stderr by
// default, or exactly one JSON document on stdout with --json (schema in
// references/kbuild-output.md). Every command ends through Report::Finish.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"

namespace kb {

class Report {
 public:
  Report(std::string command, bool json) : command_(std::move(command)), json_(json) {}

  bool json() const { return json_; }
  // Human-readable lines (stdout) and progress (stderr); both silent with --json, so stdout
  // holds exactly one JSON document and stderr nothing an agent must filter.
  void Line(const std::string& text) const;
  void Progress(const std::string& text) const;  // to stderr, human mode only
  void Warning(const std::string& text);

  // The command-specific JSON payload (merged into the document).
  nlohmann::json& data() { return data_; }

  // Prints the error (or the JSON document) and returns the exit code. After SIGINT or
  // SIGTERM (stop_signal.h) both report that stop instead, with exit code 130 or 143.
  int Fail(const Error& error);
  int Finish(ExitCode code = ExitCode::kOk);

 private:
  std::string command_;
  bool json_;
  nlohmann::json data_ = nlohmann::json::object();
  nlohmann::json warnings_ = nlohmann::json::array();
};

// Runs a command; an exception that escapes it (a bug) still ends as one error report,
// exit 5, so --json always prints a document.
int RunReportingExceptions(const std::string& command, bool json, const std::function<int()>& run);

// The document as text. Strings that are not valid UTF-8 (a compiler's Latin-1 message, a
// path) get U+FFFD for each bad byte instead of making nlohmann::json throw.
std::string JsonText(const nlohmann::json& doc);

// "kbuild: error: file:line:col: message" + detail + "hint: ..." for humans.
std::string FormatErrorForHumans(const Error& error);
nlohmann::json ErrorToJson(const Error& error);

}  // namespace kb
