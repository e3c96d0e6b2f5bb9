//===- InlineAllocaScopes.cpp - drop stack scopes with nothing to free ----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_INLINEALLOCASCOPES
#include "codegen/Passes.h.inc"

namespace {

struct InlineAllocaScopesPass
    : impl::InlineAllocaScopesBase<InlineAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) {
      bool allocates = scope->walk([](memref::AllocaOp) {
                              return WalkResult::interrupt();
                            }).wasInterrupted();
      if (!allocates)
        scopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    // Innermost first: walk order is post-order.
    for (memref::AllocaScopeOp scope : scopes) {
      Block *body = &scope.getBodyRegion().front();
      auto terminator =
          cast<memref::AllocaScopeReturnOp>(body->getTerminator());
      SmallVector<Value> results(terminator.getResults());
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(body, scope);
      rewriter.replaceOp(scope, results);
    }
  }
};

} // namespace
} // namespace odt
