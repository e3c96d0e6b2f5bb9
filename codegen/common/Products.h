//===- Products.h - what every backend recognizes as a product -*- C++ -*-===//
//
// The body shape the backends' product kernels take (the CPU's
// odt-vectorize-contractions, the GPU's odt-gpu-tensor-core-products).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_PRODUCTS_H
#define ODT_CODEGEN_COMMON_PRODUCTS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace odt {

/// Whether `op`'s body is `out + a * b` (its two inputs multiplied, in
/// either operand order, added to its output, in either order) and nothing
/// else.
bool isMultiplyAccumulate(mlir::linalg::GenericOp op);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_PRODUCTS_H
