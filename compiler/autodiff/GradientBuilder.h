//===- GradientBuilder.h - what gradient rules build with -------*- C++ -*-===//
//
// Rules create onnx ops by name, as the importer does: operands padded with
// onnx.NoValue to the op's ONNX input count, the verifier run, then the op's
// shape inference types the results, so every value a rule builds has a
// symbolic shape the next rule can read. A failure is recorded (after its
// diagnostic) and turns every later create into a null value, so rules need
// not check each step; the driver checks after each rule.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_AUTODIFF_GRADIENTBUILDER_H
#define ODT_COMPILER_AUTODIFF_GRADIENTBUILDER_H

#include "dialects/onnx/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

namespace odt {

class GradientBuilder {
public:
  GradientBuilder(mlir::OpBuilder &builder, onnx::ShapeContext &shapes)
      : builder(builder), shapes(shapes) {}

  /// The op whose rule runs: its location names the new ops, and
  /// needsGradient answers for its operands.
  void setCurrentOp(mlir::Operation *op, llvm::ArrayRef<bool> needed);
  mlir::Operation *currentOp() const { return current; }
  /// Whether the rule must produce the gradient of operand `index`.
  bool needsGradient(unsigned index) const {
    return index < needed.size() && needed[index];
  }

  /// Creates op `name` ("onnx.X" or "onnx.ms.X") with `numResults` results;
  /// null (and failed()) if an operand is null or verification or shape
  /// inference fails.
  mlir::Operation *createOp(llvm::StringRef name, mlir::ValueRange operands,
                            llvm::ArrayRef<mlir::NamedAttribute> attrs = {},
                            unsigned numResults = 1);
  /// createOp's first result.
  mlir::Value create(llvm::StringRef name, mlir::ValueRange operands,
                     llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

  mlir::NamedAttribute intAttr(llvm::StringRef name, int64_t value);
  mlir::NamedAttribute floatAttr(llvm::StringRef name, float value);
  mlir::NamedAttribute stringAttr(llvm::StringRef name, llvm::StringRef value);
  mlir::NamedAttribute intsAttr(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> values);

  /// A rank-0 constant of `elementType` (or 1-D of `shape`).
  mlir::Value scalar(double value, mlir::Type elementType);
  /// A 1-D i64 constant.
  mlir::Value int64s(llvm::ArrayRef<int64_t> values);
  mlir::Value noValue();
  /// A tensor shaped like `like` (same type) filled with `value`: a splat
  /// constant when the shape is static, else ConstantOfShape(Shape(like)).
  mlir::Value fullLike(mlir::Value like, double value);

  /// Shape(`value`) as a value (an i64 vector).
  mlir::Value shapeOf(mlir::Value value);
  /// The symbolic shape of a value built so far.
  onnx::Shape shape(mlir::Value value) const { return shapes.getShape(value); }
  int64_t rank(mlir::Value value) const;
  /// The values of a small integer tensor known at compile time (a constant
  /// or a shape computation), if all are known.
  std::optional<llvm::SmallVector<int64_t>>
  staticValues(mlir::Value value) const {
    return shapes.getStaticValues(value);
  }
  static mlir::Type elementType(mlir::Value value);

  /// `gradient` summed over the dims along which `target` was broadcast to
  /// make it (numpy rules), so it has `target`'s shape.
  mlir::Value sumToShapeOf(mlir::Value gradient, mlir::Value target);
  /// ReduceSum over `axes` (an i64 constant input).
  mlir::Value reduceSum(mlir::Value value, llvm::ArrayRef<int64_t> axes,
                        bool keepDims);
  /// The number of elements of `value` over `axes`, as a rank-0 tensor of
  /// `value`'s element type: a constant when the dims are static, else the
  /// product of the dims read from Shape at run time.
  mlir::Value countOver(mlir::Value value, llvm::ArrayRef<int64_t> axes);

  /// Emits an error at the current op (naming its node) and fails.
  mlir::InFlightDiagnostic emitError();
  bool failed() const { return hasFailed; }
  mlir::OpBuilder &getBuilder() { return builder; }

private:
  mlir::OpBuilder &builder;
  onnx::ShapeContext &shapes;
  mlir::Operation *current = nullptr;
  llvm::SmallVector<bool, 4> needed;
  mlir::Value cachedNoValue;
  bool hasFailed = false;
};

/// Attaches every gradient rule odt has to the onnx ops.
void registerGradientRules(mlir::DialectRegistry &registry);

} // namespace odt

#include "compiler/autodiff/GradientInterface.h.inc"

#endif // ODT_COMPILER_AUTODIFF_GRADIENTBUILDER_H
