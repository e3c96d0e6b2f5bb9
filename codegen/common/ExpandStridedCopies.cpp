//===- ExpandStridedCopies.cpp - strided memref.copy to linalg.copy -------===//
//
// Prepares buffers for the LLVM lowering:
// - generated code may not call into MLIR's runner libraries, so a copy the
//   LLVM lowering could only express as a `memrefCopy` call (a source or
//   target with a non-identity layout, such as a slice at a run-time offset)
//   becomes a linalg.copy, lowered to loops like every other linalg op;
// - expand_shapes that expand-strided-metadata cannot take are rewritten
//   (see flattenMultiDynamicExpands).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIES
#include "codegen/common/Passes.h.inc"

namespace {

bool isContiguous(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getLayout().isIdentity();
}

struct ExpandStridedCopiesPass
    : impl::ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided, selfCopies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (copy.getSource() == copy.getTarget())
        selfCopies.push_back(copy);
      else if (!isContiguous(copy.getSource()) ||
               !isContiguous(copy.getTarget()))
        strided.push_back(copy);
    });
    // A buffer copied onto itself (what one-shot bufferization leaves for a
    // parallel_insert_slice of the slice a forall iteration wrote in place)
    // would still be read and written: drop it.
    for (memref::CopyOp copy : selfCopies)
      copy.erase();
    for (memref::CopyOp copy : strided) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    flattenMultiDynamicExpands();
  }

  /// expand-strided-metadata (LLVM 22) crashes on a memref.expand_shape
  /// whose reassociation group holds more than one dynamic dim ([?] into
  /// [?x?], or [?x48] into [?x?x48] as a batched MatMul's result is
  /// re-expanded). Such an expand of a contiguous buffer is the
  /// reinterpret_cast of that buffer with the result's sizes and its
  /// row-major strides, which the pass handles.
  void flattenMultiDynamicExpands() {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk([&](memref::ExpandShapeOp expand) {
      MemRefType result = expand.getResultType();
      bool multiDynamic = llvm::any_of(
          expand.getReassociationIndices(), [&](const auto &group) {
            return llvm::count_if(group, [&](int64_t d) {
                     return result.isDynamicDim(d);
                   }) > 1;
          });
      if (multiDynamic && isContiguous(expand.getSrc()) &&
          result.getLayout().isIdentity())
        expands.push_back(expand);
    });
    for (memref::ExpandShapeOp expand : expands) {
      OpBuilder builder(expand);
      Location loc = expand.getLoc();
      SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = builder.getIndexAttr(1);
      for (int64_t d = sizes.size() - 1; d >= 0; --d) {
        strides[d] = stride;
        AffineExpr s0, s1;
        bindSymbols(builder.getContext(), s0, s1);
        stride = affine::makeComposedFoldedAffineApply(
            builder, loc, s0 * s1, {stride, sizes[d]});
      }
      Value replacement = memref::ReinterpretCastOp::create(
          builder, loc, expand.getResultType(), expand.getSrc(),
          builder.getIndexAttr(0), sizes, strides);
      expand.replaceAllUsesWith(replacement);
      expand.erase();
    }
  }
};

} // namespace
} // namespace odt
