//===- PoolGrad.cpp - onnx.MaxPoolGrad, onnx.AveragePoolGrad --------------===//
//
// Both produce dX shaped like the pooled input X, which neither op reads:
// MaxPoolGrad takes it from the MaxPool that computed Indices; otherwise a
// spatial dim is the input size that gives dY's with the attributes when
// only one does (stride 1), else a symbol that dX's readers bind, the
// smallest such size if none does (ORT reads the sizes from the graph's
// shape information instead).
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/TrainingOpHelpers.h"

using namespace mlir;

namespace odt::onnx {

/// The smallest input size that pools to `out` along `axis`.
static int64_t smallestInput(const GradWindow &window, unsigned axis,
                             int64_t out, StringRef autoPad) {
  int64_t stride = window.strides[axis];
  int64_t kernel = window.effectiveKernel(axis);
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    return (out - 1) * stride + 1;
  int64_t pads = window.padsBegin[axis] + window.padsEnd[axis];
  if (window.ceilMode)
    return std::max<int64_t>(1, (out - 2) * stride + kernel - pads + 1);
  return std::max<int64_t>(1, (out - 1) * stride + kernel - pads);
}

/// dX's shape from dY's when nothing better is known.
static LogicalResult inferPooledInput(ShapeContext &context, Operation *op,
                                      Value dY, ArrayRef<int64_t> kernel,
                                      Shape &dX) {
  Shape dy = context.getShape(dY);
  if (dy.size() != kernel.size() + 2)
    return emitNodeError(op) << "kernel_shape must have " << dy.size() - 2
                             << " values";
  FailureOr<GradWindow> window = readGradWindow(op, kernel, {});
  if (failed(window))
    return failure();
  StringRef autoPad = op->getAttrOfType<StringAttr>("auto_pad").getValue();
  dX.assign({dy[0], dy[1]});
  for (size_t i = 0; i < kernel.size(); ++i) {
    Dim out = dy[2 + i];
    if (!out.isStatic()) {
      dX.push_back(freshDim(context, op, "dX", 2 + i));
      continue;
    }
    int64_t smallest = smallestInput(*window, i, out.getSize(), autoPad);
    if (window->strides[i] == 1) {
      dX.push_back(Dim::size(smallest));
      continue;
    }
    // With a stride above 1, `stride` input sizes pool to the same output
    // (AveragePool(2) takes 6 and 7 to 3): a symbol of its own, which
    // dX's reader binds (a ReluGrad's X, the forward activation); the
    // smallest if nothing does (a graph whose output is dX).
    Dim size = freshDim(context, op, "dX", 2 + i);
    context.setFallbackSize(size, smallest);
    dX.push_back(size);
  }
  return success();
}

LogicalResult MaxPoolGradOp::verify() {
  std::optional<int64_t> rank = getRank(getDY());
  if (rank && *rank < 3)
    return emitNodeError(*this) << "dY must have rank >= 3, got " << *rank;
  if (rank && getKernelShape() &&
      (int64_t)getKernelShape()->size() != *rank - 2)
    return emitNodeError(*this) << "kernel_shape must have " << *rank - 2
                                << " values";
  if (getStorageOrder() != 0)
    return emitNodeError(*this) << "storage_order 1 (column-major indices) is "
                                   "not supported";
  return success();
}

LogicalResult MaxPoolGradOp::inferShapes(ShapeContext &context) {
  if (failed(unifyShapes(context, *this, getDY(), getIndices(),
                         "dY and Indices must have the same shape")))
    return failure();
  Type elementType = ShapeContext::getElementType(getDY());
  Operation *pool = getIndices().getDefiningOp();
  if (pool && pool->getName().getStringRef() == "onnx.MaxPool" &&
      pool->getNumOperands() >= 1 && context.hasShape(pool->getOperand(0))) {
    context.setShape(getDX(), context.getShape(pool->getOperand(0)),
                     elementType);
    return success();
  }
  if (!getKernelShape())
    return emitNodeError(*this) << "needs kernel_shape when Indices do not "
                                   "come from a MaxPool";
  Shape dX;
  if (failed(inferPooledInput(context, *this, getDY(), *getKernelShape(), dX)))
    return failure();
  context.setShape(getDX(), dX, elementType);
  return success();
}

LogicalResult AveragePoolGradOp::verify() {
  std::optional<int64_t> rank = getRank(getDY());
  if (rank && (*rank < 3 || *rank > 5))
    return emitNodeError(*this) << "dY must have rank 3, 4 or 5, got " << *rank;
  if (rank && (int64_t)getKernelShape().size() != *rank - 2)
    return emitNodeError(*this) << "kernel_shape must have " << *rank - 2
                                << " values";
  // ORT's kernel ignores dilations: a dilated AveragePool's gradient would
  // be wrong there, so odt refuses it.
  if (auto dilations = getDilations())
    if (llvm::any_of(*dilations, [](int64_t d) { return d != 1; }))
      return emitNodeError(*this) << "dilations other than 1 are not supported";
  return success();
}

LogicalResult AveragePoolGradOp::inferShapes(ShapeContext &context) {
  Shape dX;
  if (failed(inferPooledInput(context, *this, getDY(), getKernelShape(), dX)))
    return failure();
  context.setShape(getDX(), dX, ShapeContext::getElementType(getDY()));
  return success();
}

} // namespace odt::onnx
