//===- Bufferize.cpp - the backends' way from tensors to buffers ----------===//

#include "codegen/common/Bufferize.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace odt {

void buildBufferizationPasses(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createSplitSharedFills());
  // odt-destination-passing lets results be computed in their outputs, as
  // empty-tensor elimination would, without running One-Shot's analysis a
  // second time.
  pm.addPass(createDestinationPassing());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Its constant globals come in an order that varies run to run.
  pm.addPass(createOrderConstantGlobals());
}

} // namespace odt
