//===- FuseElementwise.cpp - elementwise fusion that spares products ------===//
//
// The same patterns as upstream's linalg-fuse-elementwise-ops, with a control
// function that refuses to fuse into a reduction a producer whose value the
// reduction would read more than once. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "codegen/common/Passes.h.inc"

namespace {

bool hasSingleUseProducer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

bool hasReductions(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Reshapes are folded into elementwise ops, not into reductions: a matrix
/// product over collapsed operands (a convolution's filter and columns)
/// would become a 7-loop generic that no longer reads as a product.
bool shouldFoldReshape(OpOperand *fused) {
  return hasSingleUseProducer(fused) && !hasReductions(fused->getOwner()) &&
         !hasReductions(fused->get().getDefiningOp());
}

/// A producer that only moves values (a transpose, a broadcast, a copy):
/// fused anywhere, it costs no arithmetic, and it saves writing and
/// re-reading the moved tensor.
bool isDataMovement(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block &body = generic.getRegion().front();
  return body.getOperations().size() == 1 &&
         body.getTerminator()->getOperand(0) == body.getArgument(0);
}

/// Whether a producer may be fused into `fused`'s owner whatever its
/// other uses: into a consumer with reductions only if every loop of the
/// consumer moves the operand (otherwise the fused body recomputes the
/// producer for each value of the loops it ignores).
bool fusesIntoConsumer(OpOperand *fused) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer || consumer.getNumReductionLoops() == 0)
    return true;
  // A producer reading an input through a map other than a projected
  // permutation (the floordiv of a pooling gradient or of a strided input
  // gradient's phases) stays out of a reduction: the CPU's row
  // vectorization takes such a read in an elementwise op, and the fused
  // reduction, also writing the producer's result, stayed scalar (a 3x3
  // stride-2 layer's dX with its scale's gradient sum: 5% slower).
  if (auto producer = fused->get().getDefiningOp<linalg::GenericOp>())
    if (!llvm::all_of(producer.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation();
        }))
      return false;
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  for (unsigned dim = 0; dim < map.getNumDims(); ++dim)
    if (!map.isFunctionOfDim(dim))
      return false;
  return true;
}

bool shouldFuse(OpOperand *fused) {
  if (!hasSingleUseProducer(fused))
    return false;
  return isDataMovement(fused->get().getDefiningOp()) ||
         fusesIntoConsumer(fused);
}

/// Whether an input read through `map` is as large as the op's result: it
/// moves with every loop (the others broadcast, a channel's statistics).
bool spansEveryLoop(AffineMap map) {
  return map.getNumResults() == map.getNumDims();
}

/// Arithmetic as cheap as reading an operand again: a few adds, multiplies,
/// comparisons and selects (no division, no math function).
constexpr unsigned kCheapBodyOps = 4;

/// An add, multiply, min/max, comparison or select of floats.
bool isCheapArith(Operation &op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp,
             arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp, arith::CmpFOp, arith::SelectOp>(op);
}

/// The bit width of `op`'s elements if it is elementwise with one result
/// computed in tensor form (its output read through the identity) of
/// integers or floats; none otherwise.
std::optional<unsigned> elementwiseResultBits(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.hasPureTensorSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!element.isIntOrFloat())
    return std::nullopt;
  return element.getIntOrFloatBitWidth();
}

/// The uses of `op`'s one result.
SmallVector<OpOperand *> resultUses(linalg::GenericOp op) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op->getResult(0).getUses())
    uses.push_back(&use);
  return uses;
}

/// Gives each use of `producer`'s result but the first a copy of its own.
void copyIntoEachUse(linalg::GenericOp producer) {
  OpBuilder builder(producer);
  for (OpOperand *use : llvm::drop_begin(resultUses(producer)))
    use->set(builder.clone(*producer)->getResult(0));
}

/// Whether `op` costs less to compute again in each of its consumers than
/// to write its result and read it back: elementwise, a body of a few cheap
/// arith ops, and at most one input as large as its result (the others
/// broadcast, a channel's statistics), of elements no wider than the
/// result's, so that whatever keeps its inputs alive for a later consumer
/// holds no more than its result would have.
bool isCheapToRecompute(linalg::GenericOp op) {
  std::optional<unsigned> outputBits = elementwiseResultBits(op);
  if (!outputBits)
    return false;
  unsigned full = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Type element = getElementTypeOrSelf(input->get().getType());
    if (!element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() > *outputBits)
      return false;
    if (spansEveryLoop(op.getMatchingIndexingMap(input)))
      ++full;
  }
  if (full > 1)
    return false;
  Block &body = op.getRegion().front();
  if (body.getOperations().size() > kCheapBodyOps + 1)
    return false;
  return llvm::all_of(body.without_terminator(), isCheapArith);
}

/// Whether computing `producer` again in each of `uses`' owners keeps no
/// tensor alive longer: its input as large as its result (if any) is read
/// again by another op after the last of them, in the same block (a
/// convolution's output, which BatchNorm's gradient reads after ReLU6's).
/// Else that input would live until the last consumer in place of the
/// result (a product's output, which its bias add overwrote in place, kept
/// from the forward to the backward: the transformer's training step
/// needed 16% more memory).
bool inputOutlivesConsumers(linalg::GenericOp producer,
                            ArrayRef<OpOperand *> uses) {
  Block *block = producer->getBlock();
  Operation *last = producer;
  for (OpOperand *use : uses) {
    Operation *owner = block->findAncestorOpInBlock(*use->getOwner());
    if (!owner)
      return false;
    if (last->isBeforeInBlock(owner))
      last = owner;
  }
  for (OpOperand *input : producer.getDpsInputOperands()) {
    if (!spansEveryLoop(producer.getMatchingIndexingMap(input)))
      continue; // broadcast: a channel's statistics, kept anyway or small
    bool readLater =
        llvm::any_of(input->get().getUsers(), [&](Operation *user) {
          Operation *owner = block->findAncestorOpInBlock(*user);
          return owner && owner != producer && last->isBeforeInBlock(owner);
        });
    if (!readLater)
      return false;
  }
  return true;
}

/// A cheap elementwise producer read by several elementwise consumers
/// (BatchNorm's normalized output, read by ReLU6 in the forward and by the
/// two comparisons of ReLU6's gradient) gets a copy per consumer, so that
/// each copy fuses into its consumer and the producer's result is never
/// written: each consumer reads the producer's inputs instead (a convolution's
/// output, which BatchNorm's gradient keeps anyway). Only where every
/// consumer would fuse its copy; otherwise the work would be done twice.
void cloneCheapProducers(Operation *root) {
  SmallVector<linalg::GenericOp> producers;
  root->walk([&](linalg::GenericOp op) {
    if (isCheapToRecompute(op) && !op->getResult(0).hasOneUse() &&
        !op->getResult(0).use_empty())
      producers.push_back(op);
  });
  for (linalg::GenericOp producer : producers) {
    SmallVector<OpOperand *> uses = resultUses(producer);
    bool allFuse = llvm::all_of(uses, [](OpOperand *use) {
      return isa<linalg::GenericOp>(use->getOwner()) &&
             linalg::areElementwiseOpsFusable(use) &&
             !hasReductions(use->getOwner());
    });
    if (allFuse && inputOutlivesConsumers(producer, uses))
      copyIntoEachUse(producer);
  }
}

/// The most cheap ops a fused producer may have to be computed again in
/// each of its consumers (a BatchNorm output's recomputation and ReLU6's
/// gradient mask: 12).
constexpr unsigned kCheapFusedBodyOps = 16;

/// Whether `producer` (elementwise, of cheap arith ops only) is better
/// computed again in each consumer than written and read back, after
/// fusion: every consumer would fuse its copy, and no tensor lives longer.
/// Each input as large as the result is either read by every consumer
/// already (the copies add no reads of it: BatchNorm's input, which its
/// gradient reads) or, for at most one of them, read by nothing but the
/// producer and no wider than the result: it then lives until the last
/// consumer in place of the result (the incoming gradient dY in place of
/// ReLU6's dY * mask). At least one input is of the first kind: the
/// result is then an intermediate of values the consumers read anyway. A
/// bias add, whose only large input is the product it would overwrite in
/// place, stays (see inputOutlivesConsumers). Passes: 1 write and 1 read
/// per consumer saved, for one more read of the moved input per consumer
/// but the first.
bool isWorthCopyingAfterFusion(linalg::GenericOp producer,
                               ArrayRef<OpOperand *> uses) {
  std::optional<unsigned> outputBits = elementwiseResultBits(producer);
  if (!outputBits || producer.getNumLoops() == 0)
    return false;
  // The cheap float ops, and the logic and constants of a fused mask.
  Block &body = producer.getRegion().front();
  if (body.getOperations().size() > kCheapFusedBodyOps + 1 ||
      !llvm::all_of(body.without_terminator(), [](Operation &inner) {
        return isCheapArith(inner) ||
               isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp,
                   arith::ConstantOp>(inner);
      }))
    return false;
  if (!llvm::all_of(uses, [](OpOperand *use) {
        return isa<linalg::GenericOp>(use->getOwner()) &&
               use->getOwner()->getBlock() ==
                   use->get().getDefiningOp()->getBlock() &&
               linalg::areElementwiseOpsFusable(use) &&
               fusesIntoConsumer(use) &&
               cast<linalg::LinalgOp>(use->getOwner())
                   .getMatchingIndexingMap(use)
                   .isProjectedPermutation();
      }))
    return false;
  unsigned movedInputs = 0, sharedInputs = 0;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    if (!spansEveryLoop(producer.getMatchingIndexingMap(input)))
      continue;
    Value value = input->get();
    bool readByEveryConsumer = llvm::all_of(uses, [&](OpOperand *use) {
      return llvm::is_contained(use->getOwner()->getOperands(), value);
    });
    if (readByEveryConsumer) {
      ++sharedInputs;
      continue;
    }
    Type element = getElementTypeOrSelf(value.getType());
    bool readByProducerOnly = llvm::all_of(
        value.getUsers(), [&](Operation *user) { return user == producer; });
    if (!readByProducerOnly || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() > *outputBits || ++movedInputs > 1)
      return false;
  }
  return sharedInputs > 0;
}

/// After fusion: the producers isWorthCopyingAfterFusion accepts get a
/// copy per consumer; true if any did (fusion then runs again).
bool copyFusedProducers(Operation *root) {
  SmallVector<linalg::GenericOp> producers;
  root->walk([&](linalg::GenericOp op) {
    if (op->getNumResults() == 1 && !op->getResult(0).use_empty() &&
        !op->getResult(0).hasOneUse())
      producers.push_back(op);
  });
  bool copied = false;
  for (linalg::GenericOp producer : producers)
    if (isWorthCopyingAfterFusion(producer, resultUses(producer))) {
      copyIntoEachUse(producer);
      copied = true;
    }
  return copied;
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    cloneCheapProducers(getOperation());
    if (failed(fuse()))
      return signalPassFailure();
    if (copyFusedProducers(getOperation()) && failed(fuse()))
      return signalPassFailure();
  }

  LogicalResult fuse() {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      shouldFoldReshape);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 hasSingleUseProducer);
    return applyPatternsGreedily(
        getOperation(), std::move(patterns),
        GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
} // namespace odt
