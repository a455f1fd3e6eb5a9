#include "core/error.h"

namespace kb {

std::string Error::Located() const {
  std::string out;
  if (!path.empty()) {
    out += path;
    if (line > 0) {
      out += ":" + std::to_string(line);
      if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
  }
  return out + message;
}

Error MakeError(ExitCode code, std::string message, std::string hint) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  e.hint = std::move(hint);
  return e;
}

}  // namespace kb
