// SIGINT, SIGTERM and SIGHUP as a request to stop cleanly (cli/stop_signals.hpp).
#include "cli/stop_signals.hpp"

namespace ncp2::cli {

namespace {
std::atomic<bool> g_stop_requested{false};
extern "C" void on_stop_signal(int /*signal*/) { g_stop_requested.store(true, std::memory_order_relaxed); }
}  // namespace

std::atomic<bool>& stop_requested() { return g_stop_requested; }

StopSignals::StopSignals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  sigaction(SIGHUP, &sa, &old_hup_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
}

}  // namespace ncp2::cli
