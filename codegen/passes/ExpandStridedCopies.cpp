//===- ExpandStridedCopies.cpp - strided memref.copy to linalg.copy -------===//
//
// Generated code may not call into MLIR's runner libraries, so a copy the
// LLVM lowering could only express as a `memrefCopy` call (a source or target
// with a non-identity layout, such as a slice at a run-time offset) becomes a
// linalg.copy, lowered to loops like every other linalg op.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIES
#include "codegen/Passes.h.inc"

namespace {

bool isContiguous(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getLayout().isIdentity();
}

struct ExpandStridedCopiesPass
    : impl::ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!isContiguous(copy.getSource()) || !isContiguous(copy.getTarget()))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
} // namespace odt
