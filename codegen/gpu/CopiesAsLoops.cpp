//===- CopiesAsLoops.cpp - memref.copy as a kernel ------------------------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_COPIESASLOOPS
#include "codegen/gpu/Passes.h.inc"

namespace {

struct CopiesAsLoopsPass : impl::CopiesAsLoopsBase<CopiesAsLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
} // namespace odt
