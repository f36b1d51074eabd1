#pragma once
// A workload: a TreadMarks-style shared-memory program run on every emulated node, with typed
// parameters, presets, validation against the node count, and a verification of its result.
// How to write one: docs/writing-workloads.md.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dsm/process.hpp"
#include "emulator/edit_distance.hpp"
#include "emulator/mix64.hpp"

namespace ncp2::workloads {

// A problem with a workload's name, parameters or preset, or with parameters impossible for the
// node count. The message names the parameter and the offending value.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run limit (--max-virtual-time, --max-wall) reached inside a node's code: the run stops
// cleanly, its partial results kept (run/runner.hpp).
class RunLimitReached : public WorkloadError {
 public:
  using WorkloadError::WorkloadError;
};

enum class ParamType { Int, Real, Bool, Text };
std::string_view to_string(ParamType t);  // "int", "real", "bool", "text"

using ParamValue = std::variant<std::int64_t, double, bool, std::string>;
ParamType type_of(const ParamValue& v);
std::string format_value(const ParamValue& v);  // as written on the command line

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  ParamValue default_value;
  std::string description;
  std::optional<double> min;  // inclusive bounds, int and real parameters
  std::optional<double> max;
  std::vector<std::string> choices;  // text parameters: the allowed values (empty: any)
};

// Helpers to declare parameters.
ParamSpec int_param(std::string name, std::int64_t default_value, std::string description,
                    std::optional<std::int64_t> min = {}, std::optional<std::int64_t> max = {});
ParamSpec real_param(std::string name, double default_value, std::string description,
                     std::optional<double> min = {}, std::optional<double> max = {});
ParamSpec bool_param(std::string name, bool default_value, std::string description);
ParamSpec text_param(std::string name, std::string default_value, std::string description,
                     std::vector<std::string> choices = {});

// The effective parameters of a run: every declared parameter has a value of its type.
class Params {
 public:
  [[nodiscard]] std::int64_t integer(std::string_view name) const;
  [[nodiscard]] double real(std::string_view name) const;
  [[nodiscard]] bool flag(std::string_view name) const;
  [[nodiscard]] const std::string& text(std::string_view name) const;
  [[nodiscard]] const ParamValue& value(std::string_view name) const;

  void set(std::string name, ParamValue value) { values_[std::move(name)] = std::move(value); }
  [[nodiscard]] const std::map<std::string, ParamValue, std::less<>>& values() const { return values_; }
  // "n=4096 phases=4", in name order.
  [[nodiscard]] std::string describe() const;

 private:
  std::map<std::string, ParamValue, std::less<>> values_;
};

// The outcome of a workload's verification.
struct Verdict {
  bool verified = false;
  std::string message = "not verified: the run did not reach the verification";
};

// One run of a workload. The same instance serves every node: the nodes' fibers run one at a
// time, so members need no locking; per-node state goes in vectors indexed by p.id().
class Instance {
 public:
  virtual ~Instance() = default;
  // The timed body, run on every node (between the start and Tmk_exit's barrier). Allocates its
  // shared arrays collectively, computes with p.compute_cycles(), synchronizes with locks and
  // barriers.
  virtual void run(dsm::Process& p) = 0;
  // Runs on every node after the exit barrier, outside the timed region. Node 0 reads the shared
  // result through the DSM and compares it with a sequential computation done natively; the
  // other nodes do nothing. Sets the verdict.
  virtual void verify(dsm::Process& p) = 0;
  [[nodiscard]] const Verdict& verdict() const { return verdict_; }

  // Race reports (--detect-races). Where an access was made: its source file (relative to the
  // source tree when inside it, as the scopes record it) and line; {"", 0} when unknown. The
  // default reads the typed API's sites (a file name's address and a line); a program run from
  // outside resolves its program counters.
  struct SourcePlace {
    std::string file;
    int line = 0;
  };
  [[nodiscard]] virtual SourcePlace describe_access(const dsm::AccessSite& site) const;
  // The program's address of byte `offset` of shared region `region`; none for programs without
  // addresses of their own (the built-in workloads).
  [[nodiscard]] virtual std::optional<std::uint64_t> program_address(const dsm::Runtime& runtime,
                                                                     std::uint32_t region,
                                                                     std::uint64_t offset) const;

 protected:
  void pass(std::string message) { verdict_ = {true, std::move(message)}; }
  void fail(std::string message) { verdict_ = {false, std::move(message)}; }

 private:
  Verdict verdict_;
};

struct Workload {
  using Validator = std::function<void(const Params&, int nodes)>;
  using Factory = std::function<std::unique_ptr<Instance>(const Params&, int nodes, std::uint64_t seed)>;

  std::string name;
  std::string description;
  std::vector<ParamSpec> parameters;
  // Named parameter sets ("small", "paper"), applied over the defaults.
  std::map<std::string, std::map<std::string, ParamValue>, std::less<>> presets;
  // Cross-parameter and node-count checks; throws WorkloadError. Bounds are checked before.
  Validator validate;
  Factory make;

  [[nodiscard]] const ParamSpec* find_parameter(std::string_view name) const;
  [[nodiscard]] Params defaults() const;
  // Defaults, then the preset (empty: none), then each "name=value" assignment in order.
  // Throws WorkloadError: unknown preset, unknown parameter (with a suggestion), malformed
  // assignment, value of the wrong type.
  [[nodiscard]] Params resolve(std::string_view preset, std::span<const std::string> assignments) const;
  // Parses `text` as parameter `name`'s type and stores it.
  void assign(Params& params, std::string_view name, std::string_view text) const;
  // Bounds and choices of every parameter, then the workload's validate hook for `nodes`.
  void check(const Params& params, int nodes) const;
};

// Edit distance (Levenshtein), for "did you mean": the emulator's, shared with the config keys.
using emu::edit_distance;
// The closest of `candidates` to `word`, or "" when none is close enough.
std::string closest(std::string_view word, std::span<const std::string> candidates);

// Deterministic pseudo-random numbers for initial data (splitmix64 of seed and index).
using emu::mix64;
inline std::uint64_t seeded(std::uint64_t seed, std::uint64_t index) {
  return mix64(seed * 0x9E3779B97F4A7C15ULL + index);
}

// The first index of node `id`'s block when `count` items are split into `nodes` blocks as evenly
// as possible (block sizes differ by at most one).
inline std::size_t block_begin(std::size_t count, int nodes, int id) {
  return count * static_cast<std::size_t>(id) / static_cast<std::size_t>(nodes);
}

}  // namespace ncp2::workloads
