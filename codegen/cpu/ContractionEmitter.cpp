//===- ContractionEmitter.cpp - one product's loops and epilogue ----------===//
//
// The parallel iterations of a product, the choice of kernel for each
// 2-D product, and the epilogue. See ContractionEmitter.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/ContractionEmitter.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace odt::cpu {

Value ContractionEmitter::prepareOperands(OpBuilder &builder) {
  maps = op.getIndexingMapsArray();
  a = op.getDpsInputs()[0];
  b = op.getDpsInputs()[1];
  Value c = op.getDpsInits()[0];
  // C starting as a constant (the zero of a plain product): the first k
  // block starts its accumulators from that constant instead of reading
  // a filled buffer, and the fill is left to dead-code elimination.
  if (auto fill = c.getDefiningOp<linalg::FillOp>()) {
    Value value = fill.getInputs()[0];
    if (value.getType().isF32() &&
        fill.getOutputs()[0].getType() == c.getType()) {
      initialValue = value;
      c = fill.getOutputs()[0];
    }
  }
  bias = epilogue.bias;
  if (bias)
    c = epilogue.destination;
  if (epilogue.consumer)
    for (OpOperand *input : epilogue.consumer.getDpsInputOperands())
      if (input->get() != op.getResult(0)) {
        extraInputs.push_back(input->get());
        extraInputIsRow.push_back(
            isRowOfResult(epilogue.consumer, *input) &&
            cast<RankedTensorType>(op.getResult(0).getType()).getRank() > 1);
      }

  SmallVector<Range, 4> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(builder, loc);
  for (Range &range : ranges)
    sizes.push_back(getValueOrCreateConstantIndexOp(builder, loc, range.size));

  Type f32 = builder.getF32Type();
  zero = arith::ConstantIndexOp::create(builder, loc, 0);
  one = arith::ConstantIndexOp::create(builder, loc, 1);
  padding = arith::ConstantFloatOp::create(builder, loc, cast<FloatType>(f32),
                                           APFloat(0.0f));
  vectorType = VectorType::get({columns}, f32);
  return c;
}

ContractionEmitter::Distribution
ContractionEmitter::planDistribution(OpBuilder &builder,
                                     ArrayRef<unsigned> outer) {
  Distribution d;
  // Whether k is short enough for the wide row blocks is often known
  // only at run time (k is the batch in a weight gradient): the blocks'
  // shape and the kernel's path are then chosen by k at run time, in one
  // loop nest.
  std::optional<int64_t> staticM = getConstantIntValue(sizes[plan.m]);
  std::optional<int64_t> staticN = getConstantIntValue(sizes[plan.n]);
  if (config.wideRowsMaxK > 0) {
    std::optional<int64_t> staticK = getConstantIntValue(sizes[plan.k]);
    if (!staticK)
      shortK = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ule, sizes[plan.k],
          arith::ConstantIndexOp::create(builder, loc, config.wideRowsMaxK));
    else if (*staticK <= config.wideRowsMaxK)
      shortK =
          arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1);
  }
  int64_t chunkColumns = columns * config.chunkTiles;

  // The parallel iterations (scf.forall; after bufferization they run on
  // the runtime's thread pool): chunks of columns, or, when the columns
  // make a single chunk (an attention head's 32 values) and there are
  // outer dims, the first outer dim (one batch entry per iteration).
  bool byColumns = outer.empty() || !staticN || *staticN > chunkColumns;
  d.parallelDim = byColumns ? plan.n : outer.front();
  columnsInBounds =
      staticN && *staticN % (byColumns ? chunkColumns : columns) == 0;
  d.extent = sizes[d.parallelDim];
  d.step = byColumns
               ? arith::ConstantIndexOp::create(builder, loc, chunkColumns)
               : one;
  // With a short k, one chunk holds all columns (rounded up to whole
  // column tiles).
  if (shortK) {
    int64_t allColumns = llvm::alignTo(*staticN, columns);
    columnsInBounds = columnsInBounds && *staticN % allColumns == 0;
    d.step = arith::SelectOp::create(
        builder, loc, shortK,
        arith::ConstantIndexOp::create(builder, loc, allColumns), d.step);
  }
  d.chunks = arith::CeilDivUIOp::create(builder, loc, d.extent, d.step);
  // Chunks of columns are also cut into blocks of rows (iteration i:
  // row block i / chunks, column chunk i % chunks), so that a thread's
  // consecutive iterations reuse one block of A from L2 across its
  // columns instead of streaming all of A once per chunk.
  // A row count known to fit one block stays static (a 6-filter
  // convolution keeps its one 6-row tile instead of 6 one-row passes).
  d.blockRows =
      byColumns && (shortK || !(staticM && *staticM <= config.rowBlock));
  d.rowStep = arith::ConstantIndexOp::create(builder, loc, config.rowBlock);
  if (shortK)
    d.rowStep = arith::SelectOp::create(
        builder, loc, shortK,
        arith::ConstantIndexOp::create(builder, loc, config.wideRowBlock),
        d.rowStep);
  Value rowBlocks =
      d.blockRows
          ? arith::CeilDivUIOp::create(builder, loc, sizes[plan.m], d.rowStep)
                .getResult()
          : one;
  d.iterations =
      d.blockRows
          ? arith::MulIOp::create(builder, loc, rowBlocks, d.chunks).getResult()
          : d.chunks;
  return d;
}

Value ContractionEmitter::emit(OpBuilder &builder) {
  Value c = prepareOperands(builder);
  // Loops over every dim that is neither m, n nor k.
  SmallVector<unsigned> outer;
  for (unsigned dim = 0; dim < sizes.size(); ++dim)
    if (dim != plan.m && dim != plan.n && dim != plan.k)
      outer.push_back(dim);
  Distribution d = planDistribution(builder, outer);
  if (cache)
    emitPanelCache(builder);
  // A single 2-D product packs all of A once, before its parallel loop
  // (every chunk of columns then reads the panels; a pass over A that the
  // other kernels, where they run instead, do not need). A product with
  // loops around it packs each k block of each 2-D product.
  Value allRowPanelsOfA;
  if (config.rowPanelsOfA && outer.empty())
    allRowPanelsOfA = emitAllRowPanelsOfA(builder);
  auto forall =
      scf::ForallOp::create(builder, loc, ArrayRef<OpFoldResult>{d.iterations},
                            ValueRange{c}, std::nullopt);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(forall.getBody());
  Value index = forall.getInductionVar(0);
  Value cOut = forall.getRegionIterArgs()[0];
  Value first = arith::MulIOp::create(
      builder, loc,
      d.blockRows
          ? arith::RemUIOp::create(builder, loc, index, d.chunks).getResult()
          : index,
      d.step);
  Value width = arith::MinUIOp::create(
      builder, loc, d.step,
      arith::SubIOp::create(builder, loc, d.extent, first));
  columnOffset = first;
  AffineExpr parallelExpr =
      getAffineDimExpr(d.parallelDim, builder.getContext());
  unsigned positionInC = *maps[2].getResultPosition(parallelExpr);
  SmallVector<std::tuple<unsigned, Value, Value>> cutsOfC = {
      {positionInC, first, width}};
  if (d.blockRows) {
    Value firstRow = arith::MulIOp::create(
        builder, loc, arith::DivUIOp::create(builder, loc, index, d.chunks),
        d.rowStep);
    Value rowCount = arith::MinUIOp::create(
        builder, loc, d.rowStep,
        arith::SubIOp::create(builder, loc, sizes[plan.m], firstRow));
    AffineExpr rowExpr = getAffineDimExpr(plan.m, builder.getContext());
    cutsOfC.push_back(
        {*maps[2].getResultPosition(rowExpr), firstRow, rowCount});
    a = slice(builder, a, *maps[0].getResultPosition(rowExpr), firstRow,
              rowCount)
            .value;
    sizes[plan.m] = rowCount;
    if (allRowPanelsOfA) {
      Value rowStep = arith::ConstantIndexOp::create(builder, loc, rows);
      allRowPanelsOfA =
          slice(builder, allRowPanelsOfA, 0,
                arith::DivUIOp::create(builder, loc, firstRow, rowStep),
                arith::CeilDivUIOp::create(builder, loc, rowCount, rowStep))
              .value;
    }
  }
  rowPanelsOfAllK = allRowPanelsOfA;
  Slice cSlice = slice(builder, cOut, cutsOfC);
  // Each operand that the parallel dim moves is cut the same way.
  if (std::optional<unsigned> inA = maps[0].getResultPosition(parallelExpr))
    a = slice(builder, a, *inA, first, width).value;
  if (std::optional<unsigned> inB = maps[1].getResultPosition(parallelExpr))
    b = slice(builder, b, *inB, first, width).value;
  // The consumer's other inputs are laid out as C or run along n, as the
  // bias does.
  for (auto [input, isRow] : llvm::zip(extraInputs, extraInputIsRow))
    if (!isRow)
      input = slice(builder, input, cutsOfC).value;
    else if (d.parallelDim == plan.n)
      input = slice(builder, input, 0, first, width).value;
  if (bias && d.parallelDim == plan.n)
    bias = slice(builder, bias, 0, first, width).value;
  sizes[d.parallelDim] = width;

  SmallVector<Value> scratch = {tensor::EmptyOp::create(
      builder, loc, ArrayRef<int64_t>{depth, columns}, builder.getF32Type())};
  if (config.rowPanelsOfA && !rowPanelsOfAllK) {
    // As many row tiles as a parallel iteration has rows: a block of rows
    // (at most the larger of the two row blocks), else all of m.
    std::optional<int64_t> mostRows =
        d.blockRows ? std::optional<int64_t>(
                          std::max(config.rowBlock, config.wideRowBlock))
                    : getConstantIntValue(sizes[plan.m]);
    SmallVector<OpFoldResult> shape = {
        mostRows ? OpFoldResult(
                       builder.getIndexAttr(llvm::divideCeil(*mostRows, rows)))
                 : OpFoldResult(
                       arith::CeilDivUIOp::create(
                           builder, loc, sizes[plan.m],
                           arith::ConstantIndexOp::create(builder, loc, rows))
                           .getResult()),
        builder.getIndexAttr(depth + kRowPanelPadding),
        builder.getIndexAttr(rows)};
    scratch.push_back(
        tensor::EmptyOp::create(builder, loc, shape, builder.getF32Type()));
  }
  SmallVector<Value> lbs(outer.size(), zero), steps(outer.size(), one), ubs;
  for (unsigned dim : outer)
    ubs.push_back(sizes[dim]);
  LoopIndices at(sizes.size());
  SmallVector<Value> carried = {cSlice.value};
  llvm::append_range(carried, scratch);
  scf::LoopNest nest = scf::buildLoopNest(
      builder, loc, lbs, ubs, steps, carried,
      [&](OpBuilder &nested, Location, ValueRange ivs, ValueRange args) {
        for (auto [dim, iv] : llvm::zip(outer, ivs))
          at[dim] = iv;
        return emitKernels(nested, args[0], args.drop_front(), config.kernels,
                           at);
      });
  builder.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(builder, loc, nest.results.front(),
                                        cOut, cSlice.offsets, cSlice.sizes,
                                        cSlice.strides);
  return forall.getResult(0);
}

ContractionEmitter::Slice ContractionEmitter::slice(OpBuilder &builder,
                                                    Value value, unsigned dim,
                                                    Value first, Value width) {
  return slice(builder, value, {{dim, first, width}});
}

ContractionEmitter::Slice
ContractionEmitter::slice(OpBuilder &builder, Value value,
                          ArrayRef<std::tuple<unsigned, Value, Value>> cuts) {
  Slice result;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  result.offsets.assign(rank, builder.getIndexAttr(0));
  result.strides.assign(rank, builder.getIndexAttr(1));
  result.sizes = tensor::getMixedSizes(builder, loc, value);
  for (auto [dim, first, width] : cuts) {
    result.offsets[dim] = first;
    result.sizes[dim] = width;
  }
  result.value = tensor::ExtractSliceOp::create(
      builder, loc, value, result.offsets, result.sizes, result.strides);
  return result;
}

scf::ValueVector ContractionEmitter::emitKernels(OpBuilder &builder, Value c,
                                                 ValueRange scratch,
                                                 ArrayRef<KernelChoice> choices,
                                                 const LoopIndices &at) {
  const KernelChoice &choice = choices.front();
  if (choices.size() == 1)
    return emitKernel(builder, c, scratch, choice.kernel, at);
  // The choice's conditions: those the sizes decide here are dropped (or
  // rule the choice out); the others are tested at run time.
  std::optional<int64_t> m = getConstantIntValue(sizes[plan.m]);
  std::optional<int64_t> k = getConstantIntValue(sizes[plan.k]);
  SmallVector<Value> terms;
  bool never = false;
  auto atLeast = [&](Value size, int64_t bound,
                     arith::CmpIPredicate predicate) {
    return arith::CmpIOp::create(
        builder, loc, predicate, size,
        arith::ConstantIndexOp::create(builder, loc, bound));
  };
  if (choice.minRows > 0) {
    if (m)
      never |= *m < choice.minRows;
    else
      terms.push_back(
          atLeast(sizes[plan.m], choice.minRows, arith::CmpIPredicate::uge));
  }
  if (choice.maxRows >= 0) {
    if (m)
      never |= *m > choice.maxRows;
    else
      terms.push_back(
          atLeast(sizes[plan.m], choice.maxRows, arith::CmpIPredicate::ule));
  }
  if (choice.minK > 0) {
    // The wide row blocks already test k against their bound.
    if (shortK && choice.minK == config.wideRowsMaxK + 1)
      terms.push_back(arith::XOrIOp::create(
          builder, loc, shortK,
          arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1)));
    else if (k)
      never |= *k < choice.minK;
    else
      terms.push_back(
          atLeast(sizes[plan.k], choice.minK, arith::CmpIPredicate::uge));
  }
  if (never)
    return emitKernels(builder, c, scratch, choices.drop_front(), at);
  if (terms.empty())
    return emitKernel(builder, c, scratch, choice.kernel, at);
  Value condition = terms.front();
  for (Value term : ArrayRef<Value>(terms).drop_front())
    condition = arith::AndIOp::create(builder, loc, condition, term);
  return emitIf(
      builder, condition,
      [&](OpBuilder &then) {
        return SmallVector<Value>(
            emitKernel(then, c, scratch, choice.kernel, at));
      },
      [&](OpBuilder &otherwise) {
        return SmallVector<Value>(
            emitKernels(otherwise, c, scratch, choices.drop_front(), at));
      });
}

scf::ValueVector ContractionEmitter::emitKernel(OpBuilder &builder, Value c,
                                                ValueRange scratch,
                                                ContractionKernel kernel,
                                                const LoopIndices &at) {
  scf::ValueVector results;
  switch (kernel) {
  case ContractionKernel::Packed:
    return emitPacked(builder, c, scratch, at);
  case ContractionKernel::Direct:
    results = {emitDirect(builder, c, at)};
    break;
  case ContractionKernel::Dots:
    results = {emitDots(builder, c, at)};
    break;
  case ContractionKernel::Swapped:
    results = emitSwapped(builder, c, scratch.front(), at);
    scratch = scratch.drop_front();
    break;
  }
  llvm::append_range(results, scratch);
  return results;
}

SmallVector<Value> ContractionEmitter::emitIf(OpBuilder &builder,
                                              Value condition,
                                              BranchBuilder then,
                                              BranchBuilder otherwise) {
  auto choice = scf::IfOp::create(
      builder, loc, condition,
      [&](OpBuilder &b, Location) { scf::YieldOp::create(b, loc, then(b)); },
      [&](OpBuilder &b, Location) {
        scf::YieldOp::create(b, loc, otherwise(b));
      });
  return SmallVector<Value>(choice.getResults());
}

Value ContractionEmitter::applyConsumer(OpBuilder &b, Value value,
                                        int64_t width, const LoopIndices &at) {
  auto widened = [&](Type type) -> Type {
    return width ? VectorType::get({width}, type) : type;
  };
  auto splat = [&](Value scalar) -> Value {
    return width ? vector::BroadcastOp::create(
                       b, loc, widened(scalar.getType()), scalar)
                       .getResult()
                 : scalar;
  };
  Block &body = epilogue.consumer.getRegion().front();
  IRMapping mapping;
  unsigned extra = 0;
  for (OpOperand *input : epilogue.consumer.getDpsInputOperands()) {
    BlockArgument argument = body.getArgument(input->getOperandNumber());
    if (input->get() == op.getResult(0)) {
      mapping.map(argument, value);
      continue;
    }
    Value source = extraInputs[extra];
    SmallVector<Value> indices = indicesOf(2, at);
    if (extraInputIsRow[extra++])
      indices = {indices.back()};
    Type element = cast<ShapedType>(source.getType()).getElementType();
    mapping.map(
        argument,
        width ? vector::TransferReadOp::create(
                    b, loc, cast<VectorType>(widened(element)), source, indices,
                    arith::ConstantOp::create(b, loc, b.getZeroAttr(element)),
                    ArrayRef<bool>{columnsInBounds})
                    .getResult()
              : tensor::ExtractOp::create(b, loc, source, indices).getResult());
  }
  for (Operation &scalar : body.without_terminator()) {
    for (Value operand : scalar.getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand, splat(cloneConstant(b, operand)));
    if (isa<arith::ConstantOp>(scalar)) {
      mapping.map(scalar.getResult(0), splat(b.clone(scalar)->getResult(0)));
      continue;
    }
    Operation *cloned = b.clone(scalar, mapping);
    cloned->getResult(0).setType(widened(scalar.getResult(0).getType()));
  }
  return mapping.lookup(body.getTerminator()->getOperand(0));
}

Value ContractionEmitter::cloneConstant(OpBuilder &b, Value constant) {
  return b.clone(*constant.getDefiningOp())->getResult(0);
}

SmallVector<Value> ContractionEmitter::successors(OpBuilder &builder,
                                                  Value first, unsigned count) {
  SmallVector<Value> values = {first};
  for (unsigned i = 1; i < count; ++i)
    values.push_back(arith::AddIOp::create(
        builder, loc, first, arith::ConstantIndexOp::create(builder, loc, i)));
  return values;
}

SmallVector<Value> ContractionEmitter::indicesOf(unsigned index,
                                                 const LoopIndices &at) {
  SmallVector<Value> indices;
  for (AffineExpr expr : maps[index].getResults())
    indices.push_back(at[cast<AffineDimExpr>(expr).getPosition()]);
  return indices;
}

SmallVector<Value> ContractionEmitter::emitEpilogue(
    OpBuilder &builder, ArrayRef<Value> rowValues, Value kStart, Value kCount,
    ArrayRef<Value> sums, int64_t width, LoopIndices at) {
  auto apply = [&](OpBuilder &b) {
    SmallVector<Value> results;
    for (auto [r, sum] : llvm::enumerate(sums)) {
      at[plan.m] = rowValues[r];
      results.push_back(applyConsumer(b, sum, width, at));
    }
    return results;
  };
  std::optional<int64_t> start = getConstantIntValue(kStart);
  if (start && *start == 0 && kCount == sizes[plan.k])
    return apply(builder);
  Value end = arith::AddIOp::create(builder, loc, kStart, kCount);
  Value last = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     end, sizes[plan.k]);
  return emitIf(builder, last, apply,
                [&](OpBuilder &) { return SmallVector<Value>(sums); });
}

} // namespace odt::cpu
