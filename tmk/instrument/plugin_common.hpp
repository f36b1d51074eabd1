#pragma once
// What the plugin's passes (count_pass.cpp, race_pass.cpp) share.
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace ncp2_plugin {

// The runtime's own functions are never instrumented.
constexpr llvm::StringRef kRuntimePrefix = "__ncp2_tmk_";

// Functions named in llvm.global.annotations with __attribute__((annotate(Annotation))).
inline llvm::SmallPtrSet<const llvm::Function*, 8> annotated_functions(const llvm::Module& M,
                                                                       llvm::StringRef Annotation) {
  using namespace llvm;
  SmallPtrSet<const Function*, 8> Result;
  const GlobalVariable* GA = M.getGlobalVariable("llvm.global.annotations");
  if (GA == nullptr || !GA->hasInitializer()) return Result;
  const auto* Array = dyn_cast<ConstantArray>(GA->getInitializer());
  if (Array == nullptr) return Result;
  for (const Use& U : Array->operands()) {
    const auto* Entry = dyn_cast<ConstantStruct>(U.get());
    if (Entry == nullptr || Entry->getNumOperands() < 2) continue;
    const auto* F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    const auto* Str = dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (F == nullptr || Str == nullptr || !Str->hasInitializer()) continue;
    const auto* Data = dyn_cast<ConstantDataSequential>(Str->getInitializer());
    if (Data != nullptr && Data->isCString() && Data->getAsCString() == Annotation) Result.insert(F);
  }
  return Result;
}

}  // namespace ncp2_plugin
