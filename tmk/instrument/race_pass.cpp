// The race checks of ncp2-cc --ncp2-races (README.md, docs/tmk-programs.md). Before every load,
// store, atomic read-modify-write, compare-and-exchange and memcpy/memmove/memset intrinsic whose
// address may lie in the shared heap it inserts
//
//   if (address - kHeapBase < __ncp2_tmk_race_bytes) __ncp2_tmk_race_read/write(address, size);
//
// so that only shared accesses reach the runtime, which records them in the node's access log
// (tmk/channel.hpp). __ncp2_tmk_race_bytes is 0 unless the run detects races: an instrumented
// program run otherwise pays the check alone. Accesses to the stack and to globals are never
// shared (each node's process has its own) and are left alone.
//
// It runs after the counting pass, at the end of the optimization pipeline: it sees the accesses
// as they will execute (vector loads, merged stores), and the instructions it adds are not
// counted, so the emulator charges the same computation with and without it.

#include "race_pass.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <vector>

#include "plugin_common.hpp"
#include "tmk/channel.hpp"

using namespace llvm;

namespace {

// The ABI, defined by the runtime library (tmk/runtime/tmk_runtime.cpp).
constexpr StringRef kBytesName = "__ncp2_tmk_race_bytes";
constexpr StringRef kReadName = "__ncp2_tmk_race_read";
constexpr StringRef kWriteName = "__ncp2_tmk_race_write";
// Defined in every instrumented module, in its own section: the runtime (a weak reference) and the
// emulator (the section, which survives strip) tell an instrumented program by it.
constexpr StringRef kMarkerName = "__ncp2_tmk_race_checks";
constexpr StringRef kMarkerSection = "ncp2_race_checks";
// __attribute__((annotate("ncp2_no_race_checks"))): a function whose accesses are not checked.
constexpr StringRef kOptOutAnnotation = "ncp2_no_race_checks";
constexpr StringRef kDoneMarker = "ncp2.races.instrumented";

cl::opt<bool> Enable("ncp2-races", cl::init(false),
                     cl::desc("ncp2 race checks: record the shared-memory accesses of the program for "
                              "`ncp2 run --detect-races` (ncp2-cc --ncp2-races)"));
cl::opt<bool> VerifyAfter("ncp2-races-verify", cl::init(false),
                          cl::desc("ncp2 race checks: run the IR verifier on the module after "
                                   "instrumenting it; abort on a broken module"));

struct Access {
  Instruction* At;
  Value* Pointer;
  Value* Size;  // an integer
  bool Write;
  DebugLoc Loc;
};

class RaceInstrumenter {
 public:
  explicit RaceInstrumenter(Module& M)
      : M_(M),
        Ctx_(M.getContext()),
        DL_(M.getDataLayout()),
        I64_(Type::getInt64Ty(Ctx_)),
        Bytes_(ncp2_plugin::runtime_u64(M, kBytesName)),
        Read_(ncp2_plugin::runtime_address_size_call(M, kReadName)),
        Write_(ncp2_plugin::runtime_address_size_call(M, kWriteName)) {}

  void run() {
    ncp2_plugin::define_marker(M_, kMarkerName, kMarkerSection);
    std::vector<Access> Accesses;
    ncp2_plugin::for_each_checked_instruction(M_, kOptOutAnnotation,
                                              [&](Instruction& I) { collect(I, Accesses); });
    for (const Access& A : Accesses) instrument(A);
  }

 private:
  void add(Instruction& I, Value* Pointer, Value* Size, bool Write, std::vector<Access>& Out) const {
    if (Size == nullptr || ncp2_plugin::is_private(Pointer)) return;
    Out.push_back({&I, Pointer, Size, Write, ncp2_plugin::line_for(I)});
  }

  Value* size_of(Type* T) const {
    const TypeSize S = DL_.getTypeStoreSize(T);
    return S.isScalable() ? nullptr : ConstantInt::get(I64_, S.getFixedSize());
  }

  void collect(Instruction& I, std::vector<Access>& Out) const {
    if (auto* L = dyn_cast<LoadInst>(&I)) {
      if (Value* Size = size_of(L->getType())) add(I, L->getPointerOperand(), Size, false, Out);
    } else if (auto* S = dyn_cast<StoreInst>(&I)) {
      if (Value* Size = size_of(S->getValueOperand()->getType()))
        add(I, S->getPointerOperand(), Size, true, Out);
    } else if (auto* RMW = dyn_cast<AtomicRMWInst>(&I)) {
      // A write covers the read for the detector (a race needs one write of the two).
      add(I, RMW->getPointerOperand(), size_of(RMW->getValOperand()->getType()), true, Out);
    } else if (auto* X = dyn_cast<AtomicCmpXchgInst>(&I)) {
      add(I, X->getPointerOperand(), size_of(X->getCompareOperand()->getType()), true, Out);
    } else if (auto* T = dyn_cast<AnyMemTransferInst>(&I)) {
      add(I, T->getRawSource(), T->getLength(), false, Out);
      add(I, T->getRawDest(), T->getLength(), true, Out);
    } else if (auto* Set = dyn_cast<AnyMemSetInst>(&I)) {
      add(I, Set->getRawDest(), Set->getLength(), true, Out);
    }
  }

  void instrument(const Access& A) {
    IRBuilder<> B(A.At);
    B.SetCurrentDebugLocation(A.Loc);
    Value* Address = B.CreatePtrToInt(A.Pointer, I64_, "ncp2.addr");
    Value* Offset = B.CreateSub(Address, ConstantInt::get(I64_, ncp2::tmk::kHeapBase), "ncp2.off");
    LoadInst* Bytes = B.CreateAlignedLoad(I64_, Bytes_, Align(8), "ncp2.shared");
    Value* Shared = B.CreateICmpULT(Offset, Bytes, "ncp2.in");
    BasicBlock* Head = A.At->getParent();
    Instruction* Then = SplitBlockAndInsertIfThen(Shared, A.At, /*Unreachable=*/false);
    Then->setDebugLoc(A.Loc);
    Then->getParent()->setName("ncp2.race");
    Head->getTerminator()->setDebugLoc(A.Loc);
    B.SetInsertPoint(Then);
    CallInst* Call = B.CreateCall(A.Write ? Write_ : Read_, {Address, B.CreateZExtOrTrunc(A.Size, I64_)});
    Call->addFnAttr(Attribute::NoUnwind);
  }

  Module& M_;
  LLVMContext& Ctx_;
  const DataLayout& DL_;
  IntegerType* I64_;
  Constant* Bytes_;
  FunctionCallee Read_;
  FunctionCallee Write_;
};

}  // namespace

namespace ncp2_plugin {

PreservedAnalyses RacePass::run(Module& M, ModuleAnalysisManager& /*MAM*/) {
  if ((!always_ && !Enable) || M.getNamedMetadata(kDoneMarker) != nullptr) return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata(kDoneMarker);
  RaceInstrumenter(M).run();
  if (VerifyAfter && verifyModule(M, &errs()))
    report_fatal_error("ncp2 race checks: the instrumented module is broken", false);
  return PreservedAnalyses::none();
}

}  // namespace ncp2_plugin
