//===- AccumulateInRegisters.cpp - a GPU thread's sums in registers -------===//
//
// convert-linalg-to-parallel-loops lowers a reduction to a sequential loop
// that loads the output element, adds one term and stores it back at every
// step: on the GPU, two global memory accesses per multiply-add, which the
// backend cannot keep in a register because the kernel's pointers may alias
// as far as it knows. Here, where linalg's semantics still say the output
// is not one of the inputs, a reduction (parallel dims first: odt-gpu-
// parallel-dims-outermost) becomes a parallel loop whose body loads each
// output element once, carries it through the reduction loops as an
// iter_arg and stores it once. The terms are added in the same order, so
// the results are the same to the bit.
//
//===----------------------------------------------------------------------===//

#include "codegen/gpu/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_ACCUMULATEINREGISTERS
#include "codegen/gpu/Passes.h.inc"

namespace {

/// The buffer a memref view is of: through subviews, casts, reshapes and
/// views, to an allocation or a function argument.
Value rootBuffer(Value memref) {
  while (Operation *op = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(op))
      memref = view.getViewSource();
    else
      break;
  }
  return memref;
}

/// Whether two buffers are certainly distinct: different allocations, or an
/// allocation and an argument, or two arguments of the entry point (each a
/// buffer of its own: the runtime binds one per argument).
bool distinctBuffers(Value a, Value b) {
  Value rootA = rootBuffer(a), rootB = rootBuffer(b);
  if (rootA == rootB)
    return false;
  auto known = [](Value root) {
    return isa<BlockArgument>(root) ||
           isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
               root.getDefiningOp());
  };
  return known(rootA) && known(rootB);
}

/// The ops this pass lowers: a generic on buffers with reductions after
/// one or more parallel dims, outputs indexed by the parallel dims alone and
/// distinct from every input.
bool isRegisterReduction(linalg::GenericOp op) {
  // (A full reduction, no parallel dim, is odt-gpu-device-scalar-work's
  // one-thread kernel.)
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0 ||
      op.getNumParallelLoops() == 0)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned parallel = op.getNumParallelLoops();
  // A single output element (parallel dims all of static size 1) is a
  // full reduction too: its parallel loop would fold away, leaving host
  // code that odt-gpu-device-scalar-work does not recognize.
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::all_of(ArrayRef<int64_t>(sizes).take_front(parallel),
                   [](int64_t size) { return size == 1; }))
    return false;
  for (unsigned dim = 0; dim < iterators.size(); ++dim)
    if ((dim < parallel) != (iterators[dim] == utils::IteratorType::parallel))
      return false;
  for (OpOperand &output : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&output);
    for (unsigned dim = parallel; dim < iterators.size(); ++dim)
      if (map.isFunctionOfDim(dim))
        return false;
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          !distinctBuffers(input->get(), output.get()))
        return false;
  }
  return true;
}

/// The values of `map`'s results at the leading dims `dims` (an output's
/// map uses the parallel dims only), as index values.
SmallVector<Value> indicesAt(OpBuilder &builder, Location loc, AffineMap map,
                             ValueRange dims) {
  SmallVector<OpFoldResult> operands = llvm::to_vector_of<OpFoldResult>(dims);
  SmallVector<Value> indices;
  for (AffineExpr result : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        builder, loc,
        affine::makeComposedFoldedAffineApply(
            builder, loc, AffineMap::get(dims.size(), 0, result), operands)));
  return indices;
}

void lower(linalg::GenericOp op, IRRewriter &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  unsigned parallel = op.getNumParallelLoops();
  auto value = [&](OpFoldResult fold) {
    return getValueOrCreateConstantIndexOp(rewriter, loc, fold);
  };
  SmallVector<Value> lower, upper, steps;
  for (unsigned dim = 0; dim < parallel; ++dim) {
    lower.push_back(value(ranges[dim].offset));
    upper.push_back(value(ranges[dim].size));
    steps.push_back(value(ranges[dim].stride));
  }
  Block &body = *op.getBlock();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned inputs = op.getNumDpsInputs();
  auto outer = scf::ParallelOp::create(rewriter, loc, lower, upper, steps);
  rewriter.setInsertionPointToStart(outer.getBody());
  SmallVector<Value> dims(outer.getInductionVars());
  SmallVector<Value> initial;
  for (auto [index, output] : llvm::enumerate(op.getDpsInits()))
    initial.push_back(memref::LoadOp::create(
        rewriter, loc, output,
        indicesAt(rewriter, loc, maps[inputs + index], dims)));

  // The reduction loops, outermost first, each carrying the sums.
  SmallVector<scf::ForOp> loops;
  ValueRange carried = initial;
  for (unsigned dim = parallel; dim < ranges.size(); ++dim) {
    auto loop = scf::ForOp::create(rewriter, loc, value(ranges[dim].offset),
                                   value(ranges[dim].size),
                                   value(ranges[dim].stride), carried);
    if (!loops.empty())
      scf::YieldOp::create(rewriter, loc, loop.getResults());
    rewriter.setInsertionPointToStart(loop.getBody());
    dims.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs();
    loops.push_back(loop);
  }

  IRMapping mapping;
  for (auto [index, input] : llvm::enumerate(op.getDpsInputs())) {
    BlockArgument argument = body.getArgument(index);
    if (isa<MemRefType>(input.getType()))
      mapping.map(argument, memref::LoadOp::create(
                                rewriter, loc, input,
                                indicesAt(rewriter, loc, maps[index], dims)));
    else
      mapping.map(argument, input); // a scalar operand
  }
  for (auto [index, acc] : llvm::enumerate(carried))
    mapping.map(body.getArgument(inputs + index), acc);
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    rewriter.clone(inner, mapping);
  }
  SmallVector<Value> sums;
  for (Value yielded : body.getTerminator()->getOperands())
    sums.push_back(mapping.lookupOrDefault(yielded));
  scf::YieldOp::create(rewriter, loc, sums);

  rewriter.setInsertionPointAfter(loops.front());
  for (auto [index, output] : llvm::enumerate(op.getDpsInits()))
    memref::StoreOp::create(rewriter, loc, loops.front().getResult(index),
                            output,
                            indicesAt(rewriter, loc, maps[inputs + index],
                                      ValueRange(dims).take_front(parallel)));
  rewriter.eraseOp(op);
}

struct AccumulateInRegistersPass
    : impl::AccumulateInRegistersBase<AccumulateInRegistersPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isRegisterReduction(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions)
      lower(op, rewriter);
  }
};

} // namespace
} // namespace odt
