//===- OutlineLoops.cpp - loop nests as functions of their own ------------===//
//
// See Passes.td. Two passes share one outliner:
//  - odt-outline-parallel-loops: a parallel loop's body as a function over a
//    range of iterations, so that a thread pool in the runtime can run
//    ranges of it; the LLVM-level half of that protocol is in
//    PackEntryPoints.cpp (a task that unpacks a context struct and calls the
//    outlined function, and the call of the parallel hook);
//  - odt-outline-serial-loops: the serial loop nests left in an entry point,
//    each as a function LLVM does not inline back, so that LLVM's loop
//    passes see small functions.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/FunctionBodies.h"
#include "codegen/cpu/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_OUTLINEPARALLELLOOPS
#define GEN_PASS_DEF_OUTLINESERIALLOOPS
#include "codegen/cpu/Passes.h.inc"

namespace {

bool isConstantIndex(Value value, int64_t expected) {
  APInt constant;
  return matchPattern(value, m_ConstantInt(&constant)) &&
         constant.getSExtValue() == expected;
}

/// Moves loops into new private functions named `<prefix><n>`, sharing one
/// function between loops whose bodies are identical.
class LoopOutliner {
public:
  LoopOutliner(ModuleOp module, StringRef prefix)
      : module(module), prefix(prefix.str()) {}

  /// Replaces `loop` by a call of a function whose arguments are `leading`
  /// then the values `loop` uses from outside itself (constants are cloned
  /// in, not passed); `build` fills the function's entry block, given the
  /// leading arguments and the mapping of the outside values to the others.
  /// The call's operands are `leadingOperands` then those values. With
  /// `withOperands`, the loop's own operands count as used from outside
  /// (the loop is cloned whole); otherwise only its regions' uses do.
  ///
  /// With `generalize`, nests that differ only in their sizes share a
  /// function: index constants are passed rather than cloned in, and a
  /// buffer the nest only loads from, stores to or asks the size of is
  /// passed with dynamic sizes. LLVM still sees a constant where every call
  /// passes the same one (steps, zeros).
  func::FuncOp outline(
      Operation *loop, TypeRange leading, ValueRange leadingOperands,
      bool withOperands, bool generalize,
      llvm::function_ref<void(OpBuilder &, IRMapping &, ValueRange)> build) {
    MLIRContext *context = module.getContext();
    Location loc = loop->getLoc();
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(loop->getRegions(), used);
    if (withOperands)
      used.insert(loop->operand_begin(), loop->operand_end());
    SmallVector<Value> captured;
    SmallVector<Operation *> constants;
    for (Value value : used) {
      Operation *producer = value.getDefiningOp();
      if (producer && producer->hasTrait<OpTrait::ConstantLike>() &&
          !(generalize && value.getType().isIndex()))
        constants.push_back(producer);
      else
        captured.push_back(value);
    }
    SmallVector<Type> capturedTypes;
    for (Value value : captured)
      capturedTypes.push_back(generalize ? generalType(loop, value)
                                         : value.getType());

    std::string name;
    do
      name = prefix + std::to_string(counter++);
    while (module.lookupSymbol(name));
    SmallVector<Type> types(leading.begin(), leading.end());
    types.append(capturedTypes);
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(module.getBody());
    auto function = func::FuncOp::create(builder, loc, name,
                                         builder.getFunctionType(types, {}));
    function.setPrivate();
    Block *entry = function.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (Operation *constant : constants)
      builder.clone(*constant, mapping);
    for (auto [value, argument] :
         llvm::zip(captured, entry->getArguments().drop_front(leading.size())))
      mapping.map(value, argument);
    build(builder, mapping, entry->getArguments().take_front(leading.size()));
    builder.setInsertionPointToEnd(entry);
    func::ReturnOp::create(builder, loc);
    if (func::FuncOp identical = findIdentical(function)) {
      function.erase();
      function = identical;
    }

    builder.setInsertionPoint(loop);
    SmallVector<Value> operands(leadingOperands.begin(), leadingOperands.end());
    for (auto [value, type] : llvm::zip(captured, capturedTypes))
      operands.push_back(
          value.getType() == type
              ? value
              : memref::CastOp::create(builder, loc, type, value).getResult());
    func::CallOp::create(builder, loc, function, operands);
    loop->erase();
    return function;
  }

private:
  /// The type `value` is passed as to a generalized nest: a buffer that
  /// `loop` only reads and writes elements of (or asks the size of) with
  /// every size dynamic, anything else as it is.
  static Type generalType(Operation *loop, Value value) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type)
      return value.getType();
    bool onlyElements = llvm::all_of(value.getUses(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return !loop->isAncestor(user) ||
             isa<memref::LoadOp, memref::StoreOp, memref::DimOp, vector::LoadOp,
                 vector::StoreOp, vector::TransferReadOp,
                 vector::TransferWriteOp, vector::MaskedLoadOp,
                 vector::MaskedStoreOp>(user);
    });
    if (!onlyElements)
      return type;
    // The layout stays: vector ops lower to plain loads and stores only
    // where the last stride is known to be 1.
    SmallVector<int64_t> shape(type.getRank(), ShapedType::kDynamic);
    auto general = MemRefType::get(shape, type.getElementType(),
                                   type.getLayout(), type.getMemorySpace());
    return memref::CastOp::areCastCompatible(type, general) ? Type(general)
                                                            : Type(type);
  }

  /// The already outlined function with the same type and body as
  /// `function`, or null. A network repeats its blocks (ResNet's stages,
  /// a transformer's layers): their loops are one function, compiled once;
  /// without this, LLVM optimized and emitted each copy again.
  func::FuncOp findIdentical(func::FuncOp function) {
    auto &candidates = outlinedByHash[hashTypeAndBody(function)];
    for (func::FuncOp candidate : candidates)
      if (haveSameTypeAndBody(candidate, function))
        return candidate;
    candidates.push_back(function);
    return nullptr;
  }

  ModuleOp module;
  std::string prefix;
  unsigned counter = 0;
  llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> outlinedByHash;
};

struct OutlineParallelLoopsPass
    : impl::OutlineParallelLoopsBase<OutlineParallelLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ParallelOp> loops;
    module.walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() == 1 && loop.getInitVals().empty() &&
          isConstantIndex(loop.getLowerBound()[0], 0) &&
          isConstantIndex(loop.getStep()[0], 1) &&
          loop->getParentOfType<func::FuncOp>())
        loops.push_back(loop);
    });
    LoopOutliner outliner(module, kParallelBodyPrefix);
    Type index = IndexType::get(module.getContext());
    for (scf::ParallelOp loop : loops) {
      // (begin, end, captured...): a range of the loop's iterations.
      outliner.outline(
          loop, {index, index},
          {loop.getLowerBound()[0], loop.getUpperBound()[0]},
          /*withOperands=*/false, /*generalize=*/false,
          [&](OpBuilder &builder, IRMapping &mapping, ValueRange range) {
            Location loc = loop.getLoc();
            Value one = arith::ConstantIndexOp::create(builder, loc, 1);
            auto serial =
                scf::ForOp::create(builder, loc, range[0], range[1], one);
            mapping.map(loop.getInductionVars()[0], serial.getInductionVar());
            builder.setInsertionPointToStart(serial.getBody());
            for (Operation &op : loop.getBody()->without_terminator())
              builder.clone(op, mapping);
          });
    }
  }
};

struct OutlineSerialLoopsPass
    : impl::OutlineSerialLoopsBase<OutlineSerialLoopsPass> {
  /// Whether `loop` can live in a function of its own: it produces no
  /// values and calls nothing (a parallel body's call must stay in the
  /// entry point, where odt-pack-entry-points makes it a task).
  static bool isOutlinable(scf::ForOp loop) {
    if (loop.getNumResults() != 0)
      return false;
    WalkResult calls = loop.getBody()->walk([](Operation *op) {
      return isa<CallOpInterface>(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    return !calls.wasInterrupted();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForOp> loops;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      // In a parallel body, the nests of the ops odt-parallelize-elementwise
      // merged into it: a parameter's update each, in the optimizer.
      bool parallelBody = function.getName().starts_with(kParallelBodyPrefix);
      // Outermost loops only: a nest moves whole.
      function.getBody().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (!parallelBody) {
          if (isOutlinable(loop))
            loops.push_back(loop);
          return WalkResult::skip();
        }
        auto choice = dyn_cast<scf::IfOp>(loop->getParentOp());
        if (!choice || !choice->hasAttr(kMergedOpChoice))
          return WalkResult::advance();
        if (isOutlinable(loop))
          loops.push_back(loop);
        return WalkResult::skip();
      });
    }
    LoopOutliner outliner(module, kSerialNestPrefix);
    for (scf::ForOp loop : loops) {
      func::FuncOp function = outliner.outline(
          loop, {}, {}, /*withOperands=*/true, /*generalize=*/true,
          [&](OpBuilder &builder, IRMapping &mapping, ValueRange) {
            builder.clone(*loop, mapping);
          });
      // func.func's own no_inline does not survive convert-func-to-llvm;
      // LLVM's attribute does.
      function->setAttr(
          "passthrough",
          ArrayAttr::get(&getContext(),
                         {StringAttr::get(&getContext(), "noinline")}));
    }
  }
};

} // namespace
} // namespace odt
