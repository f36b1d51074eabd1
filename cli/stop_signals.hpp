#pragma once
// SIGINT, SIGTERM and SIGHUP (the terminal closed) as a request to stop cleanly, for the commands
// that can keep what they did: `ncp2 run` (its partial run, marked incomplete) and `ncp2 sweep` (its
// finished points). While a StopSignals lives, those signals set stop_requested(); the previous
// handlers come back when it goes.
#include <atomic>
#include <csignal>

namespace ncp2::cli {

// The flag the signals set (one per process: a signal handler cannot be given a pointer).
std::atomic<bool>& stop_requested();

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
};

}  // namespace ncp2::cli
