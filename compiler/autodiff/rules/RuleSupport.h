//===- RuleSupport.h - declaring gradient rules ------------------*- C++
//-*-===//
//
// ODT_GRADIENT_RULE(Op) { body } declares the external model that gives
// onnx::<Op>Op its gradient rule; in the body `op` is the forward op, `b` the
// GradientBuilder, `dy` the result gradients and `dx` the operand gradients
// to fill (where b.needsGradient(i)).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_AUTODIFF_RULES_RULESUPPORT_H
#define ODT_COMPILER_AUTODIFF_RULES_RULESUPPORT_H

#include "compiler/autodiff/GradientBuilder.h"
#include "compiler/import/GraphImporter.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#define ODT_GRADIENT_RULE(OP)                                                  \
  struct OP##Gradient                                                          \
      : ::odt::GradientOpInterface::ExternalModel<OP##Gradient,                \
                                                  ::odt::onnx::OP##Op> {       \
    ::mlir::LogicalResult                                                      \
    buildGradients(::mlir::Operation *op, ::odt::GradientBuilder &b,           \
                   ::llvm::ArrayRef<::mlir::Value> dy,                         \
                   ::llvm::MutableArrayRef<::mlir::Value> dx) const;           \
  };                                                                           \
  ::mlir::LogicalResult OP##Gradient::buildGradients(                          \
      ::mlir::Operation *op, ::odt::GradientBuilder &b,                        \
      ::llvm::ArrayRef<::mlir::Value> dy,                                      \
      ::llvm::MutableArrayRef<::mlir::Value> dx) const

#define ODT_ATTACH_RULE(OP)                                                    \
  ::odt::onnx::OP##Op::attachInterface<OP##Gradient>(*context)

namespace odt {
void attachElementwiseGradients(mlir::MLIRContext *context);
void attachProductGradients(mlir::MLIRContext *context);
void attachReductionGradients(mlir::MLIRContext *context);
void attachStructureGradients(mlir::MLIRContext *context);
void attachRecurrentGradients(mlir::MLIRContext *context);

/// The forward op's integer or float attribute `name`, or `fallback` when
/// absent (its ONNX default).
int64_t intAttrOr(mlir::Operation *op, llvm::StringRef name, int64_t fallback);
double floatAttrOr(mlir::Operation *op, llvm::StringRef name, double fallback);

/// Builds gradient op `name` with one result per operand gradient (ORT's
/// ConvGrad, LayerNormalizationGrad) and hands out the ones needed.
mlir::LogicalResult
buildPerOperandGradients(GradientBuilder &b, llvm::StringRef name,
                         mlir::ValueRange operands,
                         llvm::ArrayRef<mlir::NamedAttribute> attrs,
                         llvm::MutableArrayRef<mlir::Value> dx);

} // namespace odt

#endif // ODT_COMPILER_AUTODIFF_RULES_RULESUPPORT_H
