//===- ContractionSwappedKernel.cpp - few rows times a transposed B -------===//
//
// A few rows times a transposed weight, computed transposed so that the
// weight is read in place. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

scf::ValueVector ContractionEmitter::emitSwapped(OpBuilder &builder, Value c,
                                                 Value panel,
                                                 const LoopIndices &at) {
  Value depthStep = arith::ConstantIndexOp::create(builder, loc, depth);
  Value lanes = arith::ConstantIndexOp::create(builder, loc, columns / 2);
  auto blocks = scf::ForOp::create(
      builder, loc, zero, sizes[plan.k], depthStep, ValueRange{c, panel},
      [&](OpBuilder &kb, Location, Value kStart, ValueRange blockArgs) {
        Value left = arith::SubIOp::create(kb, loc, sizes[plan.k], kStart);
        Value kCount = arith::MinUIOp::create(kb, loc, depthStep, left);
        Value packed = packTransposed(kb, blockArgs[1], a, 0, plan.m, zero,
                                      kStart, kCount, /*halves=*/1, at);
        auto tiles = scf::ForOp::create(
            kb, loc, zero, sizes[plan.n], lanes, ValueRange{blockArgs[0]},
            [&](OpBuilder &tb, Location, Value column, ValueRange args) {
              scf::YieldOp::create(tb, loc,
                                   emitSwappedTile(tb, args[0], column, kStart,
                                                   kCount, packed, at));
            });
        scf::YieldOp::create(kb, loc, ValueRange{tiles.getResult(0), packed});
      });
  return scf::ValueVector(blocks.getResults().begin(),
                          blocks.getResults().end());
}

Value ContractionEmitter::emitSwappedTile(OpBuilder &builder, Value c,
                                          Value column, Value kStart,
                                          Value kCount, Value packed,
                                          LoopIndices at) {
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
    columnValues.push_back(arith::MinUIOp::create(builder, loc, n, lastColumn));
  // accumulators[j]: column + j, one lane per row.
  auto readC = [&](OpBuilder &b) {
    SmallVector<Value> block;
    at[plan.n] = column;
    for (Value row : readRows) {
      at[plan.m] = row;
      block.push_back(vector::TransferReadOp::create(
          b, loc, laneType, c, indicesOf(2, at), padding, inBounds));
    }
    transposeInRegisters(b, block);
    return block;
  };
  auto startValues = [&](OpBuilder &b) {
    SmallVector<Value> block;
    for (Value n : columnValues) {
      Value start = bias
                        ? tensor::ExtractOp::create(b, loc, bias, ValueRange{n})
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
        at[plan.k] = arith::AddIOp::create(nested, loc, kStart, kk);
        SmallVector<Value> next;
        for (auto [n, sum] : llvm::zip(columnValues, sums)) {
          at[plan.n] = n;
          Value element =
              tensor::ExtractOp::create(nested, loc, b, indicesOf(1, at));
          Value broadcast =
              vector::BroadcastOp::create(nested, loc, laneType, element);
          next.push_back(
              vector::FMAOp::create(nested, loc, broadcast, rowOfPanel, sum));
        }
        scf::YieldOp::create(nested, loc, next);
      });
  SmallVector<Value> finals(kLoop.getResults());
  transposeInRegisters(builder, finals); // finals[i]: row i of C
  at[plan.n] = column;
  if (epilogue.consumer)
    finals = emitEpilogue(builder, readRows, kStart, kCount, finals, lanes, at);
  // Rows past m's end write row m - 1 again, with its own values: no
  // branches (a chain of scf.if yielding C made one-shot bufferization's
  // analysis quadratic: the MLP's compile time went 3.5 -> 11 s).
  Value kept = finals.front();
  for (auto [row, readRow, rowOfC] : llvm::zip(rowValues, readRows, finals)) {
    Value inside =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, row, m);
    kept = arith::SelectOp::create(builder, loc, inside, rowOfC, kept);
    at[plan.m] = readRow;
    c = vector::TransferWriteOp::create(builder, loc, kept, c, indicesOf(2, at),
                                        inBounds)
            ->getResult(0);
  }
  return c;
}

} // namespace odt::cpu
