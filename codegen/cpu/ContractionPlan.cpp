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

bool isRowOfResult(linalg::GenericOp consumer, OpOperand &input) {
  auto row = dyn_cast<RankedTensorType>(input.get().getType());
  AffineMap map = consumer.getMatchingIndexingMap(&input);
  unsigned rank = map.getNumDims();
  return row && row.getRank() == 1 && row.getElementType().isF32() &&
         rank > 0 && map.getNumResults() == 1 &&
         map.getResult(0) == getAffineDimExpr(rank - 1, consumer.getContext());
}

namespace {

/// Whether `consumer`'s body is elementwise arith and math on its inputs
/// (never its output, nor linalg.index: the kernel's epilogue runs it on
/// vectors of the tile, and the rule may rebuild it on collapsed dims)
/// with constants from outside.
bool hasElementwiseBody(linalg::GenericOp consumer) {
  Block &body = consumer.getRegion().front();
  if (!body.getArguments().back().use_empty())
    return false;
  for (Operation &op : body.without_terminator()) {
    if (!isVectorizableScalarOp(op))
      return false;
    // Values from outside the body must be constants: a flag computed
    // between the product and its consumer (gradient accumulation's reset,
    // which odt-fuse-gradient-accumulation handles on buffers) would not
    // exist yet where the kernel runs.
    for (Value operand : op.getOperands())
      if (operand.getParentRegion() != &consumer.getRegion() &&
          !matchPattern(operand, m_Constant()))
        return false;
  }
  return true;
}

/// Whether every input of `consumer` other than `result` is laid out as
/// the consumer's result (identity map, same type) or is a row along its
/// last dim, and the consumer's own map is the identity.
bool readsTilesAndRows(linalg::GenericOp consumer, Value result) {
  if (!consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0))
           .isIdentity())
    return false;
  Type type = consumer.getResult(0).getType();
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    if (isRowOfResult(consumer, *input) && input->get() != result)
      continue;
    if (!consumer.getMatchingIndexingMap(input).isIdentity() ||
        input->get().getType() != type)
      return false;
  }
  return true;
}

/// Whether `consumer`, reading the product's `read` (its result, or the
/// expansion of it), is one the kernel's epilogue can run: an all-parallel
/// generic in the product's block, on tensors, with one result shaped as
/// `read`, inputs laid out as it or rows along its last dim, and an
/// elementwise body.
bool isEpilogueCandidate(linalg::GenericOp consumer, linalg::GenericOp product,
                         Value read) {
  return consumer && consumer->getBlock() == product->getBlock() &&
         consumer.hasPureTensorSemantics() && consumer.getNumDpsInits() == 1 &&
         consumer.getNumReductionLoops() == 0 &&
         consumer.getResult(0).getType() == read.getType() &&
         readsTilesAndRows(consumer, read) && hasElementwiseBody(consumer);
}

} // namespace

void sinkExpandIntoConsumer(RewriterBase &rewriter, linalg::GenericOp product) {
  Value result = product.getResult(0);
  if (!result.hasOneUse())
    return;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || expand->getBlock() != product->getBlock())
    return;
  // Its one reader besides tensor.dim ops (the consumer's own sizes, which
  // the new expansion answers as well).
  SmallVector<Operation *> readers;
  for (Operation *user : expand.getResult().getUsers()) {
    auto dim = dyn_cast<tensor::DimOp>(user);
    if (!dim)
      readers.push_back(user);
    else if (!dim.getConstantIndex() ||
             *dim.getConstantIndex() >= expand.getResultType().getRank())
      return;
  }
  if (readers.empty() || !llvm::all_equal(readers))
    return;
  auto consumer = dyn_cast<linalg::GenericOp>(readers.front());
  if (!isEpilogueCandidate(consumer, product, expand.getResult()))
    return;
  auto isRow = [&](OpOperand *input) {
    return input->get() != expand.getResult() &&
           isRowOfResult(consumer, *input);
  };
  // A row along the last dim stays a row of the collapsed shape only when
  // the expansion leaves the last dim alone.
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (groups.back().size() != 1 &&
      llvm::any_of(consumer.getDpsInputOperands(), isRow))
    return;
  auto collapsedType = cast<RankedTensorType>(result.getType());
  unsigned rank = collapsedType.getRank();
  Location loc = consumer.getLoc();
  rewriter.setInsertionPoint(consumer);
  // The consumer's other inputs are collapsed as the product's result was
  // expanded (a residual laid out as C); rows keep their tensor.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  AffineMap lastDim = AffineMap::get(
      rank, 0, getAffineDimExpr(rank - 1, rewriter.getContext()));
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    Value value = input->get();
    bool row = isRow(input);
    if (value == expand.getResult())
      inputs.push_back(result);
    else if (row)
      inputs.push_back(value);
    else {
      // Collapsed where the value is defined, so that it does not move the
      // fused kernel after the product (odt-vectorize-contractions emits
      // it at the consumer when an input is defined after the product).
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(value);
      inputs.push_back(tensor::CollapseShapeOp::create(
          rewriter, loc, collapsedType, value, groups));
    }
    maps.push_back(row ? lastDim : identity);
  }
  // Sized by the product's init, not its result: a tensor.dim reading the
  // result would be a second user, which the epilogue rule refuses.
  Value empty = tensor::EmptyOp::create(
      rewriter, loc,
      tensor::getMixedSizes(rewriter, loc, product.getDpsInits()[0]),
      collapsedType.getElementType());
  maps.push_back(identity);
  auto rebuilt = linalg::GenericOp::create(
      rewriter, loc, TypeRange{collapsedType}, inputs, ValueRange{empty}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel));
  rewriter.inlineRegionBefore(consumer.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().begin());
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, expand.getResultType(), rebuilt.getResult(0), groups,
      expand.getMixedOutputShape());
  rewriter.replaceOp(consumer, expanded);
  // The sizes read from the old expansion are its output shape (values
  // defined before it, where those reads are).
  SmallVector<OpFoldResult> shape = expand.getMixedOutputShape();
  for (Operation *user : llvm::make_early_inc_range(expand->getUsers())) {
    auto dim = cast<tensor::DimOp>(user);
    rewriter.setInsertionPoint(dim);
    rewriter.replaceOp(
        dim, getValueOrCreateConstantIndexOp(rewriter, dim.getLoc(),
                                             shape[*dim.getConstantIndex()]));
  }
  rewriter.eraseOp(expand);
}

linalg::GenericOp epilogueConsumer(linalg::GenericOp product) {
  Value result = product.getResult(0);
  if (result.use_empty() || !llvm::all_equal(result.getUsers()))
    return nullptr;
  // A row is read as a vector along n, which planContraction makes C's
  // last dim.
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  return isEpilogueCandidate(consumer, product, result) ? consumer : nullptr;
}

} // namespace odt::cpu
