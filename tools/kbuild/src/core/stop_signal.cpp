#include "core/stop_signal.h"

#include <signal.h>

namespace kb {

namespace {

volatile sig_atomic_t received_signal = 0;

void RecordSignal(int signal) { received_signal = signal; }

}  // namespace

void InstallStopHandlers() {
  struct sigaction action {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int StopSignal() { return received_signal; }

int StopExitCode() { return received_signal == 0 ? 0 : 128 + received_signal; }

void ClearStopSignal() { received_signal = 0; }

}  // namespace kb
