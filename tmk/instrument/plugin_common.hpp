#pragma once
// What the plugin's passes (count_pass.cpp, race_pass.cpp, write_guard_pass.cpp) share.
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/EHPersonalities.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
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

// Memory no other node can see: this process's stack (allocas, byval copies), its globals and
// thread-locals, other address spaces (fs/gs-relative).
inline bool is_private(const llvm::Value* Pointer) {
  using namespace llvm;
  if (Pointer->getType()->getPointerAddressSpace() != 0) return true;
  const Value* Object = getUnderlyingObject(Pointer, 0);
  if (isa<AllocaInst>(Object) || isa<GlobalValue>(Object) || isa<ConstantPointerNull>(Object)) return true;
  if (const auto* A = dyn_cast<Argument>(Object)) return A->hasByValAttr();
  return false;
}

inline bool has_line(const llvm::Instruction& I) {
  return !llvm::isa<llvm::DbgInfoIntrinsic>(I) && I.getDebugLoc() && I.getDebugLoc().getLine() != 0;
}

// Where an access is, for a report: its own line, or (an access the optimizer merged, line 0) the
// nearest line before it in its block, else after it, else the function's.
inline llvm::DebugLoc line_for(const llvm::Instruction& I) {
  using namespace llvm;
  const Function& F = *I.getFunction();
  DISubprogram* SP = F.getSubprogram();
  if (SP == nullptr) return {};
  if (has_line(I)) return I.getDebugLoc();
  for (const Instruction* P = I.getPrevNode(); P != nullptr; P = P->getPrevNode())
    if (has_line(*P)) return P->getDebugLoc();
  for (const Instruction* N = I.getNextNode(); N != nullptr; N = N->getNextNode())
    if (has_line(*N)) return N->getDebugLoc();
  if (I.getDebugLoc()) return I.getDebugLoc();
  const unsigned Line = SP->getScopeLine() != 0 ? SP->getScopeLine() : SP->getLine();
  return DILocation::get(F.getContext(), Line, 0, SP);
}

// Whether the accesses of F get checks: not the runtime's own functions, not those opted out
// (the annotation, or no_sanitize), not naked ones.
inline bool should_check_accesses(const llvm::Function& F,
                                  const llvm::SmallPtrSetImpl<const llvm::Function*>& OptOut,
                                  llvm::StringRef OptOutAnnotation) {
  using namespace llvm;
  if (F.isDeclaration() || F.hasFnAttribute(Attribute::Naked)) return false;
  if (F.getName().startswith(kRuntimePrefix)) return false;
  if (F.hasFnAttribute(OptOutAnnotation) || F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation))
    return false;
  // Calls inside Windows-style funclets would need funclet bundles (never on Linux).
  if (F.hasPersonalityFn() && isFuncletEHPersonality(classifyEHPersonality(F.getPersonalityFn())))
    return false;
  return !OptOut.contains(&F);
}

}  // namespace ncp2_plugin
