#include "core/process_outcome.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

namespace kb {

std::string SignalName(int signal) {
  switch (signal) {
    case 2:
      return "SIGINT";
    case 4:
      return "SIGILL";
    case 6:
      return "SIGABRT";
    case 7:
      return "SIGBUS";
    case 8:
      return "SIGFPE";
    case 9:
      return "SIGKILL";
    case 11:
      return "SIGSEGV";
    case 15:
      return "SIGTERM";
    default:
      return "signal " + std::to_string(signal);
  }
}

std::string OutputTail(const std::string& output, size_t count) {
  std::vector<std::string> lines;
  std::string cuda_line;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos) continue;
    line = line.substr(a, line.find_last_not_of(" \t\r") - a + 1);
    if (line.find("CUDA error") != std::string::npos ||
        line.find("cudaError") != std::string::npos) {
      cuda_line = line;
    }
    lines.push_back(line);
  }
  const size_t first = lines.size() > count ? lines.size() - count : 0;
  bool cuda_shown = cuda_line.empty();
  for (size_t i = first; i < lines.size(); ++i) cuda_shown = cuda_shown || lines[i] == cuda_line;
  std::string out = cuda_shown ? "" : cuda_line + "\n...\n";
  for (size_t i = first; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

std::string AbnormalEnd(const ProcessResult& r, double timeout_seconds) {
  if (r.timed_out) return fmt::format("timed out after {:g} s", timeout_seconds);
  if (r.interrupted) return "stopped: kbuild got " + SignalName(r.exit_code - 128);
  if (r.exit_code > 128) return "crashed with " + SignalName(r.exit_code - 128);
  return "";
}

}  // namespace kb
