//===- ShapeFunctions.h - output shapes computed at run time ----*- C++ -*-===//
//
// Most output dims follow from the input dims' symbols, which the runtime
// binds from the caller's inputs. Some do not: a Reshape whose target shape is
// input data, a Range, a Slice with computed bounds. For an entry point with
// such outputs, odt-compile generates a shape function `<entry>_shapes`: the
// entry point's computation cut down to what the output dims depend on. It
// takes the entry point's arguments (without its output buffers) and writes
// every dim of every output, in order, into one int64 buffer. The runtime
// calls it to size the outputs before the step.
//
// The same function checks what shape inference assumed (odt-infer-shapes
// states it as cf.assert: a size an op computes equals an input's dim, an
// equation such as N*C = 784 holds):
// after the output dims, the buffer holds two int64 per check, the size the
// model computes and the size it must equal; the ABI record's `dim_checks`
// lists their messages in that order, and the runtime refuses the step where
// a pair differs. The entry point itself keeps no check.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_SHAPEFUNCTIONS_H
#define ODT_CODEGEN_SHAPEFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace odt {

/// The suffix of a shape function's name.
inline constexpr const char *kShapeFunctionSuffix = "_shapes";

/// Whether this entry point needs a shape function: an output (onnx.dims on
/// its results) has a symbolic dim that no argument binds, or it states an
/// assumed dim (a cf.assert).
bool needsShapeFunction(mlir::func::FuncOp entry);

/// The total rank of the entry point's outputs (results not tied to an
/// argument): the length of its shape function's result.
int64_t getOutputDimCount(mlir::func::FuncOp entry);

} // namespace odt

#endif // ODT_CODEGEN_SHAPEFUNCTIONS_H
