//===- FuseGradientAccumulation.cpp - gradients straight into buffers -----===//
//
// See Passes.td. ORT's training graphs compute each gradient into a fresh
// buffer and then copy it over (after a reset) or add it to its accumulation
// buffer (InPlaceAccumulatorV2). In a training loop the reset flag is set
// before almost every step, so the copy is the common case: one write of
// the gradient, two reads and a write of the buffer that a product writing
// the buffer itself would not need. Done on buffers, after bufferization,
// because the choice of destination depends on a run-time flag.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEGRADIENTACCUMULATION
#include "codegen/common/Passes.h.inc"

namespace {

/// The parts of `buffer = flag ? gradient : buffer + gradient`, written
/// over `buffer` in place.
struct Accumulation {
  linalg::GenericOp op;
  Value buffer, gradient, flag;
};

std::optional<Accumulation> matchAccumulation(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return std::nullopt;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto select =
      body.getTerminator()->getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || select.getCondition().getParentRegion() == &op.getRegion())
    return std::nullopt;
  auto add = select.getFalseValue().getDefiningOp<arith::AddFOp>();
  if (!add)
    return std::nullopt;
  Value fresh = select.getTrueValue();
  Value kept = add.getLhs() == fresh ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != fresh && add.getRhs() != fresh) || kept == fresh)
    return std::nullopt;
  auto freshArg = dyn_cast<BlockArgument>(fresh);
  auto keptArg = dyn_cast<BlockArgument>(kept);
  if (!freshArg || !keptArg || freshArg.getOwner() != &body ||
      keptArg.getOwner() != &body || freshArg.getArgNumber() >= 2 ||
      keptArg.getArgNumber() >= 2)
    return std::nullopt;
  Value buffer = op.getDpsInputs()[keptArg.getArgNumber()];
  Value gradient = op.getDpsInputs()[freshArg.getArgNumber()];
  if (op.getDpsInits()[0] != buffer || buffer.getType() != gradient.getType())
    return std::nullopt;
  return Accumulation{op, buffer, gradient, select.getCondition()};
}

struct FuseGradientAccumulationPass
    : impl::FuseGradientAccumulationBase<FuseGradientAccumulationPass> {
  void runOnOperation() override {
    SmallVector<Accumulation> accumulations;
    getOperation().walk([&](linalg::GenericOp op) {
      if (auto accumulation = matchAccumulation(op))
        accumulations.push_back(*accumulation);
    });
    for (Accumulation &accumulation : accumulations)
      fuse(accumulation);
    while (takeKnownBranch()) {
    }
  }

  /// A fused run can hold another gradient's choice on the same flag
  /// (BatchNorm's input gradient reads both its scale and its bias
  /// gradient, so the bias gradient's run holds the scale gradient's
  /// choice): inside the outer choice's branches the flag is known, and the
  /// inner choice is replaced by the branch it would take. Without this,
  /// each such input gradient was compiled four times, twice as dead code.
  /// Replaces one such choice; false when there is none.
  bool takeKnownBranch() {
    scf::IfOp inner;
    bool known = false;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::IfOp choice) {
      if (choice.getNumResults() != 0)
        return WalkResult::advance();
      for (Operation *parent = choice->getParentOp(); parent;
           parent = parent->getParentOp()) {
        auto outer = dyn_cast<scf::IfOp>(parent);
        if (!outer || outer.getCondition() != choice.getCondition())
          continue;
        inner = choice;
        known = outer.getThenRegion().isAncestor(choice->getParentRegion());
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!inner)
      return false;
    Region &taken = known ? inner.getThenRegion() : inner.getElseRegion();
    if (!taken.empty()) {
      Block &branch = taken.front();
      branch.getTerminator()->erase();
      inner->getBlock()->getOperations().splice(inner->getIterator(),
                                                branch.getOperations());
    }
    inner->erase();
    return true;
  }

  /// The flag is read from the entry's `lazy_reset_grad` argument where
  /// the first accumulation was lowered, which may be after this gradient's
  /// producers. An argument that is only read can be read earlier: the load
  /// moves before `point` (constant indices cloned along).
  static bool hoistFlagLoad(Operation *flagDef, Operation *point) {
    auto load = dyn_cast<memref::LoadOp>(flagDef);
    if (!load || !isa<BlockArgument>(load.getMemRef()) ||
        llvm::any_of(load.getMemRef().getUsers(), [](Operation *user) {
          return !isa<memref::LoadOp>(user);
        }))
      return false;
    if (llvm::any_of(load.getIndices(), [](Value index) {
          Operation *constant = index.getDefiningOp();
          return !constant || !constant->hasTrait<OpTrait::ConstantLike>();
        }))
      return false;
    OpBuilder builder(point);
    for (OpOperand &index : load.getIndicesMutable()) {
      Operation *constant = index.get().getDefiningOp();
      if (constant->getBlock() == point->getBlock() &&
          !constant->isBeforeInBlock(point))
        index.set(builder.clone(*constant)->getResult(0));
    }
    load->moveBefore(point);
    return true;
  }

  void fuse(Accumulation &accumulation) {
    linalg::GenericOp op = accumulation.op;
    Block *block = op->getBlock();
    // The gradient: a fresh allocation written by a run of consecutive ops
    // just for it (a fill and a sum, or one product kernel), read only by
    // the accumulation, then freed.
    auto alloc = accumulation.gradient.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != block)
      return;
    // Users inside a kernel's loops count as the kernel.
    llvm::SetVector<Operation *> users;
    for (Operation *user : alloc->getUsers()) {
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return;
      users.insert(top);
    }
    SmallVector<Operation *> producers;
    for (Operation *user : users) {
      if (user == op || isa<memref::DeallocOp>(user))
        continue;
      if (!user->isBeforeInBlock(op))
        return;
      producers.push_back(user);
    }
    if (producers.empty())
      return;
    // Whatever they define (views of the gradient) moves with them: nothing
    // else may use it.
    llvm::SmallPtrSet<Operation *, 8> moved(producers.begin(), producers.end());
    moved.insert(op);
    for (Operation *producer : producers)
      for (Operation *user : producer->getUsers())
        if (!moved.count(block->findAncestorOpInBlock(*user)))
          return;
    llvm::sort(producers, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    // They run where the last one is: the others must be just before it,
    // unless they are fills of the gradient (the zero a sum starts from),
    // which read nothing and can run anywhere before.
    for (auto [first, second] :
         llvm::zip(producers, llvm::drop_begin(producers)))
      if (first->getNextNode() != second && !isa<linalg::FillOp>(first))
        return;
    // Only the accumulation touches the buffer, so it can run right after
    // the producers; the flag must be known before them.
    if (llvm::any_of(accumulation.buffer.getUsers(),
                     [&](Operation *user) { return user != op; }))
      return;
    Operation *flagDef = accumulation.flag.getDefiningOp();
    if (flagDef && flagDef->getBlock() == block &&
        !flagDef->isBeforeInBlock(producers.front()) &&
        !hoistFlagLoad(flagDef, producers.front()))
      return;

    // flag ? (the producers writing the buffer itself)
    //      : (the producers and the accumulation, as they were).
    OpBuilder builder(producers.back()->getNextNode());
    auto choice = scf::IfOp::create(builder, op.getLoc(), accumulation.flag,
                                    /*withElseRegion=*/true);
    OpBuilder then = choice.getThenBodyBuilder();
    IRMapping mapping;
    mapping.map(accumulation.gradient, accumulation.buffer);
    for (Operation *producer : producers)
      then.clone(*producer, mapping);
    Operation *elseEnd = choice.elseBlock()->getTerminator();
    for (Operation *producer : producers)
      producer->moveBefore(elseEnd);
    op->moveBefore(elseEnd);

    // The gradient's own buffer is needed on that path only: allocated and
    // freed there, it takes no room in the entry's arena.
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation *user : alloc->getUsers())
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user))
        deallocs.push_back(dealloc);
    if (deallocs.size() == 1 && deallocs.front()->getBlock() == block &&
        llvm::all_of(alloc->getUsers(),
                     [&](Operation *user) {
                       return user == deallocs.front() ||
                              choice.getElseRegion().isAncestor(
                                  user->getParentRegion());
                     }) &&
        llvm::all_of(alloc->getOperands(), [&](Value size) {
          return size.getParentRegion()->isAncestor(&choice.getElseRegion());
        })) {
      alloc->moveBefore(&choice.elseBlock()->front());
      deallocs.front()->moveBefore(elseEnd);
    }
  }
};

} // namespace
} // namespace odt
