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

#include "codegen/cpu/BufferRoots.h"
#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>

using namespace mlir;

namespace odt {

#define GEN_PASS_DEF_PARALLELIZEELEMENTWISE
#include "codegen/cpu/Passes.h.inc"

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

/// Marks the loops this pass creates, so that merging knows them.
constexpr StringLiteral kRowChunks = "odt.row_chunks";

/// The buffers `op`'s body reads or writes itself (a gather's memref.load
/// of another buffer, a flag), not through the op's operands.
void bodyBuffers(linalg::LinalgOp op, bool arenaViews,
                 llvm::SmallPtrSetImpl<Value> &reads,
                 llvm::SmallPtrSetImpl<Value> &writes) {
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isa<MemRefType>(operand.getType()) &&
            !op->isAncestor(operand.getParentRegion()->getParentOp())) {
          reads.insert(rootBuffer(operand, arenaViews));
          if (!isa<memref::LoadOp>(inner))
            writes.insert(rootBuffer(operand, arenaViews));
        }
    });
}

/// One step of a group that merging runs in a single parallel loop: a loop
/// of row chunks made here, or a linalg op left whole (one iteration).
struct MergeUnit {
  Operation *op;
  Value count; // iterations; null: one
  llvm::SmallPtrSet<Value, 4> reads, writes;
};

/// The unit `op` makes, if it is one: every buffer it touches is an operand
/// of a linalg op (inputs read, inits written).
std::optional<MergeUnit> mergeUnit(Operation &op) {
  MergeUnit unit{&op, Value(), {}, {}};
  auto record = [&](linalg::LinalgOp linalgOp) {
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()))
        unit.reads.insert(rootBuffer(input->get(), /*arenaViews=*/false));
    for (Value init : linalgOp.getDpsInits())
      unit.writes.insert(rootBuffer(init, /*arenaViews=*/false));
    bodyBuffers(linalgOp, /*arenaViews=*/false, unit.reads, unit.writes);
  };
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureBufferSemantics())
      return std::nullopt;
    record(linalgOp);
    return unit;
  }
  auto loop = dyn_cast<scf::ParallelOp>(op);
  if (!loop || !loop->hasAttr(kRowChunks))
    return std::nullopt;
  for (Operation &inner : loop.getBody()->without_terminator()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner)) {
      if (!linalgOp.hasPureBufferSemantics())
        return std::nullopt;
      record(linalgOp);
    } else if (!isa<memref::SubViewOp>(inner) && !isPure(&inner)) {
      return std::nullopt;
    }
  }
  unit.count = loop.getUpperBound()[0];
  return unit;
}

struct ParallelizeElementwisePass
    : impl::ParallelizeElementwiseBase<ParallelizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    // The function's body and the branches of the choices in it, at any
    // depth: code that runs once per call, outside every loop (after
    // odt-fuse-gradient-accumulation, a BatchNorm's input gradient sits in
    // the branches of its gradients' reset choice).
    SmallVector<Block *> straightLine;
    std::function<void(Block &)> collect = [&](Block &block) {
      straightLine.push_back(&block);
      for (Operation &op : block)
        if (auto choice = dyn_cast<scf::IfOp>(op))
          for (Region &branch : choice->getRegions())
            if (!branch.empty())
              collect(branch.front());
    };
    collect(function.getBody().front());
    for (Block *block : straightLine) {
      sinkFills(*block);
      // Generics and named ops alike (linalg.copy: strided copies such as
      // the attention heads' transposes, linalg.fill). A fill right before
      // the op that writes its buffer runs in that op's chunks.
      SmallVector<linalg::LinalgOp> candidates;
      for (Operation &op : *block)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (!isLeadingFill(linalgOp))
            candidates.push_back(linalgOp);
      for (linalg::LinalgOp linalgOp : candidates)
        parallelize(linalgOp);
      if (merge)
        mergeIndependent(*block);
    }
  }

  /// Whether `op` touches `buffer` (a root of rootBuffer(_, true)), in
  /// itself or in its regions; `arena` is that buffer's own root across
  /// views (the arena it is cut from), which touches it too.
  static bool touches(Operation *op, Value buffer, Value arena) {
    if (isPure(op) && op->getNumRegions() == 0)
      return false; // a view, index arithmetic
    return op
        ->walk([&](Operation *inner) {
          for (Value operand : inner->getOperands())
            if (isa<MemRefType>(operand.getType())) {
              Value root = rootBuffer(operand, /*arenaViews=*/true);
              if (root == buffer || root == arena)
                return WalkResult::interrupt();
            }
          return WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// A fill moves down to just before the first op that touches its buffer
  /// (bufferization leaves it where the tensor program made it, often far
  /// above: a depthwise convolution's zero-filled output), so that it runs
  /// in the chunks of the op that accumulates into it, while the rows are
  /// in cache, and odt-vectorize-rows can start the sums from its value.
  /// The ops it moves past use only buffers live while the filled one is
  /// (filled, not yet read), which odt-plan-arena put at other offsets:
  /// among them, a view of the arena is a buffer of its own.
  void sinkFills(Block &block) {
    SmallVector<linalg::FillOp> fills;
    for (Operation &op : block)
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        if (fill.hasPureBufferSemantics())
          fills.push_back(fill);
    for (linalg::FillOp fill : fills) {
      Value buffer = rootBuffer(fill.getOutputs()[0], /*arenaViews=*/true);
      Value arena = rootBuffer(fill.getOutputs()[0], /*arenaViews=*/false);
      Operation *next = fill->getNextNode();
      while (next && !next->hasTrait<OpTrait::IsTerminator>() &&
             !touches(next, buffer, arena))
        next = next->getNextNode();
      if (next && next != fill->getNextNode())
        fill->moveBefore(next);
    }
  }

  /// `buffer` restricted to [offset, offset + size) along `position`.
  static Value chunkView(OpBuilder &builder, Location loc, Value buffer,
                         unsigned position, Value offset, Value size) {
    unsigned rank = cast<MemRefType>(buffer.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        memref::getMixedSizes(builder, loc, buffer);
    SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
    offsets[position] = offset;
    sizes[position] = size;
    return memref::SubViewOp::create(builder, loc, buffer, offsets, sizes,
                                     strides);
  }

  /// The size of `buffer` along `position`: a constant, or the operand of
  /// the allocation or arena view that made it; null when neither.
  static OpFoldResult sizeOf(Value buffer, unsigned position) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.isDynamicDim(position))
      return IntegerAttr::get(IndexType::get(buffer.getContext()),
                              type.getDimSize(position));
    unsigned dynamicIndex = type.getDynamicDimIndex(position);
    if (auto view = buffer.getDefiningOp<memref::ViewOp>())
      return view.getSizes()[dynamicIndex];
    if (auto alloc = buffer.getDefiningOp<memref::AllocOp>())
      return alloc.getDynamicSizes()[dynamicIndex];
    return OpFoldResult();
  }

  /// The interior of a padded buffer that an op's output `init` is: a
  /// rank-preserving subview of the buffer, or such a subview collapsed
  /// (odt-collapse-elementwise's form, its writer collapsed to fewer
  /// dims); `reshape` is that collapse, if any.
  static memref::SubViewOp interiorOf(Value init,
                                      memref::CollapseShapeOp *reshape) {
    auto collapse = init.getDefiningOp<memref::CollapseShapeOp>();
    if (collapse)
      init = collapse.getSrc();
    auto view = init.getDefiningOp<memref::SubViewOp>();
    if (!view || view.getSourceType().getRank() != view.getType().getRank())
      return nullptr;
    if (reshape)
      *reshape = collapse;
    return view;
  }

  /// Whether a fill of `filled` covers the op's output `init`: it is the
  /// output itself, or the output is the interior of it (a padded buffer
  /// the op writes, whose border the fill zeroes).
  static bool fillsAroundOutput(Value filled, Value init) {
    if (init == filled)
      return true;
    memref::SubViewOp view = interiorOf(init, nullptr);
    return view && view.getSource() == filled;
  }

  /// The fills right before `op` (a run of them) of its outputs, or of the
  /// buffers its outputs are views of.
  static SmallVector<linalg::FillOp> leadingFills(linalg::LinalgOp op) {
    SmallVector<linalg::FillOp> fills;
    for (Operation *previous = op->getPrevNode(); previous;
         previous = previous->getPrevNode()) {
      auto fill = dyn_cast<linalg::FillOp>(previous);
      if (!fill || !fill.hasPureBufferSemantics() ||
          llvm::none_of(op.getDpsInits(), [&](Value init) {
            return fillsAroundOutput(fill.getOutputs()[0], init);
          }))
        break;
      fills.push_back(fill);
    }
    return fills;
  }

  /// The chunk of a fill of `filled` that goes with the chunk of `op` at
  /// `offset` (`size` along the split dim `dim`): the same view as the op's
  /// output when the fill is of the output, else (the output the interior
  /// of the filled buffer) the filled buffer's rows of that chunk, if the
  /// interior spans the whole buffer along the split dim from its start;
  /// collapsed as the interior is, if it is (every dim collapsed into the
  /// split dim spanned), so that the chunk's rows are the op's.
  static Value
  chunkOfFill(OpBuilder &builder, Location loc, linalg::LinalgOp op,
              unsigned dim, Value filled, Value offset, Value size,
              const llvm::DenseMap<std::pair<Value, unsigned>, Value> &views) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      std::optional<unsigned> position =
          resultOfDim(op.getMatchingIndexingMap(&init), dim);
      if (!position)
        continue;
      if (init.get() == filled)
        return views.lookup({filled, *position});
      memref::CollapseShapeOp reshape;
      memref::SubViewOp view = interiorOf(init.get(), &reshape);
      if (!view || view.getSource() != filled ||
          (reshape && !memref::CollapseShapeOp::isGuaranteedCollapsible(
                          cast<MemRefType>(filled.getType()),
                          reshape.getReassociationIndices())))
        continue;
      ReassociationIndices group{int64_t(*position)};
      if (reshape)
        group = reshape.getReassociationIndices()[*position];
      if (llvm::any_of(group, [&](int64_t p) {
            OpFoldResult whole = sizeOf(filled, p);
            return !isConstantIntValue(view.getMixedOffsets()[p], 0) ||
                   !isConstantIntValue(view.getMixedStrides()[p], 1) ||
                   !whole ||
                   !isEqualConstantIntOrValue(whole, view.getMixedSizes()[p]);
          }))
        continue;
      Value rows = filled;
      if (reshape)
        rows = memref::CollapseShapeOp::create(
            builder, loc, filled, reshape.getReassociationIndices());
      return chunkView(builder, loc, rows, *position, offset, size);
    }
    return nullptr;
  }
  static bool isLeadingFill(linalg::LinalgOp op) {
    Operation *next = op->getNextNode();
    while (isa_and_nonnull<linalg::FillOp>(next))
      next = next->getNextNode();
    auto consumer = dyn_cast_or_null<linalg::LinalgOp>(next);
    return isa<linalg::FillOp>(op) && consumer &&
           llvm::is_contained(leadingFills(consumer), op);
  }

  /// Runs of independent loops (with the linalg ops between them) become
  /// one parallel loop over all their iterations: the optimizer's updates
  /// of every parameter, small ones included, are one pass over the pool's
  /// threads instead of one per large weight with the rest serial.
  void mergeIndependent(Block &block) {
    SmallVector<MergeUnit> group;
    auto flush = [&] {
      mergeGroup(group);
      group.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      std::optional<MergeUnit> unit = mergeUnit(op);
      if (!unit) {
        // Index arithmetic and constants between the loops (their bounds)
        // may stay where they are; anything else ends the run.
        if (!isPure(&op) || op.getNumRegions() != 0)
          flush();
        continue;
      }
      // A unit joins the run only if no buffer it writes is touched by
      // the run and none it reads is written by it: their order is free.
      bool independent = true;
      for (const MergeUnit &earlier : group) {
        for (Value written : unit->writes)
          independent &= !earlier.reads.contains(written) &&
                         !earlier.writes.contains(written);
        for (Value read : unit->reads)
          independent &= !earlier.writes.contains(read);
      }
      if (!independent)
        flush();
      group.push_back(std::move(*unit));
    }
    flush();
  }

  void mergeGroup(ArrayRef<MergeUnit> group) {
    // Worth a pass over the threads: a loop already split, or linalg ops
    // that together reach min-elements.
    int64_t elements = 0;
    bool split = false;
    for (const MergeUnit &unit : group) {
      if (unit.count) {
        split = true;
        continue;
      }
      int64_t size = 1;
      for (int64_t range :
           cast<linalg::LinalgOp>(unit.op).getStaticLoopRanges())
        size = ShapedType::isDynamic(range) ? minElements : size * range;
      elements += size;
    }
    if (group.size() < 2 || (!split && elements < minElements))
      return;

    // After the last unit every bound is defined; the units' order among
    // themselves is free and nothing between them touches memory.
    Operation *last = group.back().op;
    OpBuilder builder(last->getContext());
    builder.setInsertionPointAfter(last);
    Location loc = last->getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    SmallVector<Value> starts, ends;
    Value end = zero;
    for (const MergeUnit &unit : group) {
      starts.push_back(end);
      end = arith::AddIOp::create(builder, loc, end,
                                  unit.count ? unit.count : one);
      ends.push_back(end);
    }
    auto loop = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                        ValueRange{end}, ValueRange{one});
    builder.setInsertionPointToStart(loop.getBody());
    Value index = loop.getInductionVars()[0];
    // Iteration `index` runs unit k's iteration index - starts[k], for the
    // first k whose range ends after it.
    std::function<void(OpBuilder &, size_t)> emitFrom = [&](OpBuilder &nested,
                                                            size_t k) {
      auto emitUnit = [&](OpBuilder &body) {
        const MergeUnit &unit = group[k];
        if (!unit.count) {
          body.clone(*unit.op);
          return;
        }
        auto original = cast<scf::ParallelOp>(unit.op);
        IRMapping mapping;
        mapping.map(original.getInductionVars()[0],
                    arith::SubIOp::create(body, loc, index, starts[k]));
        for (Operation &inner : original.getBody()->without_terminator())
          body.clone(inner, mapping);
      };
      if (k + 1 == group.size()) {
        emitUnit(nested);
        return;
      }
      Value inside = arith::CmpIOp::create(
          nested, loc, arith::CmpIPredicate::ult, index, ends[k]);
      auto choice = scf::IfOp::create(
          nested, loc, inside,
          [&](OpBuilder &then, Location) {
            emitUnit(then);
            scf::YieldOp::create(then, loc);
          },
          [&](OpBuilder &otherwise, Location) {
            emitFrom(otherwise, k + 1);
            scf::YieldOp::create(otherwise, loc);
          });
      choice->setAttr(kMergedOpChoice, nested.getUnitAttr());
    };
    emitFrom(builder, 0);
    for (const MergeUnit &unit : group)
      unit.op->erase();
  }

  /// Splits `op` with its leading fills; a fill around its output (not of
  /// the output itself) that does not go into its chunks, or all of them
  /// when `op` stays whole, is split on its own, as it was before it
  /// counted as leading.
  void parallelize(linalg::LinalgOp op) {
    if (splitSum(op))
      return;
    SmallVector<linalg::FillOp> fills = leadingFills(op), whole;
    if (!splitWithFills(op, fills, whole))
      for (linalg::FillOp fill : fills)
        if (!llvm::is_contained(op.getDpsInits(), fill.getOutputs()[0]))
          whole.push_back(fill);
    for (linalg::FillOp fill : whole)
      parallelize(fill);
  }

  /// The rows of `dim` per chunk of an op over `ranges` (chunk-elements
  /// iterations each, counting unknown dims as 1), or nothing when the op
  /// is static and under min-elements. With a dim known only at run time
  /// (the batch), the chunk count is computed then: a small batch makes
  /// one chunk, which the runtime runs on the calling thread.
  std::optional<int64_t> rowsPerChunk(ArrayRef<int64_t> ranges,
                                      unsigned dim) const {
    auto known = [](int64_t size) {
      return ShapedType::isDynamic(size) ? int64_t(1) : size;
    };
    int64_t others = 1;
    for (auto [index, size] : llvm::enumerate(ranges))
      if (index != dim)
        others *= known(size);
    bool dynamic = llvm::any_of(ranges, ShapedType::isDynamic);
    if (!dynamic && others * known(ranges[dim]) < minElements)
      return std::nullopt;
    return std::max<int64_t>(1, llvm::divideCeil(chunkElements, others));
  }

  /// A loop over the chunks of `rows` rows of dim `position` of
  /// `extentSource`, marked as this pass's, with each chunk's first row and
  /// row count; the builder is left at the start of its body.
  struct ChunkLoop {
    scf::ParallelOp loop;
    Value chunk, offset, size;
  };
  static ChunkLoop buildChunkLoop(OpBuilder &builder, Location loc,
                                  Value extentSource, unsigned position,
                                  int64_t rows) {
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value rowCount = arith::ConstantIndexOp::create(builder, loc, rows);
    Value extent = memref::DimOp::create(builder, loc, extentSource, position);
    Value count = arith::CeilDivUIOp::create(builder, loc, extent, rowCount);
    ChunkLoop chunks;
    chunks.loop = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                          ValueRange{count}, ValueRange{one});
    chunks.loop->setAttr(kRowChunks, builder.getUnitAttr());
    builder.setInsertionPointToStart(chunks.loop.getBody());
    chunks.chunk = chunks.loop.getInductionVars()[0];
    chunks.offset = arith::MulIOp::create(builder, loc, chunks.chunk, rowCount);
    Value remaining =
        arith::SubIOp::create(builder, loc, extent, chunks.offset);
    chunks.size = arith::MinUIOp::create(builder, loc, remaining, rowCount);
    return chunks;
  }

  /// `op` cloned at the builder on `operands`. Positions along the split
  /// dim `dim` are relative to the chunk there (an argmax's index,
  /// MaxPool's): shifted back by the chunk's `offset`.
  static void cloneForChunk(OpBuilder &builder, Operation *op,
                            ValueRange operands, unsigned dim, Value offset) {
    Operation *chunk = builder.clone(*op);
    chunk->setOperands(operands);
    chunk->walk([&](linalg::IndexOp index) {
      if (index.getDim() != dim)
        return;
      OpBuilder after(index->getContext());
      after.setInsertionPointAfter(index);
      auto shifted = arith::AddIOp::create(after, index.getLoc(),
                                           index.getResult(), offset);
      index.getResult().replaceAllUsesExcept(shifted, shifted);
    });
  }

  /// Whether a reduction's body adds a value to its output: it yields
  /// `out + value` or `value + out`, and reads `out` nowhere else.
  static bool addsToOutput(linalg::GenericOp op) {
    Block &body = op.getRegion().front();
    BlockArgument out = body.getArguments().back();
    auto add =
        body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
    return add && out.hasOneUse() &&
           (add.getLhs() == out) != (add.getRhs() == out);
  }

  /// A sum of a whole tensor into one f32 (a loss's mean over a large
  /// output: the MSE of an image-sized prediction) as partial sums over
  /// chunks of its outermost dim, in parallel, each from zero, then added
  /// to the output in chunk order: one thread summed the 2 MB of a
  /// convolution layer's squared error while the other waited, a seventh
  /// of that layer's forward step at 2 threads. The chunks are the row
  /// chunks of splitWithFills (by the sizes, not the thread count), so the
  /// sum does not depend on the thread count; it is added in another
  /// order than the serial loop's, which changes it in the last bits.
  /// False when `op` is not such a sum or is small.
  bool splitSum(linalg::LinalgOp linalgOp) {
    auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
    if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumLoops() == 0 || op.getNumReductionLoops() != op.getNumLoops())
      return false;
    Value output = op.getDpsInits()[0];
    auto outputType = cast<MemRefType>(output.getType());
    if (outputType.getRank() != 0 || !outputType.getElementType().isF32() ||
        !addsToOutput(op))
      return false;
    llvm::SmallPtrSet<Value, 4> bodyReads, bodyWrites;
    bodyBuffers(op, /*arenaViews=*/true, bodyReads, bodyWrites);
    if (!bodyReads.empty() || !bodyWrites.empty())
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    const unsigned dim = 0;
    if (ranges[dim] == 1)
      return false;
    // Each input moves with the outermost dim as a plain result, or not at
    // all (passed whole).
    Value extentSource;
    unsigned extentPosition = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      std::optional<unsigned> position = resultOfDim(map, dim);
      if (!position) {
        if (map.isFunctionOfDim(dim))
          return false;
        continue;
      }
      if (!extentSource && isa<MemRefType>(input->get().getType())) {
        extentSource = input->get();
        extentPosition = *position;
      }
    }
    if (!extentSource)
      return false;
    std::optional<int64_t> rows = rowsPerChunk(ranges, dim);
    if (!rows)
      return false;

    OpBuilder builder(op);
    Location loc = op.getLoc();
    Type f32 = builder.getF32Type();
    ChunkLoop chunks =
        buildChunkLoop(builder, loc, extentSource, extentPosition, *rows);
    // One f32 per chunk, on the stack, made before the loop: at most the
    // extent of the outermost dim (the batch) divided by the rows per chunk.
    Value partials;
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(chunks.loop);
      partials = memref::AllocaOp::create(
          builder, loc, MemRefType::get({ShapedType::kDynamic}, f32),
          ValueRange{chunks.loop.getUpperBound()[0]});
    }
    auto partialType =
        cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
            {}, cast<MemRefType>(partials.getType()),
            ArrayRef<OpFoldResult>{chunks.chunk},
            ArrayRef<OpFoldResult>{builder.getIndexAttr(1)},
            ArrayRef<OpFoldResult>{builder.getIndexAttr(1)}));
    Value partial = memref::SubViewOp::create(
        builder, loc, partialType, partials,
        ArrayRef<OpFoldResult>{chunks.chunk},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1)},
        ArrayRef<OpFoldResult>{builder.getIndexAttr(1)});
    Value zeroSum =
        arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0.0));
    linalg::FillOp::create(builder, loc, ValueRange{zeroSum},
                           ValueRange{partial});
    SmallVector<Value> operands;
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<unsigned> position =
          resultOfDim(op.getMatchingIndexingMap(input), dim);
      operands.push_back(position
                             ? chunkView(builder, loc, input->get(), *position,
                                         chunks.offset, chunks.size)
                             : input->get());
    }
    operands.push_back(partial);
    cloneForChunk(builder, op, operands, dim, chunks.offset);
    builder.setInsertionPointAfter(chunks.loop);
    // output += partials[0] + partials[1] + ..., in that order.
    MLIRContext *context = builder.getContext();
    linalg::GenericOp::create(
        builder, loc, ValueRange{partials}, ValueRange{output},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, context),
                            AffineMap::get(1, 0, {}, context)},
        ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
        [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(
              nb, l,
              ValueRange{
                  arith::AddFOp::create(nb, l, args[1], args[0]).getResult()});
        });
    op->erase();
    return true;
  }

  /// `op` as an scf.parallel over row chunks, `fills` in its chunks where
  /// they can be (the others into `whole`); false when it stays as it is.
  bool splitWithFills(linalg::LinalgOp op, ArrayRef<linalg::FillOp> fills,
                      SmallVectorImpl<linalg::FillOp> &whole) {
    if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
      return false;
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
      return false;
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
          return false;
    }
    // Likewise a body that reads one of the op's outputs itself (a gather
    // from the buffer being written) or writes any buffer.
    llvm::SmallPtrSet<Value, 4> bodyReads, bodyWrites;
    bodyBuffers(op, /*arenaViews=*/true, bodyReads, bodyWrites);
    if (!bodyWrites.empty() || llvm::any_of(op.getDpsInits(), [&](Value init) {
          return bodyReads.contains(rootBuffer(init, /*arenaViews=*/true));
        }))
      return false;
    std::optional<int64_t> rows = rowsPerChunk(ranges, dim);
    if (!rows)
      return false;

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
      return false;

    OpBuilder builder(op);
    Location loc = op.getLoc();
    ChunkLoop chunks =
        buildChunkLoop(builder, loc, extentSource, extentPosition, *rows);
    Value offset = chunks.offset, size = chunks.size;

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
      Value view = chunkView(builder, loc, value, *position, offset, size);
      views[{value, *position}] = view;
      operands.push_back(view);
    }
    // The fills of its outputs, on the same views of them, and of the
    // buffers around them, on those buffers' rows of the chunk.
    for (linalg::FillOp fill : llvm::reverse(fills)) {
      Value chunkOutput = chunkOfFill(
          builder, loc, op, dim, fill.getOutputs()[0], offset, size, views);
      if (!chunkOutput) {
        whole.push_back(fill); // before the loop, split on its own
        continue;
      }
      Operation *chunkFill = builder.clone(*fill);
      chunkFill->setOperand(1, chunkOutput);
      fill->erase();
    }
    // By position: one buffer may be read through two different maps, and
    // so through two different views.
    cloneForChunk(builder, op, operands, dim, offset);
    op->erase();
    return true;
  }
};

} // namespace
} // namespace odt
