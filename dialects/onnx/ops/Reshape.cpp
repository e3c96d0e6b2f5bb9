//===- Reshape.cpp - onnx.Reshape -----------------------------------------===//
//
// The target shape is read from the values ShapeContext knows (constants and
// shape computations such as Concat(Gather(Shape(x), 0), [-1])): 0 copies the
// input dim (unless allowzero), -1 is what is left of the element count
// (N*C*H*W / N = C*H*W). Target dims not known at compile time are fresh
// symbols; the lowering computes them at run time.
//
//===----------------------------------------------------------------------===//

#include "dialects/onnx/ops/OpHelpers.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace odt::onnx {

LogicalResult ReshapeOp::verify() {
  if (getAllowzero() != 0 && getAllowzero() != 1)
    return emitNodeError(*this) << "allowzero must be 0 or 1, got "
                                << getAllowzero();
  if (failed(verifyRank(*this, getShape(), 1, "shape")))
    return failure();
  DenseIntElementsAttr target;
  if (!matchPattern(getShape(), m_Constant(&target)))
    return success();
  std::optional<int64_t> rank = getRank(getData());
  int inferred = 0;
  bool zero = false;
  for (auto [index, element] : llvm::enumerate(target.getValues<APInt>())) {
    int64_t value = element.getSExtValue();
    if (value < -1)
      return emitNodeError(*this)
             << "shape[" << index << "] is " << value
             << "; dims must be >= 0, or -1 (inferred) once";
    if (value == -1 && ++inferred > 1)
      return emitNodeError(*this) << "shape has more than one -1";
    if (value == 0) {
      zero = true;
      if (!getAllowzero() && rank && static_cast<int64_t>(index) >= *rank)
        return emitNodeError(*this)
               << "shape[" << index << "] is 0 (copy the input dim) but data "
               << "has rank " << *rank;
    }
  }
  if (getAllowzero() && zero && inferred)
    return emitNodeError(*this)
           << "with allowzero = 1, shape cannot hold both 0 and -1";
  return success();
}

LogicalResult ReshapeOp::inferShapes(ShapeContext &context) {
  Shape data = context.getShape(getData());
  Shape shapeShape = context.getShape(getShape());
  if (!shapeShape[0].isStatic())
    return emitNodeError(*this)
           << "shape must have a length known at compile time (the result's "
              "rank)";
  int64_t rank = shapeShape[0].getSize();
  Values target = context.getPartialValues(getShape())
                      .value_or(Values(rank, std::nullopt));
  Shape result;
  std::optional<int64_t> inferredIndex;
  bool allKnown = true;
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<Dim> value = target[i];
    if (value && value->isStatic()) {
      int64_t size = value->getSize();
      if (size == 0 && !getAllowzero()) {
        if (i >= static_cast<int64_t>(data.size()))
          return emitNodeError(*this)
                 << "shape[" << i << "] is 0 (copy the input dim) but data "
                 << "has rank " << data.size();
        result.push_back(data[i]);
        continue;
      }
      if (size == -1) {
        if (inferredIndex)
          return emitNodeError(*this) << "shape has more than one -1";
        inferredIndex = i;
        result.push_back(Dim::size(0)); // placeholder
        continue;
      }
      if (size < -1)
        return emitNodeError(*this)
               << "shape[" << i << "] is " << size
               << "; dims must be >= 0, or -1 (inferred) once";
      result.push_back(*value);
      continue;
    }
    if (value && value->getCoefficient() > 0) {
      result.push_back(*value);
      continue;
    }
    allKnown = false;
    result.push_back(context.newResultSymbol(*this, i));
  }

  std::optional<Dim> total = context.product(data);
  auto mismatch = [&]() {
    Shape shown = result;
    std::string text = "[";
    for (int64_t i = 0; i < rank; ++i) {
      if (i)
        text += ", ";
      text += inferredIndex && *inferredIndex == i
                  ? std::string("-1")
                  : context.symbolName(shown[i]);
    }
    return emitNodeError(*this)
           << "cannot reshape data of shape " << formatShape(context, data)
           << " (" << (total ? context.symbolName(*total) : std::string("?"))
           << " elements) to " << text << "]";
  };
  if (inferredIndex) {
    SmallVector<Dim> others;
    for (int64_t i = 0; i < rank; ++i)
      if (i != *inferredIndex)
        others.push_back(result[i]);
    std::optional<Dim> known = context.product(others);
    std::optional<Dim> quotient;
    if (allKnown && total && known) {
      if (total->isStatic() && known->isStatic() &&
          (known->getSize() == 0 || total->getSize() % known->getSize() != 0))
        return mismatch();
      quotient = context.divideExact(*total, *known);
      // N*4 into [-1, 3]: the count holds only for N a multiple of 3.
      if (!quotient && known->isStatic() && known->getSize() > 0 &&
          !total->isStatic())
        context.requireDivisible(
            *total, known->getSize(),
            "node '" + getNodeName(*this) + "' (onnx.Reshape) reshapes " +
                context.symbolName(*total) + " elements into " +
                std::to_string(known->getSize()) + " times a -1 dim");
    }
    result[*inferredIndex] =
        quotient ? *quotient : context.newResultSymbol(*this, *inferredIndex);
  }
  // The element counts agree: a static mismatch is an error, a fresh symbol
  // may be solved (a target dim that is N*C*H*W / (C*H*W)).
  std::optional<Dim> count = context.product(result);
  if (total && count) {
    if (total->isStatic() && count->isStatic() &&
        total->getSize() != count->getSize())
      return mismatch();
    if (failed(context.unify(*total, *count, *this,
                             "the target shape does not hold the input")))
      return failure();
  }
  context.setShape(getReshaped(), context.resolve(result),
                   ShapeContext::getElementType(getData()));
  context.forwardValues(getData(), getReshaped());
  return success();
}

} // namespace odt::onnx
