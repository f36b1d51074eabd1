// The instruction-counting pass of ncp2-cc (a clang 14 plugin: -fpass-plugin=libncp2_count_pass.so).
// At the start of every basic block of every function it adds the block's instruction count to
// the program's counter `__ncp2_tmk_icount`; at function entries and loop headers it also checks
// the counter against `__ncp2_tmk_icount_limit` and calls `__ncp2_tmk_icount_hook()` when it is
// reached. The emulator charges the counted instructions as the node's computation (the
// deterministic time model: the same program and input give the same count on any host) and the
// hook samples where the program is (its computation by source line). Runs after the optimizer,
// so the count follows the code that executes; registered for -O0 as well. A function with
// __attribute__((annotate("ncp2_no_count"))) is left alone.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <utility>

using namespace llvm;  // NOLINT(google-build-using-namespace): LLVM's own style for passes

namespace {

constexpr const char* kCounter = "__ncp2_tmk_icount";
constexpr const char* kLimit = "__ncp2_tmk_icount_limit";
constexpr const char* kHook = "__ncp2_tmk_icount_hook";

// Instructions of a block that stand for executed machine work: not PHIs (register moves at
// most), not debug or lifetime markers (no code). At least 1: a block is at least its branch.
unsigned counted_instructions(const BasicBlock& block) {
  unsigned n = 0;
  for (const Instruction& i : block) {
    if (isa<PHINode>(i) || isa<DbgInfoIntrinsic>(i)) continue;
    if (const auto* call = dyn_cast<IntrinsicInst>(&i))
      if (call->isLifetimeStartOrEnd() || call->getIntrinsicID() == Intrinsic::assume) continue;
    ++n;
  }
  return std::max(n, 1U);
}

// Functions annotated "ncp2_no_count" (clang's annotate attribute lands in llvm.global.annotations).
SmallPtrSet<const Function*, 8> opted_out(Module& module) {
  SmallPtrSet<const Function*, 8> out;
  const GlobalVariable* annotations = module.getGlobalVariable("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer()) return out;
  const auto* array = dyn_cast<ConstantArray>(annotations->getInitializer());
  if (!array) return out;
  for (const Use& entry : array->operands()) {
    const auto* fields = dyn_cast<ConstantStruct>(entry.get());
    if (!fields || fields->getNumOperands() < 2) continue;
    const auto* function = dyn_cast<Function>(fields->getOperand(0)->stripPointerCasts());
    const auto* text = dyn_cast<GlobalVariable>(fields->getOperand(1)->stripPointerCasts());
    if (!function || !text || !text->hasInitializer()) continue;
    if (const auto* data = dyn_cast<ConstantDataArray>(text->getInitializer()))
      if (data->isCString() && data->getAsCString() == "ncp2_no_count") out.insert(function);
  }
  return out;
}

DebugLoc location_for(BasicBlock& block, const Function& function) {
  for (const Instruction& i : block)
    if (const DebugLoc& loc = i.getDebugLoc()) return loc;
  if (DISubprogram* sp = function.getSubprogram())
    return DILocation::get(function.getContext(), sp->getLine(), 0, sp);
  return {};
}

class CountPass : public PassInfoMixin<CountPass> {
 public:
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam) {
    auto& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(module).getManager();
    LLVMContext& context = module.getContext();
    Type* i64 = Type::getInt64Ty(context);
    auto* counter = cast<GlobalVariable>(module.getOrInsertGlobal(kCounter, i64));
    auto* limit = cast<GlobalVariable>(module.getOrInsertGlobal(kLimit, i64));
    FunctionCallee hook = module.getOrInsertFunction(kHook, Type::getVoidTy(context));
    const auto skip = opted_out(module);
    bool changed = false;
    for (Function& function : module) {
      if (function.isDeclaration() || function.getName().startswith("__ncp2_tmk_") || skip.count(&function))
        continue;
      instrument(function, fam.getResult<LoopAnalysis>(function), counter, limit, hook);
      changed = true;
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

 private:
  static void instrument(Function& function, LoopInfo& loops, GlobalVariable* counter, GlobalVariable* limit,
                         FunctionCallee hook) {
    // Decide everything before changing the function (splitting blocks changes the lists).
    SmallPtrSet<BasicBlock*, 16> checked;
    checked.insert(&function.getEntryBlock());
    for (Loop* loop : loops.getLoopsInPreorder()) checked.insert(loop->getHeader());
    SmallVector<std::pair<BasicBlock*, unsigned>, 64> blocks;
    for (BasicBlock& block : function)
      if (block.getFirstInsertionPt() != block.end())
        blocks.emplace_back(&block, counted_instructions(block));

    Type* i64 = counter->getValueType();
    const MDNode* unlikely = MDBuilder(function.getContext()).createBranchWeights(1, 1 << 20);
    for (auto [block, count] : blocks) {
      IRBuilder<> b(&*block->getFirstInsertionPt());
      b.SetCurrentDebugLocation(location_for(*block, function));
      Value* total = b.CreateAdd(b.CreateLoad(i64, counter), ConstantInt::get(i64, count));
      b.CreateStore(total, counter);
      if (!checked.count(block)) continue;
      auto* due = cast<Instruction>(b.CreateICmpUGE(total, b.CreateLoad(i64, limit)));
      // The rest of the block (from the instruction after the compare) becomes the join block.
      Instruction* then =
          SplitBlockAndInsertIfThen(due, due->getNextNode(), false, const_cast<MDNode*>(unlikely));
      IRBuilder<> call(then);
      call.SetCurrentDebugLocation(location_for(*block, function));
      call.CreateCall(hook);
    }
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ncp2-count", "1", [](PassBuilder& builder) {
            builder.registerOptimizerLastEPCallback(
                [](ModulePassManager& passes, OptimizationLevel) { passes.addPass(CountPass()); });
          }};
}
