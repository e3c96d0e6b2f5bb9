//===- ContractionPanelCache.cpp - kept panels of a weight ----------------===//
//
// The packed panels of a parameter B, kept as entry arguments and filled
// again only when the optimizer changed the weight. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

void ContractionEmitter::emitPanelCache(OpBuilder &builder) {
  Value enoughRows = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::uge, sizes[plan.m],
      arith::ConstantIndexOp::create(builder, loc, config.packedMinRows()));
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

Value ContractionEmitter::emitFill(OpBuilder &builder, Value panels) {
  LoopIndices at(sizes.size());
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
            kb, loc, depthStep, arith::SubIOp::create(kb, loc, kSize, kStart));
        SmallVector<OpFoldResult> blockOffsets = {kStart, kb.getIndexAttr(0)};
        SmallVector<OpFoldResult> blockSizes = {kCount,
                                                kb.getIndexAttr(columns)};
        SmallVector<OpFoldResult> ones(2, kb.getIndexAttr(1));
        Value block = tensor::ExtractSliceOp::create(
            kb, loc, args[0], blockOffsets, blockSizes, ones);
        at[plan.n] = column;
        Value packed = emitPack(kb, block, kStart, kCount, at);
        Value updated = tensor::InsertSliceOp::create(
            kb, loc, packed, args[0], blockOffsets, blockSizes, ones);
        scf::YieldOp::create(kb, loc, updated);
      });
  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(builder, loc, blocks.getResult(0), out,
                                        offsets, tileSizes, unit);
  return forall.getResult(0);
}

Value ContractionEmitter::cachedPanel(OpBuilder &builder, Value column,
                                      Value kStart, Value kCount) {
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

} // namespace odt::cpu
