// Ctrl-C (SIGINT) and SIGTERM: kbuild records the signal instead of dying, so
// RealProcessRunner can end the child's whole process group (the children run
// in their own group and never see the terminal's Ctrl-C) and the command can
// still report, then exit 128 + signal (130, 143).
#pragma once

namespace kb {

// Installs the recording handler for SIGINT and SIGTERM (without SA_RESTART, so
// a blocking poll() wakes up).
void InstallStopHandlers();

// The signal received since start (or the last ClearStopSignal), or 0.
int StopSignal();

// 128 + StopSignal(), or 0 when none was received.
int StopExitCode();

// Forgets a received signal (for tests that raise one).
void ClearStopSignal();

}  // namespace kb
