//===- Products.cpp - gradient rules of Gemm, MatMul, Conv and pooling ----===//
//
// Product gradients are products again, with the transposes folded into
// Gemm's flags where the operands are matrices so no transposed copy is
// made; convolution and pooling use ORT's gradient ops (ConvGrad,
// MaxPoolGrad, AveragePoolGrad), which odt compiles and ORT runs.
//
//===----------------------------------------------------------------------===//

#include "compiler/autodiff/rules/RuleSupport.h"

using namespace mlir;

namespace odt {
namespace {

/// The forward op's attributes among `names`, for a gradient op that takes
/// the same ones.
SmallVector<NamedAttribute> copyAttrs(Operation *op,
                                      ArrayRef<StringRef> names) {
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : names)
    if (Attribute attr = op->getAttr(name))
      attrs.push_back(
          NamedAttribute(StringAttr::get(op->getContext(), name), attr));
  return attrs;
}

ODT_GRADIENT_RULE(Gemm) {
  // Y = alpha * A' * B' + beta * C with A' = transA ? A^T : A, B' likewise.
  Value a = op->getOperand(0), bm = op->getOperand(1), c = op->getOperand(2);
  int64_t transA = intAttrOr(op, "transA", 0);
  int64_t transB = intAttrOr(op, "transB", 0);
  float alpha = floatAttrOr(op, "alpha", 1.0f);
  float beta = floatAttrOr(op, "beta", 1.0f);
  auto gemm = [&](Value lhs, Value rhs, int64_t ta, int64_t tb) {
    SmallVector<NamedAttribute> attrs;
    if (ta)
      attrs.push_back(b.intAttr("transA", 1));
    if (tb)
      attrs.push_back(b.intAttr("transB", 1));
    if (alpha != 1.0f)
      attrs.push_back(b.floatAttr("alpha", alpha));
    return b.create("onnx.Gemm", {lhs, rhs}, attrs);
  };
  if (b.needsGradient(0))
    dx[0] = transA ? gemm(bm, dy[0], transB, 1) : gemm(dy[0], bm, 0, !transB);
  if (b.needsGradient(1))
    dx[1] = transB ? gemm(dy[0], a, 1, transA) : gemm(a, dy[0], !transA, 0);
  if (b.needsGradient(2)) {
    Value scaled = dy[0];
    if (beta != 1.0f)
      scaled = b.create(
          "onnx.Mul", {dy[0], b.scalar(beta, GradientBuilder::elementType(c))});
    dx[2] = b.sumToShapeOf(scaled, c);
  }
  return success();
}

ODT_GRADIENT_RULE(FusedMatMul) {
  // Y = alpha * op(A) @ op(B) over broadcast batch dims; the gradients are
  // FusedMatMuls again with the transposes as flags (as for Gemm).
  if (intAttrOr(op, "transBatchA", 0) || intAttrOr(op, "transBatchB", 0)) {
    b.emitError() << "no gradient rule for FusedMatMul with transBatchA or "
                     "transBatchB";
    return failure();
  }
  Value a = op->getOperand(0), bm = op->getOperand(1);
  if (b.rank(a) < 2 || b.rank(bm) < 2) {
    b.emitError() << "no gradient rule for FusedMatMul with a 1-D operand";
    return failure();
  }
  int64_t transA = intAttrOr(op, "transA", 0);
  int64_t transB = intAttrOr(op, "transB", 0);
  float alpha = floatAttrOr(op, "alpha", 1.0f);
  auto product = [&](Value lhs, Value rhs, int64_t ta, int64_t tb) {
    return b.create("onnx.ms.FusedMatMul", {lhs, rhs},
                    {b.floatAttr("alpha", alpha), b.intAttr("transA", ta),
                     b.intAttr("transB", tb)});
  };
  if (b.needsGradient(0))
    dx[0] = b.sumToShapeOf(transA ? product(bm, dy[0], transB, 1)
                                  : product(dy[0], bm, 0, !transB),
                           a);
  if (b.needsGradient(1))
    dx[1] = b.sumToShapeOf(transB ? product(dy[0], a, 1, transA)
                                  : product(a, dy[0], !transA, 0),
                           bm);
  return success();
}

ODT_GRADIENT_RULE(MatMul) {
  Value a = op->getOperand(0), bm = op->getOperand(1);
  if (b.rank(a) < 2 || b.rank(bm) < 2) {
    b.emitError() << "no gradient rule for MatMul with a 1-D operand";
    return failure();
  }
  onnx::Shape aShape = b.shape(a), bShape = b.shape(bm),
              yShape = b.shape(dy[0]);
  bool matrices = aShape.size() == 2 && bShape.size() == 2;
  if (b.needsGradient(0)) {
    // dA = dY * B^T, summed over the batch dims A was broadcast along (ORT's
    // FusedMatMul takes the transpose as a flag, so none is materialized).
    if (bShape.size() == 2 && aShape.size() == 2)
      dx[0] = b.create("onnx.Gemm", {dy[0], bm}, {b.intAttr("transB", 1)});
    else
      dx[0] = b.sumToShapeOf(b.create("onnx.ms.FusedMatMul", {dy[0], bm},
                                      {b.intAttr("transB", 1)}),
                             a);
  }
  if (b.needsGradient(1)) {
    const onnx::Dim &k = aShape.back(), &n = yShape.back();
    if (matrices) {
      dx[1] = b.create("onnx.Gemm", {a, dy[0]}, {b.intAttr("transA", 1)});
    } else if (bShape.size() == 2 && k.isStatic() && n.isStatic()) {
      // A shared weight: fold A's and dY's batch dims into rows, one product.
      Value rowsA = b.create("onnx.Reshape", {a, b.int64s({-1, k.getSize()})});
      Value rowsY =
          b.create("onnx.Reshape", {dy[0], b.int64s({-1, n.getSize()})});
      dx[1] = b.create("onnx.Gemm", {rowsA, rowsY}, {b.intAttr("transA", 1)});
    } else {
      dx[1] = b.sumToShapeOf(
          b.create("onnx.ms.FusedMatMul", {a, dy[0]}, {b.intAttr("transA", 1)}),
          bm);
    }
  }
  return success();
}

ODT_GRADIENT_RULE(Conv) {
  auto attrs = copyAttrs(op, {"auto_pad", "dilations", "group", "kernel_shape",
                              "pads", "strides"});
  return buildPerOperandGradients(b, "onnx.ms.ConvGrad",
                                  {dy[0], op->getOperand(0), op->getOperand(1)},
                                  attrs, dx);
}

ODT_GRADIENT_RULE(ConvTranspose) {
  // <dY, ConvTranspose(X, W)> = <Conv(dY, W), X>: dX is a Conv of dY with
  // the same geometry, dW the filter gradient ConvGrad gives for that Conv.
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("output_shape");
      attr && !attr.empty()) {
    b.emitError() << "no gradient rule for ConvTranspose with output_shape";
    return failure();
  }
  auto autoPad = op->getAttrOfType<StringAttr>("auto_pad");
  if (autoPad && autoPad.getValue() != "NOTSET") {
    b.emitError() << "no gradient rule for ConvTranspose with auto_pad";
    return failure();
  }
  auto attrs =
      copyAttrs(op, {"dilations", "group", "kernel_shape", "pads", "strides"});
  // output_padding adds rows at the end of each spatial axis: the output is
  // the transposed convolution's with its end pad smaller by that much
  // (ONNX's output size: s * (in - 1) + op + k_eff - pad_begin - pad_end).
  // The Conv of dY takes that end pad; where output_padding exceeds the end
  // pad, the extra rows lie past the transposed convolution's whole output
  // (only the bias reaches them) and dY is cut there first.
  Value croppedDy = dy[0];
  if (auto outputPadding =
          op->getAttrOfType<DenseI64ArrayAttr>("output_padding")) {
    int64_t spatial = b.rank(op->getOperand(0)) - 2;
    ArrayRef<int64_t> extra = outputPadding.asArrayRef();
    if (static_cast<int64_t>(extra.size()) != spatial) {
      b.emitError() << "output_padding must have " << spatial << " values";
      return failure();
    }
    SmallVector<int64_t> pads(2 * spatial, 0);
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("pads"))
      pads.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
    SmallVector<int64_t> cutAxes, cutEnds;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t &end = pads[spatial + i];
      if (extra[i] > end) {
        cutAxes.push_back(2 + i);
        cutEnds.push_back(end - extra[i]);
        end = 0;
      } else {
        end -= extra[i];
      }
    }
    if (!cutAxes.empty())
      croppedDy =
          b.create("onnx.Slice",
                   {dy[0], b.int64s(SmallVector<int64_t>(cutAxes.size(), 0)),
                    b.int64s(cutEnds), b.int64s(cutAxes)});
    llvm::erase_if(
        attrs, [](NamedAttribute attr) { return attr.getName() == "pads"; });
    attrs.push_back(b.intsAttr("pads", pads));
  }
  Value x = op->getOperand(0), w = op->getOperand(1);
  if (b.needsGradient(0))
    dx[0] = b.create("onnx.Conv", {croppedDy, w}, attrs);
  if (b.needsGradient(1)) {
    Operation *grad =
        b.createOp("onnx.ms.ConvGrad", {x, croppedDy, w}, attrs, 3);
    if (!grad)
      return failure();
    dx[1] = grad->getResult(1);
  }
  if (b.needsGradient(2)) {
    SmallVector<int64_t> notChannel = {0};
    for (int64_t d = 2; d < b.rank(x); ++d)
      notChannel.push_back(d);
    dx[2] = b.reduceSum(dy[0], notChannel, /*keepDims=*/false);
  }
  return success();
}

ODT_GRADIENT_RULE(MaxPool) {
  auto attrs =
      copyAttrs(op, {"auto_pad", "ceil_mode", "dilations", "kernel_shape",
                     "pads", "storage_order", "strides"});
  dx[0] = b.create("onnx.MaxPoolGrad", {dy[0], op->getResult(1)}, attrs);
  return success();
}

ODT_GRADIENT_RULE(AveragePool) {
  auto attrs = copyAttrs(op, {"auto_pad", "ceil_mode", "count_include_pad",
                              "dilations", "kernel_shape", "pads", "strides"});
  dx[0] = b.create("onnx.AveragePoolGrad", {dy[0]}, attrs);
  return success();
}

ODT_GRADIENT_RULE(GlobalAveragePool) {
  Value x = op->getOperand(0);
  SmallVector<int64_t> spatial;
  for (int64_t d = 2; d < b.rank(x); ++d)
    spatial.push_back(d);
  Value mean = b.create("onnx.Div", {dy[0], b.countOver(x, spatial)});
  dx[0] = b.create("onnx.Expand", {mean, b.shapeOf(x)});
  return success();
}

} // namespace

void attachProductGradients(MLIRContext *context) {
  ODT_ATTACH_RULE(Gemm);
  ODT_ATTACH_RULE(MatMul);
  ODT_ATTACH_RULE(FusedMatMul);
  ODT_ATTACH_RULE(Conv);
  ODT_ATTACH_RULE(ConvTranspose);
  ODT_ATTACH_RULE(MaxPool);
  ODT_ATTACH_RULE(AveragePool);
  ODT_ATTACH_RULE(GlobalAveragePool);
}

} // namespace odt
