//===- GradientBuilder.cpp - what gradient rules build with ---------------===//

#include "compiler/autodiff/GradientBuilder.h"
#include "compiler/import/GraphImporter.h"
#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

#include "compiler/autodiff/GradientInterface.cpp.inc"

namespace odt {

void GradientBuilder::setCurrentOp(Operation *op, ArrayRef<bool> neededOps) {
  current = op;
  needed.assign(neededOps.begin(), neededOps.end());
}

InFlightDiagnostic GradientBuilder::emitError() {
  hasFailed = true;
  Location loc = current ? current->getLoc() : builder.getUnknownLoc();
  InFlightDiagnostic diag = mlir::emitError(loc);
  if (current) {
    diag << "gradient of ";
    if (auto name = dyn_cast<NameLoc>(loc))
      diag << "node '" << name.getName().getValue() << "' ";
    diag << "(" << current->getName() << "): ";
  }
  return diag;
}

Operation *GradientBuilder::createOp(StringRef name, ValueRange operands,
                                     ArrayRef<NamedAttribute> attrs,
                                     unsigned numResults) {
  if (hasFailed || llvm::any_of(operands, [](Value v) { return !v; }))
    return nullptr;
  MLIRContext *context = builder.getContext();
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(name, context);
  if (!registered) {
    emitError() << "internal: no op " << name;
    return nullptr;
  }
  Location loc = builder.getUnknownLoc();
  if (current) {
    loc = current->getLoc();
    if (auto named = dyn_cast<NameLoc>(loc))
      loc = NameLoc::get(
          builder.getStringAttr(named.getName().getValue() + "_grad"));
  }
  OperationState state(loc, *registered);
  state.addOperands(operands);
  if (auto *iface = registered->getInterface<onnx::ONNXOpInterface>())
    if (!iface->hasVariadicONNXInputs())
      while (state.operands.size() < iface->getONNXInputCount())
        state.operands.push_back(noValue());
  state.addAttributes(attrs);
  state.types.assign(numResults, UnrankedTensorType::get(builder.getF32Type()));
  Operation *op = builder.create(state);
  if (mlir::failed(op->getName().verifyInvariants(op)) ||
      mlir::failed(onnx::inferOp(op, shapes))) {
    emitError() << "building " << name << " failed (see above)";
    return nullptr;
  }
  return op;
}

Value GradientBuilder::create(StringRef name, ValueRange operands,
                              ArrayRef<NamedAttribute> attrs) {
  Operation *op = createOp(name, operands, attrs, 1);
  return op ? op->getResult(0) : Value();
}

NamedAttribute GradientBuilder::intAttr(StringRef name, int64_t value) {
  return builder.getNamedAttr(name, builder.getI64IntegerAttr(value));
}
NamedAttribute GradientBuilder::floatAttr(StringRef name, float value) {
  return builder.getNamedAttr(name, builder.getF32FloatAttr(value));
}
NamedAttribute GradientBuilder::stringAttr(StringRef name, StringRef value) {
  return builder.getNamedAttr(name, builder.getStringAttr(value));
}
NamedAttribute GradientBuilder::intsAttr(StringRef name,
                                         ArrayRef<int64_t> values) {
  return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
}

Value GradientBuilder::scalar(double value, Type elementType) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element = isa<FloatType>(elementType)
                          ? Attribute(builder.getFloatAttr(elementType, value))
                          : Attribute(builder.getIntegerAttr(
                                elementType, static_cast<int64_t>(value)));
  auto op = onnx::ConstantOp::create(builder, builder.getUnknownLoc(), type,
                                     DenseElementsAttr::get(type, element));
  shapes.setShape(op, {}, elementType);
  return op;
}

Value GradientBuilder::int64s(ArrayRef<int64_t> values) {
  auto type =
      RankedTensorType::get({(int64_t)values.size()}, builder.getI64Type());
  auto op = onnx::ConstantOp::create(builder, builder.getUnknownLoc(), type,
                                     DenseElementsAttr::get(type, values));
  shapes.setShape(op, {onnx::Dim::size(values.size())}, builder.getI64Type());
  return op;
}

Value GradientBuilder::noValue() {
  if (!cachedNoValue)
    cachedNoValue = onnx::NoValueOp::create(builder, builder.getUnknownLoc(),
                                            builder.getNoneType());
  return cachedNoValue;
}

Value GradientBuilder::fullLike(Value like, double value) {
  auto type = cast<RankedTensorType>(like.getType());
  Attribute element = builder.getFloatAttr(type.getElementType(), value);
  if (type.hasStaticShape()) {
    auto op = onnx::ConstantOp::create(builder, builder.getUnknownLoc(), type,
                                       DenseElementsAttr::get(type, element));
    shapes.setShape(op, shapes.getShape(like), type.getElementType());
    return op;
  }
  auto one = RankedTensorType::get({1}, type.getElementType());
  return create(
      "onnx.ConstantOfShape", {shapeOf(like)},
      {builder.getNamedAttr("value", DenseElementsAttr::get(one, element))});
}

Value GradientBuilder::shapeOf(Value value) {
  return create("onnx.Shape", {value});
}

int64_t GradientBuilder::rank(Value value) const {
  return cast<RankedTensorType>(value.getType()).getRank();
}

Type GradientBuilder::elementType(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

Value GradientBuilder::reduceSum(Value value, ArrayRef<int64_t> axes,
                                 bool keepDims) {
  if (axes.empty())
    return value;
  return create("onnx.ReduceSum", {value, int64s(axes)},
                {intAttr("keepdims", keepDims)});
}

Value GradientBuilder::sumToShapeOf(Value gradient, Value target) {
  if (!gradient || !target)
    return Value();
  onnx::Shape from = shape(gradient), to = shape(target);
  int64_t lead = (int64_t)from.size() - (int64_t)to.size();
  if (lead < 0) {
    emitError() << "internal: gradient of rank " << from.size()
                << " for an operand of rank " << to.size();
    return Value();
  }
  // Dims the operand had as 1 while the result did not were broadcast; a
  // symbolic operand dim equals the result's (shape inference unified them).
  SmallVector<int64_t> broadcastAxes;
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d].isStatic() && to[d].getSize() == 1 &&
        !(from[lead + d].isStatic() && from[lead + d].getSize() == 1))
      broadcastAxes.push_back(lead + d);
  Value result = reduceSum(gradient, broadcastAxes, /*keepDims=*/true);
  SmallVector<int64_t> leading;
  for (int64_t d = 0; d < lead; ++d)
    leading.push_back(d);
  return reduceSum(result, leading, /*keepDims=*/false);
}

Value GradientBuilder::countOver(Value value, ArrayRef<int64_t> axes) {
  Type type = elementType(value);
  onnx::Shape dims = shape(value);
  int64_t staticCount = 1;
  SmallVector<int64_t> dynamicAxes;
  for (int64_t axis : axes) {
    if (dims[axis].isStatic())
      staticCount *= dims[axis].getSize();
    else
      dynamicAxes.push_back(axis);
  }
  Value count = scalar(static_cast<double>(staticCount), type);
  if (dynamicAxes.empty())
    return count;
  Value shapeValue = shapeOf(value);
  for (int64_t axis : dynamicAxes) {
    Value dim = create("onnx.Gather", {shapeValue, int64s({axis})},
                       {intAttr("axis", 0)});
    Value asFloat =
        create("onnx.Cast", {dim}, {intAttr("to", getONNXDataType(type))});
    Value scalarDim = create("onnx.Squeeze", {asFloat, int64s({0})});
    count = create("onnx.Mul", {count, scalarDim});
  }
  return count;
}

} // namespace odt
