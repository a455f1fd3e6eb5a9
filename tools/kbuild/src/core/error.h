// Errors are values until the top: core functions return Expected<T> or Status,
// and only main (through report.h) prints them. Exit codes are part of the CLI
// contract (README, `kbuild --help`): never renumber them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kb {

enum class ExitCode : int {
  kOk = 0,
  kCheckFailed = 1,   // a test, check or validation failed
  kUsage = 2,         // bad usage or bad config
  kBuildError = 3,    // compile or link error
  kEnvironment = 4,   // no GPU, no nvcc, no torch, ...
  kInternal = 5,      // a bug in kbuild
  kBusy = 6,          // another kbuild holds this project's build lock (build_lock.h)
};

struct Error {
  ExitCode code = ExitCode::kInternal;
  std::string message;  // what is wrong
  std::string path;     // where (file), may be empty
  int line = 0;         // 1-based; 0 = unknown
  int column = 0;       // 1-based; 0 = unknown
  std::string hint;     // how to fix it, may be empty
  std::string detail;   // extra lines (a source excerpt with a caret), may be empty

  // "build.toml:12:3: unknown key 'x'" (location only when known).
  std::string Located() const;
};

Error MakeError(ExitCode code, std::string message, std::string hint = {});

// A value or an error.
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}             // NOLINT(runtime/explicit)
  Expected(Error error) : v_(std::move(error)) {}         // NOLINT(runtime/explicit)
  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success or an error.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT(runtime/explicit)
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace kb
