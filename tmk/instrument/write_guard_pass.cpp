// The write guards of ncp2-cc (on by default; README.md, docs/tmk-programs.md). Before every store,
// atomic read-modify-write, compare-and-exchange and memset/memcpy intrinsic whose address may lie
// in the shared heap it inserts
//
//   if (address - kHeapBase < __ncp2_tmk_guard_bytes) {
//     if (table[offset >> 12] != 1 || the access crosses a page) __ncp2_tmk_write_guard(address, size);
//     address += kWriteAliasOffset;   // the always-writable mapping of the same memory
//   }
//
// so that a write fault is one call into the runtime (which asks the emulator, as a signal handler
// would) instead of a SIGSEGV and an mprotect per page and interval, the host's dearest operations
// on a virtual machine. __ncp2_tmk_guard_bytes is 0 unless the runtime mapped the alias and the
// table: the program then runs exactly as without the guards.
//
// Loads are left alone: the shared memory's own mapping keeps its protections, so a read of a page
// this node does not hold still traps. memmove is left alone too (its overlap test compares
// addresses, which the alias would fool): its writes trap as without the guards. The pass runs
// after the counting and race passes: what it adds is never counted, so virtual times are the
// same with and without it.

#include "write_guard_pass.hpp"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
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
constexpr StringRef kBytesName = "__ncp2_tmk_guard_bytes";
constexpr StringRef kGuardName = "__ncp2_tmk_write_guard";
// Defined in every guarded module: the runtime (a weak reference) maps the alias only for them.
constexpr StringRef kMarkerName = "__ncp2_tmk_write_guards";
// __attribute__((annotate("ncp2_no_write_guards"))): a function whose stores are not guarded
// (they still work: they trap, as without the guards).
constexpr StringRef kOptOutAnnotation = "ncp2_no_write_guards";
constexpr StringRef kDoneMarker = "ncp2.write_guards.instrumented";
constexpr uint64_t kHostPage = uint64_t{1} << ncp2::tmk::kWriteTablePageShift;

cl::opt<bool> Enable("ncp2-write-guards", cl::init(false),
                     cl::desc("ncp2 write guards: stores to shared memory check a page table and "
                              "write through an always-writable alias instead of trapping"));
cl::opt<bool> VerifyAfter("ncp2-write-guards-verify", cl::init(false),
                          cl::desc("ncp2 write guards: run the IR verifier on the module after "
                                   "instrumenting it; abort on a broken module"));

struct Store {
  Instruction* At;
  unsigned PointerOperand;  // the operand holding the written address
  Value* Size;              // an integer
  bool Range;               // memset/memcpy: always checked by the runtime
  DebugLoc Loc;
};

// __ncp2_tmk_write_guard: also cold (its calls sit out of line).
FunctionCallee guard_callee(Module& M) {
  FunctionCallee F = ncp2_plugin::runtime_address_size_call(M, kGuardName);
  if (auto* Fn = dyn_cast<Function>(F.getCallee()); Fn != nullptr && Fn->isDeclaration())
    Fn->addFnAttr(Attribute::Cold);
  return F;
}

class WriteGuards {
 public:
  explicit WriteGuards(Module& M)
      : M_(M),
        Ctx_(M.getContext()),
        DL_(M.getDataLayout()),
        I8_(Type::getInt8Ty(Ctx_)),
        I64_(Type::getInt64Ty(Ctx_)),
        Bytes_(ncp2_plugin::runtime_u64(M, kBytesName)),
        Guard_(guard_callee(M)) {}

  void run() {
    ncp2_plugin::define_marker(M_, kMarkerName);
    std::vector<Store> Stores;
    ncp2_plugin::for_each_checked_instruction(M_, kOptOutAnnotation,
                                              [&](Instruction& I) { collect(I, Stores); });
    for (const Store& S : Stores) instrument(S);
  }

 private:
  void add(Instruction& I, unsigned Operand, Value* Size, bool Range, std::vector<Store>& Out) const {
    if (Size == nullptr || ncp2_plugin::is_private(I.getOperand(Operand))) return;
    Out.push_back({&I, Operand, Size, Range, ncp2_plugin::line_for(I)});
  }

  Value* size_of(Type* T) const {
    const TypeSize S = DL_.getTypeStoreSize(T);
    return S.isScalable() ? nullptr : ConstantInt::get(I64_, S.getFixedSize());
  }

  void collect(Instruction& I, std::vector<Store>& Out) const {
    if (auto* S = dyn_cast<StoreInst>(&I)) {
      add(I, StoreInst::getPointerOperandIndex(), size_of(S->getValueOperand()->getType()), false, Out);
    } else if (auto* RMW = dyn_cast<AtomicRMWInst>(&I)) {
      add(I, AtomicRMWInst::getPointerOperandIndex(), size_of(RMW->getValOperand()->getType()), false, Out);
    } else if (auto* X = dyn_cast<AtomicCmpXchgInst>(&I)) {
      add(I, AtomicCmpXchgInst::getPointerOperandIndex(), size_of(X->getCompareOperand()->getType()), false,
          Out);
    } else if (auto* Set = dyn_cast<AnyMemSetInst>(&I)) {
      add(I, 0, Set->getLength(), true, Out);
    } else if (auto* T = dyn_cast<AnyMemTransferInst>(&I); T != nullptr && !isa<AnyMemMoveInst>(T)) {
      add(I, 0, T->getLength(), true, Out);
    }
  }

  // In `B`'s block: does the access need the runtime (page not writable here, or crossing a page)?
  Value* needs_runtime(IRBuilder<>& B, Value* Offset, Value* Size) {
    Value* Index = B.CreateLShr(Offset, ncp2::tmk::kWriteTablePageShift, "ncp2.page");
    Value* Entry = B.CreateIntToPtr(B.CreateAdd(Index, ConstantInt::get(I64_, ncp2::tmk::kWriteTableBase)),
                                    PointerType::getUnqual(I8_), "ncp2.entry");
    Value* Writable = B.CreateLoad(I8_, Entry, "ncp2.writable");
    Value* NotWritable = B.CreateICmpNE(Writable, ConstantInt::get(I8_, 1));  // 0, or 2: a local fault
    Value* InPage = B.CreateAnd(Offset, ConstantInt::get(I64_, kHostPage - 1));
    Value* Crosses = B.CreateICmpUGT(B.CreateAdd(InPage, Size), ConstantInt::get(I64_, kHostPage));
    return B.CreateOr(NotWritable, Crosses, "ncp2.guard");
  }

  void instrument(const Store& S) {
    Value* Pointer = S.At->getOperand(S.PointerOperand);
    IRBuilder<> B(S.At);
    B.SetCurrentDebugLocation(S.Loc);
    Value* Address = B.CreatePtrToInt(Pointer, I64_, "ncp2.addr");
    Value* Offset = B.CreateSub(Address, ConstantInt::get(I64_, ncp2::tmk::kHeapBase), "ncp2.off");
    LoadInst* Bytes = B.CreateAlignedLoad(I64_, Bytes_, Align(8), "ncp2.guarded");
    Value* Shared = B.CreateICmpULT(Offset, Bytes, "ncp2.in");
    BasicBlock* Head = S.At->getParent();
    Instruction* Then = SplitBlockAndInsertIfThen(Shared, S.At, /*Unreachable=*/false);
    Then->setDebugLoc(S.Loc);
    Head->getTerminator()->setDebugLoc(S.Loc);
    Then->getParent()->setName("ncp2.guard");
    B.SetInsertPoint(Then);
    Value* Size = B.CreateZExtOrTrunc(S.Size, I64_);
    if (S.Range) {
      B.CreateCall(Guard_, {Address, Size})->addFnAttr(Attribute::NoUnwind);
    } else {
      Value* Need = needs_runtime(B, Offset, Size);
      MDNode* Unlikely = MDBuilder(Ctx_).createBranchWeights(1, (1U << 20) - 1);
      Instruction* Slow = SplitBlockAndInsertIfThen(Need, Then, /*Unreachable=*/false, Unlikely);
      Slow->setDebugLoc(S.Loc);
      Slow->getParent()->setName("ncp2.write_fault");
      IRBuilder<> C(Slow);
      C.SetCurrentDebugLocation(S.Loc);
      C.CreateCall(Guard_, {Address, Size})->addFnAttr(Attribute::NoUnwind);
      B.SetInsertPoint(Then);
    }
    // Derived from the pointer (a GEP, not an integer): alias analysis still sees the same object.
    Value* Bytewise = B.CreatePointerCast(Pointer, PointerType::get(I8_, 0));
    Value* Aliased = B.CreatePointerCast(
        B.CreateGEP(I8_, Bytewise, ConstantInt::get(I64_, ncp2::tmk::kWriteAliasOffset), "ncp2.alias"),
        Pointer->getType());
    BasicBlock* Tail = S.At->getParent();
    PHINode* At = PHINode::Create(Pointer->getType(), 2, "ncp2.store_at", &Tail->front());
    At->setDebugLoc(S.Loc);
    At->addIncoming(Pointer, Head);
    At->addIncoming(Aliased, Then->getParent());
    S.At->setOperand(S.PointerOperand, At);
  }

  Module& M_;
  LLVMContext& Ctx_;
  const DataLayout& DL_;
  IntegerType* I8_;
  IntegerType* I64_;
  Constant* Bytes_;
  FunctionCallee Guard_;
};

}  // namespace

namespace ncp2_plugin {

PreservedAnalyses WriteGuardPass::run(Module& M, ModuleAnalysisManager& /*MAM*/) {
  if ((!always_ && !Enable) || M.getNamedMetadata(kDoneMarker) != nullptr) return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata(kDoneMarker);
  WriteGuards(M).run();
  if (VerifyAfter && verifyModule(M, &errs()))
    report_fatal_error("ncp2 write guards: the instrumented module is broken", false);
  return PreservedAnalyses::none();
}

}  // namespace ncp2_plugin
