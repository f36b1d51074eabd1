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
#include "llvm/Transforms/Utils/ModuleUtils.h"

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

// The runtime's `unsigned long long Name` (8-byte aligned), declared in the module.
inline llvm::Constant* runtime_u64(llvm::Module& M, llvm::StringRef Name) {
  using namespace llvm;
  Constant* C = M.getOrInsertGlobal(Name, Type::getInt64Ty(M.getContext()));
  if (auto* GV = dyn_cast<GlobalVariable>(C); GV != nullptr && GV->isDeclaration())
    GV->setAlignment(Align(8));
  return C;
}

// The runtime's `void Name(unsigned long long address, unsigned long long size)`, nounwind.
inline llvm::FunctionCallee runtime_address_size_call(llvm::Module& M, llvm::StringRef Name) {
  using namespace llvm;
  Type* I64 = Type::getInt64Ty(M.getContext());
  FunctionCallee F =
      M.getOrInsertFunction(Name, FunctionType::get(Type::getVoidTy(M.getContext()), {I64, I64}, false));
  if (auto* Fn = dyn_cast<Function>(F.getCallee()); Fn != nullptr && Fn->isDeclaration())
    Fn->addFnAttr(Attribute::NoUnwind);
  return F;
}

// Defines `const char Name = 1` (weak_odr, kept) in the module, in `Section` if given: the runtime
// tells an instrumented program by its address (a weak reference).
inline void define_marker(llvm::Module& M, llvm::StringRef Name, llvm::StringRef Section = {}) {
  using namespace llvm;
  auto* I8 = Type::getInt8Ty(M.getContext());
  auto* G = dyn_cast<GlobalVariable>(M.getOrInsertGlobal(Name, I8));
  if (G == nullptr || !G->isDeclaration()) return;  // defined already (or not ours to define)
  G->setConstant(true);
  G->setInitializer(ConstantInt::get(I8, 1));
  G->setLinkage(GlobalValue::WeakODRLinkage);
  if (!Section.empty()) G->setSection(Section);
  appendToCompilerUsed(M, {G});
}

// Every instruction of the functions whose accesses get checks, handed to `Collect` (collected
// first, instrumented after: instrumenting splits the blocks being walked).
template <typename Collect>
void for_each_checked_instruction(llvm::Module& M, llvm::StringRef OptOutAnnotation, Collect&& collect) {
  const auto OptOut = annotated_functions(M, OptOutAnnotation);
  for (llvm::Function& F : M) {
    if (!should_check_accesses(F, OptOut, OptOutAnnotation)) continue;
    for (llvm::BasicBlock& BB : F)
      for (llvm::Instruction& I : BB) collect(I);
  }
}

}  // namespace ncp2_plugin
