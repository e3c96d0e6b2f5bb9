//===- ONNXOps.h - the onnx dialect and its ops -----------------*- C++ -*-===//

#ifndef ODT_DIALECTS_ONNX_ONNXOPS_H
#define ODT_DIALECTS_ONNX_ONNXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/onnx/ShapeInference.h"

#include "dialects/onnx/ONNXDialect.h.inc"
#include "dialects/onnx/ONNXOpInterface.h.inc"

#define GET_OP_CLASSES
#include "dialects/onnx/ONNXOps.h.inc"

namespace odt::onnx {

/// True if `value` is an absent optional input (produced by onnx.NoValue).
inline bool isNoValue(mlir::Value value) {
  return mlir::isa<mlir::NoneType>(value.getType());
}

/// The name of the node an op was imported from (its NameLoc), or its op name.
std::string getNodeName(mlir::Operation *op);

} // namespace odt::onnx

#endif // ODT_DIALECTS_ONNX_ONNXOPS_H
