//===- ContractionDotKernel.cpp - dot products along k --------------------===//
//
// Products with very few rows and k innermost in both operands: each
// output a dot product of two contiguous rows. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

Value ContractionEmitter::emitDots(OpBuilder &builder, Value c,
                                   const LoopIndices &at) {
  Value group = arith::ConstantIndexOp::create(builder, loc, config.dotGroup);
  Value n = sizes[plan.n];
  Value full = arith::SubIOp::create(
      builder, loc, n, arith::RemUIOp::create(builder, loc, n, group));
  auto groups = scf::ForOp::create(
      builder, loc, zero, full, group, ValueRange{c},
      [&](OpBuilder &nested, Location, Value column, ValueRange args) {
        scf::YieldOp::create(
            nested, loc,
            emitDotGroup(nested, args[0], column, config.dotGroup, at));
      });
  auto rest = scf::ForOp::create(
      builder, loc, full, n, one, groups.getResults(),
      [&](OpBuilder &nested, Location, Value column, ValueRange args) {
        scf::YieldOp::create(nested, loc,
                             emitDotGroup(nested, args[0], column, 1, at));
      });
  return rest.getResult(0);
}

Value ContractionEmitter::emitDotGroup(OpBuilder &builder, Value c,
                                       Value firstColumn, unsigned count,
                                       const LoopIndices &at) {
  SmallVector<Value> columnValues = successors(builder, firstColumn, count);
  Value m = sizes[plan.m];
  Value two = arith::ConstantIndexOp::create(builder, loc, 2);
  Value pairsEnd = arith::SubIOp::create(
      builder, loc, m, arith::RemUIOp::create(builder, loc, m, two));
  auto pairs = scf::ForOp::create(
      builder, loc, zero, pairsEnd, two, ValueRange{c},
      [&](OpBuilder &rb, Location, Value row, ValueRange args) {
        scf::YieldOp::create(
            rb, loc, emitDotRows(rb, args[0], row, 2, columnValues, at));
      });
  auto last = scf::ForOp::create(
      builder, loc, pairsEnd, m, one, pairs.getResults(),
      [&](OpBuilder &rb, Location, Value row, ValueRange args) {
        scf::YieldOp::create(
            rb, loc, emitDotRows(rb, args[0], row, 1, columnValues, at));
      });
  return last.getResult(0);
}

Value ContractionEmitter::emitDotRows(OpBuilder &builder, Value c, Value row,
                                      unsigned rowCount,
                                      ArrayRef<Value> columnValues,
                                      LoopIndices at) {
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
  auto step = [&](OpBuilder &kb, Value kStart, ValueRange sums, bool inBounds) {
    at[plan.k] = kStart;
    SmallVector<Value> fromA;
    for (Value rowValue : rowValues) {
      at[plan.m] = rowValue;
      fromA.push_back(vector::TransferReadOp::create(kb, loc, lanesType, a,
                                                     indicesOf(0, at), padding,
                                                     ArrayRef<bool>{inBounds}));
    }
    SmallVector<Value> next(sums.begin(), sums.end());
    for (unsigned j = 0; j < count; ++j) {
      at[plan.n] = columnValues[j];
      Value fromB = vector::TransferReadOp::create(kb, loc, lanesType, b,
                                                   indicesOf(1, at), padding,
                                                   ArrayRef<bool>{inBounds});
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
      at[plan.m] = rowValues[r];
      at[plan.n] = columnValues[j];
      Value sum = vector::ReductionOp::create(
          builder, loc, vector::CombiningKind::ADD, sums[r * count + j],
          Value(), arith::FastMathFlags::reassoc);
      Value start = bias ? tensor::ExtractOp::create(
                               builder, loc, bias, ValueRange{columnValues[j]})
                               .getResult()
                    : initialValue ? initialValue
                                   : tensor::ExtractOp::create(
                                         builder, loc, result, indicesOf(2, at))
                                         .getResult();
      Value value = arith::AddFOp::create(builder, loc, start, sum);
      if (epilogue.consumer)
        value = applyConsumer(builder, value, /*width=*/0, at);
      result = tensor::InsertOp::create(builder, loc, value, result,
                                        indicesOf(2, at));
    }
  }
  return result;
}

} // namespace odt::cpu
