// ncp2_count_pass: a clang-14 pass plugin (new pass manager) that counts executed instructions
// deterministically, for the emulator's computation-time model. See README.md.
//
// For every defined function (except the runtime's own and opted-out ones) it inserts, at the
// start of every basic block, `__ncp2_tmk_icount += <the block's instruction count>`, and at the
// function entry and at every cycle head (loop header, or target of a retreating edge of an
// irreducible cycle): `if (__ncp2_tmk_icount >= __ncp2_tmk_icount_limit)
// __ncp2_tmk_icount_hook();` on an unlikely, cold path.
//
// Use: clang-14 -fpass-plugin=libncp2_count_pass.so ...   (any -O level)

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/EHPersonalities.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Dominators.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <cstdint>
#include <vector>

#include "plugin_common.hpp"
#include "race_pass.hpp"
#include "write_guard_pass.hpp"

using namespace llvm;

namespace {

// The ABI, defined by the runtime library.
constexpr StringRef kCountName = "__ncp2_tmk_icount";
constexpr StringRef kLimitName = "__ncp2_tmk_icount_limit";
constexpr StringRef kHookName = "__ncp2_tmk_icount_hook";
using ncp2_plugin::kRuntimePrefix;
// __attribute__((annotate("ncp2_no_icount"))) on a function definition: not instrumented.
constexpr StringRef kOptOutAnnotation = "ncp2_no_icount";
// Named metadata marking a module as instrumented, so the pass never instruments twice (e.g. when a
// pipeline invokes more than one of the extension points it is registered at).
constexpr StringRef kDoneMarker = "ncp2.icount.instrumented";

cl::opt<bool> VerifyAfter("ncp2-icount-verify", cl::init(false),
                          cl::desc("ncp2_count_pass: run the IR verifier on the module after "
                                   "instrumenting it; abort on a broken module"));
cl::opt<bool> ChecksAtEntry("ncp2-icount-entry-checks", cl::init(true),
                            cl::desc("ncp2_count_pass: check the limit at every function entry "
                                     "(default on; off leaves the checks at cycle heads only)"));
cl::opt<bool> Disable("ncp2-icount-disable", cl::init(false),
                      cl::desc("ncp2_count_pass: do not instrument (the plugin stays loaded)"));

// Instructions that emit no machine code are not counted.
bool counted(const Instruction& I) {
  if (isa<PHINode>(I) || I.isDebugOrPseudoInst() || I.isLifetimeStartOrEnd()) return false;
  if (const auto* II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
      case Intrinsic::assume:
      case Intrinsic::experimental_noalias_scope_decl:
      case Intrinsic::sideeffect:
      case Intrinsic::donothing:
        return false;
      default:
        break;
    }
  }
  return true;
}

uint64_t block_count(const BasicBlock& BB) {
  uint64_t N = 0;
  for (const Instruction& I : BB) N += counted(I) ? 1 : 0;
  return N == 0 ? 1 : N;
}

bool should_instrument(const Function& F, const SmallPtrSetImpl<const Function*>& OptOut) {
  if (F.isDeclaration() || F.hasFnAttribute(Attribute::Naked)) return false;
  if (F.getName().startswith(kRuntimePrefix)) return false;
  if (F.hasFnAttribute(kOptOutAnnotation)) return false;  // the same opt-out as a string attribute
  return !OptOut.contains(&F);
}

// The debug location for the inserted code of a block: that of the block's first instruction (debug
// intrinsics aside) with a real line, else with any location, else the function's line.
DebugLoc location_for(const BasicBlock& BB, const Function& F) {
  DebugLoc Any;
  for (const Instruction& I : BB) {
    if (isa<DbgInfoIntrinsic>(I) || !I.getDebugLoc()) continue;
    if (I.getDebugLoc().getLine() != 0) return I.getDebugLoc();
    if (!Any) Any = I.getDebugLoc();
  }
  if (Any) return Any;
  if (DISubprogram* SP = F.getSubprogram()) {
    const unsigned Line = SP->getScopeLine() != 0 ? SP->getScopeLine() : SP->getLine();
    return DILocation::get(F.getContext(), Line, 0, SP);
  }
  return {};
}

// Where the block's add goes: after PHIs and EH pads, then after the debug intrinsics that follow
// (so that the variable locations they start hold at the inserted code too: a breakpoint on the
// line lands there). In the entry block: after its static allocas (splitting the entry block for
// the check must not turn them into dynamic allocas) and, in a function with debug info, at its
// first instruction with a location, where the debugger's breakpoint on the function goes (the end
// of the prologue): the arguments' spills to their stack slots at -O0 come before it.
// Nothing for a block that cannot hold non-PHI instructions (catchswitch).
Instruction* insertion_point(BasicBlock& BB, bool IsEntry) {
  auto It = BB.getFirstInsertionPt();
  if (It == BB.end()) return nullptr;
  if (IsEntry) {
    for (auto J = It; J != BB.end(); ++J) {
      if (isa<AllocaInst>(*J)) It = std::next(J);
    }
    // Over location-less instructions that are neither calls nor terminators (the spills), never
    // between a musttail call and its return.
    if (BB.getParent()->getSubprogram() != nullptr) {
      while (isa<DbgInfoIntrinsic>(*It) ||
             (!It->getDebugLoc() && !isa<CallBase>(*It) && !It->isTerminator())) {
        ++It;
      }
    }
  }
  while (isa<DbgInfoIntrinsic>(*It)) ++It;  // the terminator ends the walk
  return &*It;
}

class Instrumenter {
 public:
  explicit Instrumenter(Module& M)
      : M_(M),
        Ctx_(M.getContext()),
        I64_(Type::getInt64Ty(Ctx_)),
        Count_(global(kCountName)),
        Limit_(global(kLimitName)),
        Hook_(hook()),
        Unlikely_(MDBuilder(Ctx_).createBranchWeights(1, (1U << 20) - 1)) {}

  bool run() {
    const auto OptOut = ncp2_plugin::annotated_functions(M_, kOptOutAnnotation);
    bool Changed = false;
    for (Function& F : M_) {
      if (!should_instrument(F, OptOut)) continue;
      instrument(F);
      Changed = true;
    }
    return Changed;
  }

 private:
  // Declared like a C `extern unsigned long long Name;` when the module does not define it (not
  // dso_local: the runtime may live in a shared object; its address load is loop-invariant).
  Constant* global(StringRef Name) {
    Constant* C = M_.getOrInsertGlobal(Name, I64_);
    if (auto* GV = dyn_cast<GlobalVariable>(C); GV != nullptr && GV->isDeclaration())
      GV->setAlignment(Align(8));
    return C;
  }

  FunctionCallee hook() {
    FunctionCallee H = M_.getOrInsertFunction(kHookName, FunctionType::get(Type::getVoidTy(Ctx_), false));
    if (auto* Fn = dyn_cast<Function>(H.getCallee()); Fn != nullptr && Fn->isDeclaration()) {
      Fn->addFnAttr(Attribute::Cold);
      Fn->addFnAttr(Attribute::NoUnwind);
    }
    return H;
  }

  struct Site {
    BasicBlock* Block;
    uint64_t Count;
    bool Check;
  };

  void instrument(Function& F) {
    // Analyse the original CFG before changing anything: block counts and the check sites.
    SmallPtrSet<const BasicBlock*, 16> Heads;
    {
      DominatorTree DT(F);
      LoopInfo LI(DT);
      for (const Loop* L : LI.getLoopsInPreorder()) Heads.insert(L->getHeader());
      // Irreducible cycles have no LoopInfo loop; a DFS back-edge target lies on every cycle.
      SmallVector<std::pair<const BasicBlock*, const BasicBlock*>, 16> BackEdges;
      FindFunctionBackedges(F, BackEdges);
      for (const auto& E : BackEdges) Heads.insert(E.second);
    }
    // Calls inside Windows-style funclets would need funclet bundles: count there, but no checks.
    const bool Funclets =
        F.hasPersonalityFn() && isFuncletEHPersonality(classifyEHPersonality(F.getPersonalityFn()));

    std::vector<Site> Sites;
    BasicBlock* Entry = &F.getEntryBlock();
    for (BasicBlock& BB : F) {
      const bool Check = !Funclets && ((&BB == Entry && ChecksAtEntry) || Heads.contains(&BB));
      Sites.push_back({&BB, block_count(BB), Check});
    }
    for (const Site& S : Sites) instrument_block(F, S, S.Block == Entry);
  }

  void instrument_block(Function& F, const Site& S, bool IsEntry) {
    Instruction* At = insertion_point(*S.Block, IsEntry);
    if (At == nullptr) return;
    const DebugLoc Loc = location_for(*S.Block, F);
    IRBuilder<> B(At);
    B.SetCurrentDebugLocation(Loc);
    LoadInst* Old = B.CreateAlignedLoad(I64_, Count_, Align(8), "ncp2.ic");
    Value* New = B.CreateAdd(Old, ConstantInt::get(I64_, S.Count), "ncp2.ic.new");
    B.CreateAlignedStore(New, Count_, Align(8));
    if (!S.Check) return;
    LoadInst* Limit = B.CreateAlignedLoad(I64_, Limit_, Align(8), "ncp2.limit");
    Value* Reached = B.CreateICmpUGE(New, Limit, "ncp2.reached");
    Instruction* Then = SplitBlockAndInsertIfThen(Reached, At, /*Unreachable=*/false, Unlikely_);
    Then->setDebugLoc(Loc);
    Then->getParent()->setName("ncp2.hook");
    B.SetInsertPoint(Then);
    CallInst* Call = B.CreateCall(Hook_);
    Call->addFnAttr(Attribute::Cold);
    Call->addFnAttr(Attribute::NoUnwind);
    Call->addFnAttr(Attribute::NoInline);
    // SplitBlockAndInsertIfThen's conditional branch: the same location.
    S.Block->getTerminator()->setDebugLoc(Loc);
  }

  Module& M_;
  LLVMContext& Ctx_;
  IntegerType* I64_;
  Constant* Count_;
  Constant* Limit_;
  FunctionCallee Hook_;
  MDNode* Unlikely_;
};

struct CountPass : PassInfoMixin<CountPass> {
  PreservedAnalyses run(Module& M, ModuleAnalysisManager& /*MAM*/) {
    if (Disable || M.getNamedMetadata(kDoneMarker) != nullptr) return PreservedAnalyses::all();
    M.getOrInsertNamedMetadata(kDoneMarker);
    Instrumenter(M).run();
    if (VerifyAfter && verifyModule(M, &errs())) {
      report_fatal_error("ncp2_count_pass: the instrumented module is broken", false);
    }
    return PreservedAnalyses::none();
  }
  // Also at -O0, where functions are optnone.
  static bool isRequired() { return true; }  // NOLINT(readability-identifier-naming): LLVM's name
};

void register_callbacks(PassBuilder& PB) {
  // After the optimization pipeline (LLVM 14 invokes this extension point at -O0 too, after the
  // always-inliner and the coroutine passes); the marker makes a second invocation a no-op.
  // The race checks (off unless -ncp2-races) come after the counting: they add code the count
  // never sees, so a program's virtual times are the same with and without them.
  PB.registerOptimizerLastEPCallback([](ModulePassManager& MPM, OptimizationLevel /*Level*/) {
    MPM.addPass(CountPass());
    MPM.addPass(ncp2_plugin::RacePass());
    MPM.addPass(ncp2_plugin::WriteGuardPass());  // last: it rewrites the stores' addresses
  });
  // For use with opt: -passes=ncp2-count, -passes=ncp2-races, -passes=ncp2-write-guards.
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager& MPM, ArrayRef<PassBuilder::PipelineElement> /*Elements*/) {
        if (Name == "ncp2-count") {
          MPM.addPass(CountPass());
          return true;
        }
        if (Name == "ncp2-races") {  // opt: instruments whether or not -ncp2-races is given
          MPM.addPass(ncp2_plugin::RacePass(true));
          return true;
        }
        if (Name == "ncp2-write-guards") {
          MPM.addPass(ncp2_plugin::WriteGuardPass(true));
          return true;
        }
        return false;
      });
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): the entry point LLVM looks up.
extern "C" LLVM_ATTRIBUTE_WEAK LLVM_EXTERNAL_VISIBILITY PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ncp2_count_pass", LLVM_VERSION_STRING, register_callbacks};
}
