//===- ONNXOps.td - every op of the onnx dialect ------------*- tablegen -*-===//
//
// The op families, one file each under ops/.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_ONNX_OPS
#define ODT_ONNX_OPS

include "dialects/onnx/ops/Basic.td"
include "dialects/onnx/ops/Elementwise.td"
include "dialects/onnx/ops/Shape.td"
include "dialects/onnx/ops/Reduction.td"
include "dialects/onnx/ops/NN.td"
include "dialects/onnx/ops/Training.td"
include "dialects/onnx/ops/Recurrent.td"

#endif // ODT_ONNX_OPS
