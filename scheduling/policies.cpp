#include "scheduling/policies.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "emulator/mix64.hpp"

namespace ncp2::sched {

namespace {

struct NamedPolicy {
  std::string_view name;
  Policy policy;
};

constexpr std::array<NamedPolicy, 7> kPolicies = {{
    {"native", {PolicyKind::Native, Reference::Fitted}},
    {"native-threads", {PolicyKind::NativeThreads, Reference::Fitted}},
    {"latest-quantum", {PolicyKind::LatestQuantum, Reference::Fitted}},
    {"quanta-window", {PolicyKind::QuantaWindow, Reference::Fitted}},
    {"iabw", {PolicyKind::Iabw, Reference::Fitted}},
    {"iabw-ideal", {PolicyKind::Iabw, Reference::Ideal}},
    {"iabw-peak", {PolicyKind::Iabw, Reference::Peak}},
}};

// splitmix64: a fixed, portable mix (std:: distributions differ between libraries).
using emu::mix64;

}  // namespace

std::string policy_name(const Policy& policy) {
  for (const auto& p : kPolicies)
    if (p.policy == policy) return std::string(p.name);
  return "iabw";  // a non-iabw kind with a reference other than the default
}

std::optional<Policy> parse_policy(std::string_view name) {
  for (const auto& p : kPolicies)
    if (p.name == name) return p.policy;
  return std::nullopt;
}

std::vector<Policy> all_policies() {
  std::vector<Policy> out;
  out.reserve(kPolicies.size());
  // native-threads only on request: its −120 % would crowd every table and plot of --all.
  for (const auto& p : kPolicies)
    if (p.policy.kind != PolicyKind::NativeThreads) out.push_back(p.policy);
  return out;
}

std::string policy_names_list() {
  std::string out;
  for (const auto& p : kPolicies) out += (out.empty() ? "" : "|") + std::string(p.name);
  return out;
}

Bandwidth fitted_reference(Bandwidth iabw, Bandwidth capacity) {
  const double x = iabw.per_us();
  const double fitted = -0.0118 * x * x + 1.4571 * x - 6.2403;
  const double reference = fitted > 0 ? fitted : x;
  return Bandwidth(std::min(reference, capacity.per_us()));
}

double fitness(Bandwidth left_per_processor, Bandwidth job_per_thread) {
  return 1000.0 / (1.0 + std::fabs(left_per_processor.per_us() - job_per_thread.per_us()));
}

std::vector<JobId> select_fittest(std::span<const Candidate> queue, int processors, Bandwidth target) {
  std::vector<JobId> chosen;
  std::vector<bool> taken(queue.size(), false);
  int free = processors;
  Bandwidth left = target;
  const auto take = [&](std::size_t i) {
    taken[i] = true;
    chosen.push_back(queue[i].id);
    free -= queue[i].threads;
    left -= queue[i].estimate;
  };
  // No starvation: the head of the list (the job that waited longest) runs whatever it needs.
  for (std::size_t i = 0; i < queue.size(); ++i)
    if (queue[i].threads <= free) {
      take(i);
      break;
    }
  while (free > 0) {
    std::optional<std::size_t> best;
    double best_fitness = -1;
    bool best_over_share = true;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      if (taken[i] || queue[i].threads > free) continue;
      const double f = fitness(left / free, queue[i].estimate / queue[i].threads);
      // A job within its fair share beats one ahead of it; then the fitter; ties: the earlier in
      // the list.
      const bool better = best_over_share != queue[i].over_share ? !queue[i].over_share : f > best_fitness;
      if (!best || better) {
        best_fitness = f;
        best_over_share = queue[i].over_share;
        best = i;
      }
    }
    if (!best) break;
    take(*best);
  }
  return chosen;
}

std::vector<JobId> select_first_fit(std::span<const Candidate> queue, int processors) {
  std::vector<JobId> chosen;
  int free = processors;
  for (const auto& c : queue)
    if (c.threads <= free) {
      chosen.push_back(c.id);
      free -= c.threads;
    }
  return chosen;
}

Scheduler::Scheduler(Policy policy, SchedulerOptions options, std::vector<int> threads_per_job)
    : policy_(policy),
      options_(options),
      threads_(std::move(threads_per_job)),
      history_(threads_.size()),
      quanta_(threads_.size(), 0) {
  for (const int t : threads_) thread_quanta_.emplace_back(static_cast<std::size_t>(std::max(t, 0)), 0);
  if (options_.processors < 1) throw std::invalid_argument("the node needs at least one processor");
  if (options_.window < 1) throw std::invalid_argument("the quanta window must hold at least one quantum");
  list_.reserve(threads_.size());
  for (std::size_t i = 0; i < threads_.size(); ++i) list_.push_back(JobId{static_cast<std::uint32_t>(i)});
}

Bandwidth Scheduler::estimate(JobId job) const {
  const auto& h = history_.at(index_of(job));
  if (h.empty()) return Bandwidth{};
  if (policy_.kind == PolicyKind::LatestQuantum) return h.back();
  Bandwidth sum;
  for (const Bandwidth b : h) sum += b;
  return sum / static_cast<double>(h.size());
}

void Scheduler::record(JobId job, Bandwidth measured) {
  auto& h = history_.at(index_of(job));
  h.push_back(measured);
  while (std::cmp_greater(h.size(), options_.window)) h.pop_front();
  ++quanta_.at(index_of(job));
}

std::vector<Candidate> Scheduler::native_order(const std::vector<bool>& runnable) const {
  std::vector<Candidate> queue;
  for (std::size_t i = 0; i < threads_.size(); ++i)
    if (runnable[i]) queue.push_back({JobId{static_cast<std::uint32_t>(i)}, threads_[i], Bandwidth{}});
  const std::uint64_t round = mix64(options_.seed ^ mix64(decisions_));
  std::stable_sort(queue.begin(), queue.end(), [&](const Candidate& a, const Candidate& b) {
    const auto qa = quanta_[index_of(a.id)];
    const auto qb = quanta_[index_of(b.id)];
    if (qa != qb) return qa < qb;
    return mix64(round ^ index_of(a.id)) < mix64(round ^ index_of(b.id));
  });
  return queue;
}

// Threads by their own quanta, fewest first, ties in the seeded order; the first P run.
std::vector<JobId> Scheduler::choose_threads(const std::vector<bool>& runnable) {
  struct Thread {
    std::size_t job;
    std::size_t index;
  };
  std::vector<Thread> all;
  for (std::size_t i = 0; i < threads_.size(); ++i)
    if (runnable[i])
      for (std::size_t t = 0; t < thread_quanta_[i].size(); ++t) all.push_back({i, t});
  const std::uint64_t round = mix64(options_.seed ^ mix64(decisions_));
  std::stable_sort(all.begin(), all.end(), [&](const Thread& a, const Thread& b) {
    const auto qa = thread_quanta_[a.job][a.index];
    const auto qb = thread_quanta_[b.job][b.index];
    if (qa != qb) return qa < qb;
    return mix64(round ^ (a.job * 64 + a.index)) < mix64(round ^ (b.job * 64 + b.index));
  });
  std::vector<JobId> chosen;
  for (std::size_t k = 0; k < all.size() && std::cmp_less(k, options_.processors); ++k) {
    ++thread_quanta_[all[k].job][all[k].index];
    chosen.push_back(JobId{static_cast<std::uint32_t>(all[k].job)});
  }
  return chosen;
}

std::vector<JobId> Scheduler::choose(const std::vector<bool>& runnable) {
  if (runnable.size() != threads_.size()) throw std::invalid_argument("one runnable flag per job");
  std::vector<JobId> chosen;
  if (policy_.kind == PolicyKind::NativeThreads) {
    chosen = choose_threads(runnable);
  } else if (policy_.kind == PolicyKind::Native) {
    chosen = select_first_fit(native_order(runnable), options_.processors);
  } else {
    std::int64_t least = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < threads_.size(); ++i)
      if (runnable[i]) least = std::min(least, quanta_[i]);
    std::vector<Candidate> queue;
    for (const JobId id : list_)
      if (runnable[index_of(id)])
        queue.push_back({id, threads_[index_of(id)], estimate(id),
                         quanta_[index_of(id)] > least + options_.fair_share_slack});
    chosen = select_fittest(queue, options_.processors, options_.target);
    // The jobs that run now go to the end of the list, in list order.
    std::stable_partition(list_.begin(), list_.end(), [&](JobId id) {
      return std::find(chosen.begin(), chosen.end(), id) == chosen.end();
    });
  }
  ++decisions_;
  return chosen;
}

}  // namespace ncp2::sched
