// The guards of ncp2-cc (on by default; README.md, docs/tmk-programs.md). Before every store,
// atomic read-modify-write, compare-and-exchange and memset/memcpy intrinsic whose address may lie
// in the shared heap it inserts
//
//   if (address - kHeapBase < __ncp2_tmk_guard_bytes) {
//     if (table[offset >> 12] != Write || the access crosses a page) __ncp2_tmk_write_guard(address, size);
//     address += __ncp2_tmk_guard_alias;
//   }
//
// and before every load, atomic load and memcpy source that may lie there
//
//   if (address - kHeapBase < __ncp2_tmk_load_bytes) {
//     if (table[offset >> 12] == None || the access crosses a page) __ncp2_tmk_read_guard(address, size);
//     address += __ncp2_tmk_guard_alias;
//   }
//
// where `table` is __ncp2_tmk_guard_table and the values are tmk/fiber_abi.hpp's PageState. A fault
// is then one call into the runtime (which asks the emulator, as a signal handler would) instead
// of a SIGSEGV and an mprotect per page and interval, the host's dearest operations on a virtual
// machine. The runtime sets the globals (tmk/runtime/write_guards.cpp): under the process runner
// the table and the always-writable alias of the heap are mappings at fixed addresses; under the
// fiber runner every node shares one address space and the alias moves every access into the
// running node's copy of the heap. Loads are checked under both, so that a read fault is asked
// from the same place (the same profile) and costs no signal. Both bounds are 0 unless the runtime
// set the guards up: the program then runs exactly as without them (a native run).
//
// memmove's overlap test compares addresses: both its operands are checked against
// __ncp2_tmk_load_bytes and moved by the same alias. The pass runs after the counting and race
// passes: what it adds is never counted, so virtual times are the same with and without it.

#include "write_guard_pass.hpp"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Dominators.h"
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
#include "tmk/fiber_abi.hpp"

using namespace llvm;

namespace {

// The ABI, defined by the runtime library (tmk/runtime/write_guards.cpp).
constexpr StringRef kGuardBytesName = "__ncp2_tmk_guard_bytes";  // stores: the heap's bytes, or 0
constexpr StringRef kLoadBytesName = "__ncp2_tmk_load_bytes";    // loads: the heap's bytes, or 0
constexpr StringRef kTableName = "__ncp2_tmk_guard_table";       // the PageState table's address
constexpr StringRef kAliasName = "__ncp2_tmk_guard_alias";       // added to every checked address
constexpr StringRef kWriteGuardName = "__ncp2_tmk_write_guard";
constexpr StringRef kReadGuardName = "__ncp2_tmk_read_guard";
// Defined in every guarded module: the runtime (a weak reference) maps the alias only for them.
constexpr StringRef kMarkerName = "__ncp2_tmk_write_guards";
// __attribute__((annotate("ncp2_no_write_guards"))): a function whose accesses are not guarded
// (they still work under the process runner: they trap, as without the guards).
constexpr StringRef kOptOutAnnotation = "ncp2_no_write_guards";
constexpr StringRef kDoneMarker = "ncp2.write_guards.instrumented";
constexpr uint64_t kHostPage = uint64_t{1} << ncp2::tmk::kWriteTablePageShift;
constexpr uint64_t kStateNone = static_cast<uint64_t>(ncp2::tmk::PageState::None);
constexpr uint64_t kStateWrite = static_cast<uint64_t>(ncp2::tmk::PageState::Write);

cl::opt<bool> Enable("ncp2-write-guards", cl::init(false),
                     cl::desc("ncp2 guards: accesses to shared memory check a page table and go "
                              "through an alias instead of trapping"));
cl::opt<bool> VerifyAfter("ncp2-write-guards-verify", cl::init(false),
                          cl::desc("ncp2 guards: run the IR verifier on the module after "
                                   "instrumenting it; abort on a broken module"));

enum class Kind { Write, Read };

struct Access {
  Instruction* At;
  unsigned PointerOperand;  // the operand holding the accessed address
  Value* Size;              // an integer
  Kind What;
  bool Range;      // memset/memcpy/memmove: always checked by the runtime
  bool FiberOnly;  // memmove: bounded by __ncp2_tmk_load_bytes on both sides (one alias for both)
  DebugLoc Loc;
  Instruction* ReadBefore = nullptr;  // where the runtime's globals are read once (null: at the access)
};

// __ncp2_tmk_write_guard / __ncp2_tmk_read_guard: also cold (their calls sit out of line).
FunctionCallee guard_callee(Module& M, StringRef Name) {
  FunctionCallee F = ncp2_plugin::runtime_address_size_call(M, Name);
  if (auto* Fn = dyn_cast<Function>(F.getCallee()); Fn != nullptr && Fn->isDeclaration())
    Fn->addFnAttr(Attribute::Cold);
  return F;
}

class Guards {
 public:
  explicit Guards(Module& M)
      : M_(M),
        Ctx_(M.getContext()),
        DL_(M.getDataLayout()),
        I8_(Type::getInt8Ty(Ctx_)),
        I64_(Type::getInt64Ty(Ctx_)),
        GuardBytes_(ncp2_plugin::runtime_u64(M, kGuardBytesName)),
        LoadBytes_(ncp2_plugin::runtime_u64(M, kLoadBytesName)),
        Table_(ncp2_plugin::runtime_u64(M, kTableName)),
        Alias_(ncp2_plugin::runtime_u64(M, kAliasName)),
        WriteGuard_(guard_callee(M, kWriteGuardName)),
        ReadGuard_(guard_callee(M, kReadGuardName)) {}

  void run() {
    ncp2_plugin::define_marker(M_, kMarkerName);
    std::vector<Access> Accesses;
    ncp2_plugin::for_each_checked_instruction(M_, kOptOutAnnotation,
                                              [&](Instruction& I) { collect(I, Accesses); });
    for (auto First = Accesses.begin(); First != Accesses.end();) {
      Function& F = *First->At->getFunction();
      auto Last = First;
      while (Last != Accesses.end() && Last->At->getFunction() == &F) ++Last;
      Read_.clear();
      plan_reads(F, First, Last);  // before instrumenting splits F's blocks
      for (auto A = First; A != Last; ++A) instrument(*A);
      First = Last;
    }
  }

 private:
  // Whether an instruction leaves the runtime's globals as they are: anything but a call to code
  // that might call Tmk_startup (which alone sets them), i.e. any call but intrinsics and the
  // runtime's hooks.
  static bool keeps_globals(const Instruction& I) {
    const auto* Call = dyn_cast<CallBase>(&I);
    if (Call == nullptr) return true;
    const Function* Callee = Call->getCalledFunction();
    return !Call->isInlineAsm() && Callee != nullptr &&
           (Callee->isIntrinsic() || Callee->getName().startswith(ncp2_plugin::kRuntimePrefix));
  }
  template <typename Blocks>
  static bool keep_globals(const Blocks& BBs) {
    for (const BasicBlock* BB : BBs)
      for (const Instruction& I : *BB)
        if (!keeps_globals(I)) return false;
    return true;
  }

  // Where each access of F reads the runtime's globals: once at F's entry when nothing in F can
  // change them, else once before the outermost loop around it that cannot (its preheader), else
  // at the access. A loop's checks then keep the bounds in registers. The reads are made here,
  // before instrumenting splits the blocks: a preheader's read stays after all it did before.
  void plan_reads(Function& F, std::vector<Access>::iterator First, std::vector<Access>::iterator Last) {
    std::vector<const BasicBlock*> All;
    for (const BasicBlock& BB : F) All.push_back(&BB);
    if (keep_globals(All)) {
      BasicBlock::iterator Start = F.getEntryBlock().getFirstInsertionPt();
      while (isa<AllocaInst>(*Start)) ++Start;
      for (auto A = First; A != Last; ++A) A->ReadBefore = &*Start;
    } else {
      const DominatorTree DT(F);
      const LoopInfo LI(DT);
      DenseMap<const Loop*, bool> Keeps;
      for (auto A = First; A != Last; ++A)
        for (const Loop* L = LI.getLoopFor(A->At->getParent()); L != nullptr; L = L->getParentLoop()) {
          auto [It, New] = Keeps.try_emplace(L, false);
          if (New) It->second = keep_globals(L->getBlocks());
          if (!It->second) break;
          if (BasicBlock* Preheader = L->getLoopPreheader()) A->ReadBefore = Preheader->getTerminator();
        }
    }
    for (auto A = First; A != Last; ++A) {
      if (A->ReadBefore == nullptr) continue;
      read_once(A->ReadBefore, bound_of(*A), "ncp2.guarded");
      if (!A->Range) read_once(A->ReadBefore, Table_, "ncp2.table");
      read_once(A->ReadBefore, Alias_, "ncp2.alias_offset");
    }
  }

  // The global that says whether `A` is checked at all (0: never).
  Constant* bound_of(const Access& A) const {
    return A.What == Kind::Read || A.FiberOnly ? LoadBytes_ : GuardBytes_;
  }

  // A global read once, before `At`: the first instruction of the entry block after its allocas,
  // or a loop's preheader's branch (made before instrumenting, so after all the preheader did).
  Value* read_once(Instruction* At, Constant* Global, const Twine& Name) {
    Value*& Cached = Read_[{At, Global}];
    if (Cached == nullptr) Cached = IRBuilder<>(At).CreateAlignedLoad(I64_, Global, Align(8), Name);
    return Cached;
  }

  // One of the runtime's globals for access `A`: read where `B` stands, or where planned.
  Value* read_global(IRBuilder<>& B, const Access& A, Constant* Global, const Twine& Name) {
    if (A.ReadBefore != nullptr) return read_once(A.ReadBefore, Global, Name);
    return B.CreateAlignedLoad(I64_, Global, Align(8), Name);
  }

  void add(Instruction& I, unsigned Operand, Value* Size, Kind What, std::vector<Access>& Out,
           bool Range = false, bool FiberOnly = false) const {
    if (Size == nullptr || ncp2_plugin::is_private(I.getOperand(Operand))) return;
    Out.push_back({&I, Operand, Size, What, Range, FiberOnly, ncp2_plugin::line_for(I)});
  }

  Value* size_of(Type* T) const {
    const TypeSize S = DL_.getTypeStoreSize(T);
    return S.isScalable() ? nullptr : ConstantInt::get(I64_, S.getFixedSize());
  }

  // An instruction's accesses, a source before its destination (the read is asked for first).
  void collect(Instruction& I, std::vector<Access>& Out) const {
    if (auto* L = dyn_cast<LoadInst>(&I)) {
      add(I, LoadInst::getPointerOperandIndex(), size_of(L->getType()), Kind::Read, Out);
    } else if (auto* S = dyn_cast<StoreInst>(&I)) {
      add(I, StoreInst::getPointerOperandIndex(), size_of(S->getValueOperand()->getType()), Kind::Write, Out);
    } else if (auto* RMW = dyn_cast<AtomicRMWInst>(&I)) {
      add(I, AtomicRMWInst::getPointerOperandIndex(), size_of(RMW->getValOperand()->getType()), Kind::Write,
          Out);
    } else if (auto* X = dyn_cast<AtomicCmpXchgInst>(&I)) {
      add(I, AtomicCmpXchgInst::getPointerOperandIndex(), size_of(X->getCompareOperand()->getType()),
          Kind::Write, Out);
    } else if (auto* Set = dyn_cast<AnyMemSetInst>(&I)) {
      add(I, 0, Set->getLength(), Kind::Write, Out, /*Range=*/true);
    } else if (auto* T = dyn_cast<AnyMemTransferInst>(&I)) {
      const bool Move = isa<AnyMemMoveInst>(T);
      add(I, 1, T->getLength(), Kind::Read, Out, /*Range=*/true, Move);
      add(I, 0, T->getLength(), Kind::Write, Out, /*Range=*/true, Move);
    }
  }

  // In `B`'s block: does the access need the runtime (the page's state does not allow it here, or
  // it crosses a page)?
  Value* needs_runtime(IRBuilder<>& B, const Access& A, Value* Offset, Value* Size) {
    Value* Index = B.CreateLShr(Offset, ncp2::tmk::kWriteTablePageShift, "ncp2.page");
    Value* Table = read_global(B, A, Table_, "ncp2.table");
    Value* Entry = B.CreateIntToPtr(B.CreateAdd(Table, Index), PointerType::getUnqual(I8_), "ncp2.entry");
    Value* State = B.CreateLoad(I8_, Entry, "ncp2.state");
    Value* Denied = A.What == Kind::Write
                        ? B.CreateICmpNE(State, ConstantInt::get(I8_, kStateWrite))  // Read: a request too
                        : B.CreateICmpEQ(State, ConstantInt::get(I8_, kStateNone));
    Value* InPage = B.CreateAnd(Offset, ConstantInt::get(I64_, kHostPage - 1));
    Value* Crosses = B.CreateICmpUGT(B.CreateAdd(InPage, Size), ConstantInt::get(I64_, kHostPage));
    return B.CreateOr(Denied, Crosses, "ncp2.guard");
  }

  // In the guarded block (`Then`, its terminator): the runtime asked when the access needs it.
  void call_runtime(const Access& A, Instruction* Then, Value* Address, Value* Offset, Value* Size) {
    FunctionCallee Guard = A.What == Kind::Write ? WriteGuard_ : ReadGuard_;
    IRBuilder<> B(Then);
    B.SetCurrentDebugLocation(A.Loc);
    if (A.Range) {
      B.CreateCall(Guard, {Address, Size})->addFnAttr(Attribute::NoUnwind);
      return;
    }
    Value* Need = needs_runtime(B, A, Offset, Size);
    MDNode* Unlikely = MDBuilder(Ctx_).createBranchWeights(1, (1U << 20) - 1);
    Instruction* Slow = SplitBlockAndInsertIfThen(Need, Then, /*Unreachable=*/false, Unlikely);
    Slow->setDebugLoc(A.Loc);
    Slow->getParent()->setName(A.What == Kind::Write ? "ncp2.write_fault" : "ncp2.read_fault");
    IRBuilder<> C(Slow);
    C.SetCurrentDebugLocation(A.Loc);
    C.CreateCall(Guard, {Address, Size})->addFnAttr(Attribute::NoUnwind);
  }

  void instrument(const Access& A) {
    Value* Pointer = A.At->getOperand(A.PointerOperand);
    IRBuilder<> B(A.At);
    B.SetCurrentDebugLocation(A.Loc);
    Value* Address = B.CreatePtrToInt(Pointer, I64_, "ncp2.addr");
    Value* Offset = B.CreateSub(Address, ConstantInt::get(I64_, ncp2::tmk::kHeapBase), "ncp2.off");
    Value* Bytes = read_global(B, A, bound_of(A), "ncp2.guarded");
    Value* Shared = B.CreateICmpULT(Offset, Bytes, "ncp2.in");
    BasicBlock* Head = A.At->getParent();
    Instruction* Then = SplitBlockAndInsertIfThen(Shared, A.At, /*Unreachable=*/false);
    Then->setDebugLoc(A.Loc);
    Head->getTerminator()->setDebugLoc(A.Loc);
    Then->getParent()->setName("ncp2.guard");
    call_runtime(A, Then, Address, Offset, B.CreateZExtOrTrunc(A.Size, I64_));
    B.SetInsertPoint(Then);  // after the runtime's call
    // Derived from the pointer (a GEP, not an integer): alias analysis still sees the same object.
    Value* Bytewise = B.CreatePointerCast(Pointer, PointerType::get(I8_, 0));
    Value* Move = read_global(B, A, Alias_, "ncp2.alias_offset");
    Value* Aliased = B.CreatePointerCast(B.CreateGEP(I8_, Bytewise, Move, "ncp2.alias"), Pointer->getType());
    BasicBlock* Tail = A.At->getParent();
    PHINode* At = PHINode::Create(Pointer->getType(), 2, "ncp2.access_at", &Tail->front());
    At->setDebugLoc(A.Loc);
    At->addIncoming(Pointer, Head);
    At->addIncoming(Aliased, Then->getParent());
    A.At->setOperand(A.PointerOperand, At);
  }

  Module& M_;
  LLVMContext& Ctx_;
  const DataLayout& DL_;
  IntegerType* I8_;
  IntegerType* I64_;
  Constant* GuardBytes_;
  Constant* LoadBytes_;
  Constant* Table_;
  Constant* Alias_;
  FunctionCallee WriteGuard_;
  FunctionCallee ReadGuard_;
  DenseMap<std::pair<Instruction*, Constant*>, Value*> Read_;  // the globals read once, per place
};

}  // namespace

namespace ncp2_plugin {

PreservedAnalyses WriteGuardPass::run(Module& M, ModuleAnalysisManager& /*MAM*/) {
  if ((!always_ && !Enable) || M.getNamedMetadata(kDoneMarker) != nullptr) return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata(kDoneMarker);
  Guards(M).run();
  if (VerifyAfter && verifyModule(M, &errs()))
    report_fatal_error("ncp2 write guards: the instrumented module is broken", false);
  return PreservedAnalyses::none();
}

}  // namespace ncp2_plugin
