//===- Autodiff.h - reverse-mode differentiation of onnx graphs -*- C++ -*-===//
//
// Appends to a function the ops that compute the gradient of a scalar (or
// any-shaped, seeded with ones) loss with respect to chosen arguments. Only
// values of floating-point type that depend on those arguments and reach the
// loss are differentiated; integer paths and frozen arguments get nothing.
// A value used several times gets the sum of its uses' gradients.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_AUTODIFF_AUTODIFF_H
#define ODT_COMPILER_AUTODIFF_AUTODIFF_H

#include "dialects/onnx/ShapeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace odt {

struct GradientResult {
  /// The seed: d loss / d loss (ones shaped like the loss).
  mlir::Value seed;
  /// The gradient of each requested argument; null where the argument has
  /// no differentiable path to the loss.
  llvm::SmallVector<mlir::Value> gradients;
};

/// Differentiates `loss` (a value of `func`'s single block) with respect to
/// `arguments`, building the gradient ops before the terminator. `shapes`
/// must hold the shapes of `func`'s values (inferFunctionShapes). Fails
/// with an error naming the node when an op on a differentiable path has no
/// gradient rule.
mlir::FailureOr<GradientResult>
differentiate(mlir::func::FuncOp func, mlir::Value loss,
              llvm::ArrayRef<mlir::Value> arguments,
              onnx::ShapeContext &shapes);

} // namespace odt

#endif // ODT_COMPILER_AUTODIFF_AUTODIFF_H
