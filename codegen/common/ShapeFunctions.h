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
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_SHAPEFUNCTIONS_H
#define ODT_CODEGEN_SHAPEFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace odt {

/// The suffix of a shape function's name.
inline constexpr const char *kShapeFunctionSuffix = "_shapes";

/// Whether an output of this entry point (onnx.dims on its results) has a
/// symbolic dim that no argument binds.
bool needsShapeFunction(mlir::func::FuncOp entry);

/// The total rank of the entry point's outputs (results not tied to an
/// argument): the length of its shape function's result.
int64_t getOutputDimCount(mlir::func::FuncOp entry);

} // namespace odt

#endif // ODT_CODEGEN_SHAPEFUNCTIONS_H
