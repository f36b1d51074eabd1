#pragma once
// The race checks of ncp2-cc --ncp2-races (race_pass.cpp, README.md): every load, store, atomic
// and memory intrinsic that may touch the shared heap tells the runtime its address and size
// when it does, so the emulator's race detector learns which bytes each node read and wrote
// between synchronizations.
#include "llvm/IR/PassManager.h"

namespace ncp2_plugin {

class RacePass : public llvm::PassInfoMixin<RacePass> {
 public:
  // `always`: instrument even without -ncp2-races (opt's -passes=ncp2-races).
  explicit RacePass(bool always = false) : always_(always) {}
  llvm::PreservedAnalyses run(llvm::Module& M, llvm::ModuleAnalysisManager& MAM);
  // Also at -O0, where functions are optnone.
  static bool isRequired() { return true; }  // NOLINT(readability-identifier-naming): LLVM's name

 private:
  bool always_;
};

}  // namespace ncp2_plugin
