//===- MiddleContract.h - forms of the middle backends recognize -*- C++
//-*-===//
//
// docs/middle-contract.md; enforced by odt-verify-middle.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_MIDDLECONTRACT_H
#define ODT_CODEGEN_COMMON_MIDDLECONTRACT_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace odt {

/// The input indexing maps (dY, then the zero-padded input X) of the
/// middle's convolution filter gradient, a linalg.generic over the loops
///   (m, c, k_1..k_n, nb, o_1..o_n)
/// whose first 2 + n loops are parallel (the output dW[m, c, k...] is their
/// identity) and whose others are summed:
///   dW[m, c, k] += dY[nb, m, o] * X[nb, (m floordiv Mg) * Cg + c,
///                                   o * stride + k * dilation]
/// with Mg filters and Cg input channels per group (the channel is c alone
/// with one group). The conversion builds
/// ConvGrad's dW this way and a backend recognizes it by these maps (the
/// CPU backend's odt-lower-convolutions).
inline llvm::SmallVector<mlir::AffineMap, 2>
getFilterGradientInputMaps(mlir::MLIRContext *context,
                           llvm::ArrayRef<int64_t> strides,
                           llvm::ArrayRef<int64_t> dilations, int64_t groups,
                           int64_t filtersPerGroup, int64_t channelsPerGroup) {
  int64_t n = strides.size();
  int64_t rank = 3 + 2 * n;
  auto d = [&](int64_t i) { return mlir::getAffineDimExpr(i, context); };
  mlir::AffineExpr m = d(0), c = d(1), image = d(2 + n);
  llvm::SmallVector<mlir::AffineExpr> dyExprs = {image, m};
  llvm::SmallVector<mlir::AffineExpr> xExprs = {
      image,
      groups == 1 ? c : m.floorDiv(filtersPerGroup) * channelsPerGroup + c};
  for (int64_t i = 0; i < n; ++i) {
    mlir::AffineExpr o = d(3 + n + i), k = d(2 + i);
    dyExprs.push_back(o);
    xExprs.push_back(o * strides[i] + k * dilations[i]);
  }
  return {mlir::AffineMap::get(rank, 0, dyExprs, context),
          mlir::AffineMap::get(rank, 0, xExprs, context)};
}

} // namespace odt

#endif // ODT_CODEGEN_COMMON_MIDDLECONTRACT_H
