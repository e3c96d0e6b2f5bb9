//===- ContractionNormalize.cpp - matrix products in one shape ------------===//
//
// Rewrites a linalg generic that multiplies and accumulates into the form
// the kernels take: one reduction dim, one row dim, B read along n.
// See ContractionPlan.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionPlan.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

namespace {

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

} // namespace

unsigned resultDim(AffineMap map, unsigned result) {
  return cast<AffineDimExpr>(map.getResult(result)).getPosition();
}

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

SmallVector<std::pair<linalg::GenericOp, ContractionPlan>>
normalizeProducts(Operation *root, RewriterBase &rewriter) {
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op.getOperation()) &&
        linalg::isaContractionOpInterface(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  SmallVector<std::pair<linalg::GenericOp, ContractionPlan>> products;
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
      products.push_back({op, *plan});
  }
  return products;
}

} // namespace odt::cpu
