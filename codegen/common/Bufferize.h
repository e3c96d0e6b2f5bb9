//===- Bufferize.h - the backends' way from tensors to buffers --*- C++ -*-===//

#ifndef ODT_CODEGEN_COMMON_BUFFERIZE_H
#define ODT_CODEGEN_COMMON_BUFFERIZE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace odt {

/// Adds the passes every backend starts with: entry points read and write
/// caller buffers (results tied to an argument are written into it; a fill
/// shared by several accumulating ops becomes one fill each), final results
/// are computed straight into the caller's buffers, then one-shot
/// bufferization turns the other tensors into allocations (a loop may yield
/// a new tensor each iteration: a recurrent cell's state), its constant
/// globals in a fixed order.
void buildBufferizationPasses(mlir::OpPassManager &pm);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_BUFFERIZE_H
