#pragma once
// Workloads written inline in tests: two lambdas, the run and the verification.
#include <functional>
#include <memory>
#include <string>

#include "run/runner.hpp"
#include "workloads/workload.hpp"

namespace ncp2::workloads::testing {

inline dsm::SystemConfig machine(emu::MachineKind kind, int nodes) {
  dsm::SystemConfig c = dsm::default_config(kind);
  c.machine.nodes = nodes;
  return c;
}

class Lambdas final : public Instance {
 public:
  using Body = std::function<void(dsm::Process&, Lambdas&)>;
  Lambdas(Body run, Body verify) : run_(std::move(run)), verify_(std::move(verify)) {}
  void run(dsm::Process& p) override { run_(p, *this); }
  void verify(dsm::Process& p) override { verify_(p, *this); }
  void set(bool ok, std::string message) { ok ? pass(std::move(message)) : fail(std::move(message)); }
  dsm::SharedArray<std::int64_t> array;

 private:
  Body run_;
  Body verify_;
};

inline Workload custom(const Lambdas::Body& run, const Lambdas::Body& verify) {
  Workload w;
  w.name = "custom";
  w.description = "test";
  w.parameters = {int_param("n", 1, "unused", 1, 10)};
  w.make = [run, verify](const Params&, int, std::uint64_t) {
    return std::make_unique<Lambdas>(run, verify);
  };
  return w;
}

}  // namespace ncp2::workloads::testing
