//===- ParallelizeElementwise.cpp - big elementwise loops over threads ----===//
//
// See Passes.td. Products and convolutions are parallel by construction
// (their kernels are scf.forall); elementwise generics became serial loops,
// so the optimizer's update of a 400k-element weight ran on one core while
// the other waited. Splitting them by rows keeps each chunk's inner loop
// contiguous (vectorized as before) and gives each thread its own memory
// stream.
//
//===----------------------------------------------------------------------===//

#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PARALLELIZEELEMENTWISE
#include "codegen/Passes.h.inc"

namespace {

/// Where loop dim `dim` appears among `map`'s results, if it does as a plain
/// dim (not inside an expression).
std::optional<unsigned> resultOfDim(AffineMap map, unsigned dim) {
  for (auto [position, result] : llvm::enumerate(map.getResults()))
    if (auto expr = dyn_cast<AffineDimExpr>(result);
        expr && expr.getPosition() == dim)
      return position;
  return std::nullopt;
}

struct ParallelizeElementwisePass
    : impl::ParallelizeElementwiseBase<ParallelizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    // Generics and named ops alike (linalg.copy: strided copies such as
    // the attention heads' transposes, linalg.fill).
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : function.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        candidates.push_back(linalgOp);
    for (linalg::LinalgOp linalgOp : candidates)
      parallelize(linalgOp);
  }

  void parallelize(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
      return;
    // The split dim: the outermost parallel one that is not known to be 1
    // and that every output spans, so chunks write disjoint elements (and
    // each chunk runs its reductions whole).
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    auto spannedByOutputs = [&](unsigned dim) {
      return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return resultOfDim(op.getMatchingIndexingMap(&init), dim).has_value();
      });
    };
    std::optional<unsigned> split;
    for (unsigned dim = 0; dim < ranges.size() && !split; ++dim)
      if (iterators[dim] == utils::IteratorType::parallel && ranges[dim] != 1 &&
          spannedByOutputs(dim))
        split = dim;
    if (!split)
      return;
    unsigned dim = *split;
    // A buffer written and also read other than along the split dim at the
    // same position (a transpose in place, a row broadcast of itself) would
    // have one chunk read what another writes.
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto written = resultOfDim(op.getMatchingIndexingMap(&init), dim);
      for (OpOperand *input : op.getDpsInputOperands())
        if (input->get() == init.get() &&
            (op.getMatchingIndexingMap(input) !=
                 op.getMatchingIndexingMap(&init) ||
             resultOfDim(op.getMatchingIndexingMap(input), dim) != written))
          return;
    }
    auto known = [](int64_t size) {
      return ShapedType::isDynamic(size) ? int64_t(1) : size;
    };
    int64_t others = 1;
    for (auto [index, size] : llvm::enumerate(ranges))
      if (index != dim)
        others *= known(size);
    // With a dim known only at run time (the batch), the chunk count is
    // computed then: a small batch makes one chunk, which the runtime runs
    // on the calling thread.
    bool dynamic = llvm::any_of(ranges, ShapedType::isDynamic);
    if (!dynamic && others * known(ranges[dim]) < minElements)
      return;
    int64_t rowsPerChunk =
        std::max<int64_t>(1, llvm::divideCeil(chunkElements, others));

    // The loop's extent is read from an operand that spans the dim.
    Value extentSource;
    unsigned extentPosition = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      auto position = resultOfDim(op.getMatchingIndexingMap(&operand), dim);
      if (position && isa<MemRefType>(operand.get().getType())) {
        extentSource = operand.get();
        extentPosition = *position;
        break;
      }
    }
    if (!extentSource)
      return;

    OpBuilder builder(op);
    Location loc = op.getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value rows = arith::ConstantIndexOp::create(builder, loc, rowsPerChunk);
    Value extent =
        memref::DimOp::create(builder, loc, extentSource, extentPosition);
    Value chunks = arith::CeilDivUIOp::create(builder, loc, extent, rows);
    auto loop = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                        ValueRange{chunks}, ValueRange{one});
    builder.setInsertionPointToStart(loop.getBody());
    Value offset =
        arith::MulIOp::create(builder, loc, loop.getInductionVars()[0], rows);
    Value remaining = arith::SubIOp::create(builder, loc, extent, offset);
    Value size = arith::MinUIOp::create(builder, loc, remaining, rows);

    // A buffer read and written in place (the weight) gets one view.
    llvm::DenseMap<std::pair<Value, unsigned>, Value> views;
    SmallVector<Value> operands;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<MemRefType>(value.getType());
      auto position = resultOfDim(op.getMatchingIndexingMap(&operand), dim);
      if (!type || !position) {
        operands.push_back(value);
        continue;
      }
      if (Value view = views.lookup({value, *position})) {
        operands.push_back(view);
        continue;
      }
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        builder.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes =
          memref::getMixedSizes(builder, loc, value);
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        builder.getIndexAttr(1));
      offsets[*position] = offset;
      sizes[*position] = size;
      Value view = memref::SubViewOp::create(builder, loc, value, offsets,
                                             sizes, strides);
      views[{value, *position}] = view;
      operands.push_back(view);
    }
    // By position: one buffer may be read through two different maps, and
    // so through two different views.
    Operation *chunk = builder.clone(*op);
    chunk->setOperands(operands);
    // Positions along the split dim are relative to the chunk now (an
    // argmax's index, MaxPool's): shifted back by the chunk's offset.
    chunk->walk([&](linalg::IndexOp index) {
      if (index.getDim() != dim)
        return;
      OpBuilder after(index->getContext());
      after.setInsertionPointAfter(index);
      auto shifted = arith::AddIOp::create(after, index.getLoc(),
                                           index.getResult(), offset);
      index.getResult().replaceAllUsesExcept(shifted, shifted);
    });
    op->erase();
  }
};

} // namespace
} // namespace odt
