// The points on this host's cores (sweep/local_executor.hpp).
#include "sweep/local_executor.hpp"

#include <sched.h>

#include <algorithm>
#include <csignal>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>

#include "real_machine/subprocess.hpp"

namespace ncp2::sweep {

namespace {

using Clock = std::chrono::steady_clock;
// How often the loop looks at its children and the stop flag: far below a point's duration, and
// a Ctrl-C is answered at once.
constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr auto kTickInterval = std::chrono::milliseconds(250);

struct Running {
  const PointJob* job;
  real::BackgroundCommand command;
  Clock::time_point start;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reports and removes the children that have ended, as `end`. Returns how many.
std::size_t reap(std::vector<Running>& running, RunEnd end, const ExecutorObserver& observer) {
  std::size_t reaped = 0;
  for (auto it = running.begin(); it != running.end();) {
    const std::optional<int> code = it->command.poll();
    if (!code) {
      ++it;
      continue;
    }
    // What the point started and left behind (a program's node processes) goes with it.
    it->command.signal_group(SIGKILL);
    const PointRun run{end, *code, seconds_since(it->start), {}};
    const std::size_t point = it->job->point;
    it = running.erase(it);
    ++reaped;
    if (observer.finished) observer.finished(point, run);
  }
  return reaped;
}

// Ctrl-C: SIGTERM to each point (ncp2 run then keeps its partial run, marked incomplete), then its
// whole group killed once the grace is over.
void stop_running(std::vector<Running>& running, std::chrono::milliseconds grace,
                  const ExecutorObserver& observer) {
  reap(running, RunEnd::Exited, observer);  // those that ended before the stop
  for (const Running& r : running) r.command.signal(SIGTERM);
  const Clock::time_point deadline = Clock::now() + grace;
  while (!running.empty() && Clock::now() < deadline) {
    if (reap(running, RunEnd::Interrupted, observer) == 0) std::this_thread::sleep_for(kPollInterval);
  }
  for (const Running& r : running) r.command.signal_group(SIGKILL);
  while (!running.empty())
    if (reap(running, RunEnd::Interrupted, observer) == 0) std::this_thread::sleep_for(kPollInterval);
}

}  // namespace

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

LocalExecutor::LocalExecutor(int jobs_at_once, std::chrono::milliseconds grace)
    : jobs_at_once_(std::max(1, jobs_at_once)), grace_(grace) {}

void LocalExecutor::run(const std::vector<PointJob>& jobs, const std::atomic<bool>& stop,
                        const ExecutorObserver& observer) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].weight > jobs[b].weight; });
  std::vector<Running> running;
  std::size_t next = 0;
  Clock::time_point last_tick = Clock::now();
  while (next < order.size() || !running.empty()) {
    if (stop.load(std::memory_order_relaxed)) {
      if (observer.stopping) observer.stopping(running.size());
      stop_running(running, grace_, observer);
      return;
    }
    while (running.size() < static_cast<std::size_t>(jobs_at_once_) && next < order.size()) {
      const PointJob& job = jobs[order[next++]];
      if (observer.launching) observer.launching(job.point);
      try {
        running.push_back({&job, real::BackgroundCommand(job.argv, job.log_path), Clock::now()});
      } catch (const std::exception& e) {
        if (observer.finished) observer.finished(job.point, {RunEnd::Exited, -1, 0, e.what()});
        continue;
      }
      if (observer.started) observer.started(job.point);
    }
    if (reap(running, RunEnd::Exited, observer) == 0) std::this_thread::sleep_for(kPollInterval);
    if (observer.tick && Clock::now() - last_tick >= kTickInterval) {
      last_tick = Clock::now();
      observer.tick();
    }
  }
}

}  // namespace ncp2::sweep
