#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "core/file_write.h"
#include "core/stop_signal.h"

namespace kb {

namespace {

// How long a stopped child's group has between SIGTERM and SIGKILL: ninja needs a moment
// to stop its compilers and delete their partial outputs.
constexpr double kStopGrace = 5.0;
// The same after a timeout, longer than kStopGrace: a child that is itself a kbuild (tune's
// and optimize's children) gets the SIGTERM, ends its own children's groups (ninja, a test
// binary spinning on a hung kernel), which a SIGKILL of its group alone would leave running,
// and needs up to its own kStopGrace for that.
constexpr double kTimeoutGrace = 2 * kStopGrace + 2;

// Whether the child has exited, without reaping it: while the zombie stays, its pid
// stays the group id, so the group can still be killed safely.
bool HasExited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

}  // namespace

std::optional<std::string> GetEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::optional<std::filesystem::path> FindOnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return std::filesystem::path(program);
    return std::nullopt;
  }
  auto path = GetEnv("PATH");
  if (!path) return std::nullopt;
  size_t start = 0;
  while (start <= path->size()) {
    size_t end = path->find(':', start);
    if (end == std::string::npos) end = path->size();
    std::filesystem::path candidate =
        std::filesystem::path(path->substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

void OutputLines::Add(const char* data, size_t size) {
  if (!on_line_) return;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] != '\n') pending_ += data[i];
    if (data[i] == '\n' || pending_.size() >= kMaxLine) {
      on_line_(pending_);
      pending_.clear();
    }
  }
}

void OutputLines::Finish() {
  if (on_line_ && !pending_.empty()) on_line_(pending_);
  pending_.clear();
}

ProcessResult RealProcessRunner::Run(const std::vector<std::string>& argv,
                                     const RunOptions& options) {
  ProcessResult result;
  if (StopSignal() != 0) {
    result.interrupted = true;
    result.exit_code = StopExitCode();
    return result;
  }
  // Opened before the fork: a log kbuild cannot write (a planted symlink) starts nothing.
  std::optional<AppendLog> log;
  if (options.log) {
    auto opened = AppendLog::Open(*options.log);
    if (!opened) {
      result.log_error = opened.error();
      return result;
    }
    log.emplace(std::move(*opened));
  }
  int fds[2];
  if (argv.empty() || pipe(fds) != 0) {
    result.not_found = true;
    return result;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // own process group, so a timeout kills the whole tree
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(127);
    for (const auto& [k, v] : options.env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const char msg[] = "kbuild: cannot execute program\n";
    [[maybe_unused]] auto n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also here: a signal may come before the child ran its setpgid
  close(fds[1]);

  // Output is read until EOF, the timeout, or kDrainAfterExit after the child
  // exited: a grandchild that outlives it (a daemon, `cmd &`) may hold the
  // pipe open forever, and kbuild must not wait for it.
  constexpr double kDrainAfterExit = 2.0;
  constexpr int kPollMs = 200;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::optional<Clock::time_point> exited_at;
  std::optional<Clock::time_point> stopped_at;
  std::optional<Clock::time_point> timed_out_at;
  int status = 0;
  char buf[8192];
  OutputLines lines(options.on_line);
  for (;;) {
    if (!exited_at && HasExited(pid)) exited_at = Clock::now();
    if (exited_at && since(*exited_at) > kDrainAfterExit) break;
    if (!stopped_at && StopSignal() != 0) {
      stopped_at = Clock::now();
      result.interrupted = true;
      kill(-pid, SIGTERM);
    }
    if (stopped_at && (exited_at || since(*stopped_at) > kStopGrace)) break;
    if (!timed_out_at && options.timeout_seconds > 0 && since(start) >= options.timeout_seconds) {
      timed_out_at = Clock::now();
      result.timed_out = true;
      kill(-pid, SIGTERM);
    }
    if (timed_out_at && (exited_at || since(*timed_out_at) > kTimeoutGrace)) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, kPollMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // exit and timeout re-checked at loop top
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
    // A full disk stops the log, not the run: the first error is kept for the caller.
    if (log && !result.log_error) {
      if (Status s = log->Append({buf, static_cast<size_t>(n)}); !s) result.log_error = s.error();
    }
    if (options.echo) std::cerr.write(buf, n);
    lines.Add(buf, static_cast<size_t>(n));
  }
  lines.Finish();
  close(fds[0]);
  // Whatever of the group ignored SIGTERM, or outlived the grace.
  if (result.interrupted || result.timed_out) kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    if (result.exit_code == 127 && result.output.find("kbuild: cannot execute program") == 0) {
      result.not_found = true;
    }
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  if (result.timed_out) result.exit_code = 124;
  if (result.interrupted) result.exit_code = StopExitCode();
  return result;
}

}  // namespace kb
