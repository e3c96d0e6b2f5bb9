//===- InterchangeReductions.cpp - reductions outside the inner loop ------===//
//
// (i, j, k) of C[i, j] += A[i, k] * B[k, j] becomes (i, k, j): the inner loop
// runs along a row of C and of B, vectorizable, instead of down a column of
// B. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_INTERCHANGEREDUCTIONS
#include "codegen/cpu/Passes.h.inc"

namespace {

/// The dims `expr` uses.
llvm::SmallBitVector usedDims(AffineExpr expr, unsigned numDims) {
  llvm::SmallBitVector used(numDims);
  expr.walk([&](AffineExpr inner) {
    if (auto dim = dyn_cast<AffineDimExpr>(inner))
      used.set(dim.getPosition());
  });
  return used;
}

/// Whether `op` reduces along its last loop and every input that the loop
/// moves has it in its innermost, contiguous dim only (a row sum, softmax's
/// denominator, LayerNorm's mean, a depthwise filter gradient's sum along
/// an output row read at `o * s + k`): moving that loop outside would read
/// the inputs down their columns (gathers); vectorizing along it needs only
/// the sum to be reassociable. A window (a pooling's `o * s + k`, where
/// the short window loop k is the last one) is not a row: there the
/// parallel loop that shares the innermost dim is at least as long, and
/// the interchange vectorizes along it instead.
bool reducesAlongRows(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction)
    return false;
  unsigned numLoops = iterators.size(), last = numLoops - 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto longer = [](int64_t a, int64_t b) { // a >= b, unknown = long
    return ShapedType::isDynamic(a) || (!ShapedType::isDynamic(b) && a >= b);
  };
  bool read = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(last))
      continue;
    if (map.getNumResults() == 0)
      return false;
    for (AffineExpr outer : map.getResults().drop_back())
      if (outer.isFunctionOfDim(last))
        return false;
    llvm::SmallBitVector used = usedDims(map.getResults().back(), numLoops);
    if (!used.test(last))
      return false;
    for (unsigned dim : used.set_bits())
      if (dim != last && iterators[dim] == utils::IteratorType::parallel &&
          !longer(ranges[last], ranges[dim]))
        return false;
    read = true;
  }
  return read;
}

/// Marks each output's combining op (`out + x`, `max(out, x)`) as
/// reassociable, so LLVM vectorizes the reduction with partial sums. Returns
/// false, changing nothing, if some output is not such a combination.
bool allowReassociation(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  SmallVector<Operation *> combiners;
  for (auto [index, yielded] :
       llvm::enumerate(body.getTerminator()->getOperands())) {
    BlockArgument out =
        op.getMatchingBlockArgument(op.getDpsInitOperand(index));
    Operation *combiner = yielded.getDefiningOp();
    if (!combiner ||
        !isa<arith::AddFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiner) ||
        !llvm::is_contained(combiner->getOperands(), Value(out)))
      return false;
    combiners.push_back(combiner);
  }
  for (Operation *combiner : combiners) {
    auto fastMath = cast<arith::ArithFastMathInterface>(combiner);
    combiner->setAttr(
        fastMath.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(
            op.getContext(), fastMath.getFastMathFlagsAttr().getValue() |
                                 arith::FastMathFlags::reassoc));
  }
  return !combiners.empty();
}

/// The loop order that puts `op`'s reductions just outside the loop along
/// its output's innermost dim (that loop innermost, the other parallel
/// loops outside in their order), or nothing when the rule does not apply.
std::optional<SmallVector<unsigned>> reductionsOutside(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() != utils::IteratorType::reduction)
    return std::nullopt;
  if (op.getNumDpsInits() == 0)
    return std::nullopt;
  // Several outputs (a max and its position) must be laid out alike.
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init) != output)
      return std::nullopt;
  if (output.getNumResults() == 0)
    return std::nullopt;
  auto innermost = dyn_cast<AffineDimExpr>(output.getResults().back());
  if (!innermost)
    return std::nullopt;
  unsigned along = innermost.getPosition();
  SmallVector<unsigned> parallel, reduction;
  for (auto [index, iterator] : llvm::enumerate(iterators))
    if (index != along)
      (iterator == utils::IteratorType::parallel ? parallel : reduction)
          .push_back(index);
  // A single parallel loop is a plain reduction per output element.
  if (parallel.empty())
    return std::nullopt;
  SmallVector<unsigned> order(parallel);
  order.append(reduction.begin(), reduction.end());
  order.push_back(along);
  return order;
}

struct InterchangeReductionsPass
    : impl::InterchangeReductionsBase<InterchangeReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        if (reducesAlongRows(op) && allowReassociation(generic))
          return;
      if (std::optional<SmallVector<unsigned>> order = reductionsOutside(op))
        work.push_back({op, *order});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : work) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue; // a named op without a body builder stays as it is
        generic = *generalized;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitError() << "internal error: cannot interchange loops";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
} // namespace odt
