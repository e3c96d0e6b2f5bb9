//===- Cast.cpp - onnx.Cast -----------------------------------------------===//

#include "dialects/onnx/ops/Elementwise.h"

using namespace mlir;

namespace odt::onnx {

Type CastOp::getTargetElementType() {
  MLIRContext *context = getContext();
  // ONNX TensorProto.DataType values.
  switch (getTo()) {
  case 1: return Float32Type::get(context);
  case 2: return IntegerType::get(context, 8, IntegerType::Unsigned);
  case 3: return IntegerType::get(context, 8);
  case 4: return IntegerType::get(context, 16, IntegerType::Unsigned);
  case 5: return IntegerType::get(context, 16);
  case 6: return IntegerType::get(context, 32);
  case 7: return IntegerType::get(context, 64);
  case 9: return IntegerType::get(context, 1);
  case 10: return Float16Type::get(context);
  case 11: return Float64Type::get(context);
  case 12: return IntegerType::get(context, 32, IntegerType::Unsigned);
  case 13: return IntegerType::get(context, 64, IntegerType::Unsigned);
  case 16: return BFloat16Type::get(context);
  default: return nullptr;
  }
}

LogicalResult CastOp::verify() {
  if (!getTargetElementType()) {
    static const char *const names[] = {
        "UNDEFINED", "FLOAT",  "UINT8",     "INT8",      "UINT16",
        "INT16",     "INT32",  "INT64",     "STRING",    "BOOL",
        "FLOAT16",   "DOUBLE", "UINT32",    "UINT64",    "COMPLEX64",
        "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4"};
    int64_t to = getTo();
    auto diag = emitNodeError(*this) << "cannot cast to ";
    if (to >= 0 && to < static_cast<int64_t>(std::size(names)))
      diag << names[to];
    else
      diag << "data type " << to;
    return diag << " (odt casts between bool, [u]int8..64, float16, "
                   "bfloat16, float and double)";
  }
  if (getSaturate() != 0 && getSaturate() != 1)
    return emitNodeError(*this) << "saturate must be 0 or 1, got "
                                << getSaturate();
  return success();
}

LogicalResult CastOp::inferShapes(ShapeContext &context) {
  context.setShape(getOutput(), context.getShape(getInput()),
                   getTargetElementType());
  // Sizes stay sizes from one integer type to another (an exporter's
  // int64 Cast of computed pads or a shape).
  if (isa<IntegerType>(ShapeContext::getElementType(getInput())) &&
      isa<IntegerType>(getTargetElementType()))
    context.forwardValues(getInput(), getOutput());
  return success();
}

} // namespace odt::onnx
