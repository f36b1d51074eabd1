#pragma once
// The write guards of ncp2-cc (write_guard_pass.cpp, README.md): every store, atomic and
// memset/memcpy that may touch the shared heap checks a table of the pages this node may write and
// writes through an always-writable alias of the heap, so a write fault costs a call into the
// runtime instead of a signal and an mprotect.
#include "llvm/IR/PassManager.h"

namespace ncp2_plugin {

class WriteGuardPass : public llvm::PassInfoMixin<WriteGuardPass> {
 public:
  // `always`: instrument even without -ncp2-write-guards (opt's -passes=ncp2-write-guards).
  explicit WriteGuardPass(bool always = false) : always_(always) {}
  llvm::PreservedAnalyses run(llvm::Module& M, llvm::ModuleAnalysisManager& MAM);
  // Also at -O0, where functions are optnone.
  static bool isRequired() { return true; }  // NOLINT(readability-identifier-naming): LLVM's name

 private:
  bool always_;
};

}  // namespace ncp2_plugin
