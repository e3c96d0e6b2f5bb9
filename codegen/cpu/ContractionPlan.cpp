//===- ContractionPlan.cpp - dims and epilogue of a product ---------------===//
//
// Which loop dims of a product are m, n and k, and what around the product
// its kernel does in registers (a bias row, an elementwise consumer).
// See ContractionPlan.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionPlan.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

namespace {

/// Whether `op` can run on vectors of its scalar operands as it is: an
/// elementwise arith or math op on scalars, or a scalar constant.
bool isVectorizableScalarOp(Operation &op) {
  if (op.getNumRegions() != 0 || op.getNumResults() != 1 ||
      !op.getResult(0).getType().isIntOrFloat())
    return false;
  if (isa<arith::ConstantOp>(op))
    return true;
  StringRef dialect = op.getDialect()->getNamespace();
  return (dialect == "arith" || dialect == "math") &&
         op.hasTrait<OpTrait::Elementwise>() &&
         !isa<arith::IndexCastOp, arith::IndexCastUIOp>(op);
}

} // namespace

std::optional<ContractionPlan> planContraction(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.getElementType().isF32())
      return std::nullopt;
  }
  if (!isMultiplyAccumulate(op))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned reductions = llvm::count(iterators, utils::IteratorType::reduction);
  AffineMap mapA = maps[0], mapB = maps[1], mapC = maps[2];
  if (reductions != 1 || mapC.getNumResults() < 2 || mapA.getNumResults() < 2 ||
      mapB.getNumResults() < 2)
    return std::nullopt;
  ContractionPlan plan;
  plan.k = std::distance(iterators.begin(),
                         llvm::find(iterators, utils::IteratorType::reduction));
  auto uses = [](AffineMap map, unsigned dim) {
    return map.isFunctionOfDim(dim);
  };
  // n: C's innermost dim (vector rows of C). m: the innermost other dim of
  // C that A uses and B does not. Every other parallel dim is a loop around
  // the 2-D product, in any position of any operand.
  plan.n = resultDim(mapC, mapC.getNumResults() - 1);
  std::optional<unsigned> m;
  for (int i = static_cast<int>(mapC.getNumResults()) - 2; i >= 0 && !m; --i) {
    unsigned dim = resultDim(mapC, i);
    if (uses(mapA, dim) && !uses(mapB, dim))
      m = dim;
  }
  if (!m)
    return std::nullopt;
  plan.m = *m;
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel && !uses(mapC, dim))
      return std::nullopt;
  // n only in B, k in both: a product, not a broadcast.
  if (uses(mapA, plan.n) || !uses(mapB, plan.n) || !uses(mapA, plan.k) ||
      !uses(mapB, plan.k))
    return std::nullopt;
  // B rows along n are read as vectors; any other layout (a transposed
  // weight, a transpose fused into the product) is packed element by
  // element.
  plan.transposeB = resultDim(mapB, mapB.getNumResults() - 1) != plan.n;
  return plan;
}

Value broadcastRow(Value value) {
  auto broadcast = value.getDefiningOp<linalg::GenericOp>();
  if (!broadcast || broadcast.getNumDpsInputs() != 1 ||
      broadcast.getNumDpsInits() != 1 || broadcast.getNumReductionLoops() != 0)
    return Value();
  Block &body = broadcast.getRegion().front();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return Value();
  SmallVector<AffineMap> maps = broadcast.getIndexingMapsArray();
  unsigned rank = maps[1].getNumDims();
  auto row = dyn_cast<RankedTensorType>(broadcast.getDpsInputs()[0].getType());
  if (!maps[1].isIdentity() || !row || row.getRank() != 1 ||
      !row.getElementType().isF32() || maps[0].getNumResults() != 1 ||
      maps[0].getResult(0) !=
          getAffineDimExpr(rank - 1, broadcast.getContext()))
    return Value();
  return broadcast.getDpsInputs()[0];
}

void sinkExpandIntoConsumer(RewriterBase &rewriter, linalg::GenericOp product) {
  Value result = product.getResult(0);
  if (!result.hasOneUse())
    return;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || expand->getBlock() != product->getBlock() ||
      expand.getResult().use_empty() ||
      !llvm::all_equal(expand.getResult().getUsers()))
    return;
  auto consumer =
      dyn_cast<linalg::GenericOp>(*expand.getResult().getUsers().begin());
  if (!consumer || consumer->getBlock() != product->getBlock() ||
      !consumer.hasPureTensorSemantics() || consumer.getNumDpsInits() != 1 ||
      consumer.getNumReductionLoops() != 0 ||
      consumer.getResult(0).getType() != expand.getResultType())
    return;
  for (AffineMap map : consumer.getIndexingMapsArray())
    if (!map.isIdentity())
      return;
  for (OpOperand *input : consumer.getDpsInputOperands())
    if (input->get() != expand.getResult())
      return;
  auto collapsedType = cast<RankedTensorType>(result.getType());
  Location loc = consumer.getLoc();
  rewriter.setInsertionPoint(consumer);
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, result),
      collapsedType.getElementType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(collapsedType.getRank());
  SmallVector<Value> inputs(consumer.getNumDpsInputs(), result);
  SmallVector<AffineMap> maps(consumer.getNumDpsInputs() + 1, identity);
  auto rebuilt = linalg::GenericOp::create(
      rewriter, loc, TypeRange{collapsedType}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(collapsedType.getRank(),
                                       utils::IteratorType::parallel));
  rewriter.inlineRegionBefore(consumer.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().begin());
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, expand.getResultType(), rebuilt.getResult(0),
      expand.getReassociationIndices(), expand.getMixedOutputShape());
  rewriter.replaceOp(consumer, expanded);
  rewriter.eraseOp(expand);
}

linalg::GenericOp epilogueConsumer(linalg::GenericOp product) {
  Value result = product.getResult(0);
  if (result.use_empty() || !llvm::all_equal(result.getUsers()))
    return nullptr;
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || consumer->getBlock() != product->getBlock() ||
      !consumer.hasPureTensorSemantics() || consumer.getNumDpsInits() != 1 ||
      consumer.getNumReductionLoops() != 0 ||
      consumer.getResult(0).getType() != result.getType())
    return nullptr;
  for (AffineMap map : consumer.getIndexingMapsArray())
    if (!map.isIdentity())
      return nullptr;
  for (OpOperand *input : consumer.getDpsInputOperands())
    if (input->get().getType() != result.getType())
      return nullptr;
  Block &body = consumer.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return nullptr;
  for (Operation &op : body.without_terminator()) {
    if (!isVectorizableScalarOp(op))
      return nullptr;
    // Values from outside the body must be constants: a flag computed
    // between the product and its consumer (gradient accumulation's reset,
    // which odt-fuse-gradient-accumulation handles on buffers) would not
    // exist yet where the kernel runs.
    for (Value operand : op.getOperands())
      if (operand.getParentRegion() != &consumer.getRegion() &&
          !matchPattern(operand, m_Constant()))
        return nullptr;
  }
  return consumer;
}

} // namespace odt::cpu
