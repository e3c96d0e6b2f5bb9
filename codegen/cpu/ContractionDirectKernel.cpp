//===- ContractionDirectKernel.cpp - B rows read in place -----------------===//
//
// Few rows with B rows already contiguous along n: row tiles read B
// where it is. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

Value ContractionEmitter::emitDirect(OpBuilder &builder, Value c,
                                     LoopIndices at) {
  auto blockOfK = [&](OpBuilder &bb, Value partial, Value kStart,
                      Value kCount) {
    Value columnStep = arith::ConstantIndexOp::create(bb, loc, columns);
    auto tiles = scf::ForOp::create(
        bb, loc, zero, sizes[plan.n], columnStep, ValueRange{partial},
        [&](OpBuilder &jb, Location, Value column, ValueRange args) {
          at[plan.n] = column;
          Value result = emitRowTiles(
              jb, args[0], kStart, kCount,
              [&](OpBuilder &kb, Value kk) {
                at[plan.k] = arith::AddIOp::create(kb, loc, kStart, kk);
                return readRowOfB(kb, at);
              },
              at);
          scf::YieldOp::create(jb, loc, result);
        });
    return tiles.getResult(0);
  };
  std::optional<int64_t> staticK = getConstantIntValue(sizes[plan.k]);
  if (staticK && *staticK <= config.directDepth)
    return blockOfK(builder, c, zero, sizes[plan.k]);
  Value depthStep =
      arith::ConstantIndexOp::create(builder, loc, config.directDepth);
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

Value ContractionEmitter::readRowOfB(OpBuilder &builder,
                                     const LoopIndices &at) {
  return vector::TransferReadOp::create(builder, loc, vectorType, b,
                                        indicesOf(1, at), padding,
                                        ArrayRef<bool>{columnsInBounds});
}

} // namespace odt::cpu
