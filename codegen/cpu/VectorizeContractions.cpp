//===- VectorizeContractions.cpp - register-tiled matrix products ---------===//
//
// A matrix product lowered by convert-linalg-to-loops keeps one output
// element in memory per multiply-add. Here the product becomes loops whose
// innermost body keeps a rows x columns tile of the output in vector
// registers across the whole k loop: per k, one vector row of B is loaded,
// and each of the tile's rows adds a broadcast element of A times it. This
// is the shape of a BLAS micro-kernel, written with upstream ops (scf.for
// with iter_args, vector.transfer_read/write, vector.fma) on tensors, so
// bufferization and the vector-to-LLVM lowering do the rest. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/ShapeFunctions.h"
#include "codegen/cpu/Passes.h"
#include "compiler/training/Roles.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <deque>
#include <set>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_VECTORIZECONTRACTIONS
#include "codegen/cpu/Passes.h.inc"

namespace {

/// Whether the body is `out + a * b` (in either operand order).
bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value out = body.getArgument(2);
  Value product = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
  auto multiply = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!multiply)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (multiply.getLhs() == a && multiply.getRhs() == b) ||
         (multiply.getLhs() == b && multiply.getRhs() == a);
}

unsigned resultDim(AffineMap map, unsigned result) {
  return cast<AffineDimExpr>(map.getResult(result)).getPosition();
}

/// The positions of `dims` in `map`'s results when they form one run in
/// that order, or nothing.
std::optional<unsigned> runStart(AffineMap map, ArrayRef<unsigned> dims) {
  for (unsigned start = 0; start + dims.size() <= map.getNumResults();
       ++start) {
    bool matches = true;
    for (auto [offset, dim] : llvm::enumerate(dims))
      matches &= map.getResult(start + offset) ==
                 getAffineDimExpr(dim, map.getContext());
    if (matches)
      return start;
  }
  return std::nullopt;
}

/// Reassociation groups of a rank-`rank` tensor whose dims [start, start +
/// length) become one dim and the others stay as they are.
SmallVector<ReassociationIndices> runGroups(int64_t rank, unsigned start,
                                            size_t length) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i > start && i < start + (int64_t)length)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  return groups;
}

/// A product summed over several dims that lie side by side, in the same
/// order, in both operands (a weight gradient summed over batch and
/// sequence) becomes a product over one dim: both operands are collapsed
/// (free views of contiguous memory) and the generic is rebuilt with one
/// reduction. Returns the new generic, or null when the rule does not apply.
linalg::GenericOp collapseReductions(RewriterBase &rewriter,
                                     linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAccumulate(op))
    return nullptr;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return nullptr;
  SmallVector<unsigned> reductions;
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::reduction)
      reductions.push_back(dim);
  if (reductions.size() < 2)
    return nullptr;
  // The run's order is the order in A.
  llvm::sort(reductions, [&](unsigned x, unsigned y) {
    return *maps[0].getResultPosition(getAffineDimExpr(x, op.getContext())) <
           *maps[0].getResultPosition(getAffineDimExpr(y, op.getContext()));
  });
  std::optional<unsigned> startA = runStart(maps[0], reductions);
  std::optional<unsigned> startB = runStart(maps[1], reductions);
  if (!startA || !startB)
    return nullptr;

  // New loop dims: the parallel dims in order, then the one reduction.
  MLIRContext *context = op.getContext();
  unsigned newCount = iterators.size() - reductions.size() + 1;
  SmallVector<int64_t> newPosition(iterators.size(), -1);
  unsigned next = 0;
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if (iterators[dim] == utils::IteratorType::parallel)
      newPosition[dim] = next++;
  AffineExpr reduction = getAffineDimExpr(newCount - 1, context);
  auto rebuild = [&](AffineMap map, std::optional<unsigned> start) {
    SmallVector<AffineExpr> results;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      if (start && i == *start) {
        results.push_back(reduction);
        i += reductions.size() - 1;
        continue;
      }
      results.push_back(
          getAffineDimExpr(newPosition[resultDim(map, i)], context));
    }
    return AffineMap::get(newCount, 0, results, context);
  };
  auto collapse = [&](Value value, unsigned start) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    return tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), value,
        runGroups(type.getRank(), start, reductions.size()));
  };
  rewriter.setInsertionPoint(op);
  Value a = collapse(op.getDpsInputs()[0], *startA);
  Value b = collapse(op.getDpsInputs()[1], *startB);
  SmallVector<AffineMap> newMaps = {rebuild(maps[0], startA),
                                    rebuild(maps[1], startB),
                                    rebuild(maps[2], std::nullopt)};
  SmallVector<utils::IteratorType> newIterators(newCount - 1,
                                                utils::IteratorType::parallel);
  newIterators.push_back(utils::IteratorType::reduction);
  auto collapsed = linalg::GenericOp::create(
      rewriter, op.getLoc(), op.getResultTypes(), ValueRange{a, b},
      op.getDpsInits(), newMaps, newIterators);
  rewriter.inlineRegionBefore(op.getRegion(), collapsed.getRegion(),
                              collapsed.getRegion().begin());
  rewriter.replaceOp(op, collapsed->getResults());
  return collapsed;
}

Value broadcastRow(Value value);

/// A product whose rows span several dims of A and C that B does not use
/// (a linear layer on [batch, sequence, features]: rows are batch x
/// sequence) becomes a product over one row dim: those dims are collapsed
/// in A and in C when they lie side by side in the same order in both, and
/// the result is expanded back. Otherwise the kernel would run one product
/// per batch entry, packing every panel of B again for each (8 times for
/// the transformer's layers, element by element for a transposed weight).
/// C's fill or bias broadcast is rebuilt on the collapsed shape, so the
/// kernel still starts its accumulators from it. Returns the new generic,
/// or null when the rule does not apply.
linalg::GenericOp collapseRowDims(RewriterBase &rewriter,
                                  linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAccumulate(op))
    return nullptr;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return nullptr;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Row dims: parallel, in A and C, not in B; C's innermost is n.
  AffineMap mapA = maps[0], mapB = maps[1], mapC = maps[2];
  // A rank-0 C (an inner product) has no row dims to collapse.
  if (mapC.getNumResults() == 0)
    return nullptr;
  unsigned innermostC = resultDim(mapC, mapC.getNumResults() - 1);
  SmallVector<unsigned> rowDims;
  for (unsigned i = 0; i < mapC.getNumResults(); ++i) {
    unsigned dim = resultDim(mapC, i);
    if (dim != innermostC && iterators[dim] == utils::IteratorType::parallel &&
        mapA.isFunctionOfDim(dim) && !mapB.isFunctionOfDim(dim))
      rowDims.push_back(dim);
  }
  if (rowDims.size() < 2)
    return nullptr;
  std::optional<unsigned> startA = runStart(mapA, rowDims);
  std::optional<unsigned> startC = runStart(mapC, rowDims);
  if (!startA || !startC)
    return nullptr;

  MLIRContext *context = op.getContext();
  unsigned oldCount = iterators.size();
  unsigned newCount = oldCount - rowDims.size() + 1;
  // The row dims become one dim at the first one's place.
  SmallVector<int64_t> newPosition(oldCount, -1);
  unsigned next = 0;
  for (unsigned dim = 0; dim < oldCount; ++dim) {
    if (llvm::is_contained(rowDims, dim) && dim != rowDims.front())
      continue;
    newPosition[dim] = next++;
  }
  for (unsigned dim : rowDims)
    newPosition[dim] = newPosition[rowDims.front()];
  auto rebuild = [&](AffineMap map, std::optional<unsigned> start) {
    SmallVector<AffineExpr> results;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      results.push_back(
          getAffineDimExpr(newPosition[resultDim(map, i)], context));
      if (start && i == *start)
        i += rowDims.size() - 1;
    }
    return AffineMap::get(newCount, 0, results, context);
  };
  auto groupsFor = [&](int64_t rank, unsigned start) {
    return runGroups(rank, start, rowDims.size());
  };
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<ReassociationIndices> groupsC =
      groupsFor(initType.getRank(), *startC);
  Value a = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getDpsInputs()[0],
      groupsFor(
          cast<RankedTensorType>(op.getDpsInputs()[0].getType()).getRank(),
          *startA));
  // C's initial value on the collapsed shape: the same fill or bias
  // broadcast (so the kernel still recognizes it), else a collapsed view.
  Value collapsedInit;
  auto collapsedEmpty = [&]() -> Value {
    Value collapsed =
        tensor::CollapseShapeOp::create(rewriter, loc, init, groupsC);
    return tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, collapsed),
        initType.getElementType());
  };
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    collapsedInit = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                           collapsedEmpty())
                        .getResult(0);
  } else if (Value bias = broadcastRow(init)) {
    Value empty = collapsedEmpty();
    unsigned rank = cast<RankedTensorType>(empty.getType()).getRank();
    AffineMap row =
        AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, context), context);
    collapsedInit =
        linalg::GenericOp::create(
            rewriter, loc, empty.getType(), ValueRange{bias}, ValueRange{empty},
            ArrayRef<AffineMap>{
                row, AffineMap::getMultiDimIdentityMap(rank, context)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
  } else {
    collapsedInit =
        tensor::CollapseShapeOp::create(rewriter, loc, init, groupsC);
  }
  SmallVector<AffineMap> newMaps = {rebuild(mapA, startA),
                                    rebuild(mapB, std::nullopt),
                                    rebuild(mapC, startC)};
  SmallVector<utils::IteratorType> newIterators;
  for (unsigned dim = 0; dim < oldCount; ++dim)
    if (!llvm::is_contained(rowDims, dim) || dim == rowDims.front())
      newIterators.push_back(iterators[dim]);
  auto collapsed = linalg::GenericOp::create(
      rewriter, loc, collapsedInit.getType(),
      ValueRange{a, op.getDpsInputs()[1]}, ValueRange{collapsedInit}, newMaps,
      newIterators);
  rewriter.inlineRegionBefore(op.getRegion(), collapsed.getRegion(),
                              collapsed.getRegion().begin());
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, initType, collapsed.getResult(0), groupsC,
      tensor::getMixedSizes(rewriter, loc, init));
  rewriter.replaceOp(op, expanded);
  return collapsed;
}

/// A product whose B is a 2-D linalg.transpose (the transformer's weights,
/// transposed once for the forward product and read again, transposed, by
/// the backward one) reads the transpose's input instead, with B's map
/// swapped: no copy per step, and B is the weight itself (its panels can
/// be kept). The transpose goes once nothing else reads it. Returns the new
/// generic, or null.
linalg::GenericOp foldTransposedB(RewriterBase &rewriter,
                                  linalg::GenericOp op) {
  auto transpose = op.getDpsInputs()[1].getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return nullptr;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap mapB = maps[1];
  if (mapB.getNumResults() != 2)
    return nullptr;
  maps[1] =
      AffineMap::get(mapB.getNumDims(), 0,
                     {mapB.getResult(1), mapB.getResult(0)}, op.getContext());
  rewriter.setInsertionPoint(op);
  auto folded = linalg::GenericOp::create(
      rewriter, op.getLoc(), op.getResultTypes(),
      ValueRange{op.getDpsInputs()[0], transpose.getInput()}, op.getDpsInits(),
      maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), folded.getRegion(),
                              folded.getRegion().begin());
  rewriter.replaceOp(op, folded.getResults());
  if (transpose->use_empty())
    rewriter.eraseOp(transpose);
  return folded;
}

/// How one product is tiled: the loop dims of the generic that play m, n
/// and k, and whether B needs a transposed copy.
struct ContractionPlan {
  unsigned m, n, k;
  bool transposeB;
};

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

/// What surrounds a product that its kernel does in registers instead: the
/// row vector C starts from (a bias broadcast over the rows) and the
/// elementwise op that reads the product (an activation, ReluGrad).
struct ContractionEpilogue {
  /// C's initial value is `bias[n]` for every row; `destination` is the
  /// broadcast's own (unread) destination, which the product writes.
  Value bias, destination;
  /// The only user of the product: an all-parallel generic whose operands
  /// all use the identity map and whose body reads the product and other
  /// inputs (never its output) with elementwise arith and math ops.
  linalg::GenericOp consumer;
};

/// `value` is a linalg.generic broadcasting a 1-D f32 tensor along every
/// dim but the innermost (C's n): returns that tensor.
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

/// When the product's only reader is a tensor.expand_shape whose only
/// reader is an all-parallel generic with identity maps that reads nothing
/// else (a convolution's absorbed Relu after the image's [F, OH*OW] result
/// is expanded to [F, OH, OW]), that generic is rebuilt on the product's
/// shape and its result expanded instead, so the epilogue rule can take it.
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

/// The consumer the product's kernel can apply in its epilogue, or null.
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

/// A parameter's panels kept between steps (entry arguments the pass adds):
/// the [column tiles, k, columns] panels of B and the bool[1] stale flag,
/// as tensors; emit() sets the values the entry returns for them.
struct PanelCache {
  Value panels, stale;
  Value panelsOut, staleOut;
};

/// Emits the loops for one planned product.
///
/// Packed path (B transposed, or enough rows to reuse a panel): for each
/// block of `depth` k values and each tile of columns, the block of B is
/// copied into a contiguous [depth, columns] panel (zero-padded past n),
/// which every row tile then reads from L1. Direct path (few rows, B rows
/// already contiguous): row tiles read B in place.
class ContractionEmitter {
public:
  ContractionEmitter(linalg::GenericOp op, const ContractionPlan &plan,
                     const ContractionEpilogue &epilogue, unsigned vectorWidth,
                     unsigned rows, unsigned depth, PanelCache *cache = nullptr)
      : op(op), plan(plan), epilogue(epilogue), rows(rows),
        columns(2 * vectorWidth), depth(depth), loc(op.getLoc()), cache(cache) {
  }

  /// The fewest rows with which a product takes the packed path (0: it
  /// always does).
  int64_t packedPathRows() const {
    if (!plan.transposeB)
      return (cache ? kDirectRowTilesForWeights : 2) * rows;
    return kInnermostInA() ? kDotRowLimit * rows : 0;
  }

  /// Below this many row tiles a kept weight (B a parameter, rows along n)
  /// is read in place: its panels cost a pass over the weight after every
  /// optimizer step, which 2 row tiles do not repay (MLP batch 16, the
  /// hidden layer's dX over a 512 x 512 weight: train step 0.72 -> 0.61 ms,
  /// 6 alternating pairs). Activations as B (LeNet-5's image columns at 16
  /// filters, rows of 6400 values) are still packed from 2 row tiles:
  /// reading them in place was slower.
  static constexpr int64_t kDirectRowTilesForWeights = 3;

  /// Column tiles per unit of parallel work: each chunk of columns is an
  /// independent product (its own slice of C and of B, its own panel), as
  /// is each entry of the first outer dim when that is what runs in
  /// parallel.
  static constexpr int64_t kTilesPerChunk = 2;
  /// Rows of one parallel iteration when the columns are cut in chunks:
  /// with a k block of 256, A's block is 256 KB (L2).
  static constexpr int64_t kRowBlock = 256;

  /// A product with at most this many k values (a weight gradient summed
  /// over a batch of 16 or 32) and at least kWideRowsMinRows rows spends
  /// its time writing C, not multiplying: its parallel iterations are
  /// blocks of kWideRowBlock whole rows of C, each written row after row
  /// (column tiles outer, row tiles inner, B read in place), instead of
  /// 64-column chunks written as narrow strips down 256 rows. MLP batch 16,
  /// dW = dY^T X into [512, 784]: a C model of both orders ran 100-117 us
  /// against 135-150 for the chunks.
  static constexpr int64_t kShortReduction = 32;
  static constexpr int64_t kWideRowsMinRows = 256;
  static constexpr int64_t kWideRowBlock = 64;

  Value emit(OpBuilder &builder) {
    maps = op.getIndexingMapsArray();
    a = op.getDpsInputs()[0];
    b = op.getDpsInputs()[1];
    Value c = op.getDpsInits()[0];
    // C starting as a constant (the zero of a plain product): the first k
    // block starts its accumulators from that constant instead of reading
    // a filled buffer, and the fill is left to dead-code elimination.
    if (auto fill = c.getDefiningOp<linalg::FillOp>()) {
      Value value = fill.getInputs()[0];
      if (value.getType().isF32() &&
          fill.getOutputs()[0].getType() == c.getType()) {
        initialValue = value;
        c = fill.getOutputs()[0];
      }
    }
    bias = epilogue.bias;
    if (bias)
      c = epilogue.destination;
    if (epilogue.consumer)
      for (OpOperand *input : epilogue.consumer.getDpsInputOperands())
        if (input->get() != op.getResult(0))
          extraInputs.push_back(input->get());

    SmallVector<Range, 4> ranges = cast<linalg::LinalgOp>(op.getOperation())
                                       .createLoopRanges(builder, loc);
    for (Range &range : ranges)
      sizes.push_back(
          getValueOrCreateConstantIndexOp(builder, loc, range.size));

    Type f32 = builder.getF32Type();
    zero = arith::ConstantIndexOp::create(builder, loc, 0);
    one = arith::ConstantIndexOp::create(builder, loc, 1);
    padding = arith::ConstantFloatOp::create(builder, loc, cast<FloatType>(f32),
                                             APFloat(0.0f));
    vectorType = VectorType::get({columns}, f32);

    // Loops over every dim that is neither m, n nor k.
    SmallVector<unsigned> outer;
    for (unsigned dim = 0; dim < sizes.size(); ++dim)
      if (dim != plan.m && dim != plan.n && dim != plan.k)
        outer.push_back(dim);

    // Whether k is short enough for the wide row blocks is often known
    // only at run time (k is the batch in a weight gradient): the blocks'
    // shape and the kernel's path are then chosen by k at run time, in one
    // loop nest.
    std::optional<int64_t> staticM = getConstantIntValue(sizes[plan.m]);
    std::optional<int64_t> staticN = getConstantIntValue(sizes[plan.n]);
    if (outer.empty() && !plan.transposeB && !cache && staticN && staticM &&
        *staticM >= kWideRowsMinRows) {
      std::optional<int64_t> staticK = getConstantIntValue(sizes[plan.k]);
      if (!staticK)
        shortK = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ule, sizes[plan.k],
            arith::ConstantIndexOp::create(builder, loc, kShortReduction));
      else if (*staticK <= kShortReduction)
        shortK =
            arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1);
    }
    int64_t chunkColumns = columns * kTilesPerChunk;

    // The parallel iterations (scf.forall; after bufferization they run on
    // the runtime's thread pool): chunks of columns, or, when the columns
    // make a single chunk (an attention head's 32 values) and there are
    // outer dims, the first outer dim (one batch entry per iteration).
    bool byColumns = outer.empty() || !staticN || *staticN > chunkColumns;
    unsigned parallelDim = byColumns ? plan.n : outer.front();
    columnsInBounds =
        staticN && *staticN % (byColumns ? chunkColumns : columns) == 0;
    Value extent = sizes[parallelDim];
    Value step =
        byColumns ? arith::ConstantIndexOp::create(builder, loc, chunkColumns)
                  : one;
    // With a short k, one chunk holds all columns (rounded up to whole
    // column tiles).
    if (shortK) {
      int64_t allColumns = llvm::alignTo(*staticN, columns);
      columnsInBounds = columnsInBounds && *staticN % allColumns == 0;
      step = arith::SelectOp::create(
          builder, loc, shortK,
          arith::ConstantIndexOp::create(builder, loc, allColumns), step);
    }
    Value chunks = arith::CeilDivUIOp::create(builder, loc, extent, step);
    // Chunks of columns are also cut into blocks of rows (iteration i:
    // row block i / chunks, column chunk i % chunks), so that a thread's
    // consecutive iterations reuse one block of A from L2 across its
    // columns instead of streaming all of A once per chunk.
    // A row count known to fit one block stays static (a 6-filter
    // convolution keeps its one 6-row tile instead of 6 one-row passes).
    bool blockRows =
        byColumns && (shortK || !(staticM && *staticM <= kRowBlock));
    Value rowStep = arith::ConstantIndexOp::create(builder, loc, kRowBlock);
    if (shortK)
      rowStep = arith::SelectOp::create(
          builder, loc, shortK,
          arith::ConstantIndexOp::create(builder, loc, kWideRowBlock), rowStep);
    Value rowBlocks =
        blockRows
            ? arith::CeilDivUIOp::create(builder, loc, sizes[plan.m], rowStep)
                  .getResult()
            : one;
    Value iterations =
        blockRows
            ? arith::MulIOp::create(builder, loc, rowBlocks, chunks).getResult()
            : chunks;
    if (cache)
      emitPanelCache(builder);
    auto forall =
        scf::ForallOp::create(builder, loc, ArrayRef<OpFoldResult>{iterations},
                              ValueRange{c}, std::nullopt);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(forall.getBody());
    Value index = forall.getInductionVar(0);
    Value cOut = forall.getRegionIterArgs()[0];
    Value first = arith::MulIOp::create(
        builder, loc,
        blockRows
            ? arith::RemUIOp::create(builder, loc, index, chunks).getResult()
            : index,
        step);
    Value width = arith::MinUIOp::create(
        builder, loc, step, arith::SubIOp::create(builder, loc, extent, first));
    columnOffset = first;
    AffineExpr parallelExpr =
        getAffineDimExpr(parallelDim, builder.getContext());
    unsigned positionInC = *maps[2].getResultPosition(parallelExpr);
    SmallVector<std::tuple<unsigned, Value, Value>> cutsOfC = {
        {positionInC, first, width}};
    if (blockRows) {
      Value firstRow = arith::MulIOp::create(
          builder, loc, arith::DivUIOp::create(builder, loc, index, chunks),
          rowStep);
      Value rowCount = arith::MinUIOp::create(
          builder, loc, rowStep,
          arith::SubIOp::create(builder, loc, sizes[plan.m], firstRow));
      AffineExpr rowExpr = getAffineDimExpr(plan.m, builder.getContext());
      cutsOfC.push_back(
          {*maps[2].getResultPosition(rowExpr), firstRow, rowCount});
      a = slice(builder, a, *maps[0].getResultPosition(rowExpr), firstRow,
                rowCount)
              .value;
      sizes[plan.m] = rowCount;
    }
    Slice cSlice = slice(builder, cOut, cutsOfC);
    // Each operand that the parallel dim moves is cut the same way.
    if (std::optional<unsigned> inA = maps[0].getResultPosition(parallelExpr))
      a = slice(builder, a, *inA, first, width).value;
    if (std::optional<unsigned> inB = maps[1].getResultPosition(parallelExpr))
      b = slice(builder, b, *inB, first, width).value;
    // The consumer's other inputs are laid out as C; the bias runs along n.
    for (Value &input : extraInputs)
      input = slice(builder, input, cutsOfC).value;
    if (bias && parallelDim == plan.n)
      bias = slice(builder, bias, 0, first, width).value;
    sizes[parallelDim] = width;

    Value panel = tensor::EmptyOp::create(
        builder, loc, ArrayRef<int64_t>{depth, columns}, f32);
    SmallVector<Value> lbs(outer.size(), zero), steps(outer.size(), one), ubs;
    for (unsigned dim : outer)
      ubs.push_back(sizes[dim]);
    dimValues.assign(sizes.size(), Value());
    scf::LoopNest nest = scf::buildLoopNest(
        builder, loc, lbs, ubs, steps, ValueRange{cSlice.value, panel},
        [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange args) {
          for (auto [dim, iv] : llvm::zip(outer, ivs))
            dimValues[dim] = iv;
          return emitProduct(nested, args[0], args[1]);
        });
    builder.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(builder, loc, nest.results.front(),
                                          cOut, cSlice.offsets, cSlice.sizes,
                                          cSlice.strides);
    return forall.getResult(0);
  }

private:
  struct Slice {
    Value value;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };

  /// `value` restricted to [first, first + width) along dim `dim`.
  Slice slice(OpBuilder &builder, Value value, unsigned dim, Value first,
              Value width) {
    return slice(builder, value, {{dim, first, width}});
  }

  /// `value` restricted to [first, first + width) along each (dim, first,
  /// width) of `cuts`.
  Slice slice(OpBuilder &builder, Value value,
              ArrayRef<std::tuple<unsigned, Value, Value>> cuts) {
    Slice result;
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    result.offsets.assign(rank, builder.getIndexAttr(0));
    result.strides.assign(rank, builder.getIndexAttr(1));
    result.sizes = tensor::getMixedSizes(builder, loc, value);
    for (auto [dim, first, width] : cuts) {
      result.offsets[dim] = first;
      result.sizes[dim] = width;
    }
    result.value = tensor::ExtractSliceOp::create(
        builder, loc, value, result.offsets, result.sizes, result.strides);
    return result;
  }

  /// One 2-D product at the current outer indices; yields (C, panel).
  scf::ValueVector emitProduct(OpBuilder &builder, Value c, Value panel) {
    // A few rows times a transposed weight (a linear layer at batch 1 or
    // 16): packing the weight's panels costs more than the product itself.
    // Up to one vector of rows, but most of one, the product is computed
    // transposed (emitSwapped); fewer rows make each output a dot product
    // along k, read straight from the contiguous rows of A and B.
    if (plan.transposeB && kInnermostInA())
      return emitPackedFromRows(
          builder, c, panel, kDotRowLimit * rows,
          [&](OpBuilder &b) { return emitFewRowsTransposed(b, c, panel); });
    if (plan.transposeB)
      return emitPacked(builder, c, panel);
    // Few rows would not repay packing B's rows, nor do a few k values
    // (shortK): they are read in place.
    return emitPackedFromRows(
        builder, c, panel, packedPathRows(), [&](OpBuilder &b) {
          return scf::ValueVector{emitDirect(b, c), panel};
        });
  }

  using BranchBuilder = function_ref<SmallVector<Value>(OpBuilder &)>;

  /// scf.if on `condition` whose branches yield what `then` and
  /// `otherwise` build; its results.
  SmallVector<Value> emitIf(OpBuilder &builder, Value condition,
                            BranchBuilder then, BranchBuilder otherwise) {
    auto choice = scf::IfOp::create(
        builder, loc, condition,
        [&](OpBuilder &b, Location) { scf::YieldOp::create(b, loc, then(b)); },
        [&](OpBuilder &b, Location) {
          scf::YieldOp::create(b, loc, otherwise(b));
        });
    return SmallVector<Value>(choice.getResults());
  }

  /// The packed path when the product has at least `minRows` rows (known
  /// at run time), else `fewRows`, which yields (C, panel).
  scf::ValueVector emitPackedFromRows(OpBuilder &builder, Value c, Value panel,
                                      int64_t minRows, BranchBuilder fewRows) {
    Value enoughRows = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::uge, sizes[plan.m],
        arith::ConstantIndexOp::create(builder, loc, minRows));
    if (shortK)
      enoughRows = arith::AndIOp::create(
          builder, loc, enoughRows,
          arith::XOrIOp::create(builder, loc, shortK,
                                arith::ConstantIntOp::create(
                                    builder, loc, builder.getI1Type(), 1)));
    return emitIf(
        builder, enoughRows,
        [&](OpBuilder &then) { return emitPacked(then, c, panel); }, fewRows);
  }

  /// Fewer rows than the packed path takes, B transposed and k innermost
  /// in A: emitSwapped from kSwappedRowsNumerator / kSwappedRowsDenominator
  /// of a vector's lanes up to one vector, dot products (emitDots) otherwise.
  scf::ValueVector emitFewRowsTransposed(OpBuilder &builder, Value c,
                                         Value panel) {
    int64_t lanes = columns / 2;
    int64_t fewest =
        (lanes * kSwappedRowsNumerator + kSwappedRowsDenominator - 1) /
        kSwappedRowsDenominator;
    Value m = sizes[plan.m];
    if (std::optional<int64_t> staticM = getConstantIntValue(m)) {
      if (*staticM >= fewest && *staticM <= lanes)
        return emitSwapped(builder, c, panel);
      return {emitDots(builder, c), panel};
    }
    Value swapped = arith::AndIOp::create(
        builder, loc,
        arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::uge, m,
            arith::ConstantIndexOp::create(builder, loc, fewest)),
        arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ule, m,
            arith::ConstantIndexOp::create(builder, loc, lanes)));
    return emitIf(
        builder, swapped,
        [&](OpBuilder &then) { return emitSwapped(then, c, panel); },
        [&](OpBuilder &otherwise) {
          return SmallVector<Value>{emitDots(otherwise, c), panel};
        });
  }

  /// Rows of C from this share of a vector's lanes up to one vector take
  /// emitSwapped. Its time does not depend on the row count (every lane is
  /// computed), the dot products' grows with it: for [m, 784] x [512, 784]^T
  /// with the weight read from L3 the two meet at about 10 of 16 rows
  /// (swapped 120 us from 4 to 16 rows; dot products 76 us at 4 rows, 116 at
  /// 8, 135-169 at 12, 163 at 16).
  static constexpr int64_t kSwappedRowsNumerator = 3;
  static constexpr int64_t kSwappedRowsDenominator = 4;

  /// C^T = B A^T for at most one vector of rows m: for each block of
  /// `depth` k values, A's block is transposed into the panel ([k, m], one
  /// vector of m per k, zeros past m's end); then for each tile of `lanes`
  /// columns n, each of the tile's columns adds a broadcast element of
  /// B[n, k] times the panel's row k, so one vector accumulates
  /// C[0 .. lanes, n] and B is read once, in place, along its contiguous
  /// rows. The tile is transposed back in registers before C is written
  /// (and read back, between k blocks). The terms of each output are summed
  /// in k order.
  scf::ValueVector emitSwapped(OpBuilder &builder, Value c, Value panel) {
    Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
    Value lanes = arith::ConstantIndexOp::create(builder, loc, columns / 2);
    auto blocks = scf::ForOp::create(
        builder, loc, zero, sizes[plan.k], depthStep, ValueRange{c, panel},
        [&](OpBuilder &kb, Location, Value kStart, ValueRange blockArgs) {
          Value left = arith::SubIOp::create(kb, loc, sizes[plan.k], kStart);
          Value kCount = arith::MinUIOp::create(kb, loc, depthStep, left);
          Value packed = packTransposed(kb, blockArgs[1], a, 0, plan.m, zero,
                                        kStart, kCount, /*halves=*/1);
          auto tiles = scf::ForOp::create(
              kb, loc, zero, sizes[plan.n], lanes, ValueRange{blockArgs[0]},
              [&](OpBuilder &tb, Location, Value column, ValueRange args) {
                scf::YieldOp::create(tb, loc,
                                     emitSwappedTile(tb, args[0], column,
                                                     kStart, kCount, packed));
              });
          scf::YieldOp::create(kb, loc, ValueRange{tiles.getResult(0), packed});
        });
    return scf::ValueVector(blocks.getResults().begin(),
                            blocks.getResults().end());
  }

  /// One tile of emitSwapped: C[0 .. m, column .. column + lanes) over the
  /// k block [kStart, kStart + kCount), whose A^T is the panel's rows.
  Value emitSwappedTile(OpBuilder &builder, Value c, Value column, Value kStart,
                        Value kCount, Value packed) {
    int64_t lanes = columns / 2;
    auto laneType = VectorType::get({lanes}, builder.getF32Type());
    SmallVector<bool> inBounds = {columnsInBounds};
    Value m = sizes[plan.m];
    // Rows and columns past C's end read the last one (their lanes are
    // never stored): every read stays inside its tensor.
    Value lastRow = arith::SubIOp::create(builder, loc, m, one);
    Value lastColumn = arith::SubIOp::create(builder, loc, sizes[plan.n], one);
    SmallVector<Value> rowValues, readRows, columnValues;
    for (Value row : successors(builder, zero, lanes)) {
      rowValues.push_back(row);
      readRows.push_back(arith::MinUIOp::create(builder, loc, row, lastRow));
    }
    for (Value n : successors(builder, column, lanes))
      columnValues.push_back(
          arith::MinUIOp::create(builder, loc, n, lastColumn));
    // accumulators[j]: column + j, one lane per row.
    auto readC = [&](OpBuilder &b) {
      SmallVector<Value> block;
      dimValues[plan.n] = column;
      for (Value row : readRows) {
        dimValues[plan.m] = row;
        block.push_back(vector::TransferReadOp::create(
            b, loc, laneType, c, indicesOf(2), padding, inBounds));
      }
      transposeInRegisters(b, block);
      return block;
    };
    auto startValues = [&](OpBuilder &b) {
      SmallVector<Value> block;
      for (Value n : columnValues) {
        Value start =
            bias ? tensor::ExtractOp::create(b, loc, bias, ValueRange{n})
                       .getResult()
                 : initialValue;
        block.push_back(vector::BroadcastOp::create(b, loc, laneType, start));
      }
      return block;
    };
    SmallVector<Value> accumulators;
    std::optional<int64_t> start = getConstantIntValue(kStart);
    if (!bias && !initialValue) {
      accumulators = readC(builder);
    } else if (start && *start == 0) {
      accumulators = startValues(builder);
    } else {
      Value firstBlock = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, kStart, zero);
      accumulators = emitIf(builder, firstBlock, startValues, readC);
    }
    auto kLoop = scf::ForOp::create(
        builder, loc, zero, kCount, one, accumulators,
        [&](OpBuilder &nested, Location, Value kk, ValueRange sums) {
          Value rowOfPanel = vector::TransferReadOp::create(
              nested, loc, laneType, packed, ValueRange{kk, zero}, padding,
              ArrayRef<bool>{true});
          dimValues[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
          SmallVector<Value> next;
          for (auto [n, sum] : llvm::zip(columnValues, sums)) {
            dimValues[plan.n] = n;
            Value element =
                tensor::ExtractOp::create(nested, loc, b, indicesOf(1));
            Value broadcast =
                vector::BroadcastOp::create(nested, loc, laneType, element);
            next.push_back(
                vector::FMAOp::create(nested, loc, broadcast, rowOfPanel, sum));
          }
          scf::YieldOp::create(nested, loc, next);
        });
    SmallVector<Value> finals(kLoop.getResults());
    transposeInRegisters(builder, finals); // finals[i]: row i of C
    dimValues[plan.n] = column;
    if (epilogue.consumer)
      finals = emitEpilogue(builder, readRows, kStart, kCount, finals, lanes);
    // Rows past m's end write row m - 1 again, with its own values: no
    // branches (a chain of scf.if yielding C made one-shot bufferization's
    // analysis quadratic: the MLP's compile time went 3.5 -> 11 s).
    Value kept = finals.front();
    for (auto [row, readRow, rowOfC] : llvm::zip(rowValues, readRows, finals)) {
      Value inside = arith::CmpIOp::create(builder, loc,
                                           arith::CmpIPredicate::ult, row, m);
      kept = arith::SelectOp::create(builder, loc, inside, rowOfC, kept);
      dimValues[plan.m] = readRow;
      c = vector::TransferWriteOp::create(builder, loc, kept, c, indicesOf(2),
                                          inBounds)
              ->getResult(0);
    }
    return c;
  }

  scf::ValueVector emitPacked(OpBuilder &builder, Value c, Value panel) {
    Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
    Value columnStep = arith::ConstantIndexOp::create(builder, loc, columns);
    auto blocks = scf::ForOp::create(
        builder, loc, zero, sizes[plan.k], depthStep, ValueRange{c, panel},
        [&](OpBuilder &kb, Location, Value kStart, ValueRange blockArgs) {
          Value left = arith::SubIOp::create(kb, loc, sizes[plan.k], kStart);
          Value kCount = arith::MinUIOp::create(kb, loc, depthStep, left);
          auto tiles = scf::ForOp::create(
              kb, loc, zero, sizes[plan.n], columnStep, blockArgs,
              [&](OpBuilder &jb, Location, Value column, ValueRange args) {
                dimValues[plan.n] = column;
                Value packed = cachedPanels
                                   ? cachedPanel(jb, column, kStart, kCount)
                                   : emitPack(jb, args[1], kStart, kCount);
                Value result = emitRowTiles(
                    jb, args[0], kStart, kCount, [&](OpBuilder &kb2, Value k) {
                      return vector::TransferReadOp::create(
                          kb2, loc, vectorType, packed, ValueRange{k, zero},
                          padding, ArrayRef<bool>{true});
                    });
                // A cached panel is not carried: the loop's panel stays.
                scf::YieldOp::create(
                    jb, loc,
                    ValueRange{result, cachedPanels ? args[1] : packed});
              });
          scf::YieldOp::create(kb, loc, tiles.getResults());
        });
    return scf::ValueVector(blocks.getResults().begin(),
                            blocks.getResults().end());
  }

  /// Before the product's parallel loop: when it will take the packed path
  /// (enough rows) and the cache is stale, every panel of B is packed into
  /// the cache (in parallel over column tiles) and the flag cleared. The
  /// kernel then reads its panels from the cache (cachedPanels).
  void emitPanelCache(OpBuilder &builder) {
    dimValues.assign(sizes.size(), Value());
    Value enoughRows = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::uge, sizes[plan.m],
        arith::ConstantIndexOp::create(builder, loc, packedPathRows()));
    Value stale =
        tensor::ExtractOp::create(builder, loc, cache->stale, ValueRange{zero});
    Value fill = arith::AndIOp::create(builder, loc, enoughRows, stale);
    auto choice = scf::IfOp::create(
        builder, loc, fill,
        [&](OpBuilder &then, Location) {
          Value filled = emitFill(then, cache->panels);
          Value cleared = tensor::InsertOp::create(
              then, loc,
              arith::ConstantIntOp::create(then, loc, then.getI1Type(), 0),
              cache->stale, ValueRange{zero});
          scf::YieldOp::create(then, loc, ValueRange{filled, cleared});
        },
        [&](OpBuilder &otherwise, Location) {
          scf::YieldOp::create(otherwise, loc,
                               ValueRange{cache->panels, cache->stale});
        });
    cachedPanels = choice.getResult(0);
    cache->panelsOut = choice.getResult(0);
    cache->staleOut = choice.getResult(1);
  }

  /// Packs all of B into `panels` ([column tiles, k, columns]): one
  /// parallel iteration per column tile, its k blocks packed as emitPack
  /// packs them inside the product.
  Value emitFill(OpBuilder &builder, Value panels) {
    auto type = cast<RankedTensorType>(panels.getType());
    int64_t tiles = type.getDimSize(0), k = type.getDimSize(1);
    auto forall = scf::ForallOp::create(
        builder, loc, ArrayRef<OpFoldResult>{builder.getIndexAttr(tiles)},
        ValueRange{panels}, std::nullopt);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(forall.getBody());
    Value tile = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    Value column = arith::MulIOp::create(
        builder, loc, tile,
        arith::ConstantIndexOp::create(builder, loc, columns));
    SmallVector<OpFoldResult> offsets = {tile, builder.getIndexAttr(0),
                                         builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> tileSizes = {builder.getIndexAttr(1),
                                           builder.getIndexAttr(k),
                                           builder.getIndexAttr(columns)};
    SmallVector<OpFoldResult> unit(3, builder.getIndexAttr(1));
    auto tileType = RankedTensorType::get({k, columns}, builder.getF32Type());
    Value slab = tensor::ExtractSliceOp::create(builder, loc, tileType, out,
                                                offsets, tileSizes, unit);
    Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
    Value kSize = arith::ConstantIndexOp::create(builder, loc, k);
    auto blocks = scf::ForOp::create(
        builder, loc, zero, kSize, depthStep, ValueRange{slab},
        [&](OpBuilder &kb, Location, Value kStart, ValueRange args) {
          Value kCount = arith::MinUIOp::create(
              kb, loc, depthStep,
              arith::SubIOp::create(kb, loc, kSize, kStart));
          SmallVector<OpFoldResult> blockOffsets = {kStart, kb.getIndexAttr(0)};
          SmallVector<OpFoldResult> blockSizes = {kCount,
                                                  kb.getIndexAttr(columns)};
          SmallVector<OpFoldResult> ones(2, kb.getIndexAttr(1));
          Value block = tensor::ExtractSliceOp::create(
              kb, loc, args[0], blockOffsets, blockSizes, ones);
          dimValues[plan.n] = column;
          Value packed = emitPack(kb, block, kStart, kCount);
          Value updated = tensor::InsertSliceOp::create(
              kb, loc, packed, args[0], blockOffsets, blockSizes, ones);
          scf::YieldOp::create(kb, loc, updated);
        });
    builder.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(builder, loc, blocks.getResult(0),
                                          out, offsets, tileSizes, unit);
    return forall.getResult(0);
  }

  /// The cached panel of rows [kStart, kStart + kCount) under the column
  /// tile at `column` of the current chunk.
  Value cachedPanel(OpBuilder &builder, Value column, Value kStart,
                    Value kCount) {
    Value tile = arith::DivUIOp::create(
        builder, loc, arith::AddIOp::create(builder, loc, columnOffset, column),
        arith::ConstantIndexOp::create(builder, loc, columns));
    SmallVector<OpFoldResult> offsets = {tile, kStart, builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes3 = {builder.getIndexAttr(1), kCount,
                                        builder.getIndexAttr(columns)};
    SmallVector<OpFoldResult> unit(3, builder.getIndexAttr(1));
    auto panelType = RankedTensorType::get({ShapedType::kDynamic, columns},
                                           builder.getF32Type());
    return tensor::ExtractSliceOp::create(builder, loc, panelType, cachedPanels,
                                          offsets, sizes3, unit);
  }

  /// Below this many row tiles, a product with a transposed B is computed
  /// as dot products (emitDots).
  static constexpr int64_t kDotRowLimit = 4;
  /// Outputs of one row computed together by emitDots: each has its own
  /// accumulator, and they share each vector of A.
  static constexpr int64_t kDotGroup = 8;

  bool kInnermostInA() const {
    return resultDim(maps[0], maps[0].getNumResults() - 1) == plan.k;
  }

  /// C[m, n] = C's start + sum over k of A[m, k] * B[n, k], with A's and B's
  /// rows read as vectors along k: for each group of kDotGroup columns
  /// (then single columns) and each pair of rows, one vector of partial
  /// sums per output, reduced at the end. The terms are summed in lanes, not in
  /// k order (the same on every run and thread count).
  Value emitDots(OpBuilder &builder, Value c) {
    Value group = arith::ConstantIndexOp::create(builder, loc, kDotGroup);
    Value n = sizes[plan.n];
    Value full = arith::SubIOp::create(
        builder, loc, n, arith::RemUIOp::create(builder, loc, n, group));
    auto groups = scf::ForOp::create(
        builder, loc, zero, full, group, ValueRange{c},
        [&](OpBuilder &nested, Location, Value column, ValueRange args) {
          scf::YieldOp::create(
              nested, loc, emitDotGroup(nested, args[0], column, kDotGroup));
        });
    auto rest = scf::ForOp::create(
        builder, loc, full, n, one, groups.getResults(),
        [&](OpBuilder &nested, Location, Value column, ValueRange args) {
          scf::YieldOp::create(nested, loc,
                               emitDotGroup(nested, args[0], column, 1));
        });
    return rest.getResult(0);
  }

  /// emitDots for the columns [firstColumn, firstColumn + count): pairs of
  /// rows share each vector read from B (then the last row alone), with
  /// vectors of one register so that 2 x kDotGroup sums stay in registers.
  Value emitDotGroup(OpBuilder &builder, Value c, Value firstColumn,
                     unsigned count) {
    SmallVector<Value> columnValues = successors(builder, firstColumn, count);
    Value m = sizes[plan.m];
    Value two = arith::ConstantIndexOp::create(builder, loc, 2);
    Value pairsEnd = arith::SubIOp::create(
        builder, loc, m, arith::RemUIOp::create(builder, loc, m, two));
    auto pairs = scf::ForOp::create(
        builder, loc, zero, pairsEnd, two, ValueRange{c},
        [&](OpBuilder &rb, Location, Value row, ValueRange args) {
          scf::YieldOp::create(rb, loc,
                               emitDotRows(rb, args[0], row, 2, columnValues));
        });
    auto last = scf::ForOp::create(
        builder, loc, pairsEnd, m, one, pairs.getResults(),
        [&](OpBuilder &rb, Location, Value row, ValueRange args) {
          scf::YieldOp::create(rb, loc,
                               emitDotRows(rb, args[0], row, 1, columnValues));
        });
    return last.getResult(0);
  }

  /// Rows [row, row + rowCount) x `columnValues` of C as dot products.
  Value emitDotRows(OpBuilder &builder, Value c, Value row, unsigned rowCount,
                    ArrayRef<Value> columnValues) {
    unsigned count = columnValues.size();
    auto lanesType = VectorType::get({columns / 2}, builder.getF32Type());
    int64_t laneCount = lanesType.getNumElements();
    Value lanes = arith::ConstantIndexOp::create(builder, loc, laneCount);
    Value k = sizes[plan.k];
    std::optional<int64_t> staticK = getConstantIntValue(k);
    bool tail = !staticK || *staticK % laneCount != 0;
    Value fullK = arith::SubIOp::create(
        builder, loc, k, arith::RemUIOp::create(builder, loc, k, lanes));
    SmallVector<Value> rowValues = successors(builder, row, rowCount);
    Value zeros = arith::ConstantOp::create(builder, loc, lanesType,
                                            builder.getZeroAttr(lanesType));
    // sums[r * count + j]: row r, column j.
    SmallVector<Value> initial(rowCount * count, zeros);
    auto step = [&](OpBuilder &kb, Value kStart, ValueRange sums,
                    bool inBounds) {
      dimValues[plan.k] = kStart;
      SmallVector<Value> fromA;
      for (Value rowValue : rowValues) {
        dimValues[plan.m] = rowValue;
        fromA.push_back(
            vector::TransferReadOp::create(kb, loc, lanesType, a, indicesOf(0),
                                           padding, ArrayRef<bool>{inBounds}));
      }
      SmallVector<Value> next(sums.begin(), sums.end());
      for (unsigned j = 0; j < count; ++j) {
        dimValues[plan.n] = columnValues[j];
        Value fromB =
            vector::TransferReadOp::create(kb, loc, lanesType, b, indicesOf(1),
                                           padding, ArrayRef<bool>{inBounds});
        for (unsigned r = 0; r < rowCount; ++r)
          next[r * count + j] = vector::FMAOp::create(kb, loc, fromA[r], fromB,
                                                      sums[r * count + j]);
      }
      return next;
    };
    auto kLoop = scf::ForOp::create(
        builder, loc, zero, fullK, lanes, initial,
        [&](OpBuilder &kb, Location, Value kStart, ValueRange sums) {
          scf::YieldOp::create(kb, loc, step(kb, kStart, sums, true));
        });
    SmallVector<Value> sums(kLoop.getResults());
    // The last k values, if any: masked reads (zeros past k's end).
    if (tail)
      sums = step(builder, fullK, sums, false);
    Value result = c;
    for (unsigned r = 0; r < rowCount; ++r) {
      for (unsigned j = 0; j < count; ++j) {
        dimValues[plan.m] = rowValues[r];
        dimValues[plan.n] = columnValues[j];
        Value sum = vector::ReductionOp::create(
            builder, loc, vector::CombiningKind::ADD, sums[r * count + j],
            Value(), arith::FastMathFlags::reassoc);
        Value start =
            bias ? tensor::ExtractOp::create(builder, loc, bias,
                                             ValueRange{columnValues[j]})
                       .getResult()
            : initialValue
                ? initialValue
                : tensor::ExtractOp::create(builder, loc, result, indicesOf(2))
                      .getResult();
        Value value = arith::AddFOp::create(builder, loc, start, sum);
        if (epilogue.consumer)
          value = applyConsumer(builder, value, /*width=*/0);
        result =
            tensor::InsertOp::create(builder, loc, value, result, indicesOf(2));
      }
    }
    return result;
  }

  /// The consumer's body on a finished part of C at the current indices:
  /// one element (`width` 0) or `width` elements along n as a vector. Its
  /// other inputs are read there; constants (in the body or from outside
  /// it) are copied here and, for vectors, splat.
  Value applyConsumer(OpBuilder &b, Value value, int64_t width) {
    auto widened = [&](Type type) -> Type {
      return width ? VectorType::get({width}, type) : type;
    };
    auto splat = [&](Value scalar) -> Value {
      return width ? vector::BroadcastOp::create(
                         b, loc, widened(scalar.getType()), scalar)
                         .getResult()
                   : scalar;
    };
    Block &body = epilogue.consumer.getRegion().front();
    IRMapping mapping;
    unsigned extra = 0;
    for (OpOperand *input : epilogue.consumer.getDpsInputOperands()) {
      BlockArgument argument = body.getArgument(input->getOperandNumber());
      if (input->get() == op.getResult(0)) {
        mapping.map(argument, value);
        continue;
      }
      Value source = extraInputs[extra++];
      Type element = cast<ShapedType>(source.getType()).getElementType();
      mapping.map(
          argument,
          width ? vector::TransferReadOp::create(
                      b, loc, cast<VectorType>(widened(element)), source,
                      indicesOf(2),
                      arith::ConstantOp::create(b, loc, b.getZeroAttr(element)),
                      ArrayRef<bool>{columnsInBounds})
                      .getResult()
                : tensor::ExtractOp::create(b, loc, source, indicesOf(2))
                      .getResult());
    }
    for (Operation &scalar : body.without_terminator()) {
      for (Value operand : scalar.getOperands())
        if (!mapping.contains(operand))
          mapping.map(operand, splat(cloneConstant(b, operand)));
      if (isa<arith::ConstantOp>(scalar)) {
        mapping.map(scalar.getResult(0), splat(b.clone(scalar)->getResult(0)));
        continue;
      }
      Operation *cloned = b.clone(scalar, mapping);
      cloned->getResult(0).setType(widened(scalar.getResult(0).getType()));
    }
    return mapping.lookup(body.getTerminator()->getOperand(0));
  }

  /// A copy, here, of a constant from outside the consumer's body (the
  /// consumer may come after the product, and the constant with it).
  Value cloneConstant(OpBuilder &b, Value constant) {
    return b.clone(*constant.getDefiningOp())->getResult(0);
  }

  /// k values per block of the direct path (see emitDirect).
  static constexpr int64_t kDirectDepth = 32;

  /// B's rows read in place: k in blocks of kDirectDepth, and in each block
  /// the column tiles, each tile's row tiles summing the block's k values.
  /// Without the blocks each column tile walked down all of B's rows
  /// (2 lines in each), a pattern the hardware prefetchers did not follow:
  /// dX = dY W at 16 rows over a [512, 512] weight from L3 ran 96-147 us
  /// in a C model, 75-85 us in blocks of 32 rows (whose 16 pages the
  /// column tiles sweep in ascending order); blocks of 256 did not help.
  Value emitDirect(OpBuilder &builder, Value c) {
    auto blockOfK = [&](OpBuilder &bb, Value partial, Value kStart,
                        Value kCount) {
      Value columnStep = arith::ConstantIndexOp::create(bb, loc, columns);
      auto tiles = scf::ForOp::create(
          bb, loc, zero, sizes[plan.n], columnStep, ValueRange{partial},
          [&](OpBuilder &jb, Location, Value column, ValueRange args) {
            dimValues[plan.n] = column;
            Value result = emitRowTiles(
                jb, args[0], kStart, kCount, [&](OpBuilder &kb, Value kk) {
                  dimValues[plan.k] =
                      arith::AddIOp::create(kb, loc, kStart, kk);
                  return readRowOfB(kb);
                });
            scf::YieldOp::create(jb, loc, result);
          });
      return tiles.getResult(0);
    };
    std::optional<int64_t> staticK = getConstantIntValue(sizes[plan.k]);
    if (staticK && *staticK <= kDirectDepth)
      return blockOfK(builder, c, zero, sizes[plan.k]);
    Value depthStep =
        arith::ConstantIndexOp::create(builder, loc, kDirectDepth);
    auto blocks = scf::ForOp::create(
        builder, loc, zero, sizes[plan.k], depthStep, ValueRange{c},
        [&](OpBuilder &kb, Location, Value kStart, ValueRange args) {
          Value kCount = arith::MinUIOp::create(
              kb, loc, depthStep,
              arith::SubIOp::create(kb, loc, sizes[plan.k], kStart));
          scf::YieldOp::create(kb, loc, blockOfK(kb, args[0], kStart, kCount));
        });
    return blocks.getResult(0);
  }

  /// B[k, n .. n + columns) at the current indices, zero past n's end.
  Value readRowOfB(OpBuilder &builder) {
    return vector::TransferReadOp::create(builder, loc, vectorType, b,
                                          indicesOf(1), padding,
                                          ArrayRef<bool>{columnsInBounds});
  }

  /// Copies B[kStart .. kStart + kCount, column .. column + columns) into
  /// the panel's first kCount rows.
  Value emitPack(OpBuilder &builder, Value panel, Value kStart, Value kCount) {
    Value column = dimValues[plan.n];
    if (!plan.transposeB) {
      auto loop = scf::ForOp::create(
          builder, loc, zero, kCount, one, ValueRange{panel},
          [&](OpBuilder &nested, Location, Value kk, ValueRange args) {
            dimValues[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
            Value row = readRowOfB(nested);
            Value written = vector::TransferWriteOp::create(
                                nested, loc, row, args[0], ValueRange{kk, zero},
                                ArrayRef<bool>{true})
                                ->getResult(0);
            scf::YieldOp::create(nested, loc, written);
          });
      return loop.getResult(0);
    }
    return packTransposed(builder, panel, b, 1, plan.n, column, kStart, kCount,
                          /*halves=*/2);
  }

  /// Copies operand[index][first + j, kStart + kk] (the dim `dim` and k of
  /// the operand `operand`, whose indexing map is operand `index`'s) to
  /// panel[kk, j] for kk < kCount and j < halves * lanes, with zeros for j
  /// past `dim`'s end. The operand is [dim, k] in memory: square blocks of
  /// `lanes` x `lanes` values are read as rows along k (contiguous),
  /// transposed in registers and written as panel rows; the k values past
  /// the last full block go element by element. (Element by element
  /// throughout, LLVM vectorized the walk down each column with scatter
  /// stores: 38% of a 64-row forward product's time.)
  Value packTransposed(OpBuilder &builder, Value panel, Value operand,
                       unsigned index, unsigned dim, Value first, Value kStart,
                       Value kCount, int64_t halves) {
    int64_t lanes = columns / 2;
    Value laneCount = arith::ConstantIndexOp::create(builder, loc, lanes);
    Value fullK = arith::SubIOp::create(
        builder, loc, kCount,
        arith::RemUIOp::create(builder, loc, kCount, laneCount));
    Value last = arith::SubIOp::create(builder, loc, sizes[dim], one);
    auto laneType = VectorType::get({lanes}, builder.getF32Type());
    Value zeroLanes = arith::ConstantOp::create(builder, loc, laneType,
                                                builder.getZeroAttr(laneType));
    auto blocksLoop = scf::ForOp::create(
        builder, loc, zero, fullK, laneCount, ValueRange{panel},
        [&](OpBuilder &kb, Location, Value kk, ValueRange blockArgs) {
          dimValues[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
          Value written = blockArgs[0];
          for (int64_t half = 0; half < halves; ++half) {
            // Row j of the block: operand[first + half * lanes + j, k .. k
            // + lanes), zeros past dim's end.
            SmallVector<Value> block;
            for (int64_t j = 0; j < lanes; ++j) {
              Value at = arith::AddIOp::create(
                  kb, loc, first,
                  arith::ConstantIndexOp::create(kb, loc, half * lanes + j));
              Value inside = arith::CmpIOp::create(
                  kb, loc, arith::CmpIPredicate::ult, at, sizes[dim]);
              dimValues[dim] = arith::MinUIOp::create(kb, loc, at, last);
              Value row = vector::TransferReadOp::create(
                  kb, loc, laneType, operand, indicesOf(index), padding,
                  ArrayRef<bool>{true});
              block.push_back(
                  arith::SelectOp::create(kb, loc, inside, row, zeroLanes));
            }
            transposeInRegisters(kb, block);
            Value halfOffset =
                arith::ConstantIndexOp::create(kb, loc, half * lanes);
            for (int64_t i = 0; i < lanes; ++i) {
              Value panelRow = arith::AddIOp::create(
                  kb, loc, kk, arith::ConstantIndexOp::create(kb, loc, i));
              written =
                  vector::TransferWriteOp::create(
                      kb, loc, block[i], written,
                      ValueRange{panelRow, halfOffset}, ArrayRef<bool>{true})
                      ->getResult(0);
            }
          }
          scf::YieldOp::create(kb, loc, written);
        });
    panel = blocksLoop.getResult(0);
    Value columnCount =
        arith::ConstantIndexOp::create(builder, loc, halves * lanes);
    auto columnsLoop = scf::ForOp::create(
        builder, loc, zero, columnCount, one, ValueRange{panel},
        [&](OpBuilder &cb, Location, Value offset, ValueRange columnArgs) {
          Value at = arith::AddIOp::create(cb, loc, first, offset);
          Value inside = arith::CmpIOp::create(
              cb, loc, arith::CmpIPredicate::ult, at, sizes[dim]);
          dimValues[dim] = arith::MinUIOp::create(cb, loc, at, last);
          auto kLoop = scf::ForOp::create(
              cb, loc, fullK, kCount, one, columnArgs,
              [&](OpBuilder &kb, Location, Value kk, ValueRange args) {
                dimValues[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
                Value element = tensor::ExtractOp::create(kb, loc, operand,
                                                          indicesOf(index));
                element =
                    arith::SelectOp::create(kb, loc, inside, element, padding);
                Value written = tensor::InsertOp::create(
                    kb, loc, element, args[0], ValueRange{kk, offset});
                scf::YieldOp::create(kb, loc, written);
              });
          scf::YieldOp::create(cb, loc, kLoop.getResults());
        });
    dimValues[dim] = first;
    return columnsLoop.getResult(0);
  }

  /// Transposes the square block whose row j is `block[j]` (as many rows
  /// as lanes, a power of two) in place: afterwards block[i][j] is the old
  /// block[j][i]. One stage per bit d of the index swaps bit d of the row
  /// with bit d of the lane: rows r and r | d (r without bit d) become
  /// two-source shuffles of each other.
  void transposeInRegisters(OpBuilder &builder, MutableArrayRef<Value> block) {
    int64_t lanes = block.size();
    assert(llvm::isPowerOf2_64(lanes) && "a power-of-two block");
    for (int64_t d = 1; d < lanes; d *= 2) {
      // Lane c of the new row r: lane c of row r when c has no bit d, else
      // lane c - d of row r | d. New row r | d: lane c + d of row r when c
      // has no bit d, else lane c of row r | d. (Sources: the first
      // operand's lanes are 0..lanes-1, the second's lanes..2*lanes-1.)
      SmallVector<int64_t> low, high;
      for (int64_t c = 0; c < lanes; ++c) {
        bool bit = c & d;
        low.push_back(bit ? lanes + c - d : c);
        high.push_back(bit ? lanes + c : c + d);
      }
      for (int64_t r = 0; r < lanes; ++r) {
        if (r & d)
          continue;
        Value first = block[r], second = block[r | d];
        block[r] = vector::ShuffleOp::create(builder, loc, first, second, low);
        block[r | d] =
            vector::ShuffleOp::create(builder, loc, first, second, high);
      }
    }
  }

  /// first, first + 1, ..., first + count - 1.
  SmallVector<Value> successors(OpBuilder &builder, Value first,
                                unsigned count) {
    SmallVector<Value> values = {first};
    for (unsigned i = 1; i < count; ++i)
      values.push_back(arith::AddIOp::create(
          builder, loc, first,
          arith::ConstantIndexOp::create(builder, loc, i)));
    return values;
  }

  /// The indices into operand `index` with the current loop values.
  SmallVector<Value> indicesOf(unsigned index) {
    SmallVector<Value> indices;
    for (AffineExpr expr : maps[index].getResults())
      indices.push_back(dimValues[cast<AffineDimExpr>(expr).getPosition()]);
    return indices;
  }

  using RowReader = function_ref<Value(OpBuilder &, Value)>;

  /// Full tiles of `rows` rows, then the remaining rows: one tile of them
  /// when the row count is static (a 6-filter convolution is one 6-row
  /// tile), else one row at a time.
  Value emitRowTiles(OpBuilder &builder, Value c, Value kStart, Value kCount,
                     RowReader readRow) {
    Value m = sizes[plan.m];
    Value tileStep = arith::ConstantIndexOp::create(builder, loc, rows);
    Value remainder = arith::RemUIOp::create(builder, loc, m, tileStep);
    Value fullEnd = arith::SubIOp::create(builder, loc, m, remainder);
    auto tiles = scf::ForOp::create(
        builder, loc, zero, fullEnd, tileStep, ValueRange{c},
        [&](OpBuilder &nested, Location, Value row, ValueRange args) {
          scf::YieldOp::create(
              nested, loc,
              emitTile(nested, row, rows, args[0], kStart, kCount, readRow));
        });
    if (std::optional<int64_t> staticM = getConstantIntValue(m)) {
      int64_t left = *staticM % rows;
      if (left == 0)
        return tiles.getResult(0);
      return emitTile(builder, fullEnd, left, tiles.getResult(0), kStart,
                      kCount, readRow);
    }
    auto rest = scf::ForOp::create(
        builder, loc, fullEnd, m, one, tiles.getResults(),
        [&](OpBuilder &nested, Location, Value row, ValueRange args) {
          scf::YieldOp::create(
              nested, loc,
              emitTile(nested, row, 1, args[0], kStart, kCount, readRow));
        });
    return rest.getResult(0);
  }

  /// Rows [row, row + count) x the current columns of C, accumulated over
  /// k in [kStart, kStart + kCount); readRow(kk) gives B's row kStart + kk.
  Value emitTile(OpBuilder &builder, Value row, unsigned count, Value c,
                 Value kStart, Value kCount, RowReader readRow) {
    SmallVector<bool> inBounds = {columnsInBounds};
    SmallVector<Value> rowValues = successors(builder, row, count);
    SmallVector<Value> accumulators;
    Value splat, firstBlock;
    if (bias) {
      splat = vector::TransferReadOp::create(builder, loc, vectorType, bias,
                                             ValueRange{dimValues[plan.n]},
                                             padding, inBounds);
      std::optional<int64_t> start = getConstantIntValue(kStart);
      if (!start || *start != 0)
        firstBlock = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, kStart, zero);
    } else if (initialValue) {
      splat =
          vector::BroadcastOp::create(builder, loc, vectorType, initialValue);
      std::optional<int64_t> start = getConstantIntValue(kStart);
      if (!start || *start != 0)
        firstBlock = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, kStart, zero);
    }
    for (unsigned r = 0; r < count; ++r) {
      dimValues[plan.m] = rowValues[r];
      auto read = [&](OpBuilder &b) -> Value {
        return vector::TransferReadOp::create(b, loc, vectorType, c,
                                              indicesOf(2), padding, inBounds);
      };
      if (!splat) {
        accumulators.push_back(read(builder));
      } else if (!firstBlock) {
        accumulators.push_back(splat);
      } else {
        auto choice = scf::IfOp::create(
            builder, loc, firstBlock,
            [&](OpBuilder &then, Location) {
              scf::YieldOp::create(then, loc, splat);
            },
            [&](OpBuilder &otherwise, Location) {
              scf::YieldOp::create(otherwise, loc, read(otherwise));
            });
        accumulators.push_back(choice.getResult(0));
      }
    }
    auto kLoop = scf::ForOp::create(
        builder, loc, zero, kCount, one, accumulators,
        [&](OpBuilder &nested, Location, Value kk, ValueRange sums) {
          Value rowOfB = readRow(nested, kk);
          dimValues[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
          SmallVector<Value> next;
          for (unsigned r = 0; r < count; ++r) {
            dimValues[plan.m] = rowValues[r];
            Value element =
                tensor::ExtractOp::create(nested, loc, a, indicesOf(0));
            Value broadcast =
                vector::BroadcastOp::create(nested, loc, vectorType, element);
            next.push_back(
                vector::FMAOp::create(nested, loc, broadcast, rowOfB, sums[r]));
          }
          scf::YieldOp::create(nested, loc, next);
        });
    SmallVector<Value> finals(kLoop.getResults());
    if (epilogue.consumer)
      finals =
          emitEpilogue(builder, rowValues, kStart, kCount, finals, columns);
    for (unsigned r = 0; r < count; ++r) {
      dimValues[plan.m] = rowValues[r];
      c = vector::TransferWriteOp::create(builder, loc, finals[r], c,
                                          indicesOf(2), inBounds)
              ->getResult(0);
    }
    return c;
  }

  /// The consumer's body applied to each row's finished sums (after the
  /// last k block; earlier blocks store the partial sums unchanged).
  SmallVector<Value> emitEpilogue(OpBuilder &builder, ArrayRef<Value> rowValues,
                                  Value kStart, Value kCount,
                                  ArrayRef<Value> sums, int64_t width) {
    auto apply = [&](OpBuilder &b) {
      SmallVector<Value> results;
      for (auto [r, sum] : llvm::enumerate(sums)) {
        dimValues[plan.m] = rowValues[r];
        results.push_back(applyConsumer(b, sum, width));
      }
      return results;
    };
    std::optional<int64_t> start = getConstantIntValue(kStart);
    if (start && *start == 0 && kCount == sizes[plan.k])
      return apply(builder);
    Value end = arith::AddIOp::create(builder, loc, kStart, kCount);
    Value last = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       end, sizes[plan.k]);
    return emitIf(builder, last, apply,
                  [&](OpBuilder &) { return SmallVector<Value>(sums); });
  }

  linalg::GenericOp op;
  ContractionPlan plan;
  ContractionEpilogue epilogue;
  int64_t rows, columns, depth;
  Location loc;
  /// The panel cache, if B is a parameter that keeps one; cachedPanels is
  /// its (filled) value inside the product, columnOffset the first column
  /// of the current parallel chunk.
  PanelCache *cache = nullptr;
  Value cachedPanels, columnOffset;
  SmallVector<AffineMap> maps;
  Value a, b, zero, one, padding;
  SmallVector<Value> sizes, dimValues;
  VectorType vectorType;
  bool columnsInBounds = false;
  /// Whether k is at most kShortReduction (an i1, constant when k is
  /// static), for a product that takes wide row blocks then; else null.
  Value shortK;
  Value initialValue;             // C's fill value when C starts as a constant
  Value bias;                     // sliced like C's columns
  SmallVector<Value> extraInputs; // the consumer's other inputs, sliced
};

struct VectorizeContractionsPass
    : impl::VectorizeContractionsBase<VectorizeContractionsPass> {
  using VectorizeContractionsBase::VectorizeContractionsBase;

  void runOnOperation() override {
    if (vectorWidth == 0 || rows == 0 || depth == 0) {
      getOperation().emitError("odt-vectorize-contractions: vector-width, "
                               "rows and depth must be positive");
      return signalPassFailure();
    }
    usedCaches.clear();
    caches.clear();
    IRRewriter rewriter(&getContext());
    // Named products (linalg.matmul, batch_matmul, ...) in their generic
    // form first: the plan reads indexing maps and bodies.
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op.getOperation()) &&
          linalg::isaContractionOpInterface(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    SmallVector<std::pair<linalg::GenericOp, ContractionPlan>> work;
    for (linalg::GenericOp op : generics) {
      if (linalg::GenericOp collapsed = collapseReductions(rewriter, op))
        op = collapsed;
      if (linalg::GenericOp collapsed = collapseRowDims(rewriter, op))
        op = collapsed;
      std::optional<ContractionPlan> plan = planContraction(op);
      if (!plan)
        continue;
      if (linalg::GenericOp folded = foldTransposedB(rewriter, op)) {
        op = folded;
        plan = planContraction(op);
      }
      if (plan)
        work.push_back({op, *plan});
    }
    for (auto &[op, plan] : work) {
      ContractionEpilogue epilogue;
      if (fuseEpilogues) {
        epilogue.bias = broadcastRow(op.getDpsInits()[0]);
        if (epilogue.bias)
          epilogue.destination = op.getDpsInits()[0]
                                     .getDefiningOp<linalg::GenericOp>()
                                     .getDpsInits()[0];
        sinkExpandIntoConsumer(rewriter, op);
        epilogue.consumer = epilogueConsumer(op);
      }
      // The fused kernel is emitted where the product was (its operands'
      // lives end as before), unless one of the consumer's other inputs is
      // defined after it: then where the consumer was.
      Operation *replaced = epilogue.consumer ? epilogue.consumer.getOperation()
                                              : op.getOperation();
      Operation *product = op;
      bool consumerInputsReady =
          !epilogue.consumer ||
          llvm::all_of(epilogue.consumer.getDpsInputs(), [&](Value input) {
            Operation *definition = input.getDefiningOp();
            return !definition || definition == product ||
                   definition->getBlock() != product->getBlock() ||
                   definition->isBeforeInBlock(product);
          });
      rewriter.setInsertionPoint(consumerInputsReady ? op.getOperation()
                                                     : replaced);
      PanelCache *cache = cachePanels ? panelCacheFor(op, plan) : nullptr;
      ContractionEmitter emitter(op, plan, epilogue, vectorWidth, rows, depth,
                                 cache);
      Value result = emitter.emit(rewriter);
      if (result.getType() != replaced->getResult(0).getType())
        result = tensor::CastOp::create(
            rewriter, op.getLoc(), replaced->getResult(0).getType(), result);
      rewriter.replaceOp(replaced, result);
      if (replaced != op.getOperation())
        rewriter.eraseOp(op);
    }
    returnPanelCaches();
  }

private:
  /// The panels of one parameter in one layout, kept by the runtime: the
  /// entry arguments (panels, stale flag) and the product that uses them.
  struct CacheEntry {
    PanelCache values;
    unsigned panelsArg, staleArg;
    DictionaryAttr panelsAttrs, staleAttrs;
  };

  /// A panel cache for `op` when B is a parameter of the entry point (an
  /// argument with odt.role = parameter and a static shape) used by this
  /// one product in the entry's body, with no dims beyond m, n and k: two
  /// arguments are added to the function (the panels, [column tiles, k,
  /// columns] f32, and their bool[1] stale flag), returned updated
  /// (odt.tied). Null otherwise; a second product with the same parameter
  /// and layout packs its own panels.
  PanelCache *panelCacheFor(linalg::GenericOp op, const ContractionPlan &plan) {
    func::FuncOp func = getOperation();
    auto weight = dyn_cast<BlockArgument>(op.getDpsInputs()[1]);
    if (!weight || weight.getOwner() != &func.front() ||
        op->getBlock() != &func.front() || op.getNumLoops() != 3 ||
        func.getName().ends_with(kShapeFunctionSuffix))
      return nullptr;
    unsigned index = weight.getArgNumber();
    auto role = func.getArgAttrOfType<StringAttr>(index, kRoleAttr);
    auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr);
    auto param = func.getArgAttrOfType<IntegerAttr>(index, kParamAttr);
    auto type = dyn_cast<RankedTensorType>(weight.getType());
    if (!role || role.getValue() != getRoleName(ArgRole::Parameter) || !name ||
        !param || !type || !type.hasStaticShape() || type.getRank() != 2)
      return nullptr;
    std::pair<unsigned, bool> key = {index, plan.transposeB};
    if (!usedCaches.insert(key).second)
      return nullptr;
    int64_t columns = 2 * vectorWidth;
    int64_t n = type.getDimSize(plan.transposeB ? 0 : 1);
    int64_t k = type.getDimSize(plan.transposeB ? 1 : 0);
    int64_t tiles = llvm::divideCeil(n, columns);
    MLIRContext *context = &getContext();
    Builder builder(context);
    // The name says the layout: train and eval graphs that pack a weight
    // the same way share one cache in the runtime.
    std::string panelsName =
        (name.getValue() + ".panels" + (plan.transposeB ? "_t" : "") + "_" +
         std::to_string(columns))
            .str();
    auto attrs = [&](StringRef argName, ArgRole argRole,
                     ArrayRef<int64_t> dims) {
      NamedAttrList list;
      list.set(kNameAttr, builder.getStringAttr(argName));
      list.set(kRoleAttr, builder.getStringAttr(getRoleName(argRole)));
      list.set(kParamAttr, param);
      SmallVector<Attribute> dimAttrs;
      for (int64_t dim : dims)
        dimAttrs.push_back(builder.getI64IntegerAttr(dim));
      list.set(kDimsAttr, builder.getArrayAttr(dimAttrs));
      return list.getDictionary(context);
    };
    CacheEntry entry;
    auto panelsType =
        RankedTensorType::get({tiles, k, columns}, builder.getF32Type());
    auto staleType = RankedTensorType::get({1}, builder.getI1Type());
    entry.panelsAttrs =
        attrs(panelsName, ArgRole::PackedPanels, {tiles, k, columns});
    entry.staleAttrs = attrs(panelsName + ".stale", ArgRole::PanelsStale, {1});
    entry.panelsArg = func.getNumArguments();
    entry.staleArg = entry.panelsArg + 1;
    // Both inserted at the end (indices into the old argument list).
    if (failed(func.insertArguments({entry.panelsArg, entry.panelsArg},
                                    {panelsType, staleType},
                                    {entry.panelsAttrs, entry.staleAttrs},
                                    {func.getLoc(), func.getLoc()})))
      return nullptr;
    entry.values.panels = func.getArgument(entry.panelsArg);
    entry.values.stale = func.getArgument(entry.staleArg);
    caches.push_back(entry);
    return &caches.back().values;
  }

  /// Each cache's final values become results tied to its arguments.
  void returnPanelCaches() {
    func::FuncOp func = getOperation();
    auto returnOp = cast<func::ReturnOp>(func.front().getTerminator());
    Builder builder(&getContext());
    for (const CacheEntry &entry : caches) {
      for (auto [arg, value, attrs] :
           {std::make_tuple(entry.panelsArg, entry.values.panelsOut,
                            entry.panelsAttrs),
            std::make_tuple(entry.staleArg, entry.values.staleOut,
                            entry.staleAttrs)}) {
        NamedAttrList resultAttrs(attrs);
        resultAttrs.set(kTiedAttr, builder.getI64IntegerAttr(arg));
        unsigned index = func.getNumResults();
        if (failed(func.insertResult(index, value.getType(),
                                     resultAttrs.getDictionary(&getContext()))))
          return signalPassFailure();
        returnOp->insertOperands(returnOp->getNumOperands(), value);
      }
    }
  }

  std::set<std::pair<unsigned, bool>> usedCaches;
  std::deque<CacheEntry> caches; // stable addresses: emitters point in
};

} // namespace
} // namespace odt
