#include "core/report.h"

#include <iostream>

namespace kb {

void Report::Line(const std::string& text) const {
  if (!json_) std::cout << text << "\n";
}

void Report::Progress(const std::string& text) const {
  if (!json_) std::cerr << text << "\n" << std::flush;
}

void Report::Warning(const std::string& text) {
  warnings_.push_back(text);
  if (!json_) std::cerr << "kbuild: warning: " << text << "\n";
}

std::string FormatErrorForHumans(const Error& error) {
  std::string out = "kbuild: error: " + error.Located() + "\n";
  if (!error.detail.empty()) {
    out += error.detail;
    if (out.back() != '\n') out += "\n";
  }
  if (!error.hint.empty()) out += "hint: " + error.hint + "\n";
  return out;
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

int Report::Fail(const Error& error) {
  if (json_) {
    nlohmann::json doc = data_;
    doc["command"] = command_;
    doc["ok"] = false;
    doc["exit_code"] = static_cast<int>(error.code);
    doc["error"] = ErrorToJson(error);
    doc["warnings"] = warnings_;
    std::cout << doc.dump(2) << "\n";
  } else {
    std::cerr << FormatErrorForHumans(error);
  }
  return static_cast<int>(error.code);
}

int Report::Finish(ExitCode code) {
  if (json_) {
    nlohmann::json doc = data_;
    doc["command"] = command_;
    doc["ok"] = code == ExitCode::kOk;
    doc["exit_code"] = static_cast<int>(code);
    doc["warnings"] = warnings_;
    std::cout << doc.dump(2) << "\n";
  }
  return static_cast<int>(code);
}

}  // namespace kb
