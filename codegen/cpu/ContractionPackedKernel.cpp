//===- ContractionPackedKernel.cpp - B packed into panels -----------------===//
//
// Blocks of B copied into contiguous zero-padded panels that every row
// tile reads from L1. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

scf::ValueVector ContractionEmitter::emitPacked(OpBuilder &builder, Value c,
                                                ValueRange scratch,
                                                LoopIndices at) {
  Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
  Value columnStep = arith::ConstantIndexOp::create(builder, loc, columns);
  SmallVector<Value> carried = {c};
  llvm::append_range(carried, scratch);
  auto blocks = scf::ForOp::create(
      builder, loc, zero, sizes[plan.k], depthStep, carried,
      [&](OpBuilder &kb, Location, Value kStart, ValueRange blockArgs) {
        Value left = arith::SubIOp::create(kb, loc, sizes[plan.k], kStart);
        Value kCount = arith::MinUIOp::create(kb, loc, depthStep, left);
        // The row tiles of every column tile read this k block of A: with
        // A stored [k, m], from panels made once here.
        SmallVector<Value> passedOn(blockArgs.drop_front(2));
        if (rowPanelsOfAllK) {
          SmallVector<OpFoldResult> offsets = {zero, kStart, zero};
          SmallVector<OpFoldResult> blockSizes =
              tensor::getMixedSizes(kb, loc, rowPanelsOfAllK);
          blockSizes[1] = kCount;
          rowPanelsOfA = tensor::ExtractSliceOp::create(
              kb, loc, rowPanelsOfAllK, offsets, blockSizes,
              SmallVector<OpFoldResult>(3, kb.getIndexAttr(1)));
        } else if (config.rowPanelsOfA) {
          rowPanelsOfA = packRowsOfA(kb, blockArgs[2], kStart, kCount, at);
          passedOn = {rowPanelsOfA};
        }
        auto tiles = scf::ForOp::create(
            kb, loc, zero, sizes[plan.n], columnStep, blockArgs.take_front(2),
            [&](OpBuilder &jb, Location, Value column, ValueRange args) {
              at[plan.n] = column;
              // B already laid out as panels is read where it is.
              Value packed = config.panelsInPlace ? Value()
                             : cachedPanels
                                 ? cachedPanel(jb, column, kStart, kCount)
                                 : emitPack(jb, args[1], kStart, kCount, at);
              Value result = emitRowTiles(
                  jb, args[0], kStart, kCount,
                  [&](OpBuilder &kb2, Value k) -> Value {
                    if (config.panelsInPlace) {
                      at[plan.k] = arith::AddIOp::create(kb2, loc, kStart, k);
                      return readRowOfB(kb2, at);
                    }
                    return vector::TransferReadOp::create(
                        kb2, loc, vectorType, packed, ValueRange{k, zero},
                        padding, ArrayRef<bool>{true});
                  },
                  at);
              // A cached or in-place panel is not carried: the loop's
              // panel stays.
              bool carried = !cachedPanels && !config.panelsInPlace;
              scf::YieldOp::create(
                  jb, loc, ValueRange{result, carried ? packed : args[1]});
            });
        rowPanelsOfA = nullptr;
        SmallVector<Value> yielded(tiles.getResults());
        llvm::append_range(yielded, passedOn);
        scf::YieldOp::create(kb, loc, yielded);
      });
  return scf::ValueVector(blocks.getResults().begin(),
                          blocks.getResults().end());
}

Value ContractionEmitter::packRowsOfA(OpBuilder &builder, Value panels,
                                      Value kStart, Value kCount,
                                      LoopIndices at) {
  // k outer, tiles inner: each k reads a row of A from start to end (a
  // stream the prefetchers follow; tiles outer read a line a row apart
  // per k, and the packing took 40% of a 512 x 128 x 1024 product).
  Value rowStep = arith::ConstantIndexOp::create(builder, loc, rows);
  Value fullTiles =
      arith::DivUIOp::create(builder, loc, sizes[plan.m], rowStep);
  Value leftRows = arith::RemUIOp::create(builder, loc, sizes[plan.m], rowStep);
  auto tileType = VectorType::get({rows}, builder.getF32Type());
  std::optional<int64_t> staticLeft = getConstantIntValue(leftRows);
  auto kLoop = scf::ForOp::create(
      builder, loc, zero, kCount, one, ValueRange{panels},
      [&](OpBuilder &kb, Location, Value kk, ValueRange kArgs) {
        at[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
        auto copyTile = [&](OpBuilder &b, Value tile, Value into,
                            bool inBounds) -> Value {
          at[plan.m] = arith::MulIOp::create(b, loc, tile, rowStep);
          Value values = vector::TransferReadOp::create(
              b, loc, tileType, a, indicesOf(0, at), padding,
              ArrayRef<bool>{inBounds});
          return vector::TransferWriteOp::create(b, loc, values, into,
                                                 ValueRange{tile, kk, zero},
                                                 ArrayRef<bool>{true})
              ->getResult(0);
        };
        auto tileLoop = scf::ForOp::create(
            kb, loc, zero, fullTiles, one, kArgs,
            [&](OpBuilder &tb, Location, Value tile, ValueRange args) {
              scf::YieldOp::create(tb, loc, copyTile(tb, tile, args[0], true));
            });
        Value packed = tileLoop.getResult(0);
        // The last, partial tile: zeros past m's end.
        if (!staticLeft || *staticLeft != 0) {
          Value partial = arith::CmpIOp::create(
              kb, loc, arith::CmpIPredicate::ne, leftRows, zero);
          packed =
              emitIf(
                  kb, partial,
                  [&](OpBuilder &then) -> SmallVector<Value> {
                    return {copyTile(then, fullTiles, packed, false)};
                  },
                  [&](OpBuilder &) -> SmallVector<Value> { return {packed}; })
                  .front();
        }
        scf::YieldOp::create(kb, loc, packed);
      });
  return kLoop.getResult(0);
}

Value ContractionEmitter::emitAllRowPanelsOfA(OpBuilder &builder) {
  Value rowStep = arith::ConstantIndexOp::create(builder, loc, rows);
  Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
  Value kSize = sizes[plan.k];
  // Folded, so that static sizes make static dims.
  SmallVector<OpFoldResult> shape = {
      getAsOpFoldResult(builder.createOrFold<arith::CeilDivUIOp>(
          loc, sizes[plan.m], rowStep)),
      getAsOpFoldResult(builder.createOrFold<arith::AddIOp>(
          loc, kSize,
          arith::ConstantIndexOp::create(builder, loc, kRowPanelPadding))),
      builder.getIndexAttr(rows)};
  Value panels =
      tensor::EmptyOp::create(builder, loc, shape, builder.getF32Type());
  Value blocks = arith::CeilDivUIOp::create(builder, loc, kSize, depthStep);
  auto forall =
      scf::ForallOp::create(builder, loc, ArrayRef<OpFoldResult>{blocks},
                            ValueRange{panels}, std::nullopt);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(forall.getBody());
  Value kStart =
      arith::MulIOp::create(builder, loc, forall.getInductionVar(0), depthStep);
  Value kCount = arith::MinUIOp::create(
      builder, loc, depthStep,
      arith::SubIOp::create(builder, loc, kSize, kStart));
  Value out = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets = {builder.getIndexAttr(0), kStart,
                                       builder.getIndexAttr(0)};
  SmallVector<OpFoldResult> slabSizes =
      tensor::getMixedSizes(builder, loc, out);
  slabSizes[1] = kCount;
  SmallVector<OpFoldResult> unit(3, builder.getIndexAttr(1));
  Value slab = tensor::ExtractSliceOp::create(builder, loc, out, offsets,
                                              slabSizes, unit);
  LoopIndices at(sizes.size());
  Value packed = packRowsOfA(builder, slab, kStart, kCount, at);
  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(builder, loc, packed, out, offsets,
                                        slabSizes, unit);
  return forall.getResult(0);
}

Value ContractionEmitter::emitPack(OpBuilder &builder, Value panel,
                                   Value kStart, Value kCount, LoopIndices at) {
  Value column = at[plan.n];
  if (!plan.transposeB) {
    auto loop = scf::ForOp::create(
        builder, loc, zero, kCount, one, ValueRange{panel},
        [&](OpBuilder &nested, Location, Value kk, ValueRange args) {
          at[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
          Value row = readRowOfB(nested, at);
          Value written = vector::TransferWriteOp::create(
                              nested, loc, row, args[0], ValueRange{kk, zero},
                              ArrayRef<bool>{true})
                              ->getResult(0);
          scf::YieldOp::create(nested, loc, written);
        });
    return loop.getResult(0);
  }
  return packTransposed(builder, panel, b, 1, plan.n, column, kStart, kCount,
                        /*halves=*/2, at);
}

Value ContractionEmitter::packTransposed(OpBuilder &builder, Value panel,
                                         Value operand, unsigned index,
                                         unsigned dim, Value first,
                                         Value kStart, Value kCount,
                                         int64_t halves, LoopIndices at) {
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
        at[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
        Value written = blockArgs[0];
        for (int64_t half = 0; half < halves; ++half) {
          // Row j of the block: operand[first + half * lanes + j, k .. k
          // + lanes), zeros past dim's end.
          SmallVector<Value> block;
          for (int64_t j = 0; j < lanes; ++j) {
            Value position = arith::AddIOp::create(
                kb, loc, first,
                arith::ConstantIndexOp::create(kb, loc, half * lanes + j));
            Value inside = arith::CmpIOp::create(
                kb, loc, arith::CmpIPredicate::ult, position, sizes[dim]);
            at[dim] = arith::MinUIOp::create(kb, loc, position, last);
            Value row = vector::TransferReadOp::create(
                kb, loc, laneType, operand, indicesOf(index, at), padding,
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
        Value position = arith::AddIOp::create(cb, loc, first, offset);
        Value inside = arith::CmpIOp::create(cb, loc, arith::CmpIPredicate::ult,
                                             position, sizes[dim]);
        at[dim] = arith::MinUIOp::create(cb, loc, position, last);
        auto kLoop = scf::ForOp::create(
            cb, loc, fullK, kCount, one, columnArgs,
            [&](OpBuilder &kb, Location, Value kk, ValueRange args) {
              at[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
              Value element = tensor::ExtractOp::create(kb, loc, operand,
                                                        indicesOf(index, at));
              element =
                  arith::SelectOp::create(kb, loc, inside, element, padding);
              Value written = tensor::InsertOp::create(
                  kb, loc, element, args[0], ValueRange{kk, offset});
              scf::YieldOp::create(kb, loc, written);
            });
        scf::YieldOp::create(cb, loc, kLoop.getResults());
      });
  return columnsLoop.getResult(0);
}

void ContractionEmitter::transposeInRegisters(OpBuilder &builder,
                                              MutableArrayRef<Value> block) {
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

Value ContractionEmitter::emitRowTiles(OpBuilder &builder, Value c,
                                       Value kStart, Value kCount,
                                       RowReader readRow,
                                       const LoopIndices &at) {
  Value m = sizes[plan.m];
  Value tileStep = arith::ConstantIndexOp::create(builder, loc, rows);
  Value remainder = arith::RemUIOp::create(builder, loc, m, tileStep);
  Value fullEnd = arith::SubIOp::create(builder, loc, m, remainder);
  auto tiles = scf::ForOp::create(
      builder, loc, zero, fullEnd, tileStep, ValueRange{c},
      [&](OpBuilder &nested, Location, Value row, ValueRange args) {
        scf::YieldOp::create(
            nested, loc,
            emitTile(nested, row, rows, args[0], kStart, kCount, readRow, at));
      });
  if (std::optional<int64_t> staticM = getConstantIntValue(m)) {
    int64_t left = *staticM % rows;
    if (left == 0)
      return tiles.getResult(0);
    return emitTile(builder, fullEnd, left, tiles.getResult(0), kStart, kCount,
                    readRow, at);
  }
  auto rest = scf::ForOp::create(
      builder, loc, fullEnd, m, one, tiles.getResults(),
      [&](OpBuilder &nested, Location, Value row, ValueRange args) {
        scf::YieldOp::create(
            nested, loc,
            emitTile(nested, row, 1, args[0], kStart, kCount, readRow, at));
      });
  return rest.getResult(0);
}

Value ContractionEmitter::emitTile(OpBuilder &builder, Value row,
                                   unsigned count, Value c, Value kStart,
                                   Value kCount, RowReader readRow,
                                   LoopIndices at) {
  SmallVector<bool> inBounds = {columnsInBounds};
  SmallVector<Value> rowValues = successors(builder, row, count);
  SmallVector<Value> accumulators;
  Value splat, firstBlock;
  if (bias) {
    splat = vector::TransferReadOp::create(builder, loc, vectorType, bias,
                                           ValueRange{at[plan.n]}, padding,
                                           inBounds);
    std::optional<int64_t> start = getConstantIntValue(kStart);
    if (!start || *start != 0)
      firstBlock = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         kStart, zero);
  } else if (initialValue) {
    splat = vector::BroadcastOp::create(builder, loc, vectorType, initialValue);
    std::optional<int64_t> start = getConstantIntValue(kStart);
    if (!start || *start != 0)
      firstBlock = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         kStart, zero);
  }
  for (unsigned r = 0; r < count; ++r) {
    at[plan.m] = rowValues[r];
    auto read = [&](OpBuilder &b) -> Value {
      return vector::TransferReadOp::create(
          b, loc, vectorType, c, indicesOf(2, at), padding, inBounds);
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
  // With panels of A's row tiles, row `row + r` is lane (row mod rows) +
  // r of panel row / rows (a full tile starts a panel).
  Value panelOfTile, firstLane;
  if (rowPanelsOfA) {
    Value rowStep = arith::ConstantIndexOp::create(builder, loc, rows);
    panelOfTile = arith::DivUIOp::create(builder, loc, row, rowStep);
    firstLane = arith::RemUIOp::create(builder, loc, row, rowStep);
  }
  auto kLoop = scf::ForOp::create(
      builder, loc, zero, kCount, one, accumulators,
      [&](OpBuilder &nested, Location, Value kk, ValueRange sums) {
        Value rowOfB = readRow(nested, kk);
        at[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
        SmallVector<Value> next;
        for (unsigned r = 0; r < count; ++r) {
          at[plan.m] = rowValues[r];
          Value element =
              rowPanelsOfA
                  ? tensor::ExtractOp::create(
                        nested, loc, rowPanelsOfA,
                        ValueRange{panelOfTile, kk,
                                   arith::AddIOp::create(
                                       nested, loc, firstLane,
                                       arith::ConstantIndexOp::create(nested,
                                                                      loc, r))})
                        .getResult()
                  : tensor::ExtractOp::create(nested, loc, a, indicesOf(0, at))
                        .getResult();
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
        emitEpilogue(builder, rowValues, kStart, kCount, finals, columns, at);
  for (unsigned r = 0; r < count; ++r) {
    at[plan.m] = rowValues[r];
    c = vector::TransferWriteOp::create(builder, loc, finals[r], c,
                                        indicesOf(2, at), inBounds)
            ->getResult(0);
  }
  return c;
}

} // namespace odt::cpu
