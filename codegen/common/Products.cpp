//===- Products.cpp - what every backend recognizes as a product ----------===//
//
// See Products.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Products.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace odt {

bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
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

} // namespace odt
