#include "core/report.h"

#include <iostream>

#include "core/message_text.h"
#include "core/process_outcome.h"
#include "core/stop_signal.h"

namespace kb {

namespace {

Error StoppedError() {
  return MakeError(
      static_cast<ExitCode>(StopExitCode()),
      "stopped by " + SignalName(StopSignal()) + "; kbuild ended the programs it had started",
      "run the command again: the next run picks up where this one stopped");
}

}  // namespace

std::string JsonText(const nlohmann::json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

int RunReportingExceptions(const std::string& command, bool json, const std::function<int()>& run) {
  try {
    return run();
  } catch (const std::exception& e) {
    return Report(command, json)
        .Fail(MakeError(ExitCode::kInternal, std::string("internal error: ") + e.what(),
                        "this is a bug in kbuild; please report it with the command line"));
  }
}

// Human output quotes files, names and messages kbuild did not write: ForTerminal keeps
// their escape sequences from reaching the terminal.
void Report::Line(const std::string& text) const {
  if (!json_) std::cout << ForTerminal(text) << "\n";
}

void Report::Progress(const std::string& text) const {
  if (!json_) std::cerr << ForTerminal(text) << "\n" << std::flush;
}

void Report::Warning(const std::string& text) {
  warnings_.push_back(text);
  if (!json_) std::cerr << "kbuild: warning: " << ForTerminal(text) << "\n";
}

std::string FormatErrorForHumans(const Error& error) {
  std::string out = "kbuild: error: " + error.Located() + "\n";
  if (!error.detail.empty()) {
    out += error.detail;
    if (out.back() != '\n') out += "\n";
  }
  if (!error.hint.empty()) out += "hint: " + error.hint + "\n";
  return ForTerminal(out);
}

nlohmann::json ErrorToJson(const Error& error) {
  nlohmann::json j = {{"message", error.message}, {"exit_code", static_cast<int>(error.code)}};
  if (!error.path.empty()) j["path"] = error.path;
  if (error.line > 0) j["line"] = error.line;
  if (error.column > 0) j["column"] = error.column;
  if (!error.hint.empty()) j["hint"] = error.hint;
  if (!error.detail.empty()) j["detail"] = error.detail;
  return j;
}

int Report::Fail(const Error& given) {
  const Error error = StopSignal() != 0 ? StoppedError() : given;
  if (json_) {
    nlohmann::json doc = data_;
    doc["command"] = command_;
    doc["ok"] = false;
    doc["exit_code"] = static_cast<int>(error.code);
    doc["error"] = ErrorToJson(error);
    doc["warnings"] = warnings_;
    std::cout << JsonText(doc) << "\n";
  } else {
    std::cerr << FormatErrorForHumans(error);
  }
  return static_cast<int>(error.code);
}

int Report::Finish(ExitCode code) {
  if (StopSignal() != 0) return Fail(StoppedError());
  if (json_) {
    nlohmann::json doc = data_;
    doc["command"] = command_;
    doc["ok"] = code == ExitCode::kOk;
    doc["exit_code"] = static_cast<int>(code);
    doc["warnings"] = warnings_;
    std::cout << JsonText(doc) << "\n";
  }
  return static_cast<int>(code);
}

}  // namespace kb
