//===- ONNXDialect.cpp - the onnx dialect ---------------------------------===//

#include "dialects/onnx/ONNXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace odt::onnx;

#include "dialects/onnx/ONNXDialect.cpp.inc"
#include "dialects/onnx/ONNXOpInterface.cpp.inc"

void ONNXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/onnx/ONNXOps.cpp.inc"
      >();
}

std::string odt::onnx::getNodeName(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return op->getName().getStringRef().str();
}

//===----------------------------------------------------------------------===//
// NoValue and Constant live here; every other op has its own file in ops/.
//===----------------------------------------------------------------------===//

OpFoldResult NoValueOp::fold(FoldAdaptor) { return UnitAttr::get(getContext()); }

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  auto valueType = dyn_cast<ShapedType>(getValue().getType());
  if (!valueType || valueType != cast<ShapedType>(getOutput().getType()))
    return emitOpError("value type ") << getValue().getType()
                                      << " differs from result type "
                                      << getOutput().getType();
  return success();
}

LogicalResult ConstantOp::inferShapes(ShapeContext &context) {
  context.setShape(getOutput(),
                   context.shapeFromType(getOutput().getType(), "const"),
                   ShapeContext::getElementType(getOutput()));
  return success();
}

#define GET_OP_CLASSES
#include "dialects/onnx/ONNXOps.cpp.inc"
