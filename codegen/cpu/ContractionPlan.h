//===- ContractionPlan.h - a product before its kernel ---------*- C++ -*-===//
//
// The rules odt-vectorize-contractions applies to a linalg generic before
// it emits a kernel: normalization (ContractionNormalize.cpp: one reduction
// dim, one row dim, a transposed B folded into the product) and the plan
// (ContractionPlan.cpp: which loop dims are m, n and k, and the bias and
// elementwise consumer the kernel absorbs).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CONTRACTIONPLAN_H
#define ODT_CODEGEN_CPU_CONTRACTIONPLAN_H

#include "codegen/common/Products.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace odt::cpu {

// --- Normalization (ContractionNormalize.cpp) ---

/// The loop dim of `map`'s result `result` (a projected permutation's).
unsigned resultDim(mlir::AffineMap map, unsigned result);

/// A product summed over several dims that lie side by side, in the same
/// order, in both operands (a weight gradient summed over batch and
/// sequence) becomes a product over one dim: both operands are collapsed
/// (free views of contiguous memory) and the generic is rebuilt with one
/// reduction. Returns the new generic, or null when the rule does not apply.
mlir::linalg::GenericOp collapseReductions(mlir::RewriterBase &rewriter,
                                           mlir::linalg::GenericOp op);

/// A product whose rows span several dims of A and C that B does not use
/// (a linear layer on [batch, sequence, features]: rows are batch x
/// sequence) becomes a product over one row dim: those dims are collapsed
/// in A and in C when they lie side by side in the same order in both, and
/// the result is expanded back. Otherwise the kernel would run one product
/// per batch entry, packing every panel of B again for each (8 times for
/// the transformer's layers, element by element for a transposed weight).
/// C's fill or bias broadcast is rebuilt on the collapsed shape, so the
/// kernel still starts its accumulators from it. Returns the new generic,
/// or null when the rule does not apply.
mlir::linalg::GenericOp collapseRowDims(mlir::RewriterBase &rewriter,
                                        mlir::linalg::GenericOp op);

/// A product whose B is a 2-D linalg.transpose (the transformer's weights,
/// transposed once for the forward product and read again, transposed, by
/// the backward one) reads the transpose's input instead, with B's map
/// swapped: no copy per step, and B is the weight itself (its panels can
/// be kept). The transpose goes once nothing else reads it. Returns the new
/// generic, or null.
mlir::linalg::GenericOp foldTransposedB(mlir::RewriterBase &rewriter,
                                        mlir::linalg::GenericOp op);

// --- The plan (ContractionPlan.cpp) ---

/// How one product is tiled: the loop dims of the generic that play m, n
/// and k, and whether B needs a transposed copy.
struct ContractionPlan {
  unsigned m, n, k;
  bool transposeB;
};

/// Named products (linalg.matmul, batch_matmul, ...) in their generic form,
/// then every generic under `root` normalized (collapseReductions,
/// collapseRowDims, foldTransposedB) and planned: the products the kernels
/// take, in program order. Running it again changes nothing.
llvm::SmallVector<std::pair<mlir::linalg::GenericOp, ContractionPlan>>
normalizeProducts(mlir::Operation *root, mlir::RewriterBase &rewriter);

/// What surrounds a product that its kernel does in registers instead: the
/// row vector C starts from (a bias broadcast over the rows) and the
/// elementwise op that reads the product (an activation, ReluGrad).
struct ContractionEpilogue {
  /// C's initial value is `bias[n]` for every row; `destination` is the
  /// broadcast's own (unread) destination, which the product writes.
  mlir::Value bias, destination;
  /// The only user of the product: an all-parallel generic whose body
  /// reads the product and other inputs (never its output) with
  /// elementwise arith and math ops; each other input is laid out as the
  /// product (identity map: a residual) or is a 1-D row along its last
  /// dim, n (a bias added after a MatMul, which the kernel adds after the
  /// sum as the unfused Add did, not as C's starting value).
  mlir::linalg::GenericOp consumer;
};

/// The plan of a multiply-accumulate generic on f32 tensors with projected
/// permutation maps and one reduction, or nothing when it is not a product
/// the kernels take.
std::optional<ContractionPlan> planContraction(mlir::linalg::GenericOp op);

/// `value` is a linalg.generic broadcasting a 1-D f32 tensor along every
/// dim but the innermost (C's n): returns that tensor.
mlir::Value broadcastRow(mlir::Value value);

/// Whether `input` of the all-parallel `consumer` is a 1-D f32 tensor read
/// along the consumer's last dim only (a bias row broadcast over the rest).
bool isRowOfResult(mlir::linalg::GenericOp consumer, mlir::OpOperand &input);

/// When the product's only reader is a tensor.expand_shape whose only
/// reader (besides tensor.dim ops) is a generic the epilogue rule takes (a
/// convolution's absorbed Relu after the image's [F, OH*OW] result is expanded
/// to [F, OH, OW]; a linear layer's bias Add on [batch, sequence, features]),
/// that generic is rebuilt on the product's shape and its result expanded
/// instead, so the epilogue rule can take it: its other inputs laid out as
/// the result are collapsed the same way, and rows along the last dim stay
/// rows when the expansion leaves that dim alone.
void sinkExpandIntoConsumer(mlir::RewriterBase &rewriter,
                            mlir::linalg::GenericOp product);

/// The consumer the product's kernel can apply in its epilogue, or null.
mlir::linalg::GenericOp epilogueConsumer(mlir::linalg::GenericOp product);

/// A parameter's panels kept between steps (entry arguments the pass adds):
/// the [column tiles, k, columns] panels of B and the bool[1] stale flag,
/// as tensors; emit() sets the values the entry returns for them.
struct PanelCache {
  mlir::Value panels, stale;
  mlir::Value panelsOut, staleOut;
};

} // namespace odt::cpu

#endif // ODT_CODEGEN_CPU_CONTRACTIONPLAN_H
