//===- BufferIdentity.cpp - which buffers are separate memory -------------===//

#include "codegen/gpu/BufferIdentity.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace odt {

Value getUnderlyingBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool isSeparateBuffer(Value buffer) {
  if (buffer.getDefiningOp<memref::AllocOp>() ||
      buffer.getDefiningOp<memref::AllocaOp>())
    return true;
  auto argument = dyn_cast<BlockArgument>(buffer);
  if (!argument || !argument.getOwner()->isEntryBlock())
    return false;
  auto function = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
  return function &&
         function.getArgAttr(argument.getArgNumber(), "odt.role") != nullptr;
}

bool isSeparateMemory(Value a, Value b) {
  Value bufferA = getUnderlyingBuffer(a), bufferB = getUnderlyingBuffer(b);
  return bufferA != bufferB && isSeparateBuffer(bufferA) &&
         isSeparateBuffer(bufferB);
}

} // namespace odt
