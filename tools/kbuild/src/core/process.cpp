#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace kb {

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
    std::filesystem::path candidate = std::filesystem::path(path->substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

ProcessResult RealProcessRunner::Run(const std::vector<std::string>& argv,
                                     const RunOptions& options) {
  ProcessResult result;
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
  close(fds[1]);
  std::ofstream log;
  if (options.log) log.open(*options.log, std::ios::app);

  const auto start = std::chrono::steady_clock::now();
  char buf[8192];
  for (;;) {
    int wait_ms = -1;
    if (options.timeout_seconds > 0) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = options.timeout_seconds - elapsed;
      if (left <= 0) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left * 1000) + 1;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // timeout re-checked at loop top
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
    if (log) log.write(buf, n);
    if (options.echo) std::cerr.write(buf, n);
  }
  close(fds[0]);
  int status = 0;
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
  return result;
}

}  // namespace kb
